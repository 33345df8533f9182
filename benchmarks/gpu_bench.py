#!/usr/bin/python3
"""The GPU benchmark: bcast's --bcast-to-nvvm kernels against PyTorch on CUDA
and a device-to-device copy.

The GPU machine has no LLVM, so the work is split in three steps:

    /usr/bin/python3 benchmarks/gpu_bench.py build DIR    # here: executables
    python3 DIR/torch_bench.py > torch.txt                 # on the GPU machine
    DIR/bench_<workload> > <workload>.txt                  # on the GPU machine
    /usr/bin/python3 benchmarks/gpu_bench.py report DIR OUTPUTS  # here: table

Each bcast executable is an MLIR module lowered with --bcast-to-nvvm whose
@bcast_test_main allocates device buffers, then calls the kernel (in
destination-passing style on those buffers) 3 + 50 times, timing each call
on the host clock; a call returns once its stream is synchronized, so every
figure includes one launch and one synchronization. torch_bench.py times
PyTorch the same way (each call followed by torch.cuda.synchronize()), for
the out= forms, the eager natural expressions, and a device-to-device copy
of the output's size, the bandwidth reference.
"""

import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
sys.path.insert(0, os.path.join(ROOT, "test", "Integration", "Inputs"))

REPS, WARMUP = 50, 3

WORKLOADS = {
    # name: (shapes, kind)
    "row": ([[4096, 4096], [4096]], "add"),
    "outer": ([[64, 1, 512], [1, 512, 512]], "add"),
    "chain": ([[4096, 4096], [4096], [4096, 1], []], "chain"),
    "row_large": ([[16384, 16384], [16384]], "add"),
}


def mtype(shape, kind="memref"):
    return f"{kind}<" + "".join(f"{s}x" for s in shape) + "f32>"


def result_shape(shapes):
    import numpy as np
    return list(np.broadcast_shapes(*[tuple(s) for s in shapes]))


def module(shapes, kind):
    out = result_shape(shapes)
    memrefs = [mtype(s) for s in shapes] + [mtype(out)]
    tensors = [mtype(s, "tensor") for s in shapes]
    out_t = mtype(out, "tensor")
    lines = [f"func.func @kernel({', '.join(f'%m{i}: {m}' for i, m in enumerate(memrefs))}) {{"]
    for i, (m, t) in enumerate(zip(memrefs, tensors)):
        lines.append(f"  %t{i} = bufferization.to_tensor %m{i} restrict : "
                     f"{m} to {t}")
    if kind == "chain":
        lines += [
            f"  %s = bcast.add %t0, %t1 : ({tensors[0]}, {tensors[1]}) -> {out_t}",
            f"  %p = bcast.mul %s, %t2 : ({out_t}, {tensors[2]}) -> {out_t}",
            f"  %r = bcast.sub %p, %t3 : ({out_t}, {tensors[3]}) -> {out_t}"]
    else:
        lines.append(f"  %r = bcast.add %t0, %t1 : ({tensors[0]}, "
                     f"{tensors[1]}) -> {out_t}")
    n = len(shapes)
    lines += [f"  bufferization.materialize_in_destination %r in restrict "
              f"writable %m{n} : ({out_t}, {memrefs[n]}) -> ()",
              "  return", "}",
              "func.func private @rtclock() -> f64",
              "func.func private @printMemrefF64(memref<*xf64>)",
              "func.func @bcast_test_main() {",
              "  %one = arith.constant 1.0 : f32"]
    for i, m in enumerate(memrefs):
        lines.append(f"  %d{i} = gpu.alloc () : {m}")
        lines.append(f"  gpu.memset %d{i}, %one : {m}, f32")
    total = REPS + WARMUP
    args = ", ".join(f"%d{i}" for i in range(len(memrefs)))
    lines += [
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        f"  %cw = arith.constant {WARMUP} : index",
        f"  %cn = arith.constant {total} : index",
        f"  %times = memref.alloc() : memref<{REPS}xf64>",
        "  scf.for %i = %c0 to %cn step %c1 {",
        "    %t0 = func.call @rtclock() : () -> f64",
        f"    func.call @kernel({args}) : ({', '.join(memrefs)}) -> ()",
        "    %t1 = func.call @rtclock() : () -> f64",
        "    %dt = arith.subf %t1, %t0 : f64",
        "    %keep = arith.cmpi uge, %i, %cw : index",
        "    scf.if %keep {",
        "      %j = arith.subi %i, %cw : index",
        f"      memref.store %dt, %times[%j] : memref<{REPS}xf64>",
        "    }",
        "  }",
        f"  %u = memref.cast %times : memref<{REPS}xf64> to memref<*xf64>",
        "  func.call @printMemrefF64(%u) : (memref<*xf64>) -> ()",
        "  return", "}"]
    return "\n".join(lines) + "\n"


def build(directory):
    import numeric
    os.makedirs(directory, exist_ok=True)
    for name, (shapes, kind) in WORKLOADS.items():
        exe = os.path.join(directory, f"bench_{name}")
        if not numeric.build_gpu_executable(module(shapes, kind), "numpy", "",
                                            exe):
            return 1
        os.remove(exe + ".ll")
    with open(os.path.join(directory, "torch_bench.py"), "w") as f:
        f.write(TORCH_BENCH.replace("@WORKLOADS@", repr(WORKLOADS)))
    return 0


TORCH_BENCH = r'''
import statistics, time, torch
WORKLOADS = @WORKLOADS@
def timed(fn, reps=50, warmup=3):
    for _ in range(warmup):
        fn(); torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter(); fn(); torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return times
dev = torch.device("cuda")
print("device", torch.cuda.get_device_name(0), "torch", torch.__version__)
for name, (shapes, kind) in WORKLOADS.items():
    ts = [torch.ones(s, device=dev) for s in shapes]
    out = torch.empty(torch.broadcast_shapes(*[tuple(s) for s in shapes]), device=dev)
    if kind == "chain":
        a, b, c, d = ts
        def out_form():
            torch.add(a, b, out=out); torch.mul(out, c, out=out); torch.sub(out, d, out=out)
        natural = lambda: (a + b) * c - d
    else:
        a, b = ts
        out_form = lambda: torch.add(a, b, out=out)
        natural = lambda: a + b
    src = torch.ones_like(out)
    copy = lambda: out.copy_(src)
    for label, fn in (("torch_out", out_form), ("torch_eager", natural), ("copy", copy)):
        print(name, label, " ".join("%.9f" % t for t in timed(fn)))
'''


def report(directory, outputs):
    import numpy as np
    torch_times = {}
    with open(os.path.join(outputs, "torch.txt")) as f:
        for line in f:
            parts = line.split()
            if parts and parts[0] in WORKLOADS:
                torch_times[(parts[0], parts[1])] = [float(x) for x in parts[2:]]
            elif parts:
                print(line.strip())
    print(f"{'workload':12} {'impl':12} {'median us':>10} {'min us':>9} "
          f"{'GB/s':>8} {'of copy':>8} {'vs torch out=':>14} {'vs eager':>9}")
    for name, (shapes, kind) in WORKLOADS.items():
        out = result_shape(shapes)
        nbytes = 4 * (sum(int(np.prod(s)) for s in shapes) + int(np.prod(out)))
        copy_bytes = 8 * int(np.prod(out))
        path = os.path.join(outputs, f"{name}.txt")
        with open(path) as f:
            text = f.read()
        data = re.search(r"data = \s*\[([^\]]*)\]", text)
        rows = {"bcast": [float(x) for x in data.group(1).split(",")]}
        for label in ("torch_out", "torch_eager", "copy"):
            rows[label] = torch_times[(name, label)]
        copy_gbs = copy_bytes / statistics.median(rows["copy"]) / 1e9
        for label, times in rows.items():
            med = statistics.median(times)
            moved = copy_bytes if label == "copy" else nbytes
            gbs = moved / med / 1e9
            print(f"{name:12} {label:12} {med * 1e6:10.1f} {min(times) * 1e6:9.1f} "
                  f"{gbs:8.0f} {gbs / copy_gbs:8.0%} "
                  f"{statistics.median(rows['torch_out']) / med:14.2f} "
                  f"{statistics.median(rows['torch_eager']) / med:9.2f}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "build":
        sys.exit(build(sys.argv[2]))
    if len(sys.argv) >= 4 and sys.argv[1] == "report":
        sys.exit(report(sys.argv[2], sys.argv[3]))
    print(__doc__)
    sys.exit(2)
