// An element-wise operand whose `?` size is known, through the tensor.cast
// that produces it, to contradict the result size fails its run-time check
// on every run: the program reports the sentence and exits 1. The lowering
// used to build a generic that canonicalization turned invalid by folding
// the cast into it (bcast-fuzz-llvm, finding 12 of docs/Robustness.md).
// RUN: bcast-opt %s --bcast-to-llvm | not mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=INPLACE
// RUN: bcast-opt %s --bcast-to-llvm | mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs > /dev/null 2>&1; test $? -eq 1
// RUN: bcast-opt %s --bcast-to-llvm=broadcast-policy=static | not mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=INPLACE
// RUN: bcast-opt %s --bcast-to-llvm=broadcast-policy=static | not mlir-runner -e other -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=STATIC
// RUN: bcast-opt %s --bcast-to-llvm | not mlir-runner -e other -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=NUMPY
// INPLACE: output with shape [1, 2] doesn't match the broadcast shape [4, 2]
// STATIC: Vectorized input 1 has an incompatible shape in axis 0. Input 1 has size 4 and input 0 has size 3.
// NUMPY: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0

func.func @f(%x: tensor<1x2xf32>, %y: tensor<4x2xf32>) -> tensor<1x2xf32> {
  %c = tensor.cast %y : tensor<4x2xf32> to tensor<?x2xf32>
  %r = bcast.add_ %x, %c : (tensor<1x2xf32>, tensor<?x2xf32>) -> tensor<1x2xf32>
  return %r : tensor<1x2xf32>
}

func.func @g(%x: tensor<3xf32>, %y: tensor<4xf32>) -> tensor<3xf32> {
  %c = tensor.cast %y : tensor<4xf32> to tensor<?xf32>
  %r = bcast.add %x, %c : (tensor<3xf32>, tensor<?xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

func.func @main() {
  %a = arith.constant dense<1.0> : tensor<1x2xf32>
  %b = arith.constant dense<2.0> : tensor<4x2xf32>
  %r = func.call @f(%a, %b) : (tensor<1x2xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
  return
}

func.func @other() {
  %a = arith.constant dense<1.0> : tensor<3xf32>
  %b = arith.constant dense<2.0> : tensor<4xf32>
  %r = func.call @g(%a, %b) : (tensor<3xf32>, tensor<4xf32>) -> tensor<3xf32>
  return
}
