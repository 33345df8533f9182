// Run-time shape checks of the three-operand ops: a mismatch between any two
// of the three operands (as PyTorch folds them: `a` the shape so far), or an in-place operand that would grow, stops the
// program with exit status 1 and the reference sentence, with the real
// sizes, on stderr; sizes that are 1 at run time broadcast under the numpy
// policy.
//
// RUN: bcast-opt %s --bcast-to-llvm | not mlir-runner -e addcmul_mismatch -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=SIZE
// SIZE: The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1
// SIZE-NOT: data =
//
// RUN: bcast-opt %s --bcast-to-llvm | not mlir-runner -e clamp_in_place_grows -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=INPLACE
// INPLACE: output with shape [2, 1] doesn't match the broadcast shape [2, 3]: The expanded size of the tensor (1) must match the existing size (3) at non-singleton dimension 1.  Target sizes: [2, 1].  Tensor sizes: [3]
//
// RUN: bcast-opt %s --bcast-to-llvm=broadcast-policy=static | not mlir-runner -e addcmul_runtime_one -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=STATIC
// STATIC: Incompatible vectorized shapes for input 2 and axis 1. Input 2 has shape 1, but is not statically known to have shape 1, and thus not broadcastable. Input 2 has size 1 and input 0 has size 3.
//
// The same sizes broadcast under the numpy policy: 1 + 2 * [1, 2, 3] * 10.
// RUN: bcast-opt %s --bcast-to-llvm | mlir-runner -e addcmul_runtime_one -entry-point-result=void -shared-libs=%runner_libs | FileCheck %s --check-prefix=NUMPY
// NUMPY: [21,   41,   61]
// NUMPY: [24,   44,   64]

func.func private @printMemrefF32(memref<*xf32>)

func.func @addcmul(%a: tensor<?x?xf32>, %b: tensor<?xf32>, %c: tensor<?xf32>) -> tensor<?x?xf32> {
  %r = bcast.addcmul %a, %b, %c {value = 2.0 : f64} : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @print(%t: tensor<?x?xf32>) {
  %m = bufferization.to_buffer %t : tensor<?x?xf32> to memref<?x?xf32>
  %u = memref.cast %m : memref<?x?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @addcmul_mismatch() {
  %a = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %ad = tensor.cast %a : tensor<2x3xf32> to tensor<?x?xf32>
  %b = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %bd = tensor.cast %b : tensor<3xf32> to tensor<?xf32>
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %cd = tensor.cast %c : tensor<2xf32> to tensor<?xf32>
  %r = call @addcmul(%ad, %bd, %cd) : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  call @print(%r) : (tensor<?x?xf32>) -> ()
  return
}

func.func @addcmul_runtime_one() {
  %a = arith.constant dense<[[1.0, 1.0, 1.0], [4.0, 4.0, 4.0]]> : tensor<2x3xf32>
  %ad = tensor.cast %a : tensor<2x3xf32> to tensor<?x?xf32>
  %b = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %bd = tensor.cast %b : tensor<3xf32> to tensor<?xf32>
  %c = arith.constant dense<[10.0]> : tensor<1xf32>
  %cd = tensor.cast %c : tensor<1xf32> to tensor<?xf32>
  %r = call @addcmul(%ad, %bd, %cd) : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  call @print(%r) : (tensor<?x?xf32>) -> ()
  return
}

func.func @clamp_(%x: tensor<?x?xf32>, %lo: tensor<?xf32>, %hi: tensor<f32>) -> tensor<?x?xf32> {
  %r = bcast.clamp_ %x, %lo, %hi : (tensor<?x?xf32>, tensor<?xf32>, tensor<f32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @clamp_in_place_grows() {
  %x = arith.constant dense<[[1.0], [4.0]]> : tensor<2x1xf32>
  %xd = tensor.cast %x : tensor<2x1xf32> to tensor<?x?xf32>
  %lo = arith.constant dense<[0.0, 2.0, 3.0]> : tensor<3xf32>
  %lod = tensor.cast %lo : tensor<3xf32> to tensor<?xf32>
  %hi = arith.constant dense<5.0> : tensor<f32>
  %r = call @clamp_(%xd, %lod, %hi) : (tensor<?x?xf32>, tensor<?xf32>, tensor<f32>) -> tensor<?x?xf32>
  call @print(%r) : (tensor<?x?xf32>) -> ()
  return
}
