#!/usr/bin/python3
"""The bcast benchmark: compiled broadcasts against NumPy, PyTorch and STREAM.

Run from the repository root after building (`cmake --build build`):

    /usr/bin/python3 benchmarks/bench.py            # full run, about 10 min
    /usr/bin/python3 benchmarks/bench.py --quick    # fewer rounds
    /usr/bin/python3 benchmarks/bench.py --sizes    # @bcast.jit at every size
    /usr/bin/python3 benchmarks/bench.py --sharded  # MPI ranks (docs/Sharding.md)
    /usr/bin/python3 benchmarks/bench.py --reductions  # LayerNorm, softmax...
    /usr/bin/python3 benchmarks/bench.py --matmul  # bcast.matmul (matmul_bench.py)
    /usr/bin/python3 benchmarks/bench.py --torch    # models via bcast.torch

For every workload it measures, side by side in this process, the median
(and min and max) of calls interleaved with the other implementations'
(time_interleaved) of:
  - bcast's compiled kernel, built into a shared object and called through
    ctypes on buffers bound once (no compile time, no allocation),
    single-threaded and on all cores; kernels take caller-provided buffers
    (destination-passing style), and their results are checked against
    NumPy first;
  - NumPy's `out=` forms (the baseline) and its natural expression;
  - PyTorch on all cores, `out=` forms and eager natural expressions, where
    torch is installed;
  - `@bcast.jit` from Python on the same out= array (call overhead
    included), where the Python package is built;
  - the upstream route: the same kernel through the same pipeline with
    upstream's vectorizer (the transform-dialect schedule in
    benchmarks/upstream-vectorize.mlir: tiling, structured.vectorize,
    hoisting) in place of bcast-vectorize-elementwise, on 1 thread and on
    all cores, checked against NumPy the same way; each workload ends with
    the speed-up of bcast's kernels over it;
and a STREAM-style copy/triad in C on the same threads, to express each
figure as a fraction of the machine's memory bandwidth. The reduction
workloads (issue 14: LayerNorm, RMSNorm, softmax over the last dim and dim
0, log-softmax, sum_to_size) compare @bcast.jit kernels of the written-out
expressions with PyTorch's native kernels and its eager expressions. The sizes part
(--sizes, and the default run without --only) times @bcast.jit's call on
tiny arrays against NumPy's and PyTorch's, first calls in fresh processes
with and without the disk cache, and the chain and the row add from 16 to
16M elements against NumPy, PyTorch and numexpr, with a plot. It then measures
compile time of generated modules of 100, 1,000 and 10,000 ops against
mlir-opt on equivalent linalg IR through the same upstream passes.
--torch runs the census models through bcast.torch.compile (run_torch):
inference at batch 1 and 2 and training steps, eager and compiled in turn,
on 1 and 2 threads, and bcast.torch.profile's element-wise share.
docs/Benchmarks.md explains the method and records results.
"""

import argparse
import ctypes
import os
import random
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
CPUS = os.cpu_count() or 1
# Read by the OpenMP runtimes when they start: bcast's kernels use LLVM's
# libomp, PyTorch uses libgomp, both in this process. After a parallel
# region each keeps its threads spinning for a while (measured here: libgomp
# about 8 ms, libomp 200 ms by default), and a runtime spinning on the cores
# slows the other's calls (bcast's row kernel right after torch.add: 3.9 ms
# instead of 2.2 ms). libomp's spin is cut to 10 ms, and time_interleaved
# runs each implementation untimed past both before timing it.
os.environ["OMP_NUM_THREADS"] = str(CPUS)
# bcast.torch's models (--torch) run with libomp's workers sleeping at once,
# as bcast.torch sets it (python/bcast/torch/__init__.py): beside PyTorch's
# and OpenBLAS's threads any spinning starved them.
os.environ.setdefault("KMP_BLOCKTIME", "0" if "--torch" in sys.argv else "10")

try:
    import torch
except ImportError:  # The PyTorch columns are skipped.
    torch = None

bcast = None  # The Python package, if built: load_bcast_package().


def load_bcast_package():
    """Imports the Python package from the build tree, if it was built
    (otherwise the @bcast.jit row is skipped)."""
    global bcast
    sys.path.insert(0, os.path.join(BUILD, "python"))
    try:
        import bcast as package
    except ImportError:
        return
    bcast = package

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
        Workload("row, batch of 1 [1,4096,4096]+[4096]", [[1, n, n], [n]]),
        Workload("column [4096,4096]+[4096,1]", [[n, n], [n, 1]]),
        Workload("outer [64,1,512]+[1,512,512]", [[64, 1, 512], [1, 512, 512]]),
        Workload("scalar [8,1024,1024]+[]", [[8, 1024, 1024], []]),
        Workload("in-cache [1024,1024]+[1024]", [[1024, 1024], [1024]]),
        Workload("chain (a+b)*c-d", [[n, n], [n], [n, 1], []], kind="chain"),
        Workload("in-place x.add_(y)", [[n, n], [n]], kind="inplace"),
        Workload("row dynamic, numpy policy", [[n, n], [n]], dynamic="numpy"),
        # The column's size-1 dimension is `?`: a stride-0 view at run time.
        Workload("column dynamic, numpy policy", [[n, n], [n, 1]],
                 dynamic="numpy"),
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


def time_interleaved(calls, rounds, per_block=3, settle=0.015):
    """Times of each call, in seconds: `rounds` rounds in which every call
    gets a block of `per_block` timed runs, the blocks in a fresh random
    order each round, so that drift in the machine's state (other load,
    clock frequency) falls on all implementations alike. Each block starts
    with untimed runs for `settle` seconds: longer than the OpenMP runtimes
    keep their threads spinning after a parallel region, so that the
    previous block's spinning threads have stopped competing for the cores
    when the timed runs begin, and the caches hold what the call's own
    previous run left there (sleeping instead lets this virtual machine
    lose its cached data and wake slowly)."""
    times = [[] for _ in calls]
    order = list(range(len(calls)))
    shuffle = random.Random(0).shuffle
    for _ in range(rounds):
        shuffle(order)
        for i in order:
            call = calls[i]
            end = time.perf_counter() + settle
            call()
            while time.perf_counter() < end:
                call()
            for _ in range(per_block):
                t0 = time.perf_counter()
                call()
                times[i].append(time.perf_counter() - t0)
    return times


def summarize(times):
    return statistics.median(times), min(times), max(times)


def check_result(w, arrays, out, call, label):
    """Runs `call` once and compares what it wrote with NumPy's result, so
    that a figure is never reported for a kernel that computes the wrong
    thing."""
    if w.kind == "chain":
        a, b, c, d = arrays
        expected = (a + b) * c - d
    else:
        expected = arrays[0] + arrays[1]
    if w.kind != "inplace":
        out.fill(0)
    call()
    got = arrays[0] if w.kind == "inplace" else out
    if not np.allclose(got, expected, rtol=1e-6, atol=0):
        sys.exit(f"bench.py: {label} computed a wrong result for {w.name}")


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


def numpy_forms(w, arrays, out):
    return library_forms(w, arrays, out, np.add, np.multiply, np.subtract)


def jit_form(w, arrays, out):
    """@bcast.jit called from Python on the shared out= array (call overhead
    included, no allocation)."""
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
    f(*arrays, out=out)  # compile
    return lambda: f(*arrays, out=out)


def torch_forms(w, arrays, out):
    """The PyTorch forms on tensors sharing memory with the NumPy arrays."""
    tensors = [torch.from_numpy(a) for a in arrays]
    return library_forms(w, tensors, torch.from_numpy(out), torch.add,
                         torch.mul, torch.sub)


#===------------------------------------------------------------------------===#
# bcast kernels: bcast-opt, then a shared object loaded in this process
#===------------------------------------------------------------------------===#


def mlir_type(shape, dtype, kind="tensor", dynamic=False):
    dims = "".join(("?" if dynamic else str(s)) + "x" for s in shape)
    return f"{kind}<{dims}{dtype}>"


def kernel_module(w):
    """A module with @kernel in destination-passing style: the caller's
    buffers enter as memrefs (bufferization.to_tensor) and the result is
    materialized into the caller's output (or the in-place operand)."""
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
    lines.append(f"func.func @kernel({', '.join(params)}) attributes "
                 "{llvm.emit_c_interface} {")
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
    return "\n".join(lines) + "\n"


def bcast_available():
    tool = os.path.join(BUILD, "bin", "bcast-opt")
    if not os.path.exists(tool):
        return False
    help_text = subprocess.run([tool, "--help"], capture_output=True,
                               text=True).stdout
    return "bcast-to-llvm" in help_text


def memref_descriptor(array):
    """The C layout of a memref<...> argument of an llvm.emit_c_interface
    function: allocated and aligned pointers, offset, sizes, strides (in
    elements)."""
    rank = array.ndim
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
              ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank),
                   ("strides", ctypes.c_int64 * rank)]
    descriptor = type("MemRef", (ctypes.Structure,), {"_fields_": fields})()
    descriptor.allocated = descriptor.aligned = array.ctypes.data
    descriptor.offset = 0
    if rank:
        descriptor.sizes[:] = array.shape
        descriptor.strides[:] = [s // array.itemsize for s in array.strides]
    return descriptor


UPSTREAM_SCHEDULE = os.path.join(ROOT, "benchmarks",
                                 "upstream-vectorize.mlir")


def bcast_to_llvm_flag(options):
    """The --bcast-to-llvm flag with these pipeline options."""
    return "--bcast-to-llvm" + ("=" + " ".join(options) if options else "")


def upstream_route_pipeline(options):
    """The passes `bcast-opt --bcast-to-llvm=<options>` runs, as printed by
    --dump-pass-pipeline, with upstream's vectorizer in place of
    bcast-vectorize-elementwise: the transform schedule
    UPSTREAM_SCHEDULE applied by the transform interpreter, then its
    scf.forall made the parallel loop that convert-scf-to-openmp turns into
    OpenMP (an scf.for with parallel=false)."""
    dump = subprocess.run([os.path.join(BUILD, "bin", "bcast-opt"),
                           bcast_to_llvm_flag(options),
                           "--dump-pass-pipeline"], input="",
                          capture_output=True, text=True).stderr
    text = " ".join(dump[dump.index("builtin.module("):].split())
    text = text.replace("( ", "(").replace(" )", ")").replace(", ", ",")
    forall = ("scf-forall-to-for" if "parallel=false" in options else
              "scf-forall-to-parallel")
    upstream = ("transform-preload-library{transform-library-paths="
                f"{UPSTREAM_SCHEDULE}}},transform-interpreter,"
                f"func.func(canonicalize,{forall},convert-linalg-to-loops)")
    # (bcast-fuse-rows and bcast-vectorize-reductions, which element-wise
    # kernels do not use, go with it; bcast-collapse-dims, which shapes the
    # generic either vectorizer gets, stays.)
    def route(match):
        return ("func.func(bcast-collapse-dims)," if match.group(1) else
                "") + upstream
    text, count = re.subn(r"func\.func\((?:bcast-fuse-rows\{[^}]*\},)?"
                          r"(bcast-collapse-dims,)?"
                          r"bcast-vectorize-elementwise\{[^}]*\},"
                          r"(?:bcast-vectorize-reductions\{[^}]*\},)?"
                          r"convert-linalg-to-loops\)",
                          route, text)
    if count != 1:
        raise RuntimeError("bench.py: bcast-vectorize-elementwise not found "
                           "where expected in --bcast-to-llvm: " + text)
    return text


def upstream_route_note(ir):
    """What upstream's vectorizer made of the kernel, from the IR after the
    transform interpreter: generics it left (scalar loops) and reads it
    could not make vector loads (transfer_reads left there are lowered
    element by element: a dynamic inner stride)."""
    ir = ir[ir.find("IR Dump After"):]
    generics = ir.count("linalg.generic")
    reads = ir.count("vector.transfer_read")
    loads = ir.count("vector.load") + ir.count("vector.maskedload")
    notes = []
    if generics:
        notes.append(f"{generics} generic(s) not vectorized (scalar loops)")
    if reads:
        notes.append(f"{reads} of {reads + loads} reads element by element "
                     "(vector.transfer_read with a dynamic inner stride)")
    masked = ir.count("vector.maskedstore")
    if masked:
        stores = masked + ir.count("vector.store")
        notes.append(f"{masked} of {stores} writes masked (each row's "
                     "remainder past its whole vectors)")
    return "; ".join(notes) or "all reads and writes are vector loads/stores"


class NativeKernel:
    """@kernel compiled by `bcast-opt --bcast-to-llvm` (or, with
    upstream=True, its passes with upstream's vectorizer in place of bcast's:
    upstream_route_pipeline), translated to LLVM IR and built into a shared
    object (clang-22 -O3 -march=native), loaded into this process. Called
    through ctypes on buffers bound once, so a timed call is the kernel and
    one foreign call (about a microsecond), with no compile time and no
    allocation."""

    def __init__(self, w, options, workdir, tag, upstream=False):
        # `tag` names the files: unique per kernel, since loading a path
        # that is already loaded returns the library loaded first.
        base = os.path.join(workdir, tag)
        with open(base + ".mlir", "w") as f:
            f.write(kernel_module(w))
        opts = list(options)
        if w.dynamic:
            opts.append(f"broadcast-policy={w.dynamic}")
        self.error = self.note = None
        if upstream:
            try:
                pipeline = ["--pass-pipeline=" + upstream_route_pipeline(opts),
                            "--mlir-print-ir-after=transform-interpreter"]
            except (RuntimeError, ValueError) as e:
                self.error = str(e)[:300]
                return
        else:
            pipeline = [bcast_to_llvm_flag(opts)]
        steps = [
            [os.path.join(BUILD, "bin", "bcast-opt")] + pipeline +
            [base + ".mlir", "-o", base + ".llvm.mlir"],
            [os.path.join(LLVM_BIN, "mlir-translate"), "--mlir-to-llvmir",
             base + ".llvm.mlir", "-o", base + ".ll"],
            ["clang-22", "-O3", "-march=native", "-shared", "-fPIC",
             "-Wno-override-module", base + ".ll", "-o", base + ".so",
             "-L" + LLVM_LIB, "-lomp", "-Wl,-rpath," + LLVM_LIB],
        ]
        for step in steps:
            done = subprocess.run(step, capture_output=True, text=True)
            if done.returncode:
                self.error = (f"{os.path.basename(step[0])} failed: " +
                              done.stderr.strip()[:300])
                return
            if upstream and step is steps[0]:
                self.note = upstream_route_note(done.stderr)
        self.function = ctypes.CDLL(base + ".so")._mlir_ciface_kernel
        self.function.restype = None

    def bind(self, arrays):
        """A zero-argument call of the kernel on these arrays (operands,
        then the output unless the workload is in place)."""
        descriptors = [memref_descriptor(a) for a in arrays]
        pointers = [ctypes.byref(d) for d in descriptors]
        function = self.function

        def call():
            function(*pointers)

        call.keep = descriptors  # The pointers refer to these.
        return call


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
                "  ^bb0(%x: f32, %y: f32, %o: f32):",
                f"    %z = arith.{arith} %x, %y : f32",
                "    linalg.yield %z : f32",
                f"  }} -> {full}"]
            prev = f"%r{i}"
        for lines in (b_lines, l_lines):
            lines += [f"  return {prev} : {full}", "}"]
        bcast += b_lines
        linalg += l_lines
    return "\n".join(bcast) + "\n", "\n".join(linalg) + "\n"


def time_commands(commands, reps):
    """Median wall time of each command, run in turn `reps` times."""
    times = [[] for _ in commands]
    for _ in range(reps):
        for i, cmd in enumerate(commands):
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            times[i].append(time.perf_counter() - t0)
    return [statistics.median(t) for t in times]


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
        tb, tl = time_commands(
            [[os.path.join(BUILD, "bin", "bcast-opt"), "--bcast-to-llvm",
              bpath, "-o", os.devnull],
             [os.path.join(LLVM_BIN, "mlir-opt"),
              "--pass-pipeline=" + UPSTREAM_PIPELINE, lpath, "-o",
              os.devnull]], reps)
        print(fmt_row([n, f"{tb * 1e3:.0f}", f"{tb / n * 1e6:.0f}",
                       f"{tl * 1e3:.0f}", f"{tl / n * 1e6:.0f}",
                       f"{tb / tl:.2f}x"], widths))


#===------------------------------------------------------------------------===#
# Main
#===------------------------------------------------------------------------===#


BCAST_ROUTE = "bcast"
UPSTREAM_ROUTE = "upstream vectorizer"
NONTEMPORAL_ROUTE = "bcast non-temporal"


def route_ratio(medians, threads):
    """'N thr 1.02x': the upstream route's median over bcast's on N
    threads, or n/a where either kernel did not build."""
    bcast_median = medians.get(f"{BCAST_ROUTE} ({threads} thr)")
    upstream_median = medians.get(f"{UPSTREAM_ROUTE} ({threads} thr)")
    if bcast_median is None or upstream_median is None:
        return f"{threads} thr n/a"
    return f"{threads} thr {upstream_median / bcast_median:.2f}x"


def fmt_row(cols, widths):
    return "  ".join(str(c).rjust(w) if i else str(c).ljust(w)
                     for i, (c, w) in enumerate(zip(cols, widths)))


#===------------------------------------------------------------------------===#
# Math workloads (issue 13): activations, BatchNorm, an Adam step
#===------------------------------------------------------------------------===#

ADAM = dict(lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8)


def math_workloads(quick):
    """(name, bytes that must move, bcast @jit call, reference check,
    [(torch label, call)]) per workload, on fresh inputs. NumPy has no erf or
    fused optimizer, so PyTorch is the reference; bcast runs through
    @bcast.jit (vector-math=libmvec where AVX2 and libmvec exist), whose call
    overhead is negligible at these sizes."""
    rng = np.random.default_rng(0)
    F = torch.nn.functional
    cases = []

    # Bias + GELU (erf form): [4096,4096] + [4096].
    n = 2048 if quick else 4096
    x = rng.standard_normal((n, n), np.float32)
    b = rng.standard_normal(n, np.float32)
    out = np.empty_like(x)
    gelu = bcast.jit(lambda a, c: bcast.gelu(a + c))
    tx, tb = torch.from_numpy(x), torch.from_numpy(b)
    cases.append((f"bias+GELU [{n},{n}]+[{n}]", x.nbytes * 2,
                  lambda: gelu(x, b, out=out),
                  lambda: F.gelu(tx.double() + tb.double()).float(),
                  lambda: out,
                  [("torch eager", lambda: F.gelu(tx + tb))]))

    # SiLU [8,1024,1024].
    s = rng.standard_normal((4 if quick else 8, 1024, 1024), np.float32)
    s_out = np.empty_like(s)
    silu = bcast.jit(lambda a: bcast.silu(a))
    ts, ts_out = torch.from_numpy(s), torch.from_numpy(s_out)
    cases.append((f"SiLU {list(s.shape)}", s.nbytes * 2,
                  lambda: silu(s, out=s_out),
                  lambda: F.silu(ts.double()).float(), lambda: s_out,
                  [("torch eager", lambda: F.silu(ts)),
                   ("torch out=", lambda: torch.mul(ts, torch.sigmoid(ts),
                                                    out=ts_out))]))

    # BatchNorm inference: (x - mean) * rsqrt(var + eps) * w + b on
    # [32,64,56,56] with [C,1,1] statistics.
    shape = (8 if quick else 32, 64, 56, 56)
    bx = rng.standard_normal(shape, np.float32)
    stats = [rng.standard_normal((64, 1, 1), np.float32) for _ in range(4)]
    stats[1] = np.abs(stats[1]) + 0.5  # the variance
    bn_out = np.empty_like(bx)
    eps = 1e-5
    bn = bcast.jit(lambda v, mean, var, w, bias:
                   (v - mean) * bcast.rsqrt(var + eps) * w + bias)
    tbx = torch.from_numpy(bx)
    tmean, tvar, tw, tbias = [torch.from_numpy(a.reshape(64)) for a in stats]
    cases.append((f"BatchNorm {list(shape)}", bx.nbytes * 2,
                  lambda: bn(bx, *stats, out=bn_out),
                  lambda: F.batch_norm(tbx.double(), tmean.double(),
                                       tvar.double(), tw.double(),
                                       tbias.double(), False, 0.0,
                                       eps).float(),
                  lambda: bn_out,
                  [("torch F.batch_norm", lambda: F.batch_norm(
                      tbx, tmean, tvar, tw, tbias, False, 0.0, eps))]))

    # One Adam step on a [4096,4096] parameter, in place on p, m, v.
    def adam_arrays():
        return [rng.standard_normal((n, n), np.float32) * 0.1
                for _ in range(3)] + [np.abs(rng.standard_normal(
                    (n, n), np.float32)) * 0.01]
    p, g, m, v = adam_arrays()
    step = 10
    lr, b1, b2, e = ADAM["lr"], ADAM["beta1"], ADAM["beta2"], ADAM["eps"]
    bc1, bc2 = 1 - b1 ** step, 1 - b2 ** step

    def adam_step(p, g, m, v):
        m *= b1
        m += (1 - b1) * g
        v *= b2
        v += (1 - b2) * g * g
        p -= (lr / bc1) * m / (bcast.sqrt(v) / bc2 ** 0.5 + e)

    adam = bcast.jit(adam_step)
    state = {}
    for foreach in (False, True):
        param = torch.nn.Parameter(torch.from_numpy(p.copy()))
        param.grad = torch.from_numpy(g.copy())
        opt = torch.optim.Adam([param], lr=lr, betas=(b1, b2), eps=e,
                               foreach=foreach)
        opt.step()  # creates the state
        opt.state[param]["exp_avg"].copy_(torch.from_numpy(m))
        opt.state[param]["exp_avg_sq"].copy_(torch.from_numpy(v))
        opt.state[param]["step"].fill_(step - 1)
        state[foreach] = (opt, param)

    def adam_reference():
        # One step from the starting state, in f64.
        pp, gg, mm, vv = (torch.from_numpy(a).double() for a in
                          (p0, g, m0, v0))
        mm = b1 * mm + (1 - b1) * gg
        vv = b2 * vv + (1 - b2) * gg * gg
        return (pp - (lr / bc1) * mm / (vv.sqrt() / bc2 ** 0.5 + e)).float()

    p0, m0, v0 = p.copy(), m.copy(), v.copy()
    cases.append((f"Adam step [{n},{n}]", p.nbytes * 7,
                  lambda: adam(p, g, m, v), adam_reference, lambda: p,
                  [("torch Adam foreach=False", state[False][0].step),
                   ("torch Adam foreach=True", state[True][0].step)]))
    return cases


def run_math_workloads(quick, rounds, stream_copy):
    """Times each math workload's bcast kernel against PyTorch, interleaved,
    after checking its result against PyTorch in f64."""
    if bcast is None or torch is None:
        print("math workloads: need the Python package and PyTorch; skipped")
        return
    print("math workloads (issue 13; bcast through @bcast.jit, vector-math="
          f"{bcast._options._VECTOR_MATH})")
    widths = [30, 27, 9, 9, 9, 7, 7, 9]
    print(fmt_row(["workload", "implementation", "median ms", "min ms",
                   "max ms", "GB/s", "of copy", "vs torch"], widths))
    for name, nbytes, ours, reference, result, theirs in math_workloads(quick):
        ours()
        got = result()
        want = reference().numpy()
        if not np.allclose(got, want, rtol=1e-4, atol=1e-5):
            raise SystemExit(f"{name}: bcast's result differs from PyTorch's "
                             f"(max error {np.max(np.abs(got - want))})")
        calls = [ours] + [call for _, call in theirs]
        times = time_interleaved(calls, rounds)
        torch_median = statistics.median(times[1])
        for label, t in zip([f"bcast @jit ({CPUS} thr)"] +
                            [f"{label} ({CPUS} thr)" for label, _ in theirs],
                            times):
            med, lo, hi = summarize(t)
            gbs = nbytes / med / 1e9
            print(fmt_row([name, label, f"{med * 1e3:.3f}", f"{lo * 1e3:.3f}",
                           f"{hi * 1e3:.3f}", f"{gbs:.1f}",
                           f"{gbs / stream_copy:.0%}",
                           f"{torch_median / med:.2f}x"], widths))
        print()


#===------------------------------------------------------------------------===#
# Reductions (issue 14): normalizations, softmax, sum_to_size
#===------------------------------------------------------------------------===#

LN_EPS = 1e-5


def reduction_workloads(quick, only=None):
    """(name, build) per workload, build() giving (bytes that must move,
    bcast @jit call, f64 reference, result, PyTorch's native call or None,
    the same expression in eager PyTorch), so that one workload's arrays
    exist at a time. bcast's kernels are the expressions written out with
    NumPy's methods under @bcast.jit, as a user writes them, writing into an
    out= array; PyTorch's allocate their results (neither F.layer_norm nor
    torch.softmax takes out=). Bytes: the input read once and the output
    written once (weights included). A workload may add a list of more
    (label, call) rows (one thread, NumPy). Only the workloads whose name
    contains `only` are listed."""
    rng = np.random.default_rng(0)
    F = torch.nn.functional
    rows = 2048 if quick else 8192
    batch = 16 if quick else 64
    full = (1 << 22) if quick else (1 << 24)

    def layer_norm_case():
        x = rng.standard_normal((rows, 1024), np.float32)
        w = rng.standard_normal(1024, np.float32)
        b = rng.standard_normal(1024, np.float32)
        out = np.empty_like(x)

        @bcast.jit
        def layer_norm(t, weight, bias):
            mu = t.mean(axis=-1, keepdims=True)
            centred = t - mu
            var = (centred * centred).mean(axis=-1, keepdims=True)
            return centred * bcast.rsqrt(var + LN_EPS) * weight + bias

        tx, tw, tb = (torch.from_numpy(a) for a in (x, w, b))

        def eager():
            mu = tx.mean(-1, keepdim=True)
            centred = tx - mu
            var = (centred * centred).mean(-1, keepdim=True)
            return centred * torch.rsqrt(var + LN_EPS) * tw + tb

        return (x.nbytes * 2 + w.nbytes + b.nbytes,
                lambda: layer_norm(x, w, b, out=out),
                lambda: F.layer_norm(tx.double(), (1024,), tw.double(),
                                     tb.double(), LN_EPS),
                lambda: out,
                lambda: F.layer_norm(tx, (1024,), tw, tb, LN_EPS), eager)

    def rms_norm_case():
        # PyTorch 1.13 has no native RMSNorm.
        x = rng.standard_normal((rows, 4096), np.float32)
        w = rng.standard_normal(4096, np.float32)
        out = np.empty_like(x)

        @bcast.jit
        def rms_norm(t, weight):
            return t * bcast.rsqrt((t * t).mean(axis=-1, keepdims=True) +
                                   LN_EPS) * weight

        tx, tw = torch.from_numpy(x), torch.from_numpy(w)

        def reference():
            t64 = tx.double()
            return t64 * torch.rsqrt(t64.pow(2).mean(-1, keepdim=True) +
                                     LN_EPS) * tw.double()

        return (x.nbytes * 2 + w.nbytes, lambda: rms_norm(x, w, out=out),
                reference, lambda: out, None,
                lambda: tx * torch.rsqrt((tx * tx).mean(-1, keepdim=True) +
                                         LN_EPS) * tw)

    def logits():
        return (rng.standard_normal((rows, 1024), np.float32) *
                4).astype(np.float32)

    def softmax_case(dim):
        x = logits()
        out = np.empty_like(x)
        tx = torch.from_numpy(x)

        @bcast.jit
        def softmax(t):
            e = np.exp(t - t.max(axis=dim, keepdims=True))
            return e / e.sum(axis=dim, keepdims=True)

        def eager():
            e = torch.exp(tx - tx.amax(dim, keepdim=True))
            return e / e.sum(dim, keepdim=True)

        return (x.nbytes * 2, lambda: softmax(x, out=out),
                lambda: torch.softmax(tx.double(), dim), lambda: out,
                lambda: torch.softmax(tx, dim), eager)

    def log_softmax_case():
        x = logits()
        out = np.empty_like(x)
        tx = torch.from_numpy(x)

        @bcast.jit
        def log_softmax(t):
            shifted = t - t.max(axis=-1, keepdims=True)
            return shifted - np.log(np.exp(shifted).sum(axis=-1,
                                                        keepdims=True))

        def eager():
            shifted = tx - tx.amax(-1, keepdim=True)
            return shifted - torch.log(torch.exp(shifted).sum(-1,
                                                              keepdim=True))

        return (x.nbytes * 2, lambda: log_softmax(x, out=out),
                lambda: torch.log_softmax(tx.double(), -1), lambda: out,
                lambda: torch.log_softmax(tx, -1), eager)

    def sum_to_size_case():
        # The backward of a broadcasting add: the gradient summed back to
        # the [512,1] operand's shape.
        g = rng.standard_normal((batch, 512, 512), np.float32)
        out = np.empty((512, 1), np.float32)
        sum_to_size = bcast.jit(lambda t: bcast.sum_to_size(t, (512, 1)))
        tg = torch.from_numpy(g)
        return (g.nbytes + out.nbytes, lambda: sum_to_size(g, out=out),
                lambda: tg.double().sum_to_size(512, 1), lambda: out,
                lambda: tg.sum_to_size(512, 1),
                lambda: tg.sum(0).sum(-1, keepdim=True))

    def full_sum_case():
        # x.sum() to a scalar: bcast splits the reduced range among the
        # threads (one kept element would otherwise be one task).
        x = rng.standard_normal(full, np.float32)
        out = np.empty((), np.float32)
        every = bcast.jit(lambda t: t.sum())
        one = bcast.jit(lambda t: t.sum(), threads=1)
        tx = torch.from_numpy(x)
        return (x.nbytes, lambda: every(x, out=out),
                lambda: tx.double().sum(), lambda: out,
                lambda: torch.sum(tx), lambda: tx.sum(),
                [("bcast @jit (1 thr)", lambda: one(x, out=out)),
                 ("NumPy np.sum (1 thr)", lambda: np.sum(x))])

    def full_any_case():
        # x.any() over bools, which bcast reads as byte vectors; one True,
        # at the end, so that every byte counts.
        x = np.zeros(full, bool)
        x[-1] = True
        out = np.empty((), bool)
        every = bcast.jit(lambda t: t.any())
        one = bcast.jit(lambda t: t.any(), threads=1)
        tx = torch.from_numpy(x)
        return (x.nbytes, lambda: every(x, out=out), lambda: torch.any(tx),
                lambda: out, lambda: torch.any(tx), lambda: tx.any(),
                [("bcast @jit (1 thr)", lambda: one(x, out=out)),
                 ("NumPy np.any (1 thr)", lambda: np.any(x))])

    builders = [
        (f"LayerNorm [{rows},1024] w, b", layer_norm_case),
        (f"RMSNorm [{rows},4096] w", rms_norm_case),
        (f"softmax [{rows},1024] dim -1", lambda: softmax_case(-1)),
        (f"softmax [{rows},1024] dim 0", lambda: softmax_case(0)),
        (f"log_softmax [{rows},1024] dim -1", log_softmax_case),
        (f"sum_to_size [{batch},512,512] -> [512,1]", sum_to_size_case),
        (f"full sum [{full}] -> []", full_sum_case),
        (f"full any [{full}] bool -> []", full_any_case),
    ]
    return [(name, build) for name, build in builders
            if not only or only in name]


def with_pipeline_options(extra, fn):
    """fn() with every @bcast.jit kernel compiled meanwhile given the extra
    --bcast-to-llvm options `extra` (a benchmark-only hook on the private
    method that makes a kernel's CompileOptions)."""
    jit_class = bcast._dispatch.JitFunction
    original = jit_class._options

    def options(self, device=None):
        compile_options = original(self, device)
        compile_options.text += " " + extra
        return compile_options

    jit_class._options = options
    try:
        return fn()
    finally:
        jit_class._options = original


# Issue 27: bcast's own reduction passes against upstream's route, each
# kernel compiled as bcast's is but for the one option (label, options,
# whether it applies to the workload's name).
REDUCTION_ROUTES = [
    ("bcast, reductions to scalar loops", "vectorize-reductions=false",
     lambda name: True),
    ("bcast, exp by libmvec call", "inline-exp=false",
     lambda name: "softmax" in name and
     bcast._options._VECTOR_MATH.startswith("libmvec")),
]


def check_reduction(name, ours, reference, result, label="bcast"):
    ours()
    got = result()
    want = reference().float().numpy()
    if not np.allclose(got, want, rtol=1e-4, atol=1e-4):
        raise SystemExit(f"{name}: {label}'s result differs from PyTorch's "
                         f"(max error {np.max(np.abs(got - want))})")


def run_reduction_workloads(quick, rounds, stream_copy, only=None):
    """Times each reduction workload's bcast kernel against PyTorch's native
    kernel and the eager expression, interleaved, after checking its result
    against PyTorch in f64; and the same kernel with each of bcast's
    reduction passes replaced by upstream's route (REDUCTION_ROUTES)."""
    if bcast is None or torch is None:
        print("reduction workloads: need the Python package and PyTorch; "
              "skipped")
        return
    print("reduction workloads (issue 14; bcast through @bcast.jit, "
          f"vector-math={bcast._options._VECTOR_MATH}; torch allocates its "
          "results)")
    widths = [34, 33, 9, 9, 9, 7, 7, 9, 8]
    print(fmt_row(["workload", "implementation", "median ms", "min ms",
                   "max ms", "GB/s", "of copy", "vs native", "vs eager"],
                  widths))
    for name, build in reduction_workloads(quick, only):
        nbytes, ours, reference, result, native, eager, *more = build()
        check_reduction(name, ours, reference, result)
        impls = [(f"bcast @jit ({CPUS} thr)", ours)]
        routes = []
        for label, extra, applies in REDUCTION_ROUTES:
            if not applies(name):
                continue
            # Its own arrays and jit functions, compiled (and checked)
            # with the option.
            _, route, route_reference, route_result, *_ = \
                with_pipeline_options(extra, build)
            with_pipeline_options(extra, lambda: check_reduction(
                name, route, route_reference, route_result, label))
            routes.append((label, route))
        if native is not None:
            impls.append((f"torch native ({CPUS} thr)", native))
        # More rows a workload times (one thread, NumPy), before eager.
        impls.extend(more[0] if more else [])
        impls.append((f"torch eager ({CPUS} thr)", eager))
        # Upstream's routes last, so that the ratios' columns keep their
        # places (native second, eager at the end of the others).
        impls.extend(routes)
        times = time_interleaved([call for _, call in impls], rounds)
        medians = [statistics.median(t) for t in times]
        native_median = medians[1] if native is not None else None
        eager_median = medians[len(impls) - len(routes) - 1]
        for (label, _), t in zip(impls, times):
            med, lo, hi = summarize(t)
            gbs = nbytes / med / 1e9
            print(fmt_row([
                name, label, f"{med * 1e3:.3f}", f"{lo * 1e3:.3f}",
                f"{hi * 1e3:.3f}", f"{gbs:.1f}", f"{gbs / stream_copy:.0%}",
                f"{native_median / med:.2f}x" if native_median else "-",
                f"{eager_median / med:.2f}x"], widths))
        if routes:
            print("  bcast's passes against upstream's route (its median / "
                  "bcast's; above 1: bcast's pass faster): " + ", ".join(
                      f"{label}: {statistics.median(t) / medians[0]:.2f}x"
                      for (label, _), t in zip(impls[-len(routes):],
                                               times[-len(routes):])))
        print()


#===------------------------------------------------------------------------===#
# Sizes (issue 15): the chain and the row add from 16 to 16M elements
#===------------------------------------------------------------------------===#

try:
    import numexpr
except ImportError:  # The numexpr column is skipped.
    numexpr = None

SIZE_STEPS = [16 * 4 ** k for k in range(11)]  # 16 .. 16,777,216


def size_shapes(n):
    """[rows, cols] with rows * cols = n: one row up to 1,024 elements."""
    cols = min(n, 1024)
    return n // cols, cols


def size_forms(kind, n):
    """(label, call) per implementation for `kind` ("chain": (a + b) * c - d,
    c a column, d a scalar; "row": a + b) on n f32 elements, each writing
    the same out= array, and a check of bcast's results."""
    rows, cols = size_shapes(n)
    rng = np.random.default_rng(n)
    a = rng.random((rows, cols), np.float32)
    b = rng.random(cols, np.float32)
    c = rng.random((rows, 1), np.float32)
    d = 0.5
    out = np.empty((rows, cols), np.float32)
    forms = []
    if kind == "chain":
        expected = (a + b) * c - np.float32(d)
        one = bcast.jit(lambda a, b, c, d: (a + b) * c - d, threads=1)
        every = bcast.jit(lambda a, b, c, d: (a + b) * c - d)
        forms.append(("bcast @jit 1 thr", lambda: one(a, b, c, d, out=out)))
        forms.append((f"bcast @jit {CPUS} thr",
                      lambda: every(a, b, c, d, out=out)))

        def numpy_out():
            np.add(a, b, out=out)
            np.multiply(out, c, out=out)
            np.subtract(out, d, out=out)

        forms.append(("NumPy out=", numpy_out))
        if torch is not None:
            ta, tb, tc, tout = (torch.from_numpy(x) for x in (a, b, c, out))

            def torch_out():
                torch.add(ta, tb, out=tout)
                torch.mul(tout, tc, out=tout)
                torch.sub(tout, d, out=tout)

            forms.append((f"torch out= {CPUS} thr", torch_out))
        if numexpr is not None:
            forms.append((f"numexpr {CPUS} thr", lambda: numexpr.evaluate(
                "(a + b) * c - d", local_dict={"a": a, "b": b, "c": c,
                                               "d": np.float32(d)},
                out=out)))
    else:
        expected = a + b
        one = bcast.jit(lambda a, b: a + b, threads=1)
        every = bcast.jit(lambda a, b: a + b)
        forms.append(("bcast @jit 1 thr", lambda: one(a, b, out=out)))
        forms.append((f"bcast @jit {CPUS} thr", lambda: every(a, b,
                                                              out=out)))
        forms.append(("NumPy out=", lambda: np.add(a, b, out=out)))
        if torch is not None:
            ta, tb, tout = (torch.from_numpy(x) for x in (a, b, out))
            forms.append((f"torch out= {CPUS} thr",
                          lambda: torch.add(ta, tb, out=tout)))
        if numexpr is not None:
            forms.append((f"numexpr {CPUS} thr", lambda: numexpr.evaluate(
                "a + b", local_dict={"a": a, "b": b}, out=out)))
    for label, call in forms[:2]:
        out.fill(0)
        call()
        if not np.allclose(out, expected, rtol=1e-6, atol=1e-6):
            sys.exit(f"bench.py: {label} computed a wrong result ({kind}, "
                     f"{n} elements)")
    return forms


def run_sizes(rounds, plot_path, steps=SIZE_STEPS):
    """The table (median microseconds per call) and the plot (time per
    element against size, log-log) of the chain and the row add at every
    size, all implementations interleaved per size."""
    if bcast is None:
        print("sizes: needs the Python package; skipped")
        return
    if numexpr is not None:
        numexpr.set_num_threads(CPUS)
    results = {}
    for kind in ("chain", "row"):
        title = ("chain (a + b) * c - d, f32, c a column, d a scalar"
                 if kind == "chain" else "row add a + b, f32")
        print(f"sizes: {title}; median us per call (ratios: the fastest "
              "peer's median over bcast @jit's on 1 thread and on all "
              "cores; above 1: bcast faster)")
        labels = None
        for n in steps:
            forms = size_forms(kind, n)
            labels = [label for label, _ in forms]
            times = time_interleaved([call for _, call in forms],
                                     rounds, per_block=5 if n < 65536 else 3)
            medians = [statistics.median(t) for t in times]
            results.setdefault(kind, {})[n] = dict(zip(labels, medians))
            peers = (min(medians[2:]) if kind == "chain" else medians[2])
            if n == steps[0]:
                widths = [10, 9] + [17] * len(labels) + [8, 8]
                print(fmt_row(["elements", "shape"] + labels +
                              ["1 thr", f"{CPUS} thr"], widths))
            rows, cols = size_shapes(n)
            print(fmt_row([f"{n:,}", f"{rows}x{cols}"] +
                          [f"{m * 1e6:.2f}" for m in medians] +
                          [f"{peers / medians[0]:.2f}x",
                           f"{peers / medians[1]:.2f}x"], widths))
        print("  (ratio: chain against the fastest of NumPy, PyTorch and "
              "numexpr; row add against NumPy)" if kind == "chain" else "")
    if plot_path:
        plot_sizes(results, plot_path)


def plot_sizes(results, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("sizes: no matplotlib (python3-matplotlib); no plot")
        return
    figure, axes = plt.subplots(1, 2, figsize=(12, 4.8), sharey=True)
    for axis, (kind, by_size) in zip(axes, results.items()):
        sizes = sorted(by_size)
        for label in by_size[sizes[0]]:
            axis.plot(sizes, [by_size[n][label] / n * 1e9 for n in sizes],
                      marker="o", markersize=3, label=label)
        axis.set_xscale("log", base=2)
        axis.set_yscale("log")
        axis.set_xlabel("elements (f32)")
        axis.set_title("(a + b) * c - d" if kind == "chain" else "a + b")
        axis.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("ns per element (median of calls)")
    axes[0].legend(fontsize=8)
    figure.suptitle(f"bcast @jit against NumPy, PyTorch and numexpr "
                    f"({CPUS} cores)")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    print(f"sizes: plot written to {path}")


FIRST_CALL_PROGRAM = r"""
import os, sys, time
t0 = time.perf_counter()
import numpy as np
t1 = time.perf_counter()
import bcast
t2 = time.perf_counter()
a = np.ones((64, 64), np.float32); b = np.ones(64, np.float32)
c = np.ones((64, 1), np.float32); out = np.empty_like(a)
f = bcast.jit(lambda a, b, c, d: (a + b) * c - d, cache=CACHE)
t3 = time.perf_counter()
f(a, b, c, 2.0, out=out)
t4 = time.perf_counter()
f(a, b, c, 3.0, out=out)
t5 = time.perf_counter()
print(f"{(t2 - t1) * 1e3:.1f} {(t4 - t3) * 1e3:.2f} {(t5 - t4) * 1e6:.1f} "
      f"{next(iter(f.cache.values())).source}")
"""

BREAKDOWN_PROGRAM = r"""
import time
import numpy as np
import bcast
from bcast import _bcast, _compiled
a = np.ones((64, 64), np.float32); b = np.ones(64, np.float32)
c = np.ones((64, 1), np.float32)
f = bcast.jit(lambda a, b, c, d: (a + b) * c - d)
t0 = time.perf_counter()
_bcast.Module.parse("module {}")
t1 = time.perf_counter()
key, specs, _ = f._specs((a, b, c, 2.0))
trace, outputs, single = f._trace(specs)
t2 = time.perf_counter()
compiled = _compiled._Compiled.__new__(_compiled._Compiled)
compiled.trace, compiled.outputs = trace, outputs
text = compiled._kernel_text(outputs)
module = _bcast.Module.parse(text)
module.verify()
t3 = time.perf_counter()
options = f._options()
module.run_pipeline(options.lowering(), verify_each=False)
t4 = time.perf_counter()
kernel = _bcast.Kernel(module, options.libs)
t5 = time.perf_counter()
print(" ".join(f"{x * 1e3:.1f}" for x in (t1 - t0, t2 - t1, t3 - t2,
                                           t4 - t3, t5 - t4)))
"""


def first_calls(reps):
    """First-call timings in fresh processes: without the disk cache, with
    it when empty (compiles and writes) and when it holds the kernel."""
    if bcast is None:
        return
    env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"))
    cache_dir = tempfile.mkdtemp(prefix="bcast-bench-cache-")
    env["BCAST_CACHE_DIR"] = cache_dir

    def run(program):
        done = subprocess.run([sys.executable, "-c", program], env=env,
                              capture_output=True, text=True, check=True)
        return done.stdout.split()

    print("first call of the chain on 64x64 (fresh processes, medians of "
          f"{reps}; ms)")
    rows = {"no cache": [], "cache, empty (compile and write)": [],
            "cache hit": []}
    for _ in range(reps):
        rows["no cache"].append(run(FIRST_CALL_PROGRAM.replace(
            "CACHE", "False")))
        shutil.rmtree(cache_dir, ignore_errors=True)
        rows["cache, empty (compile and write)"].append(
            run(FIRST_CALL_PROGRAM.replace("CACHE", "True")))
        rows["cache hit"].append(run(FIRST_CALL_PROGRAM.replace(
            "CACHE", "True")))
    widths = [34, 14, 14, 18, 10]
    print(fmt_row(["case", "import bcast", "first call",
                   "second call (us)", "kernel"], widths))
    for label, samples in rows.items():
        med = [statistics.median(float(s[i]) for s in samples)
               for i in range(3)]
        print(fmt_row([label, f"{med[0]:.1f}", f"{med[1]:.2f}",
                       f"{med[2]:.1f}", samples[0][3]], widths))
    parts = [run(BREAKDOWN_PROGRAM) for _ in range(reps)]
    names = ["MLIR context", "trace", "IR text, parse, verify",
             "--bcast-to-llvm", "LLVM -O3 and codegen"]
    print("  where a first call's time goes (ms): " + ", ".join(
        f"{name} {statistics.median(float(p[i]) for p in parts):.1f}"
        for i, name in enumerate(names)))
    shutil.rmtree(cache_dir, ignore_errors=True)


def call_overhead(rounds):
    """The issue's call target: the chain on four [4,16] arrays with out=
    on one thread, against NumPy's three ufunc calls, in the same run."""
    if bcast is None:
        return
    a, b, c, d = (np.full((4, 16), v, np.float32) for v in (1, 2, 3, 4))
    out = np.empty((4, 16), np.float32)
    one = bcast.jit(lambda a, b, c, d: (a + b) * c - d, threads=1)
    every = bcast.jit(lambda a, b, c, d: (a + b) * c - d)
    scalar = bcast.jit(lambda a, b, c, d: (a + b) * c - d, threads=1)
    one(a, b, c, d, out=out)
    every(a, b, c, d, out=out)
    scalar(a, b, c, 4.0, out=out)

    def numpy_out():
        np.add(a, b, out=out)
        np.multiply(out, c, out=out)
        np.subtract(out, d, out=out)

    calls = [("bcast @jit 1 thr", lambda: one(a, b, c, d, out=out)),
             (f"bcast @jit {CPUS} thr", lambda: every(a, b, c, d, out=out)),
             ("bcast @jit 1 thr, d a Python float",
              lambda: scalar(a, b, c, 4.0, out=out)),
             ("NumPy out= (3 ufunc calls)", numpy_out)]
    if torch is not None:
        ta, tb, tc, td, tout = (torch.from_numpy(x) for x in (a, b, c, d,
                                                              out))

        def torch_out():
            torch.add(ta, tb, out=tout)
            torch.mul(tout, tc, out=tout)
            torch.sub(tout, td, out=tout)

        calls.append(("torch out= (3 calls)", torch_out))
    times = time_interleaved([call for _, call in calls], rounds,
                             per_block=20)
    print("call overhead: the chain on four [4,16] f32 arrays with out= "
          "(median us per call)")
    for (label, _), t in zip(calls, times):
        med, lo, _ = summarize(t)
        print(f"  {label:38s} {med * 1e6:7.2f}  (min {lo * 1e6:.2f})")
    print()


# ---------------------------------------------------------------------------
# Sharded: the row broadcast on 1, 2 and 4 MPI ranks
# ---------------------------------------------------------------------------

SHARDED_MODULE = """
shard.grid @grid(shape = {ranks}) {{sym_visibility = "private"}}
func.func @local(%a: tensor<{rows}x{cols}xf32>, %b: tensor<{cols}xf32>)
    -> tensor<{rows}x{cols}xf32> attributes {{llvm.emit_c_interface}} {{
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<{rows}x{cols}xf32>
  %r = bcast.add %a1, %b : (tensor<{rows}x{cols}xf32>, tensor<{cols}xf32>)
      -> tensor<{rows}x{cols}xf32>
  return %r : tensor<{rows}x{cols}xf32>
}}
func.func @gathered(%a: tensor<{rows}x{cols}xf32>, %b: tensor<{cols}xf32>)
    -> tensor<{rows}x{cols}xf32> attributes {{llvm.emit_c_interface}} {{
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<{rows}x{cols}xf32>
  %r = bcast.add %a1, %b : (tensor<{rows}x{cols}xf32>, tensor<{cols}xf32>)
      -> tensor<{rows}x{cols}xf32>
  %r1 = shard.shard %r to %s : tensor<{rows}x{cols}xf32>
  %r2 = shard.shard %r1 to %rep annotate_for_users : tensor<{rows}x{cols}xf32>
  return %r2 : tensor<{rows}x{cols}xf32>
}}
"""


def run_sharded(quick, workdir):
    """The row broadcast `a + b` split by rows over 1, 2 and 4 MPI ranks
    (mpirun.mpich), single-threaded kernels (`parallel=false`: the ranks are
    the parallelism). Strong scaling keeps the global size, weak scaling the
    per-rank size. `local` leaves each rank its block; `gathered` then
    all-gathers the result to every rank, so `gathered - local` is the time
    in communication. Times are medians over calls, each from a barrier
    before the call to a barrier after it."""
    mpirun = shutil.which("mpirun.mpich")
    runtime = os.path.join(BUILD, "lib", "libbcast_mpi_runtime.so")
    if not (mpirun and shutil.which("clang-22") and os.path.exists(runtime)):
        print("sharded: needs mpirun.mpich, clang-22 and "
              "build/lib/libbcast_mpi_runtime.so (MPICH installed at build "
              "time); skipped")
        return
    cols = 2048
    base_rows = 1024 if quick else 4096
    reps = 5 if quick else 21
    print(f"sharded row broadcast a[R,{cols}] + b[{cols}] f32, split by rows, "
          f"{reps} calls, median, barrier to barrier; {CPUS} cores")
    widths = [8, 6, 12, 11, 13, 14, 10]
    print(fmt_row(["scaling", "ranks", "global rows", "local ms",
                   "gathered ms", "comm ms (diff)", "local GB/s"], widths))
    # local GB/s: a read and the result written once, by all ranks together.
    for scaling in ("strong", "weak"):
        for ranks in (1, 2, 4):
            rows = base_rows if scaling == "strong" else base_rows * ranks // 4
            stem = os.path.join(workdir, f"sharded-{scaling}-{ranks}")
            with open(stem + ".mlir", "w") as f:
                f.write(SHARDED_MODULE.format(ranks=ranks, rows=rows,
                                              cols=cols))
            lowered = subprocess.run(
                [os.path.join(BUILD, "bin", "bcast-opt"),
                 "--bcast-to-llvm=parallel=false", stem + ".mlir"],
                check=True, capture_output=True, text=True).stdout
            subprocess.run([LLVM_BIN + "/mlir-translate", "--mlir-to-llvmir",
                            "-o", stem + ".ll"], input=lowered, check=True,
                           text=True)
            lib = os.path.join(BUILD, "lib")
            subprocess.run(
                ["clang-22", "-O2", "-Wno-override-module",
                 "-I/usr/include/x86_64-linux-gnu/mpich",
                 os.path.join(ROOT, "benchmarks", "sharded_bench.c"),
                 stem + ".ll", "-o", stem, "-L" + lib, "-Wl,-rpath," + lib,
                 "-L" + LLVM_LIB, "-Wl,-rpath," + LLVM_LIB,
                 "-lbcast_mpi_runtime", "-lmlir_c_runner_utils",
                 "-lmlir_runner_utils", "-lomp", "-lmpich"], check=True)
            out = subprocess.run(
                ["timeout", "600", mpirun, "-n", str(ranks), stem, str(rows),
                 str(cols), str(reps)],
                check=True, capture_output=True, text=True).stdout.split()
            local_ms, gathered_ms, wrong = float(out[0]), float(out[1]), int(
                out[2])
            if wrong:
                sys.exit(f"sharded: {wrong} wrong elements on {ranks} ranks")
            # All ranks together read a and write the result once.
            total_bytes = 2 * rows * cols * 4
            print(fmt_row([scaling, str(ranks), str(rows), f"{local_ms:.3f}",
                           f"{gathered_ms:.3f}",
                           f"{gathered_ms - local_ms:.3f}",
                           f"{total_bytes / local_ms / 1e6:.1f}"], widths))
    print("(results checked element by element on every rank; with more "
          "ranks than cores the ranks share cores and MPI's shared-memory "
          "transport polls)")


#===------------------------------------------------------------------------===#
# Peers (issue 31): Halide and Numba beside NumPy, PyTorch and numexpr
#===------------------------------------------------------------------------===#


def run_peers(args):
    """benchmarks/peers.py once per thread count (1 and all cores), each in
    a fresh process so that every runtime's thread pool starts at that
    count; then the tables and the plot."""
    import json
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import peers
    sizes = [int(n) for n in args.peer_sizes.split(",")]
    all_results = {}
    copy = {}
    workdir = tempfile.mkdtemp(prefix="bcast-bench-")
    for threads in sorted({1, CPUS}):
        # The copy bandwidth the Adam target is measured against, in this
        # run, just before the thread count's peers.
        copy[threads] = stream_bandwidth(threads, workdir)[0]
        with tempfile.NamedTemporaryFile(suffix=".json") as f:
            subprocess.run([sys.executable, peers.__file__, "--threads",
                            str(threads), "--sizes", args.peer_sizes,
                            "--workloads", args.peer_workloads,
                            "--rounds", str(3 if args.quick else 10),
                            "--build", BUILD, "--json", f.name], check=True)
            data = json.load(open(f.name))
        results = {kind: {int(n): m for n, m in by_size.items()}
                   for kind, by_size in data["results"].items()}
        all_results[threads] = (results, data["notes"])
    print(f"machine: {CPUS} cores; load {os.getloadavg()[0]:.2f} "
          f"{os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    peers.report(all_results, args.peer_plot, sizes, copy)
    shutil.rmtree(workdir, ignore_errors=True)


def run_torch(quick, models=None):
    """bcast.torch.compile against eager PyTorch on the census models
    (benchmarks/torch_models.py builds them): per model and thread count (1
    and 2: torch.set_num_threads for PyTorch's ops, compile(threads=) for
    the kernels, OpenBLAS's own count for both sides' products), eager and compiled inference at batch 1 and 2 timed in
    turn (medians), the training step (forward, backward, Adam through
    bcast.torch.compile(opt.step)) for the three trained models, and
    bcast.torch.profile's element-wise share (kernels, overhead per region,
    eager time of the same ATen ops) at batch 1; then the geometric means."""
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    import torch_models as tm
    import bcast.torch as bt
    reps = 3 if quick else 7
    names = models or (["resnet18", "mobilenet_v3_small",
                        "transformer_block"] if quick else tm.MODELS)
    print(f"\n== bcast.torch against eager PyTorch (load "
          f"{os.getloadavg()[0]:.1f}) ==")
    print(fmt_row(["model", "threads", "batch", "eager ms", "bcast ms",
                   "speedup"], [22, 8, 6, 10, 10, 8]))
    speedups = {"inference": [], "training": []}
    for name in names:
        model, make_input = tm.build(name, 224)
        tm.calibrate(model, make_input)
        model.eval()
        for threads in (1, 2):
            torch.set_num_threads(threads)
            tm.pin_blas_threads(threads)
            compiled = bt.compile(model, verbose=False, threads=threads)
            for batch in (1, 2):
                x = make_input(batch)
                with torch.no_grad():
                    compiled(x)
                    t_eager, t_bcast = tm.interleaved(
                        [lambda: model(x), lambda: compiled(x)], reps)
                speedups["inference"].append(t_eager / t_bcast)
                print(fmt_row([name, threads, batch, f"{1e3 * t_eager:.2f}",
                               f"{1e3 * t_bcast:.2f}",
                               f"{t_eager / t_bcast:.2f}x"],
                              [22, 8, 6, 10, 10, 8]), flush=True)
        torch.set_num_threads(CPUS)
        tm.pin_blas_threads(CPUS)
        with torch.no_grad():
            p = bt.profile(compiled, make_input(1), repeat=reps).to_dict()
        regions = len(p["regions"]) or 1
        print(f"  element-wise share (profile, batch 1): eager "
              f"{1e3 * p['eager_seconds']:.2f} ms, bcast kernels "
              f"{1e3 * p['kernel_seconds']:.2f} ms + overhead "
              f"{1e3 * p['overhead_seconds']:.2f} ms "
              f"({1e6 * p['overhead_seconds'] / regions:.1f} us per region): "
              f"{p['speedup'] or 0:.2f}x", flush=True)
        if name in tm.TRAINED:
            row = tm.run_train(name, 224, 2)
            speedups["training"].append(row["speedup"])
    for kind, values in speedups.items():
        if values:
            geo = float(np.exp(np.mean(np.log(values))))
            print(f"geometric mean, {kind}: {geo:.2f}x over "
                  f"{len(values)} runs; slowest {min(values):.2f}x")
    print(f"load after: {os.getloadavg()[0]:.1f}")


def main():
    global BUILD
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="fewer repetitions")
    parser.add_argument("--only", help="run workloads whose name contains this")
    parser.add_argument("--no-compile-time", action="store_true")
    parser.add_argument("--no-math", action="store_true",
                        help="skip the math workloads (activations, "
                        "BatchNorm, Adam)")
    parser.add_argument("--no-reductions", action="store_true",
                        help="skip the reduction workloads (LayerNorm, "
                        "RMSNorm, softmax, log-softmax, sum_to_size)")
    parser.add_argument("--reductions", action="store_true",
                        help="only STREAM and the reduction workloads "
                        "(with --only: those whose name contains it)")
    parser.add_argument("--build", default=BUILD,
                        help="bcast's build directory (default: build/)")
    parser.add_argument("--compile-sizes", default="100,1000,10000",
                        help="op counts of the compile-time modules")
    parser.add_argument("--sizes", action="store_true",
                        help="only the call overhead, first calls and the "
                        "sizes table and plot (16 to 16M elements)")
    parser.add_argument("--no-sizes", action="store_true",
                        help="skip the sizes table (part of the default "
                        "run)")
    parser.add_argument("--size-steps",
                        default=",".join(str(n) for n in SIZE_STEPS),
                        help="element counts of the sizes table")
    parser.add_argument("--plot", default=os.path.join(
        ROOT, "docs", "bench-sizes.png"),
        help="where --sizes writes its plot (empty: no plot)")
    parser.add_argument("--sharded", action="store_true",
                        help="only the row broadcast on 1, 2 and 4 MPI ranks "
                        "(needs MPICH; docs/Sharding.md)")
    parser.add_argument("--matmul", action="store_true",
                        help="only bcast.matmul against torch.matmul, "
                        "np.matmul and sgemm (benchmarks/matmul_bench.py)")
    parser.add_argument("--torch", action="store_true",
                        help="only the census models through bcast.torch "
                        "(run_torch; needs python3-torchvision)")
    parser.add_argument("--torch-models",
                        help="with --torch: comma-separated model names")
    parser.add_argument("--bcast-options", default="",
                        help="extra --bcast-to-llvm options for the bcast "
                        "kernels, e.g. 'nontemporal-threshold=0'")
    parser.add_argument("--peers", action="store_true",
                        help="only the peers: Halide and Numba beside NumPy, "
                        "PyTorch and numexpr on seven workloads "
                        "(benchmarks/peers.py)")
    parser.add_argument("--peer-sizes", default="16,1024,16384,262144,"
                        "4194304,16777216", help="element counts of --peers")
    parser.add_argument("--peer-workloads",
                        default="row,chain,gelu,softmax,layernorm,rmsnorm,adam",
                        help="workloads of --peers")
    parser.add_argument("--peer-plot", default=os.path.join(
        ROOT, "docs", "bench-peers.png"),
        help="where --peers writes its plot (empty: no plot)")
    args = parser.parse_args()
    extra = args.bcast_options.split()
    BUILD = os.path.abspath(args.build)
    if args.peers:
        run_peers(args)
        return
    if args.sharded:
        run_sharded(args.quick, tempfile.mkdtemp(prefix="bcast-bench-"))
        return
    if args.matmul:
        import matmul_bench
        matmul_bench.main_matmul(args.quick, args.only, BUILD,
                                 " ".join(extra), 3 if args.quick else 10)
        return
    load_bcast_package()
    if args.torch:
        run_torch(args.quick, args.torch_models.split(",")
                  if args.torch_models else None)
        return
    rounds = 3 if args.quick else 10
    workdir = tempfile.mkdtemp(prefix="bcast-bench-")
    if torch is not None:
        torch.set_num_threads(CPUS)

    print(f"machine: {CPUS} cores; NumPy {np.__version__}; PyTorch "
          f"{torch.__version__ if torch else 'not installed'}; numexpr "
          f"{numexpr.__version__ if numexpr else 'not installed'}")
    steps = [int(n) for n in args.size_steps.split(",")]
    if args.sizes:
        call_overhead(rounds)
        first_calls(3 if args.quick else 5)
        run_sizes(rounds, args.plot, steps)
        return
    stream1 = stream_bandwidth(1, workdir)
    streamN = stream_bandwidth(CPUS, workdir)
    print(f"STREAM (C, clang-22 -O3 -march=native, OpenMP): 1 thread copy "
          f"{stream1[0]:.1f} GB/s triad {stream1[1]:.1f} GB/s; {CPUS} threads "
          f"copy {streamN[0]:.1f} GB/s triad {streamN[1]:.1f} GB/s")
    if args.reductions:
        print()
        run_reduction_workloads(args.quick, rounds, streamN[0], args.only)
        return
    have_bcast = bcast_available()
    if not have_bcast:
        print("bcast: build/bin/bcast-opt with --bcast-to-llvm not found; "
              "its rows are skipped")
    print()

    widths = [37, 27, 9, 9, 9, 7, 7, 8, 8]
    print(fmt_row(["workload", "implementation", "median ms", "min ms",
                   "max ms", "GB/s", "of copy", "vs NumPy", "vs torch"],
                  widths))
    for index, w in enumerate(workloads(args.quick)):
        if args.only and args.only not in w.name:
            continue
        arrays = make_inputs(w)
        # One output buffer for every out= form, so that all implementations
        # find the same data in the caches.
        out = (arrays[0] if w.kind == "inplace" else
               np.empty(w.result_shape, dtype=NP_DTYPE[w.dtype]))
        # (label, call, threads, checked, allocates)
        impls = []
        np_out, np_nat = numpy_forms(w, arrays, out)
        impls.append(("NumPy out= (baseline)", np_out, 1, False, False))
        impls.append(("NumPy natural", np_nat, 1, False, w.kind != "inplace"))
        if torch is not None:
            t_out, t_nat = torch_forms(w, arrays, out)
            impls.append((f"torch out= ({CPUS} thr)", t_out, CPUS, False,
                          False))
            impls.append((f"torch eager ({CPUS} thr)", t_nat, CPUS, False,
                          w.kind != "inplace"))
        if bcast is not None:
            impls.append((f"bcast @jit ({CPUS} thr)",
                          jit_form(w, arrays, out), CPUS, True, False))
        notes = []  # Printed below the workload's rows.
        if have_bcast:
            # bcast's pass, then upstream's vectorizer in its place.
            for route, upstream in ((BCAST_ROUTE, False),
                                    (UPSTREAM_ROUTE, True)):
                for threads, options in ((1, ["parallel=false"] + extra),
                                         (CPUS, extra)):
                    label = f"{route} ({threads} thr)"
                    kernel = NativeKernel(
                        w, options, workdir, f"kernel{index}-{threads}" +
                        ("-upstream" if upstream else ""), upstream)
                    if kernel.error:
                        print(fmt_row([w.name, label, kernel.error],
                                      widths[:2] + [60]))
                        continue
                    if kernel.note and threads == CPUS:
                        notes.append(f"{route}: {kernel.note}")
                    bound = kernel.bind(arrays if w.kind == "inplace" else
                                        arrays + [out])
                    impls.append((label, bound, threads, True, False))
            # Issue 27: non-temporal stores for every result (off by
            # default) against bcast's regular stores, same threads.
            kernel = NativeKernel(w, extra + ["nontemporal-threshold=1"],
                                  workdir, f"kernel{index}-nontemporal")
            if not kernel.error:
                impls.append((f"{NONTEMPORAL_ROUTE} ({CPUS} thr)",
                              kernel.bind(arrays if w.kind == "inplace" else
                                          arrays + [out]), CPUS, True, False))
            if w.dynamic:
                # The static-shape kernel on the same data, timed in the same
                # rounds: the reference of the dynamic-policy target.
                static = Workload(w.name, w.shapes, w.dtype, w.kind)
                kernel = NativeKernel(static, extra, workdir,
                                      f"kernel{index}-static")
                if not kernel.error:
                    impls.append((f"bcast static shapes ({CPUS} thr)",
                                  kernel.bind(arrays + [out]), CPUS, True,
                                  False))
        for label, call, _, checked, _ in impls:
            if checked:
                check_result(w, arrays, out, call, label)
        # Calls that allocate their result (natural expressions) fault in
        # fresh pages and evict the caches: they are interleaved among
        # themselves, after the others, so they do not slow whichever call
        # follows them.
        times = [None] * len(impls)
        for allocating in (False, True):
            group = [i for i, impl in enumerate(impls)
                     if impl[4] == allocating]
            for i, t in zip(group, time_interleaved(
                    [impls[i][1] for i in group], rounds)):
                times[i] = t
        np_median = statistics.median(times[0])
        torch_median = (statistics.median(times[2])
                        if torch is not None else None)
        medians = {}
        for (label, _, threads, _, _), t in zip(impls, times):
            med, lo, hi = summarize(t)
            medians[label] = med
            gbs = w.bytes_moved() / med / 1e9
            copy = (stream1 if threads == 1 else streamN)[0]
            print(fmt_row([
                w.name, label, f"{med * 1e3:.3f}", f"{lo * 1e3:.3f}",
                f"{hi * 1e3:.3f}", f"{gbs:.1f}", f"{gbs / copy:.0%}",
                f"{np_median / med:.2f}x",
                f"{torch_median / med:.2f}x" if torch_median else "-"
            ], widths))
        if have_bcast:
            print(f"  {BCAST_ROUTE} vs {UPSTREAM_ROUTE}, same threads "
                  f"(its median / bcast's; above 1: bcast faster): " +
                  ", ".join(route_ratio(medians, t) for t in (1, CPUS)))
            nontemporal = medians.get(f"{NONTEMPORAL_ROUTE} ({CPUS} thr)")
            regular = medians.get(f"{BCAST_ROUTE} ({CPUS} thr)")
            if nontemporal and regular:
                print(f"  non-temporal stores vs regular ({CPUS} thr; their "
                      f"median / bcast's): {nontemporal / regular:.2f}x")
        for note in notes:
            print("  " + note)
        print()
    if not args.no_math:
        run_math_workloads(args.quick, rounds, streamN[0])
    if not args.no_reductions:
        run_reduction_workloads(args.quick, rounds, streamN[0], args.only)
    if not args.no_sizes and not args.only:
        call_overhead(rounds)
        first_calls(3 if args.quick else 5)
        run_sizes(rounds, args.plot, steps)
    if have_bcast and not args.no_compile_time:
        compile_time(workdir, [int(n) for n in args.compile_sizes.split(",")],
                     1 if args.quick else 3)
    shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
