# lit configuration of the downstream example: runs downstream-opt (built
# here) and the installed bcast-opt, with FileCheck and mlir-runner from the
# LLVM installation bcast was built against.

import os

import lit.formats

config.name = "bcast-downstream"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(os.path.dirname(config.downstream_tools_dir), "test")

config.environment["PATH"] = os.pathsep.join(
    [config.downstream_tools_dir, config.bcast_tools_dir,
     config.llvm_tools_dir, config.environment.get("PATH", "")])
# An ASan-instrumented bcast (BCAST_ENABLE_SANITIZERS) is linked into
# downstream-opt; pass the sanitizer settings through.
for name in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
    if name in os.environ:
        config.environment[name] = os.environ[name]

runner_libs = ",".join(
    os.path.join(config.llvm_library_dir, "lib%s.so" % name)
    for name in ("mlir_c_runner_utils", "mlir_runner_utils", "omp"))
config.substitutions.append(("%downstream_tools_dir",
                             config.downstream_tools_dir))
config.substitutions.append(
    ("%runner", "mlir-runner -e main -entry-point-result=void -shared-libs="
     + runner_libs))
