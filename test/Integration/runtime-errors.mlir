// Run-time shape checks: a mismatch stops the program with exit status 1
// and the reference sentence, with the real sizes, on stderr.
//
// numpy policy: PyTorch's sentences.
// RUN: bcast-opt %s --bcast-to-llvm | not mlir-runner -e size_mismatch -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=SIZE
// SIZE: The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1
// SIZE-NOT: result
//
// RUN: bcast-opt %s --bcast-to-llvm | not mlir-runner -e in_place_grows -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=INPLACE
// INPLACE: output with shape [2, 1] doesn't match the broadcast shape [2, 3]: The expanded size of the tensor (1) must match the existing size (3) at non-singleton dimension 1.  Target sizes: [2, 1].  Tensor sizes: [3]
//
// RUN: bcast-opt %s --bcast-to-llvm | not mlir-runner -e broadcast_to_bad -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=EXPAND
// EXPAND: The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [3]
//
// RUN: bcast-opt %s --bcast-to-llvm | not mlir-runner -e result_type -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=RESULT
// RESULT: output with shape [4] doesn't match the broadcast shape [5]
//
// The exit status is exactly 1 (exit(1), not an abort):
// RUN: bcast-opt %s --bcast-to-llvm | mlir-runner -e size_mismatch -entry-point-result=void -shared-libs=%runner_libs > /dev/null 2>&1; test $? -eq 1
//
// static policy: PyTensor's sentences followed by the sizes.
// RUN: bcast-opt %s --bcast-to-llvm=broadcast-policy=static | not mlir-runner -e runtime_one -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=STATIC1
// STATIC1: Incompatible vectorized shapes for input 1 and axis 1. Input 1 has shape 1, but is not statically known to have shape 1, and thus not broadcastable. Input 1 has size 1 and input 0 has size 3.
//
// RUN: bcast-opt %s --bcast-to-llvm=broadcast-policy=static | not mlir-runner -e size_mismatch -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=STATICN
// STATICN: Vectorized input 1 has an incompatible shape in axis 1. Input 1 has size 2 and input 0 has size 3.
//
// The same `?` that is 1 at run time broadcasts under the numpy policy:
// RUN: bcast-opt %s --bcast-to-llvm | mlir-runner -e runtime_one -entry-point-result=void -shared-libs=%runner_libs | FileCheck %s --check-prefix=NUMPY1
// NUMPY1: [11,   12,   13]
// NUMPY1: [14,   15,   16]

func.func private @printMemrefF32(memref<*xf32>)

func.func @add(%a: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %r = bcast.add %a, %b : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @print(%t: tensor<?x?xf32>) {
  %m = bufferization.to_buffer %t : tensor<?x?xf32> to memref<?x?xf32>
  %u = memref.cast %m : memref<?x?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @matrix() -> tensor<?x?xf32> {
  %a = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %d = tensor.cast %a : tensor<2x3xf32> to tensor<?x?xf32>
  return %d : tensor<?x?xf32>
}

func.func @size_mismatch() {
  %a = call @matrix() : () -> tensor<?x?xf32>
  %b = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %bd = tensor.cast %b : tensor<2xf32> to tensor<?xf32>
  %r = call @add(%a, %bd) : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  call @print(%r) : (tensor<?x?xf32>) -> ()
  return
}

func.func @runtime_one() {
  %a = call @matrix() : () -> tensor<?x?xf32>
  %b = arith.constant dense<[10.0]> : tensor<1xf32>
  %bd = tensor.cast %b : tensor<1xf32> to tensor<?xf32>
  %r = call @add(%a, %bd) : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  call @print(%r) : (tensor<?x?xf32>) -> ()
  return
}

func.func @grow(%x: tensor<?x?xf32>, %y: tensor<?xf32>) -> tensor<?x?xf32> {
  %r = bcast.add_ %x, %y : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @in_place_grows() {
  %x = arith.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %xd = tensor.cast %x : tensor<2x1xf32> to tensor<?x?xf32>
  %y = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %yd = tensor.cast %y : tensor<3xf32> to tensor<?xf32>
  %r = call @grow(%xd, %yd) : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  call @print(%r) : (tensor<?x?xf32>) -> ()
  return
}

func.func @expand(%x: tensor<?xf32>) -> tensor<2x4xf32> {
  %r = bcast.broadcast_to %x : tensor<?xf32> -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

func.func @broadcast_to_bad() {
  %x = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %xd = tensor.cast %x : tensor<3xf32> to tensor<?xf32>
  %r = call @expand(%xd) : (tensor<?xf32>) -> tensor<2x4xf32>
  %c = tensor.cast %r : tensor<2x4xf32> to tensor<?x?xf32>
  call @print(%c) : (tensor<?x?xf32>) -> ()
  return
}

func.func @declared(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<4xf32> {
  %r = bcast.mul %a, %b : (tensor<?xf32>, tensor<?xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @result_type() {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>
  %ad = tensor.cast %a : tensor<5xf32> to tensor<?xf32>
  %r = call @declared(%ad, %ad) : (tensor<?xf32>, tensor<?xf32>) -> tensor<4xf32>
  return
}
