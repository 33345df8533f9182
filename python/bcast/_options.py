"""Compile options: what a kernel's pipeline is given (the broadcast
policy, threads, grain size, the vector math route of this host, or the
CUDA target), rendered once as pipeline text, and the shared libraries its
kernels link against, derived from the same options.
"""

import ctypes.util
import os


_LLVM_LIB_DIR = os.environ.get("BCAST_LLVM_LIB_DIR", "/usr/lib/llvm-22/lib")

# glibc's vector math library: with it (and AVX2), the kernels' vector loops
# call its AVX2 functions for exp, tanh, erf, ... (--bcast-to-llvm's
# vector-math=libmvec), or with AVX-512F its AVX-512 ones, which compute
# twice the lanes in much less than twice the time (vector-math=
# libmvec-avx512); without, one libm call a lane.
_LIBMVEC = ctypes.util.find_library("mvec")
if _LIBMVEC and not os.path.isabs(_LIBMVEC):
    for _dir in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
                 "/lib64", "/usr/lib64"):
        if os.path.exists(os.path.join(_dir, _LIBMVEC)):
            _LIBMVEC = os.path.join(_dir, _LIBMVEC)
            break
    else:
        _LIBMVEC = None


def _host_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def _libmvec_has(symbol):
    try:
        getattr(ctypes.CDLL(_LIBMVEC), symbol)
        return True
    except (OSError, AttributeError):
        return False


def _vector_math():
    flags = _host_flags()
    if not _LIBMVEC or "avx2" not in flags:
        return "libm"
    if "avx512f" in flags and _libmvec_has("_ZGVeN16v_expf"):
        return "libmvec-avx512"
    return "libmvec"


def _chosen_vector_math():
    """BCAST_VECTOR_MATH overrides the choice (benchmarks/accuracy.py
    measures each route with it)."""
    chosen = os.environ.get("BCAST_VECTOR_MATH")
    if not chosen:
        return _vector_math()
    if chosen not in ("libm", "libmvec", "libmvec-avx512"):
        raise ValueError(f"BCAST_VECTOR_MATH must be libm, libmvec or "
                         f"libmvec-avx512, not {chosen!r}")
    if chosen != "libm" and not _LIBMVEC:
        raise ValueError(f"BCAST_VECTOR_MATH={chosen} needs glibc's "
                         f"libmvec, which was not found")
    return chosen


_VECTOR_MATH = _chosen_vector_math()


# The C runner utilities give memrefCopy, which the lowering calls to copy a
# strided view, e.g. when an in-place operand with `?` sizes is also read
# through its broadcast view (found by fuzz/differential.py: "Symbols not
# found: [ memrefCopy ]").
_RUNNER_UTILS = os.path.join(_LLVM_LIB_DIR, "libmlir_c_runner_utils.so")
_OPENMP = os.path.join(_LLVM_LIB_DIR, "libomp.so")
# libbcast_matmul_runtime.so: BCAST_MATMUL_RUNTIME, else <root>/lib beside
# <root>/python/bcast (the build tree and an installed prefix alike).
_MATMUL_RUNTIME = os.environ.get("BCAST_MATMUL_RUNTIME") or os.path.normpath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib",
                 "libbcast_matmul_runtime.so"))


class CompileOptions:
    """The options of one kernel: for the host, --bcast-to-llvm's (the
    broadcast policy, this host's vector math route, threads and grain
    size), or for a CUDA device --bcast-to-nvvm's (`cuda_target`, its chip
    and features, with `cuda_runtime` the runtime library kernels call).
    `text` is the options as the pipelines take them (and the disk cache
    keys them), `libs` the shared libraries the kernels link against."""

    def __init__(self, policy="numpy", threads=None, grain_size=None,
                 cuda_target=None, cuda_runtime=None):
        self.policy = policy
        self.cuda_target = cuda_target
        options = [f"broadcast-policy={policy}"]
        self.libs = [_RUNNER_UTILS]
        if cuda_target is not None:
            self.pipeline = "bcast-to-nvvm"
            self.vector_math = None
            self.parallel = False
            options.append(cuda_target)
            self.libs.append(cuda_runtime)
        else:
            self.pipeline = "bcast-to-llvm"
            self.vector_math = _VECTOR_MATH
            self.parallel = threads != 1
            if self.vector_math != "libm":
                options.append(f"vector-math={self.vector_math}")
            if not self.parallel:
                options.append("parallel=false")
            elif threads:
                options.append(f"num-threads={int(threads)}")
            if grain_size is not None:
                options.append(f"grain-size={grain_size}")
            if self.parallel:
                self.libs.append(_OPENMP)
            if self.vector_math != "libm":
                self.libs.append(_LIBMVEC)
            # f32 and f64 matrix products call it (bcast-matmul-to-blas); it
            # loads the BLAS itself, on the first product.
            if os.path.exists(_MATMUL_RUNTIME):
                self.libs.append(_MATMUL_RUNTIME)
        self.text = " ".join(options)

    @property
    def for_cuda(self):
        return self.cuda_target is not None

    def lowering(self):
        """The pipeline that compiles a kernel (run-time errors reported
        to Python)."""
        return f"{self.pipeline}{{{self.text} report-errors=true}}"

    def to_linalg(self):
        """--bcast-to-linalg with these options (f.inspect's 'linalg')."""
        return f"bcast-to-linalg{{{self.text}}}"

    def __repr__(self):
        return f"CompileOptions({self.pipeline}{{{self.text}}})"
