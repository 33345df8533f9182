// Dynamic sizes under both broadcast policies: the run-time checks and the
// views (stride 0 under the numpy policy where a size is 1 at run time).
// RUN: bcast-opt %s --convert-bcast-to-linalg -cse -mlir-print-local-scope -split-input-file | FileCheck %s --check-prefixes=CHECK,NUMPY
// RUN: bcast-opt %s --convert-bcast-to-linalg=broadcast-policy=static -cse -mlir-print-local-scope -split-input-file | FileCheck %s --check-prefixes=CHECK,STATIC

// CHECK-LABEL: func @add_dynamic_row
// CHECK-SAME: (%[[A:.*]]: tensor<?x?xf32>, %[[B:.*]]: tensor<?xf32>)
// CHECK-DAG: %[[D0:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x?xf32>
// CHECK-DAG: %[[D1:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x?xf32>
// CHECK-DAG: %[[DB:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?xf32>
// NUMPY: %[[NE:.*]] = arith.cmpi ne, %[[D1]], %[[DB]]
// NUMPY: %[[BAD:.*]] = arith.andi %[[NE]],
// NUMPY: bcast.runtime_check %[[BAD]], "The size of tensor a (%ld) must match the size of tensor b (%ld) at non-singleton dimension 1"(%[[D1]], %[[DB]] : index, index)
// STATIC: bcast.runtime_check %{{.*}}, "Incompatible vectorized shapes for input 0 and axis 1. Input 0 has shape 1, but is not statically known to have shape 1, and thus not broadcastable. Input 0 has size %ld and input 1 has size %ld."
// STATIC: bcast.runtime_check %{{.*}}, "Incompatible vectorized shapes for input 1 and axis 1. Input 1 has shape 1, but is not statically known to have shape 1, and thus not broadcastable. Input 1 has size %ld and input 0 has size %ld."
// STATIC: bcast.runtime_check %{{.*}}, "Vectorized input 1 has an incompatible shape in axis 1. Input 1 has size %ld and input 0 has size %ld."
// Under the numpy policy each operand whose `?` may be 1 is a stride-0 view.
// Under the static policy the same operands are views too, which keep their
// sizes `?` in the generic (finding 15), with the same identity maps:
// CHECK: %[[VA:.*]] = bcast.expand_view %[[A]]
// CHECK: %[[VB:.*]] = bcast.expand_view %[[B]]
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME: ins(%[[VA]], %[[VB]] :
func.func @add_dynamic_row(%a: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %r = bcast.add %a, %b : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// A `?` against a static size: only that operand can broadcast.
// CHECK-LABEL: func @dynamic_vs_static
// CHECK-SAME: (%[[A:.*]]: tensor<?xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[D:.*]] = tensor.dim %[[A]], %{{.*}}
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// NUMPY: bcast.runtime_check %{{.*}}, "The size of tensor a (%ld) must match the size of tensor b (%ld) at non-singleton dimension 0"(%[[D]], %[[C4]] : index, index)
// STATIC: "Vectorized input 0 has an incompatible shape in axis 0.
// CHECK: %[[V:.*]] = bcast.expand_view %[[A]][%[[C4]]] : tensor<?xf32>
// CHECK: tensor.empty() : tensor<4xf32>
// CHECK: ins(%[[V]], %[[B]] :
func.func @dynamic_vs_static(%a: tensor<?xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = bcast.mul %a, %b : (tensor<?xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// The only dynamic size of a dimension is the result size: nothing to check
// or view.
// CHECK-LABEL: func @dynamic_batch
// CHECK-NOT: bcast.runtime_check
// CHECK-NOT: bcast.expand_view
// CHECK: %[[N:.*]] = tensor.dim
// CHECK: tensor.empty(%[[N]]) : tensor<?x3xf32>
// CHECK: linalg.generic
func.func @dynamic_batch(%a: tensor<?x3xf32>, %b: tensor<3xf32>) -> tensor<?x3xf32> {
  %r = bcast.add %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

// -----

// A static 1 against a `?` always broadcasts: no check.
// CHECK-LABEL: func @static_one_vs_dynamic
// CHECK-NOT: bcast.runtime_check
// CHECK: indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
func.func @static_one_vs_dynamic(%a: tensor<?x1xf32>, %b: tensor<1x?xf32>) -> tensor<?x?xf32> {
  %r = bcast.add %a, %b : (tensor<?x1xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// In place: the in-place shape may not change at run time. The in-place
// operand has the result's shape: it needs no view.
// CHECK-LABEL: func @in_place_dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32>,
// CHECK: bcast.runtime_check %{{.*}}, "output with shape [%ld, %ld] doesn't match the broadcast shape [%ld, %ld]: The expanded size of the tensor (%ld) must match the existing size (%ld) at non-singleton dimension 1.  Target sizes: [%ld, %ld].  Tensor sizes: [%ld]"
// NUMPY: %[[V:.*]] = bcast.expand_view
// NUMPY: linalg.generic {{.*}} ins(%[[X]], %[[V]] : {{.*}}) outs(%[[X]] :
func.func @in_place_dynamic(%x: tensor<?x?xf32>, %y: tensor<?xf32>) -> tensor<?x?xf32> {
  %r = bcast.add_ %x, %y : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// A static result size where the broadcast size is dynamic is checked.
// CHECK-LABEL: func @declared_static_result
// CHECK: bcast.runtime_check %{{.*}}, "output with shape [%ld] doesn't match the broadcast shape [%ld]"
func.func @declared_static_result(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<4xf32> {
  %r = bcast.add %a, %b : (tensor<?xf32>, tensor<?xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// broadcast_to from a `?` to a static size (either policy).
// CHECK-LABEL: func @broadcast_to_dynamic_source
// CHECK: bcast.runtime_check %{{.*}}, "The expanded size of the tensor (%ld) must match the existing size (%ld) at non-singleton dimension 1.  Target sizes: [%ld, %ld].  Tensor sizes: [%ld]"
// CHECK: bcast.expand_view
func.func @broadcast_to_dynamic_source(%x: tensor<?xf32>) -> tensor<2x4xf32> {
  %r = bcast.broadcast_to %x : tensor<?xf32> -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----

// A `?` target keeps the source size: no check, no view.
// CHECK-LABEL: func @broadcast_to_keeps_size
// CHECK-NOT: bcast.runtime_check
// CHECK-NOT: bcast.expand_view
// CHECK: %[[N:.*]] = tensor.dim
// CHECK: tensor.empty(%[[N]]) : tensor<2x?xf32>
func.func @broadcast_to_keeps_size(%x: tensor<?xf32>) -> tensor<2x?xf32> {
  %r = bcast.broadcast_to %x : tensor<?xf32> -> tensor<2x?xf32>
  return %r : tensor<2x?xf32>
}

// -----

// Three operands (addcmul), each with `?` sizes: as PyTorch folds the
// shapes, z is checked against the broadcast of x and y (`a` the shape so
// far, `b` the next operand) where they can conflict (x and y cannot: x is
// statically 1 where y has a size), and
// each operand whose `?` may differ from the result size is a view.
// CHECK-LABEL: func @addcmul_three_dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x1xf32>, %[[Y:.*]]: tensor<?xf32>, %[[Z:.*]]: tensor<?x?xf32>)
// NUMPY: bcast.runtime_check %{{.*}}, "The size of tensor a (%ld) must match the size of tensor b (%ld) at non-singleton dimension 1"
// NUMPY: bcast.runtime_check %{{.*}}, "The size of tensor a (%ld) must match the size of tensor b (%ld) at non-singleton dimension 0"
// NUMPY-NOT: bcast.runtime_check
// STATIC: "Vectorized input 2 has an incompatible shape in axis 1. Input 2 has size %ld and input 1 has size %ld."
// STATIC: "Vectorized input 2 has an incompatible shape in axis 0. Input 2 has size %ld and input 0 has size %ld."
// CHECK-DAG: %[[VX:.*]] = bcast.expand_view %[[X]]
// CHECK-DAG: %[[VY:.*]] = bcast.expand_view %[[Y]]
// CHECK-DAG: %[[VZ:.*]] = bcast.expand_view %[[Z]]
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME: ins(%[[VX]], %[[VY]], %[[VZ]] :
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @addcmul_three_dynamic(%x: tensor<?x1xf32>, %y: tensor<?xf32>, %z: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = bcast.addcmul %x, %y, %z : (tensor<?x1xf32>, tensor<?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// In place over three operands: both other operands must expand to the
// in-place operand's shape at run time; the in-place operand is no view.
// CHECK-LABEL: func @clamp_in_place_three_dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32>, %[[LO:.*]]: tensor<?xf32>, %[[HI:.*]]: tensor<?x1xf32>)
// CHECK: bcast.runtime_check %{{.*}}, "output with shape [%ld, %ld] doesn't match the broadcast shape [%ld, %ld]: The expanded size of the tensor (%ld) must match the existing size (%ld) at non-singleton dimension 1.  Target sizes: [%ld, %ld].  Tensor sizes: [%ld]"
// CHECK: bcast.runtime_check %{{.*}}, "output with shape [%ld, %ld] doesn't match the broadcast shape [%ld, %ld]: The expanded size of the tensor (%ld) must match the existing size (%ld) at non-singleton dimension 0.  Target sizes: [%ld, %ld].  Tensor sizes: [%ld, %ld]"
// NUMPY-NOT: bcast.expand_view %[[X]]
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[X]] : tensor<?x?xf32>)
// CHECK: arith.maximumf
// CHECK: arith.minimumf
func.func @clamp_in_place_three_dynamic(%x: tensor<?x?xf32>, %lo: tensor<?xf32>, %hi: tensor<?x1xf32>) -> tensor<?x?xf32> {
  %r = bcast.clamp_ %x, %lo, %hi : (tensor<?x?xf32>, tensor<?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
