// An element-wise operand with a `?` size that faces a static result size,
// produced by an op that canonicalization later proves static (here a neg of
// a cast whose source is 1 long): under the static policy the check fails on
// every run, so the program reports PyTensor's sentence and exits 1; under
// the numpy policy the 1 broadcasts. The static lowering used to hand the
// operand to the generic as it was, and canonicalization folded the refined
// producer into it, leaving a generic that does not verify (bcast-fuzz-llvm,
// finding 15 of docs/Robustness.md).
// RUN: bcast-opt %s --bcast-to-llvm=broadcast-policy=static | not mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=STATIC
// RUN: bcast-opt %s --bcast-to-llvm=broadcast-policy=static | mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs > /dev/null 2>&1; test $? -eq 1
// RUN: bcast-opt %s "--bcast-to-llvm=broadcast-policy=static vectorize=false" | not mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=STATIC
// RUN: bcast-opt %s --bcast-to-llvm | mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs | FileCheck %s --check-prefix=NUMPY
// STATIC: Incompatible vectorized shapes for input 1 and axis 0. Input 1 has shape 1, but is not statically known to have shape 1, and thus not broadcastable. Input 1 has size 1 and input 0 has size 2.
// NUMPY: [9,  19]

func.func @f(%x: tensor<1xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %c = tensor.cast %x : tensor<1xf32> to tensor<?xf32>
  %n = bcast.neg %c : (tensor<?xf32>) -> tensor<?xf32>
  %r = bcast.add %y, %n : (tensor<2xf32>, tensor<?xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %a = arith.constant dense<1.0> : tensor<1xf32>
  %b = arith.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %r = func.call @f(%a, %b) : (tensor<1xf32>, tensor<2xf32>) -> tensor<2xf32>
  %u = tensor.cast %r : tensor<2xf32> to tensor<*xf32>
  func.call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
