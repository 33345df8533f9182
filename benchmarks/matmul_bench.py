#!/usr/bin/python3
"""bcast.matmul against torch.matmul, np.matmul and OpenBLAS's sgemm
(`benchmarks/bench.py --matmul`, issue 29).

Each workload is compiled once by `bcast-opt --bcast-to-llvm` into a shared
object (a kernel in destination-passing style on the caller's buffers, as
bench.py's NativeKernel), linked with libbcast_matmul_runtime.so, and timed
interleaved with the peers in one process (bench.time_interleaved), on 1
thread and on 2: each thread count runs in a child process started with
OPENBLAS_NUM_THREADS/OMP_NUM_THREADS set, since OpenBLAS reads them once.
Every kernel's result is checked against NumPy first (the written-out
attention, `softmax(q @ k.transpose(-1, -2) * s + mask) @ v` with one
`bcast.permute` for the transpose, against torch in f64, and timed against
torch eager with `torch.nn.functional.softmax` and with softmax written
out). Printed per workload:
the medians, GFLOP/s, and the ratios the issue's targets name (bcast over
torch and NumPy, a broadcast batch against the same work as one folded
GEMM, square GEMMs against sgemm called directly). Peak memory: each
implementation runs once in a fresh process, which reports its ru_maxrss
growth over the inputs' allocation.

    /usr/bin/python3 benchmarks/bench.py --matmul [--quick] [--only NAME]
"""

import ctypes
import importlib
import json
import os
import re
import resource
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LLVM_BIN = "/usr/lib/llvm-22/bin"
LLVM_LIB = "/usr/lib/llvm-22/lib"


class Workload:
    """lhs @ rhs (f32), with an optional epilogue: "linear" (+ bias row,
    then GELU) or "attention" (softmax(q @ k^T * s + mask) @ v, written
    out)."""

    def __init__(self, name, lhs, rhs, kind="matmul", folded=None,
                 extra=None):
        self.name, self.lhs, self.rhs, self.kind = name, lhs, rhs, kind
        # The same work as one GEMM (m, k, n), for the folding target.
        self.folded = folded
        self.extra = extra or {}

    @property
    def result(self):
        if self.kind == "attention":
            return list(self.lhs)
        return _matmul_shape(self.lhs, self.rhs)

    def flops(self):
        if self.kind == "attention":
            # q @ k^T and p @ v, 2 * B*H*L*S*D each.
            b, h, l, d = self.lhs
            return 4.0 * b * h * l * self.rhs[2] * d
        k = self.lhs[-1]
        return 2.0 * k * int(np.prod(self.result))

    def inputs(self, rng):
        """The kernel's input arrays (q, k, v, mask for the attention)."""
        arrays = [rng.standard_normal(self.lhs, dtype=np.float32),
                  rng.standard_normal(self.rhs, dtype=np.float32)]
        if self.kind == "attention":
            arrays.append(rng.standard_normal(self.rhs, dtype=np.float32))
            # An additive mask: 0 or -1e4 (a padding mask as BERT's).
            mask = np.where(rng.random(self.extra["mask"]) < 0.2, -1e4,
                            0.0).astype(np.float32)
            arrays.append(mask)
        return arrays


def attention_scale(w):
    return 1.0 / float(np.sqrt(w.lhs[-1]))


def torch_attention(q, k, v, mask, scale, written_out=False):
    """softmax(q @ k.transpose(-1, -2) * scale + mask) @ v in torch eager:
    with torch.nn.functional.softmax, or with softmax written out."""
    import torch
    x = q @ k.transpose(-1, -2) * scale + mask
    if written_out:
        e = torch.exp(x - x.amax(-1, keepdim=True))
        p = e / e.sum(-1, keepdim=True)
    else:
        p = torch.nn.functional.softmax(x, dim=-1)
    return p @ v


def _matmul_shape(a, b):
    batch = np.broadcast_shapes(tuple(a[:-2]), tuple(b[:-2]))
    return list(batch) + ([a[-2]] if len(a) >= 2 else []) + \
        ([b[-1]] if len(b) >= 2 else [])


def workloads(quick):
    sq = [64, 128, 256, 512] if quick else [64, 128, 256, 512, 1024, 2048]
    out = [Workload(f"square {n}", [n, n], [n, n]) for n in sq]
    for n in ([16, 64] if quick else [16, 32, 64]):
        out.append(Workload(f"batched [4096,{n},{n}]", [4096, n, n],
                            [4096, n, n]))
    b = 128 if quick else 512
    out.append(Workload(f"bcast [{b},1,32,32]@[1,{b},32,32]",
                        [b, 1, 32, 32], [1, b, 32, 32],
                        folded=(b * 32, 32, b * 32)))
    # #154128's [4096,256,1,100] @ [256,100,100], scaled to fit: torch
    # expands the rhs to [B,256,100,100] (40 GB at B = 4096).
    b = 64 if quick else 256
    out.append(Workload(f"bcast [{b},256,1,100]@[256,100,100]",
                        [b, 256, 1, 100], [256, 100, 100],
                        folded=(b, 100, 100 * 256)))
    # A Linear with bias and GELU: bcast.gelu(x @ w + b) (the bias and GELU
    # a fused loop after the product; no epilogue fusion into its tiles).
    rows = 1024 if quick else 4096
    out.append(Workload(f"linear+bias+gelu [{rows},1024]@[1024,1024]",
                        [rows, 1024], [1024, 1024], kind="linear"))
    bt, t = (8, 64) if quick else (32, 128)
    out.append(Workload(f"ffn [{bt},{t},1,256]@[1,{t},256,256]",
                        [bt, t, 1, 256], [1, t, 256, 256],
                        folded=(bt, 256, 256 * t)))
    # softmax(q @ k.transpose(-1, -2) * s + mask) @ v, written out, with a
    # padding mask [B,1,1,S] and a causal-style mask [1,1,L,S] (both
    # broadcast over the scores, never materialized).
    b, h, l, d = (2, 12, 128, 64) if quick else (8, 12, 128, 64)
    for mask in ([b, 1, 1, l], [1, 1, l, l]):
        out.append(Workload(
            f"attention [{b},{h},{l},{d}] mask [{','.join(map(str, mask))}]",
            [b, h, l, d], [b, h, l, d], kind="attention",
            extra={"mask": mask}))
    return out


def mlir_type(shape, kind="tensor"):
    return f"{kind}<{''.join(f'{s}x' for s in shape)}f32>"


def kernel_module(w):
    ta, tb, tr = (mlir_type(w.lhs), mlir_type(w.rhs), mlir_type(w.result))
    ma, mb, mr = (mlir_type(w.lhs, "memref"), mlir_type(w.rhs, "memref"),
                  mlir_type(w.result, "memref"))
    if w.kind == "linear":
        n = w.result[-1]
        mbias, tbias = mlir_type([n], "memref"), mlir_type([n])
        return f"""func.func @kernel(%a: {ma}, %b: {mb}, %bias: {mbias}, %out: {mr}) attributes {{llvm.emit_c_interface}} {{
  %ta = bufferization.to_tensor %a restrict : {ma} to {ta}
  %tb = bufferization.to_tensor %b restrict : {mb} to {tb}
  %tbias = bufferization.to_tensor %bias restrict : {mbias} to {tbias}
  %p = bcast.matmul %ta, %tb : ({ta}, {tb}) -> {tr}
  %s = bcast.add %p, %tbias : ({tr}, {tbias}) -> {tr}
  %r = bcast.gelu %s : ({tr}) -> {tr}
  bufferization.materialize_in_destination %r in restrict writable %out : ({tr}, {mr}) -> ()
  return
}}
"""
    if w.kind == "attention":
        b, h, l, d = w.lhs
        s = w.rhs[2]
        mm, tm = (mlir_type(w.extra["mask"], "memref"),
                  mlir_type(w.extra["mask"]))
        tkt, tsc = mlir_type([b, h, d, s]), mlir_type([b, h, l, s])
        return f"""func.func @kernel(%q: {ma}, %k: {mb}, %v: {mb}, %mask: {mm}, %out: {mr}) attributes {{llvm.emit_c_interface}} {{
  %tq = bufferization.to_tensor %q restrict : {ma} to {ta}
  %tk = bufferization.to_tensor %k restrict : {mb} to {tb}
  %tv = bufferization.to_tensor %v restrict : {mb} to {tb}
  %tm = bufferization.to_tensor %mask restrict : {mm} to {tm}
  %kt = bcast.permute %tk {{dims = array<i64: 0, 1, 3, 2>}} : ({tb}) -> {tkt}
  %s = bcast.matmul %tq, %kt : ({ta}, {tkt}) -> {tsc}
  %c = arith.constant dense<{attention_scale(w)!r}> : tensor<f32>
  %s1 = bcast.mul %s, %c : ({tsc}, tensor<f32>) -> {tsc}
  %s2 = bcast.add %s1, %tm : ({tsc}, {tm}) -> {tsc}
  %p = bcast.softmax %s2 {{dim = -1 : i64}} : ({tsc}) -> {tsc}
  %r = bcast.matmul %p, %tv : ({tsc}, {tb}) -> {tr}
  bufferization.materialize_in_destination %r in restrict writable %out : ({tr}, {mr}) -> ()
  return
}}
"""
    return f"""func.func @kernel(%a: {ma}, %b: {mb}, %out: {mr}) attributes {{llvm.emit_c_interface}} {{
  %ta = bufferization.to_tensor %a restrict : {ma} to {ta}
  %tb = bufferization.to_tensor %b restrict : {mb} to {tb}
  %r = bcast.matmul %ta, %tb : ({ta}, {tb}) -> {tr}
  bufferization.materialize_in_destination %r in restrict writable %out : ({tr}, {mr}) -> ()
  return
}}
"""


def compile_kernel(w, build, workdir, options):
    base = os.path.join(workdir, w.name.replace(" ", "_").replace("[", "")
                        .replace("]", "").replace(",", "_").replace("@", "x"))
    with open(base + ".mlir", "w") as f:
        f.write(kernel_module(w))
    runtime = os.path.join(build, "lib")
    steps = [
        [os.path.join(build, "bin", "bcast-opt"),
         "--bcast-to-llvm" + ("=" + options if options else ""),
         base + ".mlir", "-o", base + ".llvm.mlir"],
        [os.path.join(LLVM_BIN, "mlir-translate"), "--mlir-to-llvmir",
         base + ".llvm.mlir", "-o", base + ".ll"],
        ["clang-22", "-O3", "-march=native", "-shared", "-fPIC",
         "-Wno-override-module", base + ".ll", "-o", base + ".so",
         "-L" + LLVM_LIB, "-lomp", "-Wl,-rpath," + LLVM_LIB,
         "-L" + runtime, "-lbcast_matmul_runtime", "-Wl,-rpath," + runtime]
        + (["-lmvec"] if "libmvec" in options else []),
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(f"{os.path.basename(step[0])}: "
                               f"{done.stderr.strip()[:400]}")
    library = ctypes.CDLL(base + ".so")
    function = library._mlir_ciface_kernel
    function.restype = None

    def bind(*arrays):
        from bench import memref_descriptor
        ds = [memref_descriptor(x) for x in arrays]
        ptrs = [ctypes.byref(d) for d in ds]

        def call():
            function(*ptrs)
        call.keep = (ds, arrays)  # the descriptors point into these
        return call
    bind.omp_max_threads = library.omp_get_max_threads
    return bind


def blas_names(build):
    """Which BLAS each peer runs: the libraries mapped into this process
    after each has run a product, and OpenBLAS's own configuration."""
    names = {}
    runtime = ctypes.CDLL(os.path.join(build, "lib",
                                       "libbcast_matmul_runtime.so"))
    runtime.bcastMatmulBlasName.restype = ctypes.c_char_p
    names["bcast"] = runtime.bcastMatmulBlasName().decode()
    np.matmul(np.ones((64, 64), np.float32), np.ones((64, 64), np.float32))
    maps = open("/proc/self/maps").read()
    blas = sorted({line.split()[-1] for line in maps.splitlines()
                   if "blas" in line and "/" in line})
    names["numpy"] = ", ".join(blas)
    try:
        import torch
        config = torch.__config__.show()
        info = re.findall(r"BLAS_INFO=[^,]*", config)
        linked = subprocess.run(["ldd", torch._C.__file__], capture_output=True,
                                text=True).stdout
        blas = sorted({line.split("=>")[-1].split()[0]
                       for line in linked.splitlines() if "blas" in line})
        names["torch"] = f"{', '.join(info)}: {', '.join(blas) or '?'}"
    except ImportError:
        pass
    return names


def sgemm_call(a, b, out):
    """OpenBLAS's cblas_sgemm on the square case, called directly."""
    lib = ctypes.CDLL("libblas.so.3")
    f = lib.cblas_sgemm
    f.restype = None
    f.argtypes = [ctypes.c_int] * 6 + [ctypes.c_float, ctypes.c_void_p,
                                       ctypes.c_int, ctypes.c_void_p,
                                       ctypes.c_int, ctypes.c_float,
                                       ctypes.c_void_p, ctypes.c_int]
    m, k = a.shape
    n = b.shape[1]
    pa, pb, pc = a.ctypes.data, b.ctypes.data, out.ctypes.data

    def call():
        f(101, 111, 111, m, n, k, 1.0, pa, k, pb, n, 0.0, pc, n)
    call.keep = (a, b, out)  # the pointers point into these
    return call


def report(w, err, calls, rounds):
    """Times `calls` (label -> callable) interleaved and prints workload
    `w`'s line for the parent process (run_threads put bench.py on the
    path)."""
    import bench
    names = list(calls)
    times = bench.time_interleaved([calls[n] for n in names], rounds,
                                   per_block=2, settle=0.01)
    medians = {n: bench.summarize(t)[0] for n, t in zip(names, times)}
    print(json.dumps({"name": w.name, "flops": w.flops(), "err": err,
                      "medians": medians}), flush=True)


def run_threads(threads, quick, only, build, options, rounds):
    """Child process: times every workload on `threads` threads, prints
    JSON lines."""
    sys.path.insert(0, HERE)
    # Importing bench sets OMP_NUM_THREADS to every CPU, for its own runs.
    # The kernels' libomp reads it at their first call, after this, so the
    # count this child was started for is put back first; before this, the
    # "1 thread" rows ran bcast's element-wise loops on 2 threads.
    importlib.import_module("bench")
    os.environ["OMP_NUM_THREADS"] = str(threads)
    import torch
    torch.set_num_threads(threads)
    workdir = tempfile.mkdtemp(prefix="bcast-matmul-")
    print(json.dumps({"blas": blas_names(build), "threads": threads}),
          flush=True)
    rng = np.random.default_rng(0)
    for w in workloads(quick):
        if only and only not in w.name:
            continue
        a = rng.standard_normal(w.lhs, dtype=np.float32)
        b = rng.standard_normal(w.rhs, dtype=np.float32)
        out = np.empty(w.result, np.float32)
        try:
            bind = compile_kernel(w, build, workdir, options)
        except RuntimeError as e:
            print(json.dumps({"name": w.name, "error": str(e)}), flush=True)
            continue
        if bind.omp_max_threads() != threads:
            raise RuntimeError(f"the kernels' OpenMP runs "
                               f"{bind.omp_max_threads()} threads, not "
                               f"{threads}")
        if w.kind == "attention":
            q, k, v, mask = [a, b] + w.inputs(rng)[2:]
            call = bind(q, k, v, mask, out)
            call()
            tq, tk, tv, tm = (torch.from_numpy(x) for x in (q, k, v, mask))
            scale = attention_scale(w)
            want = torch_attention(tq.double(), tk.double(), tv.double(),
                                   tm.double(), scale).numpy()
            err = float(np.max(np.abs(out - want)) /
                        max(1.0, float(np.max(np.abs(want)))))
            calls = {"bcast": call,
                     "torch eager": lambda: torch_attention(tq, tk, tv, tm,
                                                            scale),
                     "torch written-out": lambda: torch_attention(
                         tq, tk, tv, tm, scale, written_out=True)}
            # The two products alone, as torch runs them: the bound of any
            # implementation that calls the same BLAS per matrix (bcast's
            # runtime runs q @ k^T on a kernel of its own where it is
            # small enough, docs/Benchmarks.md).
            tp = torch.softmax(tq @ tk.transpose(-1, -2), -1)
            calls["torch products"] = lambda: (tq @ tk.transpose(-1, -2),
                                               tp @ tv)
            report(w, err, calls, rounds)
            continue
        if w.kind == "linear":
            bias = rng.standard_normal(w.result[-1:], dtype=np.float32)
            call = bind(a, b, bias, out)
            tbias = torch.from_numpy(bias)
            want = torch.nn.functional.gelu(
                torch.from_numpy(a) @ torch.from_numpy(b) + tbias).numpy()
        else:
            call = bind(a, b, out)
            want = np.matmul(a, b)
        call()
        err = float(np.max(np.abs(out - want)) /
                    max(1.0, float(np.max(np.abs(want)))))
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        tout = torch.from_numpy(np.empty(w.result, np.float32))
        out2 = np.empty(w.result, np.float32)
        if w.kind == "linear":
            gelu = torch.nn.functional.gelu
            calls = {"bcast": call,
                     "torch eager": lambda: gelu(torch.matmul(ta, tb) + tbias),
                     "torch.matmul": lambda: torch.matmul(ta, tb),
                     "np.matmul": lambda: np.matmul(a, b)}
            report(w, err, calls, rounds)
            continue
        calls = {"bcast": call,
                 "torch.matmul": lambda: torch.matmul(ta, tb),
                 "torch out=": lambda: torch.matmul(ta, tb, out=tout),
                 "np.matmul": lambda: np.matmul(a, b),
                 "np out=": lambda: np.matmul(a, b, out=out2)}
        if w.kind == "matmul" and len(w.lhs) == 2:
            calls["sgemm"] = sgemm_call(a, b, np.empty(w.result, np.float32))
        if w.folded:
            m, k, n = w.folded
            fa = rng.standard_normal((m, k), dtype=np.float32)
            fb = rng.standard_normal((k, n), dtype=np.float32)
            folded = Workload("folded " + w.name, [m, k], [k, n])
            fbind = compile_kernel(folded, build, workdir, options)
            calls["bcast folded GEMM"] = fbind(fa, fb, np.empty((m, n),
                                                                np.float32))
        report(w, err, calls, max(2, rounds // (1 if w.flops() < 5e9 else 3)))


def rss_probe(name, peer, quick, build, options):
    """Child process: ru_maxrss growth of one call of `peer` on workload
    `name`, over the inputs and the output buffer (KiB)."""
    w = next(w for w in workloads(quick) if w.name == name)
    rng = np.random.default_rng(0)
    arrays = w.inputs(rng)
    a, b = arrays[:2]
    out = np.empty(w.result, np.float32)
    out.fill(0)  # touched: counted before, as the inputs
    if w.kind == "attention":
        if peer == "bcast":
            call = compile_kernel(w, build, tempfile.mkdtemp(),
                                  options)(*arrays, out)
        elif peer == "torch":
            import torch
            tensors = [torch.from_numpy(x) for x in arrays]
            call = lambda: torch_attention(*tensors, attention_scale(w))
        else:
            print("nan")
            return
    elif peer == "bcast":
        call = compile_kernel(w, build, tempfile.mkdtemp(), options)(a, b,
                                                                     out)
    elif peer == "torch":
        import torch
        ta, tb, to = (torch.from_numpy(x) for x in (a, b, out))
        call = lambda: torch.matmul(ta, tb, out=to)
    else:
        call = lambda: np.matmul(a, b, out=out)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    call()
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(after - before)


def child(args, env_threads):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(env_threads),
               OMP_NUM_THREADS=str(env_threads))
    return subprocess.run([sys.executable, os.path.abspath(__file__)] + args,
                          env=env, capture_output=True, text=True)


def fmt(seconds):
    return f"{seconds * 1e3:9.3f}"


def jit_vector_math(build):
    """The vector math route @bcast.jit picks on this host."""
    sys.path.insert(0, os.path.join(build, "python"))
    from bcast import _options
    return _options._VECTOR_MATH


def main_matmul(quick, only, build, options="", rounds=10):
    """Runs everything in child processes and prints the tables."""
    print("bcast.matmul (issue 29): medians in ms, interleaved; GFLOP/s of "
          "bcast; ratios > 1 mean bcast is faster")
    # The kernels take the JIT's vector math unless told otherwise: with
    # bcast-opt's default (libm), GELU's erf is a scalar call per element.
    if "vector-math=" not in options:
        options = f"{options} vector-math={jit_vector_math(build)}".strip()
    print(f"pipeline options: {options}")
    print(f"machine: {os.cpu_count()} CPUs; load: "
          f"{open('/proc/loadavg').read().split()[:3]}")
    for threads in (1, 2):
        args = ["--child", str(threads), "--build", build, "--options",
                options, "--rounds", str(rounds)]
        if quick:
            args.append("--quick")
        if only:
            args += ["--only", only]
        done = child(args, threads)
        if done.returncode:
            print(done.stdout, done.stderr)
            continue
        print(f"\n== {threads} thread(s) ==")
        for line in done.stdout.splitlines():
            rec = json.loads(line)
            if "blas" in rec:
                for peer, name in rec["blas"].items():
                    print(f"  BLAS of {peer}: {name}")
                continue
            if "error" in rec:
                print(f"{rec['name']}: {rec['error']}")
                continue
            m = rec["medians"]
            gf = rec["flops"] / m["bcast"] / 1e9
            if "torch written-out" in m:
                print(f"{rec['name']:38s} bcast {fmt(m['bcast'])} "
                      f"({gf:6.1f} GFLOP/s, err {rec['err']:.1e})  torch "
                      f"eager {fmt(m['torch eager'])} x"
                      f"{m['torch eager'] / m['bcast']:.2f}  torch "
                      f"written-out softmax {fmt(m['torch written-out'])} x"
                      f"{m['torch written-out'] / m['bcast']:.2f}  (torch's "
                      f"two products alone {fmt(m['torch products'])}: "
                      f"x{m['torch eager'] / m['torch products']:.2f} "
                      "for the same BLAS calls)", flush=True)
                continue
            if "torch eager" in m:
                print(f"{rec['name']:38s} bcast {fmt(m['bcast'])} "
                      f"({gf:6.1f} GFLOP/s, err {rec['err']:.1e})  torch "
                      f"eager {fmt(m['torch eager'])} x"
                      f"{m['torch eager'] / m['bcast']:.2f}  (its matmul "
                      f"alone {fmt(m['torch.matmul'])}; np.matmul alone "
                      f"{fmt(m['np.matmul'])})", flush=True)
                continue
            line = (f"{rec['name']:38s} bcast {fmt(m['bcast'])} "
                    f"({gf:6.1f} GFLOP/s, err {rec['err']:.1e})  "
                    f"torch {fmt(m['torch.matmul'])} x"
                    f"{m['torch.matmul'] / m['bcast']:.2f}  "
                    f"torch out= x{m['torch out='] / m['bcast']:.2f}  "
                    f"np {fmt(m['np.matmul'])} x"
                    f"{m['np.matmul'] / m['bcast']:.2f}")
            if "sgemm" in m:
                line += f"  sgemm {fmt(m['sgemm'])} " \
                        f"({m['sgemm'] / m['bcast'] * 100:.0f}% of sgemm)"
            if "bcast folded GEMM" in m:
                line += (f"  folded GEMM {fmt(m['bcast folded GEMM'])} "
                         f"({m['bcast folded GEMM'] / m['bcast'] * 100:.0f}%"
                         f" of its GFLOP/s)")
            print(line, flush=True)
    print("\npeak memory: ru_maxrss growth of one call (MiB), fresh process "
          "each; the result's size for comparison")
    for w in workloads(quick):
        if not ("bcast" in w.name or w.kind == "attention") or \
                (only and only not in w.name):
            continue
        growth = {}
        peers = ("bcast", "torch") if w.kind == "attention" else \
            ("bcast", "torch", "numpy")
        for peer in peers:
            done = child(["--rss", w.name, peer, "--build", build,
                          "--options", options] + (["--quick"] if quick
                                                   else []), 1)
            growth[peer] = (int(done.stdout.strip()) / 1024
                            if done.returncode == 0 and done.stdout.strip()
                            else float("nan"))
        size = 4 * np.prod(w.result) / 2**20
        print(f"{w.name:38s} result {size:8.1f}  " + "  ".join(
            f"{p} {g:8.1f}" for p, g in growth.items()), flush=True)


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("--child", type=int)
    parser.add_argument("--rss", nargs=2)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--options", default="")
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    if args.child:
        run_threads(args.child, args.quick, args.only, args.build,
                    args.options, args.rounds)
    elif args.rss:
        rss_probe(args.rss[0], args.rss[1], args.quick, args.build,
                  args.options)
    else:
        main_matmul(args.quick, args.only, args.build, args.options,
                    args.rounds)
