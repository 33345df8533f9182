// --bcast-to-nvvm maps reductions to the GPU, but not argmax and argmin,
// whose generics carry two accumulators (the value and its index): a
// diagnostic and a non-zero exit, never host code reading device memory.
// RUN: not bcast-opt %s --bcast-to-nvvm 2>&1 | FileCheck %s

// CHECK: error: 'linalg.generic' op cannot be mapped to the GPU: bcast's GPU lowering handles reductions with one result that a combiner such as arith.addf or arith.maximumf accumulates
func.func @argmax(%x: tensor<4x3xf32>) -> tensor<4x1xi64> {
  %0 = bcast.argmax %x {dim = 1 : i64, keepdim = true} : (tensor<4x3xf32>) -> tensor<4x1xi64>
  return %0 : tensor<4x1xi64>
}
