#!/usr/bin/python3
"""The GPU benchmark: bcast's --bcast-to-nvvm kernels against PyTorch on CUDA
and a device-to-device copy.

The GPU machine has no LLVM, so the work is split in three steps:

    /usr/bin/python3 benchmarks/gpu_bench.py build DIR [NAME...]  # here
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
    # Issue 14's normalizations, written out as a user writes them (one
    # kernel each on the GPU, a block per row), f32.
    "layer_norm": ([[16384, 4096], [4096], [4096]], "layer_norm"),
    "rms_norm": ([[16384, 4096], [4096]], "rms_norm"),
    "softmax": ([[16384, 4096]], "softmax"),
    "softmax_dim0": ([[16384, 4096]], "softmax_dim0"),
    "log_softmax": ([[16384, 4096]], "log_softmax"),
    "sum_to_size": ([[64, 512, 512]], "sum_to_size"),
    # Issue 29's products, f32 (PyTorch's cuBLAS without TF32, its default
    # for matmul): square, and a Linear's weight broadcast over a batch.
    "matmul_1024": ([[1024, 1024], [1024, 1024]], "matmul"),
    "matmul_4096": ([[4096, 4096], [4096, 4096]], "matmul"),
    "matmul_batch": ([[32, 256, 1024], [1024, 1024]], "matmul"),
}

#: The written-out bodies of the reduction workloads (numeric.py's, the
#: ones its GPU execution test checks): bcast ops on %a0, %a1, ..., types
#: written X, S, C, W, R (filled in by module()), the result in %r.
def reduction_bodies():
    import numeric
    return {"softmax": numeric.SOFTMAX, "softmax_dim0": numeric.SOFTMAX_DIM0,
            "log_softmax": numeric.LOG_SOFTMAX,
            "layer_norm": numeric.LAYER_NORM, "rms_norm": numeric.RMS_NORM,
            "sum_to_size": ["%r = bcast.sum_to_size %a0 : (X) -> R"]}


def mtype(shape, kind="memref"):
    return f"{kind}<" + "".join(f"{s}x" for s in shape) + "f32>"


def result_shape(shapes, kind="add"):
    import numpy as np
    if kind == "sum_to_size":
        return [512, 1]
    if kind == "matmul":
        a, b = (np.empty(s, np.int8) for s in shapes)
        return list(np.matmul(a, b).shape)
    return list(np.broadcast_shapes(*[tuple(s) for s in shapes]))


def module(shapes, kind):
    out = result_shape(shapes, kind)
    memrefs = [mtype(s) for s in shapes] + [mtype(out)]
    tensors = [mtype(s, "tensor") for s in shapes]
    out_t = mtype(out, "tensor")
    lines = [f"func.func @kernel({', '.join(f'%m{i}: {m}' for i, m in enumerate(memrefs))}) {{"]
    for i, (m, t) in enumerate(zip(memrefs, tensors)):
        lines.append(f"  %t{i} = bufferization.to_tensor %m{i} restrict : "
                     f"{m} to {t}")
    bodies = reduction_bodies()
    if kind in bodies:
        x = shapes[0]
        types = {"X": tensors[0], "S": mtype(x[:-1] + [1], "tensor"),
                 "C": mtype([1] + x[1:], "tensor"), "R": out_t,
                 "W": mtype(x[-1:], "tensor")}
        for line in bodies[kind]:
            line = re.sub(r"%a(\d)\b", r"%t\1", line)
            if "arith.constant" not in line:
                head, sig = line.rsplit(" : ", 1)
                line = head + " : " + re.sub(r"\b[XSCRW]\b",
                                             lambda m: types[m.group(0)], sig)
            lines.append("  " + line)
    elif kind == "chain":
        lines += [
            f"  %s = bcast.add %t0, %t1 : ({tensors[0]}, {tensors[1]}) -> {out_t}",
            f"  %p = bcast.mul %s, %t2 : ({out_t}, {tensors[2]}) -> {out_t}",
            f"  %r = bcast.sub %p, %t3 : ({out_t}, {tensors[3]}) -> {out_t}"]
    elif kind == "matmul":
        lines.append(f"  %r = bcast.matmul %t0, %t1 : ({tensors[0]}, "
                     f"{tensors[1]}) -> {out_t}")
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


def build(directory, names=()):
    """The executables and torch_bench.py for `names` (all workloads when
    empty)."""
    import numeric
    os.makedirs(directory, exist_ok=True)
    chosen = {n: w for n, w in WORKLOADS.items() if not names or n in names}
    for name, (shapes, kind) in chosen.items():
        exe = os.path.join(directory, f"bench_{name}")
        if not numeric.build_gpu_executable(module(shapes, kind), "numpy", "",
                                            exe):
            return 1
        os.remove(exe + ".ll")
    with open(os.path.join(directory, "torch_bench.py"), "w") as f:
        f.write(TORCH_BENCH.replace("@WORKLOADS@", repr(chosen)))
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
F = torch.nn.functional
for name, (shapes, kind) in WORKLOADS.items():
    ts = [torch.rand(s, device=dev) for s in shapes]
    if kind == "matmul":
        out = torch.empty(torch.matmul(*[torch.empty(s, device="meta") for s in shapes]).shape, device=dev)
    else:
        out = torch.empty(torch.broadcast_shapes(*[tuple(s) for s in shapes]), device=dev)
    if kind in ("softmax", "softmax_dim0", "log_softmax"):
        x, = ts
        dim = 0 if kind == "softmax_dim0" else -1
        native = getattr(torch, kind.replace("_dim0", ""))
        out_form = lambda: native(x, dim)
        def natural():
            d = x - x.amax(dim, keepdim=True)
            e = d.exp()
            if kind == "log_softmax":
                return d - e.sum(dim, keepdim=True).log()
            return e / e.sum(dim, keepdim=True)
    elif kind == "layer_norm":
        x, w, b = ts
        out_form = lambda: F.layer_norm(x, (x.shape[-1],), w, b, 1e-5)
        def natural():
            c = x - x.mean(-1, keepdim=True)
            v = (c * c).mean(-1, keepdim=True)
            return c * torch.rsqrt(v + 1e-5) * w + b
    elif kind == "rms_norm":
        x, w = ts
        natural = lambda: x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w
        # F.rms_norm is PyTorch 2.4's; before it, the eager form is all there is.
        rms = getattr(F, "rms_norm", None)
        out_form = (lambda: rms(x, (x.shape[-1],), w, 1e-6)) if rms else natural
    elif kind == "sum_to_size":
        x, = ts
        out_form = lambda: x.sum_to_size(512, 1)
        natural = lambda: x.sum(0).sum(-1, keepdim=True)
    elif kind == "matmul":
        a, b = ts
        out_form = lambda: torch.matmul(a, b, out=out)
        natural = lambda: a @ b
    elif kind == "chain":
        a, b, c, d = ts
        def out_form():
            torch.add(a, b, out=out); torch.mul(out, c, out=out); torch.sub(out, d, out=out)
        natural = lambda: (a + b) * c - d
    else:
        a, b = ts
        out_form = lambda: torch.add(a, b, out=out)
        natural = lambda: a + b
    # The bandwidth reference: a copy of the largest operand.
    big = max([out] + ts, key=lambda t: t.numel())
    dst, src = torch.empty_like(big), torch.ones_like(big)
    copy = lambda: dst.copy_(src)
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
    print("torch_out is PyTorch's out= form (element-wise) or native kernel "
          "(reductions; rms_norm: the eager form before PyTorch 2.4)")
    print(f"{'workload':12} {'impl':12} {'median us':>10} {'min us':>9} "
          f"{'GB/s':>8} {'of copy':>8} {'vs torch out=':>14} {'vs eager':>9}")
    for name, (shapes, kind) in WORKLOADS.items():
        if (name, "copy") not in torch_times:
            continue  # not built this time (build DIR NAMES...)
        out = result_shape(shapes, kind)
        nbytes = 4 * (sum(int(np.prod(s)) for s in shapes) + int(np.prod(out)))
        copy_bytes = 8 * max(int(np.prod(s)) for s in shapes + [out])
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
        if kind == "matmul":
            a, b = shapes
            flops = 2 * int(np.prod(out)) * a[-1]
            print(f"{name:12} " + "  ".join(
                f"{label} {flops / statistics.median(times) / 1e12:.2f} "
                f"TFLOP/s" for label, times in rows.items()
                if label != "copy"))
    return 0


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "build":
        sys.exit(build(sys.argv[2], sys.argv[3:]))
    if len(sys.argv) >= 4 and sys.argv[1] == "report":
        sys.exit(report(sys.argv[2], sys.argv[3]))
    print(__doc__)
    sys.exit(2)
