// bcast-fuse-elementwise on hand-written linalg.generic chains: a producer
// with a single use is fused into its consumer, an in-place `outs` operand
// the body does not read stays (linalg-fuse-elementwise-ops would replace
// it by a tensor.empty), and a producer with two uses is left alone.
// RUN: bcast-opt %s --bcast-fuse-elementwise -split-input-file -mlir-print-local-scope | FileCheck %s

// CHECK-LABEL: func.func @fuse_single_use_producer(
// CHECK-SAME:    %[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>, %[[C:.*]]: tensor<4x1xf32>)
// CHECK:         %[[INIT:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME:      ins(%[[A]], %[[B]], %[[C]] : tensor<4x8xf32>, tensor<8xf32>, tensor<4x1xf32>)
// CHECK-SAME:      outs(%[[INIT]] : tensor<4x8xf32>)
// CHECK:         ^bb0(%[[IA:.*]]: f32, %[[IB:.*]]: f32, %[[IC:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[SUM:.*]] = arith.addf %[[IA]], %[[IB]] : f32
// CHECK:           %[[PROD:.*]] = arith.mulf %[[SUM]], %[[IC]] : f32
// CHECK:           linalg.yield %[[PROD]] : f32
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]] : tensor<4x8xf32>
func.func @fuse_single_use_producer(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<4x1xf32>) -> tensor<4x8xf32> {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p, %c : tensor<4x8xf32>, tensor<4x1xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// The consumer is the lowering of an in-place op: it reads %x as an input
// and writes %x as its `outs`, whose block argument the body does not read.
// CHECK-LABEL: func.func @keep_in_place_outs(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>, %[[C:.*]]: tensor<8xf32>)
// CHECK-NOT:     tensor.empty
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[X]], %[[B]], %[[C]] : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK-SAME:      outs(%[[X]] : tensor<4x8xf32>)
// CHECK:         ^bb0(%[[IX:.*]]: f32, %[[IB:.*]]: f32, %[[IC:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[DIFF:.*]] = arith.subf %[[IB]], %[[IC]] : f32
// CHECK:           %[[SUM:.*]] = arith.addf %[[IX]], %[[DIFF]] : f32
// CHECK:           linalg.yield %[[SUM]] : f32
// CHECK-NOT:     tensor.empty
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]] : tensor<4x8xf32>
func.func @keep_in_place_outs(%x: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%b, %c : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %s = arith.subf %u, %v : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %p : tensor<4x8xf32>, tensor<8xf32>) outs(%x : tensor<4x8xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %s = arith.addf %u, %v : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// The producer's result is also returned: fusing would compute it twice.
// CHECK-LABEL: func.func @no_fusion_producer_with_two_uses(
// CHECK-SAME:    %[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>)
// CHECK:         %[[P:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK:           arith.addf
// CHECK:         %[[R:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[P]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK:           arith.mulf
// CHECK-NOT:       arith.addf
// CHECK:         return %[[R]], %[[P]] : tensor<4x8xf32>, tensor<4x8xf32>
func.func @no_fusion_producer_with_two_uses(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %r, %p : tensor<4x8xf32>, tensor<4x8xf32>
}
