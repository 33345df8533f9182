//===- GPUPipeline.h - bcast's NVVM pipeline -----------------------*- C++ -*-===//
//
// --bcast-to-nvvm: bcast ops to host code plus a GPU binary for NVIDIA GPUs,
// and the builder an embedder calls to run it on its own PassManager.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_PIPELINES_GPUPIPELINE_H
#define BCAST_PIPELINES_GPUPIPELINE_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
namespace bcast {

/// Options of --bcast-to-nvvm.
struct BcastGPUPipelineOptions
    : public PassPipelineOptions<BcastGPUPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("GPU architecture (e.g. sm_90)"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features (sm_90 needs PTX 8.0 or newer)"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("GPU binary format: isa (PTX text, JIT-compiled by the "
                     "driver at load), bin (cubin, needs ptxas) or fatbin"),
      llvm::cl::init("isa")};
  PassOptions::Option<std::string> broadcastPolicy{
      *this, "broadcast-policy",
      llvm::cl::desc("How `?` sizes broadcast at run time: numpy or static"),
      llvm::cl::init("numpy")};
  PassOptions::Option<bool> reportErrors{
      *this, "report-errors",
      llvm::cl::desc("Report a failed run-time check to the caller "
                     "(bcastReportError) instead of exiting"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit (its libdevice is linked into the kernels, "
                     "ptxas assembles bin/fatbin); default: $CUDA_HOME, else "
                     "/usr/local/cuda"),
      llvm::cl::init("")};
  PassOptions::Option<int64_t> blockSize{
      *this, "block-size", llvm::cl::desc("Threads per block"),
      llvm::cl::init(256)};
};

/// Builds --bcast-to-nvvm.
LogicalResult buildBcastToNVVMPipeline(OpPassManager &pm,
                                       const BcastGPUPipelineOptions &options);

/// Registers --bcast-to-nvvm with the global registry.
void registerBcastGPUPipeline();

} // namespace bcast
} // namespace mlir

#endif // BCAST_PIPELINES_GPUPIPELINE_H
