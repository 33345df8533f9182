// RUN: bcast-opt %s --bcast-drop-contradicted-casts --split-input-file | FileCheck %s

// The chain 4x? -> ?x? -> 0x? contradicts itself in dim 0: its last cast
// becomes a tensor.empty with the `?` size of the cast's operand; the first
// cast stays, since the function also returns it.
// CHECK-LABEL: func.func @contradicted
// CHECK-SAME: (%[[A:.*]]: tensor<4x?xf32>)
// CHECK: %[[CAST:.*]] = tensor.cast %[[A]] : tensor<4x?xf32> to tensor<?x?xf32>
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[D:.*]] = tensor.dim %[[CAST]], %[[C1]]
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<0x?xf32>
// CHECK-NOT: tensor.cast
// CHECK: return %[[E]], %[[CAST]]
func.func @contradicted(%a: tensor<4x?xf32>) -> (tensor<0x?xf32>, tensor<?x?xf32>) {
  %c = tensor.cast %a : tensor<4x?xf32> to tensor<?x?xf32>
  %d = tensor.cast %c : tensor<?x?xf32> to tensor<0x?xf32>
  return %d, %c : tensor<0x?xf32>, tensor<?x?xf32>
}

// -----

// A longer chain: the contradiction is between its first source and its last
// result, through two relaxing casts.
// CHECK-LABEL: func.func @long_chain
// CHECK: tensor.empty() : tensor<2x3xf32>
// CHECK-NOT: tensor<3x3xf32> to tensor<2x3xf32>
func.func @long_chain(%a: tensor<3x3xf32>) -> tensor<2x3xf32> {
  %b = tensor.cast %a : tensor<3x3xf32> to tensor<?x3xf32>
  %c = tensor.cast %b : tensor<?x3xf32> to tensor<?x?xf32>
  %d = tensor.cast %c : tensor<?x?xf32> to tensor<2x3xf32>
  return %d : tensor<2x3xf32>
}

// -----

// Chains that agree stay as they are: refining a `?` to the size the source
// has, and relaxing then refining another dim.
// CHECK-LABEL: func.func @agreeing
// CHECK-NOT: tensor.empty
// CHECK: tensor.cast %{{.*}} : tensor<4x?xf32> to tensor<?x?xf32>
// CHECK: tensor.cast %{{.*}} : tensor<?x?xf32> to tensor<4x5xf32>
// CHECK-NOT: tensor.empty
func.func @agreeing(%a: tensor<4x?xf32>) -> tensor<4x5xf32> {
  %c = tensor.cast %a : tensor<4x?xf32> to tensor<?x?xf32>
  %d = tensor.cast %c : tensor<?x?xf32> to tensor<4x5xf32>
  return %d : tensor<4x5xf32>
}

// -----

// A single cast cannot contradict (it would not verify), nor can a cast to
// an unranked tensor.
// CHECK-LABEL: func.func @single_and_unranked
// CHECK-NOT: tensor.empty
// CHECK: tensor.cast %{{.*}} : tensor<4x?xf32> to tensor<?x?xf32>
// CHECK: tensor.cast %{{.*}} : tensor<?x?xf32> to tensor<*xf32>
func.func @single_and_unranked(%a: tensor<4x?xf32>) -> tensor<*xf32> {
  %c = tensor.cast %a : tensor<4x?xf32> to tensor<?x?xf32>
  %d = tensor.cast %c : tensor<?x?xf32> to tensor<*xf32>
  return %d : tensor<*xf32>
}
