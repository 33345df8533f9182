// The reduction of a rank-0 tensor has no loops, so upstream counts it as
// element-wise, but its body reads its accumulator (`outs`). Read through a
// broadcasting map by a consumer with loops, it must stay a producer of its
// own: fused, the accumulation would run once per consumer element
// (`y.mean() / x` gave `3 * y / x` at x's third element; differential
// fuzzer, edges mode, seed 101927). Read by a rank-0 consumer (a
// permutation map), it still fuses.
// RUN: bcast-opt %s --bcast-to-linalg -mlir-print-local-scope | FileCheck %s

// CHECK-LABEL: func.func @rank0_mean_broadcast_into_div
// CHECK: %[[MEAN:.*]] = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: arith.addf %[[ACC]], %[[IN]]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%[[MEAN]], %{{.*}} : tensor<f32>, tensor<1x3xf32>)
// CHECK-NOT: arith.addf
// CHECK: arith.divf
// CHECK-NOT: arith.addf
// CHECK: return
func.func @rank0_mean_broadcast_into_div(%x: tensor<1x3xf32>, %y: tensor<f32>) -> tensor<1x3xf32> {
  %m = bcast.mean %y : (tensor<f32>) -> tensor<f32>
  %r = bcast.div %m, %x : (tensor<f32>, tensor<1x3xf32>) -> tensor<1x3xf32>
  return %r : tensor<1x3xf32>
}

// CHECK-LABEL: func.func @rank0_sum_into_rank0_mul
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = []
// CHECK: arith.addf
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @rank0_sum_into_rank0_mul(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  %s = bcast.sum %y : (tensor<f32>) -> tensor<f32>
  %r = bcast.mul %s, %x : (tensor<f32>, tensor<f32>) -> (tensor<f32>)
  return %r : tensor<f32>
}
