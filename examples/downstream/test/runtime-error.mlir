// A run-time shape error reaches the downstream tool's user as bcast reports
// it: PyTorch's sentence with the real sizes, exit status 1.
// RUN: downstream-opt %s --bcast-to-llvm | not %runner 2>&1 | FileCheck %s
// CHECK: The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0

func.func @add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %r = bcast.add %a, %b : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @main() {
  %a = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %ad = tensor.cast %a : tensor<2xf32> to tensor<?xf32>
  %bd = tensor.cast %b : tensor<3xf32> to tensor<?xf32>
  %r = call @add(%ad, %bd) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return
}
