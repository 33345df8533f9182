// A refinement that contradicts a size known only after fusion (the fused
// producer's `4x?`; robustness finding 18): the program reports PyTensor's
// sentence and exits 1, where the lowering once folded the two casts into a
// memref.cast that does not verify.
// RUN: bcast-opt %s --bcast-to-llvm | not mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s
// RUN: bcast-opt %s --bcast-to-llvm | mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs > /dev/null 2>&1; test $? -eq 1
// CHECK: SpecifyShape: dim 0 of input has shape 4, expected 0.

func.func @f(%arg0: tensor<4x?xi16>) -> (tensor<0x?xbf16>, tensor<?x?xbf16>) {
  %d = tensor.cast %arg0 : tensor<4x?xi16> to tensor<?x?xi16>
  %0 = bcast.cast %d : (tensor<?x?xi16>) -> tensor<?x?xbf16>
  %1 = bcast.log_ %0 : (tensor<?x?xbf16>) -> tensor<?x?xbf16>
  %2 = bcast.atan %1 : (tensor<?x?xbf16>) -> tensor<?x?xbf16>
  %3 = bcast.specify_shape %2 : (tensor<?x?xbf16>) -> tensor<0x?xbf16>
  return %3, %2 : tensor<0x?xbf16>, tensor<?x?xbf16>
}

func.func @main() {
  %c = arith.constant dense<3> : tensor<4x2xi16>
  %a = tensor.cast %c : tensor<4x2xi16> to tensor<4x?xi16>
  %r:2 = func.call @f(%a) : (tensor<4x?xi16>) -> (tensor<0x?xbf16>, tensor<?x?xbf16>)
  return
}
