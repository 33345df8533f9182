//===- GPUPipeline.h - bcast's NVVM pipeline --------------------*- C++ -*-===//
//
// --bcast-to-nvvm: bcast ops to host code plus a GPU binary for NVIDIA GPUs,
// its options, and the builder an embedder calls to run it on its own
// PassManager. registerBcastPipelines (Pipelines.h) registers it.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_PIPELINES_GPUPIPELINE_H
#define BCAST_PIPELINES_GPUPIPELINE_H

#include "bcast/Pipelines/Pipelines.h"

namespace mlir {
namespace bcast {

/// Options of --bcast-to-nvvm: the common ones and the GPU's own.
struct BcastGPUPipelineOptions
    : public BcastCommonPipelineOptions,
      public PassPipelineOptions<BcastGPUPipelineOptions> {
  using PassPipelineOptions<BcastGPUPipelineOptions>::createFromString;

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
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit (its libdevice is linked into the kernels, "
                     "ptxas assembles bin/fatbin); default: $CUDA_HOME, else "
                     "/usr/local/cuda"),
      llvm::cl::init("")};
  PassOptions::Option<int64_t> blockSize{*this, "block-size",
                                         llvm::cl::desc("Threads per block"),
                                         llvm::cl::init(256)};
};

/// Builds --bcast-to-nvvm. Fails, with a message on stderr and nothing added
/// to `pm`, when an option value is invalid (format other than isa, bin or
/// fatbin; block-size outside [1, 1024]).
LogicalResult buildBcastToNVVMPipeline(OpPassManager &pm,
                                       const BcastGPUPipelineOptions &options);

} // namespace bcast
} // namespace mlir

#endif // BCAST_PIPELINES_GPUPIPELINE_H
