//===- Passes.td - bcast's GPU passes ----------------------*- tablegen -*-===//
//
// The passes --bcast-to-nvvm runs on bufferized IR: element-wise generics to
// GPU launches, and host allocations of the kernels' buffers to device
// memory.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_CONVERSION_BCASTTOGPU_PASSES_TD
#define BCAST_CONVERSION_BCASTTOGPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def BcastMapElementwiseToGPU : Pass<"bcast-map-elementwise-to-gpu"> {
  let summary = "Turn bufferized element-wise broadcast generics into "
                "gpu.launch ops with coalesced indexing";
  let description = [{
    Each element-wise `linalg.generic` on memrefs (all loops parallel, the
    output indexed by the identity, inputs by broadcast maps) becomes one
    `gpu.launch`. Consecutive threads of a block (thread x) take consecutive
    elements of the innermost, contiguous dimension, so every load and store
    of a warp is coalesced; block x covers the innermost dimension and
    block y walks the rows (all outer dimensions together) with a
    grid-stride loop, so any size is covered whatever the grid limits. When
    the innermost dimension is statically shorter than a block, the whole
    index space is flattened instead (one grid-stride loop over all
    elements), so short rows do not leave threads idle. A fused chain of
    bcast ops is one generic, hence exactly one kernel.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256",
           "Threads per block">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def BcastDeviceAllocations : Pass<"bcast-device-allocations"> {
  let summary = "Allocate the buffers of GPU host functions in device memory";
  let description = [{
    In functions that launch GPU kernels, `memref.alloc`/`memref.dealloc`
    become `gpu.alloc`/`gpu.dealloc`: the buffers bufferization created for
    results and temporaries live where the kernels read and write them.
    Functions without launches are left alone.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // BCAST_CONVERSION_BCASTTOGPU_PASSES_TD
