// --bcast-to-nvvm rejects static sizes that overflow, like --bcast-to-llvm.
// RUN: not bcast-opt %s --bcast-to-nvvm 2>&1 | FileCheck %s
// CHECK: cannot lower a value of type 'tensor<4294967296x4294967296xf32>'
func.func @f(%a: tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  %r = bcast.add %a, %a : (tensor<4294967296x4294967296xf32>, tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32>
  return %r : tensor<4294967296x4294967296xf32>
}
