#!/usr/bin/python3
"""The bcast benchmark: compiled broadcasts against NumPy, PyTorch and STREAM.

Run from the repository root after building (`cmake --build build`):

    /usr/bin/python3 benchmarks/bench.py            # full run, a few minutes
    /usr/bin/python3 benchmarks/bench.py --quick    # fewer repetitions

For every workload it measures, side by side in one run, the median (and min
and max) of repeated runs after warm-up of:
  - bcast's compiled kernel, called in a loop inside the process and timed
    with the runner's clock (no compile time), single-threaded and on all
    cores; kernels take caller-provided buffers (destination-passing style);
  - NumPy's `out=` forms (the baseline) and its natural expression;
  - PyTorch on all cores, `out=` forms and eager natural expressions, where
    torch is installed;
  - `@bcast.jit` from Python on out= arrays allocated once (call overhead
    included), where the Python package is built;
and a STREAM-style copy/triad in C on the same threads, to express each
figure as a fraction of the machine's memory bandwidth. It then measures
compile time of generated modules of 100, 1,000 and 10,000 ops against
mlir-opt on equivalent linalg IR through the same upstream passes.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build")
LLVM_BIN = "/usr/lib/llvm-22/bin"
LLVM_LIB = "/usr/lib/llvm-22/lib"
RUNNER_LIBS = [os.path.join(LLVM_LIB, "libmlir_c_runner_utils.so"),
               os.path.join(LLVM_LIB, "libmlir_runner_utils.so")]
OMP_LIB = os.path.join(LLVM_LIB, "libomp.so")
CPUS = os.cpu_count() or 1

try:
    import torch
except ImportError:  # The PyTorch columns are skipped.
    torch = None

sys.path.insert(0, os.path.join(BUILD, "python"))
try:
    import bcast
except ImportError:  # The @bcast.jit row is skipped.
    bcast = None

#===------------------------------------------------------------------------===#
# Workloads
#===------------------------------------------------------------------------===#

NP_DTYPE = {"f32": np.float32, "f64": np.float64, "i32": np.int32}


class Workload:
    """One benchmark case: operands, the bcast expression, and its forms in
    NumPy and PyTorch.

    kind: "add" (a + b), "chain" ((a + b) * c - d) or "inplace" (a += b).
    dynamic: None, or the broadcast policy of a variant whose kernel takes
    dynamic shapes.
    """

    def __init__(self, name, shapes, dtype="f32", kind="add", dynamic=None):
        self.name = name
        self.shapes = shapes
        self.dtype = dtype
        self.kind = kind
        self.dynamic = dynamic

    @property
    def result_shape(self):
        return list(np.broadcast_shapes(*[tuple(s) for s in self.shapes]))

    def bytes_moved(self):
        """Inputs read once and the output written once."""
        item = np.dtype(NP_DTYPE[self.dtype]).itemsize
        inputs = sum(int(np.prod(s)) for s in self.shapes)
        output = int(np.prod(self.result_shape))
        if self.kind == "inplace":
            output = int(np.prod(self.shapes[0]))
            # The in-place operand is read and written: count it once each.
            return item * (inputs + output)
        return item * (inputs + output)


def workloads(quick):
    n = 4096
    return [
        Workload("row [4096,4096]+[4096]", [[n, n], [n]]),
        Workload("column [4096,4096]+[4096,1]", [[n, n], [n, 1]]),
        Workload("outer [64,1,512]+[1,512,512]", [[64, 1, 512], [1, 512, 512]]),
        Workload("scalar [8,1024,1024]+[]", [[8, 1024, 1024], []]),
        Workload("in-cache [1024,1024]+[1024]", [[1024, 1024], [1024]]),
        Workload("chain (a+b)*c-d", [[n, n], [n], [n, 1], []], kind="chain"),
        Workload("in-place x.add_(y)", [[n, n], [n]], kind="inplace"),
        Workload("row dynamic, numpy policy", [[n, n], [n]], dynamic="numpy"),
        Workload("row dynamic, static policy", [[n, n], [n]],
                 dynamic="static"),
        Workload("row f64", [[n, n], [n]], dtype="f64"),
        Workload("row i32", [[n, n], [n]], dtype="i32"),
    ]


def make_inputs(w):
    rng = np.random.default_rng(0)
    arrays = []
    for shape in w.shapes:
        if w.dtype == "i32":
            arrays.append(rng.integers(-100, 100, size=shape, dtype=np.int32))
        else:
            arrays.append(rng.random(size=shape).astype(NP_DTYPE[w.dtype]))
    return arrays


#===------------------------------------------------------------------------===#
# Timing helpers
#===------------------------------------------------------------------------===#


def time_calls(fn, reps, warmup=3):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def summarize(times):
    return statistics.median(times), min(times), max(times)


#===------------------------------------------------------------------------===#
# NumPy and PyTorch
#===------------------------------------------------------------------------===#


def library_forms(w, operands, out, add, mul, sub):
    """(out= baseline, natural expression) closures over NumPy arrays or
    PyTorch tensors, given the library's out= functions."""
    if w.kind == "chain":
        a, b, c, d = operands

        def baseline():
            add(a, b, out=out)
            mul(out, c, out=out)
            sub(out, d, out=out)

        return baseline, lambda: (a + b) * c - d
    if w.kind == "inplace":
        x, y = operands

        def natural():
            x.__iadd__(y)

        return (lambda: add(x, y, out=x)), natural
    a, b = operands
    return (lambda: add(a, b, out=out)), (lambda: a + b)


def numpy_forms(w, arrays):
    out = np.empty(w.result_shape, dtype=NP_DTYPE[w.dtype])
    return library_forms(w, arrays, out, np.add, np.multiply, np.subtract)


def jit_form(w, arrays):
    """@bcast.jit called from Python on out= arrays allocated once (call
    overhead included, no allocation)."""
    kwargs = {}
    if w.dynamic:
        kwargs = {"dynamic": True, "policy": w.dynamic}
    if w.kind == "chain":
        f = bcast.jit(lambda a, b, c, d: (a + b) * c - d, **kwargs)
    elif w.kind == "inplace":
        def add_(x, y):
            x += y
            return x
        f = bcast.jit(add_, **kwargs)
        f(*arrays)  # compile
        return lambda: f(*arrays)
    else:
        f = bcast.jit(lambda a, b: a + b, **kwargs)
    out = np.empty(w.result_shape, dtype=NP_DTYPE[w.dtype])
    f(*arrays, out=out)  # compile
    return lambda: f(*arrays, out=out)


def torch_forms(w, arrays):
    tensors = [torch.from_numpy(np.ascontiguousarray(a)) for a in arrays]
    out = torch.empty(w.result_shape, dtype=tensors[0].dtype)
    return library_forms(w, tensors, out, torch.add, torch.mul, torch.sub)


#===------------------------------------------------------------------------===#
# bcast kernels through bcast-opt and mlir-runner
#===------------------------------------------------------------------------===#


def mlir_type(shape, dtype, kind="tensor", dynamic=False):
    dims = "".join(("?" if dynamic else str(s)) + "x" for s in shape)
    return f"{kind}<{dims}{dtype}>"


def kernel_module(w, reps, warmup):
    """A module with @kernel in destination-passing style and a @main that
    fills the inputs, calls the kernel warmup + reps times, timing each call
    with rtclock, and prints the times and a checksum."""
    dt = w.dtype
    dyn = w.dynamic is not None
    shapes = w.shapes
    out_shape = w.result_shape
    arg_types = [mlir_type(s, dt, "memref", dyn) for s in shapes]
    tensor_types = [mlir_type(s, dt, "tensor", dyn) for s in shapes]
    out_memref = mlir_type(out_shape, dt, "memref", dyn)
    out_tensor = mlir_type(out_shape, dt, "tensor", dyn)
    lines = []
    params = [f"%m{i}: {t}" for i, t in enumerate(arg_types)]
    if w.kind != "inplace":
        params.append(f"%out: {out_memref}")
    lines.append(f"func.func @kernel({', '.join(params)}) {{")
    for i, (m, t) in enumerate(zip(arg_types, tensor_types)):
        writable = " writable" if (w.kind == "inplace" and i == 0) else ""
        lines.append(f"  %t{i} = bufferization.to_tensor %m{i} restrict"
                     f"{writable} : {m} to {t}")
    if w.kind == "chain":
        t = tensor_types
        ab = mlir_type(np.broadcast_shapes(tuple(shapes[0]), tuple(shapes[1])),
                       dt, "tensor", dyn)
        lines += [
            f"  %s = bcast.add %t0, %t1 : ({t[0]}, {t[1]}) -> {ab}",
            f"  %p = bcast.mul %s, %t2 : ({ab}, {t[2]}) -> {out_tensor}",
            f"  %r = bcast.sub %p, %t3 : ({out_tensor}, {t[3]}) -> "
            f"{out_tensor}",
        ]
        dest = "%out"
        dest_type = out_memref
    elif w.kind == "inplace":
        lines.append(f"  %r = bcast.add_ %t0, %t1 : ({tensor_types[0]}, "
                     f"{tensor_types[1]}) -> {tensor_types[0]}")
        dest, dest_type = "%m0", arg_types[0]
        out_tensor = tensor_types[0]
    else:
        lines.append(f"  %r = bcast.add %t0, %t1 : ({tensor_types[0]}, "
                     f"{tensor_types[1]}) -> {out_tensor}")
        dest, dest_type = "%out", out_memref
    lines.append(f"  bufferization.materialize_in_destination %r in restrict "
                 f"writable {dest} : ({out_tensor}, {dest_type}) -> ()")
    lines.append("  return")
    lines.append("}")

    # @main: static buffers, filled with small values.
    elem = {"f32": "f32", "f64": "f64", "i32": "i32"}[dt]
    one = "1" if dt == "i32" else "1.0"
    lines.append("func.func private @rtclock() -> f64")
    lines.append("func.func private @printMemrefF64(memref<*xf64>)")
    lines.append("func.func @main() {")
    lines.append(f"  %one = arith.constant {one} : {elem}")
    call_args = []
    call_types = []
    all_shapes = list(shapes) + ([] if w.kind == "inplace" else [out_shape])
    for i, s in enumerate(all_shapes):
        st = mlir_type(s, dt, "memref")
        lines.append(f"  %a{i} = memref.alloc() {{alignment = 64}} : {st}")
        lines.append(f"  linalg.fill ins(%one : {elem}) outs(%a{i} : {st})")
        if dyn:
            dt_ = mlir_type(s, dt, "memref", True)
            lines.append(f"  %d{i} = memref.cast %a{i} : {st} to {dt_}")
            call_args.append(f"%d{i}")
            call_types.append(dt_)
        else:
            call_args.append(f"%a{i}")
            call_types.append(st)
    total = reps + warmup
    lines += [
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        f"  %cw = arith.constant {warmup} : index",
        f"  %cn = arith.constant {total} : index",
        f"  %times = memref.alloc() : memref<{reps}xf64>",
        "  scf.for %i = %c0 to %cn step %c1 {",
        "    %t0 = func.call @rtclock() : () -> f64",
        f"    func.call @kernel({', '.join(call_args)}) : "
        f"({', '.join(call_types)}) -> ()",
        "    %t1 = func.call @rtclock() : () -> f64",
        "    %dt = arith.subf %t1, %t0 : f64",
        "    %keep = arith.cmpi uge, %i, %cw : index",
        "    scf.if %keep {",
        "      %j = arith.subi %i, %cw : index",
        f"      memref.store %dt, %times[%j] : memref<{reps}xf64>",
        "    }",
        "  }",
        f"  %u = memref.cast %times : memref<{reps}xf64> to memref<*xf64>",
        "  func.call @printMemrefF64(%u) : (memref<*xf64>) -> ()",
        "  return",
        "}",
    ]
    return "\n".join(lines) + "\n"


def bcast_available():
    tool = os.path.join(BUILD, "bin", "bcast-opt")
    if not os.path.exists(tool):
        return False
    help_text = subprocess.run([tool, "--help"], capture_output=True,
                               text=True).stdout
    return "bcast-to-llvm" in help_text


def run_bcast_kernel(w, reps, warmup, options, threads, workdir):
    """Times of the compiled kernel, in seconds, or an error string."""
    path = os.path.join(workdir, "kernel.mlir")
    with open(path, "w") as f:
        f.write(kernel_module(w, reps, warmup))
    pipeline = "--bcast-to-llvm"
    opts = list(options)
    if w.dynamic:
        opts.append(f"broadcast-policy={w.dynamic}")
    if opts:
        pipeline += "=" + " ".join(opts)
    lowered = subprocess.run(
        [os.path.join(BUILD, "bin", "bcast-opt"), pipeline, path],
        capture_output=True, text=True)
    if lowered.returncode:
        return "bcast-opt failed: " + lowered.stderr.strip()[:300]
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    libs = RUNNER_LIBS + [OMP_LIB]
    run = subprocess.run(
        [os.path.join(LLVM_BIN, "mlir-runner"), "-e", "main",
         "-entry-point-result=void", "-O3",
         "-shared-libs=" + ",".join(libs)],
        input=lowered.stdout, capture_output=True, text=True, env=env)
    if run.returncode:
        return "mlir-runner failed: " + run.stderr.strip()[:300]
    match = re.search(r"data =\s*\[([^\]]*)\]", run.stdout)
    if not match:
        return "no timings in the output"
    return [float(x) for x in match.group(1).split(",")]


#===------------------------------------------------------------------------===#
# STREAM
#===------------------------------------------------------------------------===#


def stream_bandwidth(threads, workdir):
    exe = os.path.join(workdir, "stream")
    if not os.path.exists(exe):
        subprocess.run(["clang-22", "-O3", "-march=native", "-fopenmp",
                        os.path.join(ROOT, "benchmarks", "stream.c"), "-o",
                        exe], check=True)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    out = subprocess.run([exe], capture_output=True, text=True, env=env,
                         check=True).stdout
    copy = float(re.search(r"copy_gbs ([0-9.]+)", out).group(1))
    triad = float(re.search(r"triad_gbs ([0-9.]+)", out).group(1))
    return copy, triad


#===------------------------------------------------------------------------===#
# Compile time
#===------------------------------------------------------------------------===#

# The upstream passes --bcast-to-llvm runs around its own (fusion,
# bufferization, threading, lowering); mlir-opt has no bcast-vectorize-
# elementwise, so its loops are the upstream parallel loops.
UPSTREAM_PIPELINE = (
    "builtin.module(canonicalize,linalg-fuse-elementwise-ops,canonicalize,cse,"
    "eliminate-empty-tensors,one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map},canonicalize,"
    "buffer-deallocation-pipeline,convert-bufferization-to-memref,"
    "convert-linalg-to-parallel-loops,convert-scf-to-openmp,"
    "convert-vector-to-scf,expand-strided-metadata,lower-affine,"
    "finalize-memref-to-llvm,convert-scf-to-cf,convert-vector-to-llvm,"
    "convert-math-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,"
    "convert-func-to-llvm,convert-ub-to-llvm,convert-openmp-to-llvm,"
    "reconcile-unrealized-casts)")

CHAIN_OPS = [("add", "addf", "(d1)", "tensor<32xf32>"),
             ("mul", "mulf", "(d0, 0)", "tensor<64x1xf32>"),
             ("sub", "subf", "()", "tensor<f32>"),
             ("maximum", "maximumf", "(d0, d1)", "tensor<64x32xf32>")]


def generated_modules(num_ops):
    """The same kernels as bcast ops and as hand-written linalg.generic:
    num_ops / 4 functions, each a chain of 4 broadcasting ops."""
    full = "tensor<64x32xf32>"
    args = (f"%a: {full}, %b: tensor<32xf32>, %c: tensor<64x1xf32>, "
            f"%d: tensor<f32>, %e: {full}")
    operands = ["%b", "%c", "%d", "%e"]
    bcast, linalg = [], []
    for f in range(num_ops // 4):
        b_lines = [f"func.func @k{f}({args}) -> {full} {{"]
        l_lines = list(b_lines)
        prev = "%a"
        for i, (op, arith, amap, ty) in enumerate(CHAIN_OPS):
            b_lines.append(f"  %r{i} = bcast.{op} {prev}, {operands[i]} : "
                           f"({full}, {ty}) -> {full}")
            l_lines += [
                f"  %i{i} = tensor.empty() : {full}",
                f"  %r{i} = linalg.generic {{indexing_maps = ["
                f"affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> "
                f"{amap}>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types "
                f"= [\"parallel\", \"parallel\"]}} ins({prev}, {operands[i]} : "
                f"{full}, {ty}) outs(%i{i} : {full}) {{",
                f"  ^bb0(%x: f32, %y: f32, %o: f32):",
                f"    %z = arith.{arith} %x, %y : f32",
                f"    linalg.yield %z : f32",
                f"  }} -> {full}"]
            prev = f"%r{i}"
        for lines in (b_lines, l_lines):
            lines += [f"  return {prev} : {full}", "}"]
        bcast += b_lines
        linalg += l_lines
    return "\n".join(bcast) + "\n", "\n".join(linalg) + "\n"


def time_command(cmd, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def compile_time(workdir, sizes, reps):
    print("compile time (median of %d runs): bcast-opt --bcast-to-llvm vs "
          "mlir-opt on the same kernels written as linalg.generic through "
          "the same upstream passes" % reps)
    widths = [8, 14, 12, 14, 12, 9]
    print(fmt_row(["ops", "bcast-opt ms", "us per op", "mlir-opt ms",
                   "us per op", "ratio"], widths))
    for n in sizes:
        bcast_text, linalg_text = generated_modules(n)
        bpath = os.path.join(workdir, f"gen{n}.mlir")
        lpath = os.path.join(workdir, f"gen{n}-linalg.mlir")
        with open(bpath, "w") as f:
            f.write(bcast_text)
        with open(lpath, "w") as f:
            f.write(linalg_text)
        tb = time_command([os.path.join(BUILD, "bin", "bcast-opt"),
                           "--bcast-to-llvm", bpath, "-o", os.devnull], reps)
        tl = time_command([os.path.join(LLVM_BIN, "mlir-opt"),
                           "--pass-pipeline=" + UPSTREAM_PIPELINE, lpath,
                           "-o", os.devnull], reps)
        print(fmt_row([n, f"{tb * 1e3:.0f}", f"{tb / n * 1e6:.0f}",
                       f"{tl * 1e3:.0f}", f"{tl / n * 1e6:.0f}",
                       f"{tb / tl:.2f}x"], widths))


#===------------------------------------------------------------------------===#
# Main
#===------------------------------------------------------------------------===#


def fmt_row(cols, widths):
    return "  ".join(str(c).rjust(w) if i else str(c).ljust(w)
                     for i, (c, w) in enumerate(zip(cols, widths)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="fewer repetitions")
    parser.add_argument("--only", help="run workloads whose name contains this")
    parser.add_argument("--no-compile-time", action="store_true")
    args = parser.parse_args()
    reps = 5 if args.quick else 20
    workdir = tempfile.mkdtemp(prefix="bcast-bench-")
    if torch is not None:
        torch.set_num_threads(CPUS)

    print(f"machine: {CPUS} cores; NumPy {np.__version__}; PyTorch "
          f"{torch.__version__ if torch else 'not installed'}")
    stream1 = stream_bandwidth(1, workdir)
    streamN = stream_bandwidth(CPUS, workdir)
    print(f"STREAM (C, clang-22 -O3 -march=native, OpenMP): 1 thread copy "
          f"{stream1[0]:.1f} GB/s triad {stream1[1]:.1f} GB/s; {CPUS} threads "
          f"copy {streamN[0]:.1f} GB/s triad {streamN[1]:.1f} GB/s")
    have_bcast = bcast_available()
    if not have_bcast:
        print("bcast: build/bin/bcast-opt with --bcast-to-llvm not found; "
              "its rows are skipped")
    print()

    widths = [30, 26, 9, 9, 9, 7, 7, 8, 8]
    print(fmt_row(["workload", "implementation", "median ms", "min ms",
                   "max ms", "GB/s", "of copy", "vs NumPy", "vs torch"],
                  widths))
    for w in workloads(args.quick):
        if args.only and args.only not in w.name:
            continue
        arrays = make_inputs(w)
        rows = []
        np_out, np_nat = numpy_forms(w, arrays)
        rows.append(("NumPy out= (baseline)", time_calls(np_out, reps), 1))
        rows.append(("NumPy natural", time_calls(np_nat, reps), 1))
        if torch is not None:
            t_out, t_nat = torch_forms(w, arrays)
            rows.append((f"torch out= ({CPUS} thr)", time_calls(t_out, reps),
                         CPUS))
            rows.append((f"torch eager ({CPUS} thr)", time_calls(t_nat, reps),
                         CPUS))
        if bcast is not None:
            rows.append((f"bcast @jit ({CPUS} thr)",
                         time_calls(jit_form(w, arrays), reps), CPUS))
        if have_bcast:
            for threads, options in ((1, ["parallel=false"]), (CPUS, [])):
                times = run_bcast_kernel(w, reps, 3, options, threads,
                                         workdir)
                label = f"bcast ({threads} thr)"
                if isinstance(times, str):
                    print(fmt_row([w.name, label, times], widths[:2] + [60]))
                    continue
                rows.append((label, times, threads))
        np_median = statistics.median(rows[0][1])
        torch_median = (statistics.median(rows[2][1])
                        if torch is not None else None)
        for label, times, threads in rows:
            med, lo, hi = summarize(times)
            gbs = w.bytes_moved() / med / 1e9
            copy = (stream1 if threads == 1 else streamN)[0]
            print(fmt_row([
                w.name, label, f"{med * 1e3:.3f}", f"{lo * 1e3:.3f}",
                f"{hi * 1e3:.3f}", f"{gbs:.1f}", f"{gbs / copy:.0%}",
                f"{np_median / med:.2f}x",
                f"{torch_median / med:.2f}x" if torch_median else "-"
            ], widths))
        print()
    if have_bcast and not args.no_compile_time:
        compile_time(workdir, [100, 1000, 10000], 1 if args.quick else 3)
    shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
