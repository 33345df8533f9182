# The bcast lit configuration: FileCheck tests of bcast-opt, integration tests
# that run lowered IR through mlir-runner, and (in Unit/) the GoogleTest unit
# tests. Every bcast-opt invocation is also run with --verify-roundtrip, so
# each printed form re-parses to the same IR.

import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "BCAST"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".c", ".py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.bcast_obj_root, "test")
config.excludes = ["CMakeLists.txt", "README.txt", "lit.cfg.py",
                   "lit.site.cfg.py", "Unit", "Inputs"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%bcast_src_root", config.bcast_src_root))
config.substitutions.append(("%bcast_obj_root", config.bcast_obj_root))
config.substitutions.append(("%bcast_lib_dir", config.bcast_lib_dir))
config.substitutions.append(("%mlir_lib_dir", config.llvm_lib_dir))
# mlir-runner with the runner libraries and OpenMP's runtime (the default
# --bcast-to-llvm output is multi-threaded); %runner_libs_st without OpenMP
# for parallel=false.
runner_libs_st = ",".join(
    os.path.join(config.llvm_lib_dir, "lib%s.so" % name)
    for name in ("mlir_c_runner_utils", "mlir_runner_utils"))
runner_libs = runner_libs_st + "," + os.path.join(config.llvm_lib_dir,
                                                  "libomp.so")
# %matmul_libs: %runner_libs and libbcast_matmul_runtime.so, which f32 and
# f64 bcast.matmul products call (bcast-matmul-to-blas).
config.substitutions.append(
    ("%matmul_libs", runner_libs + "," +
     os.path.join(config.bcast_lib_dir, "libbcast_matmul_runtime.so")))
config.substitutions.append(
    ("%matmul_runtime",
     os.path.join(config.bcast_lib_dir, "libbcast_matmul_runtime.so")))
config.substitutions.append(("%runner_libs_st", runner_libs_st))
# (%runner_libs before %runner: lit substitutes in order.)
config.substitutions.append(("%runner_libs", runner_libs))
config.substitutions.append(
    ("%runner", "mlir-runner -e main -entry-point-result=void -shared-libs="
     + runner_libs))
config.substitutions.append(("%host_cc", config.host_cc))

# The Python CMake chose (Debian's, with numpy and torch; the first python3
# on PATH may be another interpreter).
python = config.python_executable
config.substitutions.append(("%python", python))


def python_has(module):
    return subprocess.run([python, "-c", "import " + module],
                          stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


# A BCAST_ENABLE_SANITIZERS build (`asan`: tests that load bcast into an
# uninstrumented host, such as Python, may declare `UNSUPPORTED: asan`) and
# a BCAST_ENABLE_FUZZER build (`fuzzer`: the bcast-fuzz-* targets exist).
if config.bcast_enable_sanitizers:
    config.available_features.add("asan")
if config.bcast_enable_fuzzer:
    config.available_features.add("fuzzer")

# The Python package (built by default unless sanitizers are on),
# importable from the build tree. %bcast_python is the interpreter for tests
# that import it: in a sanitizer build, with the sanitizer runtime preloaded
# (Python itself is not instrumented; its allocations live until exit, so
# leak checking is off).
bcast_python = python
if getattr(config, "bcast_enable_python", False):
    config.available_features.add("bcast-python")
    config.environment["PYTHONPATH"] = os.path.join(config.bcast_obj_root,
                                                    "python")
    if config.bcast_enable_sanitizers:
        bcast_python = (
            "env LD_PRELOAD=%s ASAN_OPTIONS=detect_leaks=0:"
            "detect_container_overflow=0 UBSAN_OPTIONS=print_stacktrace=1 %s"
            % (config.bcast_sanitizer_runtime, python))
config.substitutions.append(("%bcast_python", bcast_python))

if python_has("torch"):
    config.available_features.add("torch")
if python_has("numpy"):
    config.available_features.add("numpy")
if python_has("mpmath"):
    config.available_features.add("mpmath")
# The peers of benchmarks/bench.py --peers (Debian's python3-halide and
# python3-numba, and libhalide14-0-dev for Halide's autoschedulers, whose
# column is empty without them).
if python_has("halide") and python_has("numba") and os.path.exists(
        "/usr/lib/x86_64-linux-gnu/halide14/libautoschedule_adams2019.so"):
    config.available_features.add("halide-numba")

# glibc's vector math library and a CPU with AVX2 (its functions' ISA): the
# vector-math=libmvec pipeline runs here; with AVX-512F too,
# vector-math=libmvec-avx512.
def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for l in f:
                if l.startswith("flags"):
                    return set(l.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


if "avx2" in cpu_flags() and os.path.exists(
        "/lib/x86_64-linux-gnu/libmvec.so.1"):
    config.available_features.add("libmvec")
    if "avx512f" in cpu_flags():
        config.available_features.add("libmvec-avx512")

# MPI (docs/Sharding.md): `mpich` where libbcast_mpi_runtime.so was built
# and MPICH's launcher and clang-22 are installed; %mpi_cc compiles a C
# driver with lowered LLVM IR and links it to MPICH and bcast's MPI runtime.
# Every launch is bounded by `timeout`: a rank that hangs fails the test.
# Waiting ranks yield the core at every poll: with more ranks than free cores
# (4 ranks, or 2 beside another test) MPICH's busy polling otherwise starved
# the ranks it waited for, and a run of 0.5 s took over 60 s.
clang22 = shutil.which("clang-22")
if (getattr(config, "bcast_have_mpi_runtime", False)
        and shutil.which("mpirun.mpich") and clang22):
    config.available_features.add("mpich")
    config.substitutions.append((
        "%mpi_cc", "%s -O2 -I%s -L%s -Wl,-rpath,%s -L%s -Wl,-rpath,%s"
        % (clang22, config.bcast_mpich_include_dir, config.bcast_lib_dir,
           config.bcast_lib_dir, config.llvm_lib_dir, config.llvm_lib_dir)))
    config.substitutions.append((
        "%mpi_libs", "-lbcast_mpi_runtime -lmlir_c_runner_utils "
        "-lmlir_runner_utils -lomp -lmpich -lm"))
    config.substitutions.append(
        ("%mpirun", "env MPIR_CVAR_POLLS_BEFORE_YIELD=1 timeout 120 "
         "mpirun.mpich"))

# The sanitizer settings of a BCAST_ENABLE_SANITIZERS build reach the tools.
# GPU features: `ptxas` where the CUDA toolkit's assembler is installed (the
# PTX is assembled for sm_90), `cuda-gpu` only where a GPU is detected (GPU
# execution tests; everything else runs without one).
ptxas = "/usr/local/cuda/bin/ptxas"
if os.path.exists(ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
try:
    if subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE,
                      stderr=subprocess.DEVNULL).stdout.startswith(b"GPU"):
        config.available_features.add("cuda-gpu")
except OSError:
    pass

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP",
                                     "ASAN_OPTIONS", "UBSAN_OPTIONS",
                                     "LSAN_OPTIONS"])
llvm_config.use_default_substitutions()

tool_dirs = [config.bcast_tools_dir, config.llvm_tools_dir]
tools = [
    ToolSubst("bcast-opt", extra_args=["--verify-roundtrip"],
              unresolved="fatal"),
    "mlir-runner",
    "mlir-opt",
    "mlir-translate",
]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.bcast_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
