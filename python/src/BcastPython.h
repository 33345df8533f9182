//===- BcastPython.h - Shared pieces of the _bcast extension ----*- C++ -*-===//
//
// What the extension's files share: the compiled kernel (a module JIT-
// compiled by mlir::ExecutionEngine, or an object file from the disk cache
// linked by an ORC LLJIT) with its packed entry point, the report-error hook
// the kernels call, the memory they allocate (KernelMemory.cpp), the
// threads their parallel loops run on (KernelThreads.cpp), the
// registration of the call path (Dispatch.cpp) and of
// the dialect's rules (OpRules.cpp), and NumPy's dtype names.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_PYTHON_BCASTPYTHON_H
#define BCAST_PYTHON_BCASTPYTHON_H

#include "bcast/Dialect/Bcast/Utils/TypePromotion.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"

#include <pybind11/pybind11.h>

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace bcast_python {

/// Raised for IR that does not parse, verify or lower, and for kernels that
/// do not compile or load; carries the diagnostics.
class MLIRError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The packed form of a kernel: one pointer per argument, each pointing to
/// the argument (here: to a memref descriptor's address).
using PackedFunction = void (*)(void **);

/// A compiled module whose `kernel` function is called through its packed
/// wrapper `_mlir__mlir_ciface_kernel`.
class Kernel {
public:
  /// JIT-compiles `module` (lowered to the LLVM dialect). With `keepObject`
  /// the object code is kept for saveObject.
  Kernel(mlir::ModuleOp module, const std::vector<std::string> &sharedLibs,
         bool keepObject);
  /// Links an object file written by saveObject (the disk cache).
  Kernel(llvm::StringRef object, const std::vector<std::string> &sharedLibs);

  /// Writes the object code to `path` (needs `keepObject`).
  void saveObject(const std::string &path);

  /// Calls `_mlir_ciface_<name>` with one descriptor pointer per argument
  /// (`packed[i]` points to the i-th descriptor's address); ValueError (a
  /// std::invalid_argument) with the message of a failed run-time check.
  void callPacked(void **packed, bool releaseGil);

  PackedFunction entry() const { return function; }

private:
  std::unique_ptr<mlir::ExecutionEngine> engine;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  PackedFunction function = nullptr;
};

/// Registers the Dispatcher type (the @bcast.jit call path) in `m`.
void registerDispatcher(pybind11::module_ &m);

/// Registers `infer_op`, the dialect's type rules and verifiers asked from
/// Python, and `ELEMENT_TYPES` (OpRules.cpp).
void registerOpRules(pybind11::module_ &m);

/// The kernels' malloc, calloc and free (KernelMemory.cpp): large blocks
/// are kept for the next call instead of being given back to the system.
void *kernelMalloc(size_t size);
void *kernelCalloc(size_t count, size_t size);
void kernelFree(void *pointer);

/// Whether kernels may run their parallel loops on libgomp's team
/// (KernelThreads.cpp): libgomp is in the process (PyTorch's OpenMP
/// runtime) and BCAST_OPENMP is not `libomp`.
bool sharedTeamAvailable();
/// Whether a kernel importing `imports` (its undefined symbols) and calling
/// __kmpc_fork_call with `forkArguments` shared arguments (-1: not a
/// constant) imports OpenMP entry points, only those addTeamEntryPoints
/// gives, each fork passing no more arguments than they forward.
bool usesOnlyTeamEntryPoints(const std::vector<llvm::StringRef> &imports,
                             const std::vector<int64_t> &forkArguments);
/// Maps the OpenMP entry points the pipeline's loops call to libgomp's
/// team.
void addTeamEntryPoints(llvm::orc::SymbolMap &symbols,
                        llvm::orc::MangleAndInterner &interner);

/// The DType of a NumPy dtype name ("float32", ..., and "bfloat16");
/// TypeError for a dtype bcast does not support.
mlir::bcast::DType dtypeFromName(const std::string &name);
/// The NumPy name of `type` ("bfloat16" for BFloat16).
std::string dtypeName(mlir::bcast::DType type);

} // namespace bcast_python

#endif // BCAST_PYTHON_BCASTPYTHON_H
