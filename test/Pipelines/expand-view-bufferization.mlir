// How the stride-0 views of the numpy policy (bcast.expand_view) bufferize:
// a view only read by the loops costs nothing, even when its source is
// updated in place afterwards; a write into a view (the result of a dynamic
// broadcast_to whose copy folded away) goes to a buffer of its own, never
// through the view into the source.
// RUN: bcast-opt %s --bcast-to-linalg --eliminate-empty-tensors --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize | FileCheck %s

// CHECK-LABEL: func @read_then_update
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>, %[[B:.*]]: memref<?xf32>, %[[C:.*]]: memref<?x?xf32>)
// CHECK-NOT: memref.copy
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[X]]
// CHECK: %[[Y:.*]] = memref.alloc
// CHECK-NOT: memref.copy
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[VIEW]] : {{.*}}) outs(%[[Y]] :
// CHECK-NOT: memref.copy
// CHECK: linalg.generic {{.*}} ins(%[[X]], %{{.*}} : {{.*}}) outs(%[[X]] :
// CHECK: return %[[Y]], %[[X]]
func.func @read_then_update(%x: tensor<?x?xf32>, %b: tensor<?xf32>, %c: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %y = bcast.add %b, %x : (tensor<?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %z = bcast.mul_ %x, %c : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y, %z : tensor<?x?xf32>, tensor<?x?xf32>
}

// CHECK-LABEL: func @insert_into_broadcast
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf32>)
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[A]]
// CHECK: %[[NEW:.*]] = memref.alloc() {{.*}} : memref<2x3xf32>
// CHECK: memref.copy %[[VIEW]], %[[NEW]]
// CHECK: memref.store %{{.*}}, %[[NEW]]
// CHECK: return %[[NEW]]
func.func @insert_into_broadcast(%a: tensor<?x?xf32>) -> tensor<2x3xf32> {
  %x = bcast.broadcast_to %a : tensor<?x?xf32> -> tensor<2x3xf32>
  %c0 = arith.constant 0 : index
  %f = arith.constant 100.0 : f32
  %y = tensor.insert %f into %x[%c0, %c0] : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
