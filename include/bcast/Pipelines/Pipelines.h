//===- Pipelines.h - bcast's pass pipelines -----------------------*- C++ -*-===//
//
// The named pipelines of bcast-opt (--bcast-to-linalg, --bcast-to-llvm),
// their options, and the builders an embedder calls to run them on its own
// PassManager.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_PIPELINES_PIPELINES_H
#define BCAST_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
namespace bcast {

/// Options of --bcast-to-linalg and --bcast-to-llvm.
struct BcastPipelineOptions
    : public PassPipelineOptions<BcastPipelineOptions> {
  PassOptions::Option<std::string> broadcastPolicy{
      *this, "broadcast-policy",
      llvm::cl::desc("How `?` sizes broadcast at run time: numpy (a size that "
                     "is 1 at run time broadcasts) or static (PyTensor: only "
                     "sizes statically 1 broadcast)"),
      llvm::cl::init("numpy")};
  PassOptions::Option<bool> reportErrors{
      *this, "report-errors",
      llvm::cl::desc("Report a failed run-time check to the caller through "
                     "bcastReportError and return early, instead of printing "
                     "to stderr and exiting with status 1"),
      llvm::cl::init(false)};
};

/// Conversion to linalg, then fusion of element-wise chains.
LogicalResult buildBcastToLinalgPipeline(OpPassManager &pm,
                                         const BcastPipelineOptions &options);

/// All the way to the LLVM dialect, ready for mlir-runner or the
/// ExecutionEngine.
LogicalResult buildBcastToLLVMPipeline(OpPassManager &pm,
                                       const BcastPipelineOptions &options);

/// Registers the pipelines with the global registry (bcast-opt flags).
void registerBcastPipelines();

} // namespace bcast
} // namespace mlir

#endif // BCAST_PIPELINES_PIPELINES_H
