// Dynamic result sizes are reified from the operands' sizes.
// RUN: bcast-opt %s --resolve-ranked-shaped-type-result-dims -canonicalize | FileCheck %s

// A dimension with one dynamic operand size is that size.
// CHECK-LABEL: func @one_dynamic
// CHECK-SAME: (%[[A:.*]]: tensor<?x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[D:.*]] = tensor.dim %[[A]], %[[C0]]
// CHECK: return %[[D]]
func.func @one_dynamic(%a: tensor<?x3xf32>, %b: tensor<3xf32>) -> index {
  %r = bcast.add %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %r, %c0 : tensor<?x3xf32>
  return %d : index
}

// Two dynamic sizes: the first unless it is 1 at run time.
// CHECK-LABEL: func @two_dynamic
// CHECK-SAME: (%[[A:.*]]: tensor<?xf32>, %[[B:.*]]: tensor<?xf32>)
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[DA:.*]] = tensor.dim %[[A]]
// CHECK-DAG: %[[DB:.*]] = tensor.dim %[[B]]
// CHECK: %[[IS1:.*]] = arith.cmpi eq, %[[DA]], %[[C1]]
// CHECK: %[[S:.*]] = arith.select %[[IS1]], %[[DB]], %[[DA]]
// CHECK: return %[[S]]
func.func @two_dynamic(%a: tensor<?xf32>, %b: tensor<?xf32>) -> index {
  %r = bcast.mul %a, %b : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %r, %c0 : tensor<?xf32>
  return %d : index
}

// A `?` result where an operand is static is the static size.
// CHECK-LABEL: func @static_operand
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: return %[[C4]]
func.func @static_operand(%a: tensor<?xf32>, %b: tensor<4xf32>) -> index {
  %r = bcast.sub %a, %b : (tensor<?xf32>, tensor<4xf32>) -> tensor<?xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %r, %c0 : tensor<?xf32>
  return %d : index
}

// In place: the in-place operand's size.
// CHECK-LABEL: func @in_place
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>,
// CHECK: %[[D:.*]] = tensor.dim %[[X]]
// CHECK: return %[[D]]
func.func @in_place(%x: tensor<?x4xf32>, %y: tensor<?x1xf32>) -> index {
  %r = bcast.add_ %x, %y : (tensor<?x4xf32>, tensor<?x1xf32>) -> tensor<?x4xf32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %r, %c0 : tensor<?x4xf32>
  return %d : index
}

// broadcast_to: a `?` target keeps the source size.
// CHECK-LABEL: func @broadcast_to_keeps
// CHECK-SAME: (%[[X:.*]]: tensor<?xf32>)
// CHECK: %[[D:.*]] = tensor.dim %[[X]]
// CHECK: return %[[D]]
func.func @broadcast_to_keeps(%x: tensor<?xf32>) -> index {
  %r = bcast.broadcast_to %x : tensor<?xf32> -> tensor<5x?xf32>
  %c1 = arith.constant 1 : index
  %d = tensor.dim %r, %c1 : tensor<5x?xf32>
  return %d : index
}
