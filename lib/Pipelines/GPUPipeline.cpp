//===- GPUPipeline.cpp - bcast's NVVM pipeline ----------------------------===//
//
// --bcast-to-nvvm: the same conversion, fusion and bufferization as
// --bcast-to-llvm, then each fused generic becomes a GPU kernel
// (bcast-map-elementwise-to-gpu), buffers move to device memory, kernels
// are outlined and compiled to PTX (or cubin), and the host side is lowered
// to LLVM with asynchronous launches that call the mgpu* runtime
// (lib/Runtime/CUDA). docs/GPU.md explains each step.
//
//===----------------------------------------------------------------------===//

#include "bcast/Pipelines/GPUPipeline.h"
#include "bcast/Pipelines/Pipelines.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::bcast;

LogicalResult
bcast::buildBcastToNVVMPipeline(OpPassManager &pm,
                                const BcastGPUPipelineOptions &options) {
  if (options.format != "isa" && options.format != "bin" &&
      options.format != "fatbin") {
    llvm::errs() << "bcast: format must be isa, bin or fatbin, not '"
                 << options.format << "'\n";
    return failure();
  }
  if (options.blockSize <= 0 || options.blockSize > 1024) {
    llvm::errs() << "bcast: block-size must be in [1, 1024]\n";
    return failure();
  }
  // libdevice (math functions such as fmodf and powf) comes from the
  // toolkit; without it the PTX would call undefined __nv_* functions.
  std::string toolkit = options.toolkit;
  if (toolkit.empty()) {
    const char *home = std::getenv("CUDA_HOME");
    toolkit = home && *home ? home : "/usr/local/cuda";
  }
  BcastPipelineOptions linalgOptions;
  linalgOptions.broadcastPolicy = options.broadcastPolicy.getValue();
  // As in --bcast-to-llvm: static sizes whose byte size overflows 64 bits
  // are rejected before any size arithmetic is generated.
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (failed(parsePassPipeline("bcast-check-static-sizes", pm, os)) ||
      failed(buildBcastToLinalgPipeline(pm, linalgOptions)))
    return failure();
  std::string text =
      "func.func(eliminate-empty-tensors),"
      "one-shot-bufferize{bufferize-function-boundaries "
      "function-boundary-type-conversion=identity-layout-map},"
      "func.func(canonicalize),"
      "bcast-lower-runtime-checks{report=" +
      std::string(options.reportErrors ? "true" : "false") +
      "},"
      "buffer-deallocation-pipeline,"
      "convert-bufferization-to-memref,"
      "func.func(bcast-map-elementwise-to-gpu{block-size=" +
      std::to_string(options.blockSize) +
      "}),"
      "bcast-device-allocations,"
      "gpu-kernel-outlining,"
      // Without async tokens gpu.alloc and gpu.memcpy are not lowered.
      "func.func(gpu-async-region),"
      "nvvm-attach-target{chip=" +
      options.chip.getValue() + " features=" + options.features.getValue() +
      " O=3},"
      "gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,canonicalize,cse),"
      "func.func(expand-strided-metadata,lower-affine,convert-scf-to-cf),"
      "gpu-to-llvm,"
      "convert-to-llvm,"
      "reconcile-unrealized-casts,"
      "gpu-module-to-binary{format=" +
      options.format.getValue() + " toolkit=" + toolkit + "}";
  if (failed(parsePassPipeline(text, pm, os))) {
    llvm::errs() << "bcast: invalid pass pipeline: " << errors << "\n";
    return failure();
  }
  return success();
}

void bcast::registerBcastGPUPipeline() {
  registerPassPipeline(
      "bcast-to-nvvm",
      "Lower a module with bcast ops to host LLVM code plus an NVIDIA GPU "
      "binary (run with libbcast_cuda_runtime.so)",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)>) {
        BcastGPUPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        return buildBcastToNVVMPipeline(pm, options);
      },
      [](function_ref<void(const detail::PassOptions &)> handler) {
        handler(BcastGPUPipelineOptions());
      });
}
