// A refinement that contradicts a size known through tensor.cast fails its
// check on every run: the program reports PyTensor's sentence and exits 1
// (the lowering must not build an invalid cast from the static source; a
// fuzzer finding, test/Robustness/fuzz-regressions/).
// RUN: bcast-opt %s --bcast-to-llvm | not mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s
// RUN: bcast-opt %s --bcast-to-llvm | mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs > /dev/null 2>&1; test $? -eq 1
// CHECK: SpecifyShape: dim 1 of input has shape 3, expected 1.

func.func @f(%s: tensor<3x3xf32>) -> tensor<?x1xf32> {
  %d = tensor.cast %s : tensor<3x3xf32> to tensor<?x?xf32>
  %r = bcast.specify_shape %d : (tensor<?x?xf32>) -> tensor<?x1xf32>
  return %r : tensor<?x1xf32>
}

func.func @main() {
  %c = arith.constant dense<1.0> : tensor<3x3xf32>
  %r = func.call @f(%c) : (tensor<3x3xf32>) -> tensor<?x1xf32>
  return
}
