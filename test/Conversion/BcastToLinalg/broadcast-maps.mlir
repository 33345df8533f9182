// convert-bcast-to-linalg: one linalg.generic per op, whose indexing maps
// express the broadcast (missing dims dropped, static 1s index 0).
// RUN: bcast-opt %s --convert-bcast-to-linalg -mlir-print-local-scope -split-input-file | FileCheck %s

// PyTorch's notes: [5, 1, 4, 1] + [3, 1, 1] -> [5, 3, 4, 1].
// CHECK-LABEL: func @add_notes_5x1x4x1_3x1x1
// CHECK-SAME: (%[[A:.*]]: tensor<5x1x4x1xf32>, %[[B:.*]]: tensor<3x1x1xf32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<5x3x4x1xf32>
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) outs(%[[INIT]] : tensor<5x3x4x1xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK: linalg.yield %[[S]]
// CHECK: return %[[R]]
func.func @add_notes_5x1x4x1_3x1x1(%a: tensor<5x1x4x1xf32>, %b: tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32> {
  %r = bcast.add %a, %b : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  return %r : tensor<5x3x4x1xf32>
}

// -----

// [1] + [3, 1, 7]: the 1 broadcasts along the last dim.
// CHECK-LABEL: func @add_notes_1_3x1x7
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2) -> (0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-NOT: linalg.generic
func.func @add_notes_1_3x1x7(%a: tensor<1xf32>, %b: tensor<3x1x7xf32>) -> tensor<3x1x7xf32> {
  %r = bcast.add %a, %b : (tensor<1xf32>, tensor<3x1x7xf32>) -> tensor<3x1x7xf32>
  return %r : tensor<3x1x7xf32>
}

// -----

// Rank 0 is a scalar: an empty map.
// CHECK-LABEL: func @mul_rank0_scalar
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK: arith.mulf
func.func @mul_rank0_scalar(%a: tensor<2x3xf32>, %s: tensor<f32>) -> tensor<2x3xf32> {
  %r = bcast.mul %a, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @sub_all_rank0
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>]
// CHECK-SAME: iterator_types = []
func.func @sub_all_rank0(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %r = bcast.sub %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Size 0 with 1 gives 0; the 1 indexes 0.
// CHECK-LABEL: func @add_size0
// CHECK: tensor.empty() : tensor<0x3xf32>
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
func.func @add_size0(%a: tensor<0x3xf32>, %b: tensor<1x3xf32>) -> tensor<0x3xf32> {
  %r = bcast.add %a, %b : (tensor<0x3xf32>, tensor<1x3xf32>) -> tensor<0x3xf32>
  return %r : tensor<0x3xf32>
}

// -----

// A 1 that meets a 1 is not broadcast: its map keeps the dimension.
// CHECK-LABEL: func @add_one_with_one
// CHECK: indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
func.func @add_one_with_one(%a: tensor<4x1xf32>, %b: tensor<1xf32>) -> tensor<4x1xf32> {
  %r = bcast.add %a, %b : (tensor<4x1xf32>, tensor<1xf32>) -> tensor<4x1xf32>
  return %r : tensor<4x1xf32>
}

// -----

// Row and column broadcasts against a matrix.
// CHECK-LABEL: func @outer_row_column
// CHECK: indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
func.func @outer_row_column(%c: tensor<4x1xi32>, %r: tensor<3xi32>) -> tensor<4x3xi32> {
  %o = bcast.mul %c, %r : (tensor<4x1xi32>, tensor<3xi32>) -> tensor<4x3xi32>
  return %o : tensor<4x3xi32>
}

// -----

// where: three operands, three maps; the body selects.
// CHECK-LABEL: func @where_three_way
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK: ^bb0(%[[C:.*]]: i1, %[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[S:.*]] = arith.select %[[C]], %[[X]], %[[Y]] : f32
// CHECK: linalg.yield %[[S]]
func.func @where_three_way(%c: tensor<4x1xi1>, %x: tensor<3xf32>, %y: tensor<f32>) -> tensor<4x3xf32> {
  %r = bcast.where %c, %x, %y : (tensor<4x1xi1>, tensor<3xf32>, tensor<f32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

// broadcast_to: a copy through a broadcast map.
// CHECK-LABEL: func @broadcast_to_expand
// CHECK: tensor.empty() : tensor<4x3x5xf32>
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2) -> (d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[X]]
func.func @broadcast_to_expand(%x: tensor<3x1xf32>) -> tensor<4x3x5xf32> {
  %r = bcast.broadcast_to %x : tensor<3x1xf32> -> tensor<4x3x5xf32>
  return %r : tensor<4x3x5xf32>
}

// -----

// In place: the in-place operand is the init, and the body reads it as an
// input (never through the output block argument, which would make fusion
// keep the in-place result as a second output).
// CHECK-LABEL: func @add_in_place
// CHECK-SAME: (%[[X:.*]]: tensor<5x3x4x1xf32>, %[[Y:.*]]: tensor<3x1x1xf32>)
// CHECK-NOT: tensor.empty
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME: ins(%[[X]], %[[Y]] : tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) outs(%[[X]] : tensor<5x3x4x1xf32>)
// CHECK: ^bb0(%[[LHS:.*]]: f32, %[[RHS:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[LHS]], %[[RHS]] : f32
// CHECK-NEXT: linalg.yield %[[SUM]] : f32
func.func @add_in_place(%x: tensor<5x3x4x1xf32>, %y: tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32> {
  %r = bcast.add_ %x, %y : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  return %r : tensor<5x3x4x1xf32>
}

// -----

// Static shapes need no run-time checks.
// CHECK-LABEL: func @static_no_checks
// CHECK-NOT: bcast.runtime_check
// CHECK-NOT: tensor.dim
func.func @static_no_checks(%a: tensor<4x1xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %r = bcast.add %a, %b : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
