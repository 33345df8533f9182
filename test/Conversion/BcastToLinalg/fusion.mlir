// --bcast-to-linalg fuses chains of bcast ops with single-use intermediates
// into one linalg.generic: no intermediate tensors.
// RUN: bcast-opt %s --bcast-to-linalg -mlir-print-local-scope | FileCheck %s

// (a + b) * c - d with a row, a column and a scalar broadcast.
// CHECK-LABEL: func @chain_mixed_broadcasts
// CHECK-SAME: (%[[A:.*]]: tensor<64x32xf32>, %[[B:.*]]: tensor<32xf32>, %[[C:.*]]: tensor<64x1xf32>, %[[D:.*]]: tensor<f32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<64x32xf32>
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME: ins(%[[A]], %[[B]], %[[C]], %[[D]] :
// CHECK: arith.addf
// CHECK: arith.mulf
// CHECK: arith.subf
// CHECK: return %[[R]]
// CHECK-NOT: linalg.generic
func.func @chain_mixed_broadcasts(%a: tensor<64x32xf32>, %b: tensor<32xf32>, %c: tensor<64x1xf32>, %d: tensor<f32>) -> tensor<64x32xf32> {
  %0 = bcast.add %a, %b : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %1 = bcast.mul %0, %c : (tensor<64x32xf32>, tensor<64x1xf32>) -> tensor<64x32xf32>
  %2 = bcast.sub %1, %d : (tensor<64x32xf32>, tensor<f32>) -> tensor<64x32xf32>
  return %2 : tensor<64x32xf32>
}

// An outer product feeding a comparison and a where: still one generic.
// CHECK-LABEL: func @outer_compare_where
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
func.func @outer_compare_where(%col: tensor<8x1xf32>, %row: tensor<16xf32>, %t: tensor<f32>) -> tensor<8x16xf32> {
  %p = bcast.mul %col, %row : (tensor<8x1xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %m = bcast.gt %p, %t : (tensor<8x16xf32>, tensor<f32>) -> tensor<8x16xi1>
  %w = bcast.where %m, %p, %t : (tensor<8x16xi1>, tensor<8x16xf32>, tensor<f32>) -> tensor<8x16xf32>
  return %w : tensor<8x16xf32>
}

// An intermediate with two uses is kept (computed once, used twice), but a
// broadcast_to feeding one consumer is fused away: nothing is expanded.
// CHECK-LABEL: func @broadcast_to_fused
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
func.func @broadcast_to_fused(%x: tensor<3xf32>, %y: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %e = bcast.broadcast_to %x : tensor<3xf32> -> tensor<4x3xf32>
  %r = bcast.add %e, %y : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// An in-place op feeding a consumer that broadcasts its result fuses into
// one generic with one output: the in-place result is not kept (a kept one
// would be written, and read back, once per broadcast element).
// CHECK-LABEL: func @in_place_then_broadcast
// CHECK-SAME: (%[[A:.*]]: tensor<2x1xf32>, %[[B:.*]]: tensor<2x1xf32>, %[[C:.*]]: tensor<3xf32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME: ins(%[[A]], %[[B]], %[[C]] :
// CHECK-SAME: outs(%[[INIT]] : tensor<2x3xf32>) {
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: return %[[R]]
// CHECK-NOT: linalg.generic
func.func @in_place_then_broadcast(%a: tensor<2x1xf32>, %b: tensor<2x1xf32>, %c: tensor<3xf32>) -> tensor<2x3xf32> {
  %x = bcast.mul_ %a, %b : (tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  %r = bcast.add %x, %c : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// An in-place op on its own keeps its operand as the init (fusion does not
// replace an init the body does not read by a new tensor).
// CHECK-LABEL: func @in_place_alone
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>, %[[Y:.*]]: tensor<3xf32>)
// CHECK-NOT: tensor.empty
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]], %[[Y]] : tensor<4x3xf32>, tensor<3xf32>) outs(%[[X]] : tensor<4x3xf32>)
func.func @in_place_alone(%x: tensor<4x3xf32>, %y: tensor<3xf32>) -> tensor<4x3xf32> {
  %r = bcast.add_ %x, %y : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// Unsigned chains fuse like any other: bcast-signless-boundary has made the
// signature signless and folded the lowering's casts away before fusion.
// ((a + b) / c) max d on ui32, with a broadcast_to and a comparison.
// CHECK-LABEL: func @unsigned_chain
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xi32>, %[[B:.*]]: tensor<8xi32>, %[[C:.*]]: tensor<4x1xi32>, %[[D:.*]]: tensor<i32>) -> tensor<4x8xi1>
// CHECK-NOT: unrealized_conversion_cast
// The divisor is first read for zeros (PyTorch's ZeroDivisionError), by a
// reduction of its own that does not fuse.
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]} ins(%[[C]] : tensor<4x1xi32>)
// CHECK: bcast.runtime_check %{{.*}}, "ZeroDivisionError"
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: ins(%[[A]], %[[B]], %[[C]], %[[D]] : tensor<4x8xi32>, tensor<8xi32>, tensor<4x1xi32>, tensor<i32>)
// CHECK: arith.addi
// CHECK: arith.divui
// CHECK: arith.maxui
// CHECK: arith.cmpi ugt
// CHECK: return %[[R]]
// CHECK-NOT: linalg.generic
func.func @unsigned_chain(%a: tensor<4x8xui32>, %b: tensor<8xui32>, %c: tensor<4x1xui32>, %d: tensor<ui32>) -> tensor<4x8xi1> {
  %bb = bcast.broadcast_to %b : tensor<8xui32> -> tensor<4x8xui32>
  %0 = bcast.add %a, %bb : (tensor<4x8xui32>, tensor<4x8xui32>) -> tensor<4x8xui32>
  %1 = bcast.div %0, %c {rounding_mode = "floor"} : (tensor<4x8xui32>, tensor<4x1xui32>) -> tensor<4x8xui32>
  %2 = bcast.maximum %1, %d : (tensor<4x8xui32>, tensor<ui32>) -> tensor<4x8xui32>
  %3 = bcast.gt %2, %d : (tensor<4x8xui32>, tensor<ui32>) -> tensor<4x8xi1>
  return %3 : tensor<4x8xi1>
}
