//===- GPUPipeline.cpp - bcast's NVVM pipeline ----------------------------===//
//
// --bcast-to-nvvm: the same conversion, fusion and bufferization as
// --bcast-to-llvm (the stages in PipelineStages.h), then each fused generic
// becomes a GPU kernel (bcast-map-reductions-to-gpu for reductions and the
// rows around them, bcast-map-elementwise-to-gpu for the rest), buffers move to
// device memory, kernels are outlined and compiled to PTX (or cubin), and
// the host side is lowered to LLVM with asynchronous launches that call the
// mgpu* runtime (lib/Runtime/CUDA). Built in typed C++ like the other
// pipelines; docs/GPU.md explains each step.
//
//===----------------------------------------------------------------------===//

#include "bcast/Pipelines/GPUPipeline.h"
#include "PipelineStages.h"
#include "bcast/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
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

  // As in --bcast-to-llvm: static sizes whose byte size overflows 64 bits
  // are rejected before any size arithmetic is generated.
  pm.addPass(createBcastCheckStaticSizes());
  // No ZeroDivisionError check: it would read the divisor on the host, and
  // PyTorch's CUDA kernels do not check either (the bodies never trap).
  addBcastToLinalgStage(pm, options.broadcastPolicy, /*multipleResults=*/false,
                        /*checkDivision=*/false);
  addBufferizationStage(pm, options.reportErrors);

  // Before the reductions' mapping, which would take the products as
  // reductions of one thread per element.
  pm.addNestedPass<func::FuncOp>(createBcastMapMatmulToGPU());
  BcastMapReductionsToGPUOptions reductionOptions;
  reductionOptions.blockSize = options.blockSize;
  pm.addNestedPass<func::FuncOp>(
      createBcastMapReductionsToGPU(reductionOptions));
  BcastMapElementwiseToGPUOptions mapOptions;
  mapOptions.blockSize = options.blockSize;
  pm.addNestedPass<func::FuncOp>(createBcastMapElementwiseToGPU(mapOptions));
  pm.addPass(createBcastDeviceAllocations());
  pm.addPass(createGpuKernelOutliningPass());
  // Without async tokens gpu.alloc and gpu.memcpy are not lowered.
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  GpuNVVMAttachTargetOptions targetOptions;
  targetOptions.chip = options.chip;
  targetOptions.features = options.features;
  targetOptions.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(targetOptions));

  OpPassManager &kernelPM = pm.nest<gpu::GPUModuleOp>();
  kernelPM.addPass(createSCFToControlFlowPass());
  kernelPM.addPass(createConvertGpuOpsToNVVMOps());
  kernelPM.addPass(createCanonicalizerPass());
  kernelPM.addPass(createCSEPass());

  OpPassManager &hostPM = pm.nest<func::FuncOp>();
  hostPM.addPass(memref::createExpandStridedMetadataPass());
  hostPM.addPass(createLowerAffinePass());
  hostPM.addPass(createSCFToControlFlowPass());
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());

  GpuModuleToBinaryPassOptions binaryOptions;
  binaryOptions.compilationTarget = options.format;
  binaryOptions.toolkitPath = toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binaryOptions));
  return success();
}
