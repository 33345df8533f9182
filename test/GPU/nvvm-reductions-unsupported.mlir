// --bcast-to-nvvm does not map reductions to the GPU yet (the CPU pipeline
// lowers them): a diagnostic and a non-zero exit, never host code reading
// device memory.
// RUN: not bcast-opt %s --bcast-to-nvvm 2>&1 | FileCheck %s

// CHECK: error: 'linalg.generic' op cannot be mapped to the GPU: bcast's GPU lowering handles element-wise generics with broadcast indexing maps
func.func @sum(%x: tensor<4x3xf32>) -> tensor<4x1xf32> {
  %0 = bcast.sum %x {dims = array<i64: 1>, keepdim = true} : (tensor<4x3xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}
