// The broadcast-aware sharding models (ShardingInterfaceImpl.cpp) under
// upstream's sharding-propagation and shard-partition, in the order
// bcast-shard-to-mpi runs them. A broadcast operand keeps its whole dims
// and gets no communication; a reduction split along a reduced dim ends in
// shard.all_reduce of its kind; specify_shape and expand_view split along
// their static dims with local types (rejections: sharding-invalid.mlir).
// RUN: bcast-opt %s --pass-pipeline='builtin.module(func.func(sharding-propagation{traversal=forward-backward},cse),func.func(shard-partition,canonicalize,cse))' | FileCheck %s

shard.grid @grid(shape = 2x2) {sym_visibility = "private"}

// The [16] operand is missing the split dim: whole, no collective.
// CHECK-LABEL: func.func @row_broadcast_split_dim0(
// CHECK-SAME: %[[A:.*]]: tensor<4x16xf32>, %[[B:.*]]: tensor<16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[R:.*]] = bcast.add %[[A]], %[[B]] : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: return %[[R]]
func.func @row_broadcast_split_dim0(%a: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x16xf32>
  %r = bcast.add %a1, %b : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// Split along the dim the [8,1] operand broadcasts over: it stays [8,1]
// (TOSA's identity maps would make it tensor<8x0xf32>).
// CHECK-LABEL: func.func @size1_dim_not_split(
// CHECK-SAME: %[[A:.*]]: tensor<8x1xf32>, %[[B:.*]]: tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT: %[[R:.*]] = bcast.mul %[[A]], %[[B]] : (tensor<8x1xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @size1_dim_not_split(%a: tensor<8x1xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %b1 = shard.shard %b to %s annotate_for_users : tensor<8x16xf32>
  %r = bcast.mul %a, %b1 : (tensor<8x1xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// Three operands, one of rank 0 and one with a size-1 dim.
// CHECK-LABEL: func.func @where_rank0_and_size1(
// CHECK-SAME: tensor<8x1xi1>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT: bcast.where {{.*}} : (tensor<8x1xi1>, tensor<f32>, tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT: return
func.func @where_rank0_and_size1(%c: tensor<8x1xi1>, %x: tensor<f32>, %y: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %y1 = shard.shard %y to %s annotate_for_users : tensor<8x16xf32>
  %r = bcast.where %c, %x, %y1 : (tensor<8x1xi1>, tensor<f32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// An in-place op split on two dims over two grid axes.
// CHECK-LABEL: func.func @in_place_two_axes(
// CHECK-SAME: tensor<2x8x8xf32>, %{{.*}}: tensor<8x1xf32>) -> tensor<2x8x8xf32>
// CHECK-NEXT: bcast.add_ {{.*}} : (tensor<2x8x8xf32>, tensor<8x1xf32>) -> tensor<2x8x8xf32>
// CHECK-NEXT: return
func.func @in_place_two_axes(%a: tensor<4x8x16xf32>, %b: tensor<8x1xf32>) -> tensor<4x8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0], [], [1]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<4x8x16xf32>
  %r = bcast.add_ %a1, %b : (tensor<4x8x16xf32>, tensor<8x1xf32>) -> tensor<4x8x16xf32>
  return %r : tensor<4x8x16xf32>
}

// A split result of broadcast_to: the size-1 source dim stays whole.
// CHECK-LABEL: func.func @broadcast_to_split_result(
// CHECK-SAME: tensor<1x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: bcast.broadcast_to {{.*}} : tensor<1x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: return
func.func @broadcast_to_split_result(%a: tensor<1x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %r = bcast.broadcast_to %a : tensor<1x16xf32> -> tensor<8x16xf32>
  %r1 = shard.shard %r to %s : tensor<8x16xf32>
  return %r1 : tensor<8x16xf32>
}

// A split operand followed by a split operand with the same sharding: the
// element-wise chain stays local.
// CHECK-LABEL: func.func @chain_stays_local(
// CHECK-NOT: shard.
// CHECK: return
func.func @chain_stays_local(%a: tensor<8x16xf32>, %b: tensor<16xf32>, %c: tensor<8x1xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x16xf32>
  %0 = bcast.add %a1, %b : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %1 = bcast.mul %0, %c : (tensor<8x16xf32>, tensor<8x1xf32>) -> tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// Reduced along the split dim: local sum, then an all-reduce sum.
// CHECK-LABEL: func.func @sum_over_split_dim(
// CHECK-SAME: %[[A:.*]]: tensor<4x16xf32>) -> tensor<16xf32>
// CHECK-NEXT: %[[L:.*]] = bcast.sum %[[A]] {dims = array<i64: 0>} : (tensor<4x16xf32>) -> tensor<16xf32>
// CHECK-NEXT: %[[R:.*]] = shard.all_reduce %[[L]] on @grid grid_axes = [0] : tensor<16xf32> -> tensor<16xf32>
// CHECK-NEXT: return %[[R]]
func.func @sum_over_split_dim(%a: tensor<8x16xf32>) -> tensor<16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x16xf32>
  %r = bcast.sum %a1 {dims = array<i64: 0>} : (tensor<8x16xf32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// keepdim, over both grid axes, with each reduction's kind.
// CHECK-LABEL: func.func @amax_keepdim_two_axes(
// CHECK-SAME: tensor<4x8xf32>) -> tensor<1x1xf32>
// CHECK: shard.all_reduce %{{.*}} on @grid grid_axes = [0, 1] reduction = max : tensor<1x1xf32> -> tensor<1x1xf32>
func.func @amax_keepdim_two_axes(%a: tensor<8x16xf32>) -> tensor<1x1xf32> {
  %s = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x16xf32>
  %r = bcast.amax %a1 {keepdim = true} : (tensor<8x16xf32>) -> tensor<1x1xf32>
  return %r : tensor<1x1xf32>
}

// CHECK-LABEL: func.func @prod_and_min_and_mean(
// CHECK: shard.all_reduce %{{.*}} grid_axes = [1] reduction = product : tensor<8xf32>
// CHECK: shard.all_reduce %{{.*}} grid_axes = [1] reduction = min : tensor<8xf32>
// CHECK: shard.all_reduce %{{.*}} grid_axes = [1] reduction = average : tensor<8x1xf32>
func.func @prod_and_min_and_mean(%a: tensor<8x16xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8x1xf32>) {
  %s = shard.sharding @grid split_axes = [[], [1]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x16xf32>
  %p = bcast.prod %a1 {dims = array<i64: 1>} : (tensor<8x16xf32>) -> tensor<8xf32>
  %m = bcast.amin %a1 {dims = array<i64: -1>} : (tensor<8x16xf32>) -> tensor<8xf32>
  %e = bcast.mean %a1 {dims = array<i64: 1>, keepdim = true} : (tensor<8x16xf32>) -> tensor<8x1xf32>
  return %p, %m, %e : tensor<8xf32>, tensor<8xf32>, tensor<8x1xf32>
}

// Reduced along a whole dim: no collective, the result keeps the split.
// CHECK-LABEL: func.func @sum_over_whole_dim(
// CHECK-SAME: tensor<4x16xf32>) -> tensor<4xf32>
// CHECK-NOT: shard.
// CHECK: return
func.func @sum_over_whole_dim(%a: tensor<8x16xf32>) -> tensor<8xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x16xf32>
  %r = bcast.sum %a1 {dims = array<i64: 1>} : (tensor<8x16xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// sum_to_size sums away the leading dim (split over axis 0) and dim 2 kept
// as 1 (split over axis 1): one all-reduce sum over both axes.
// CHECK-LABEL: func.func @sum_to_size_split_summed_dims(
// CHECK-SAME: %[[A:.*]]: tensor<2x8x8xf32>) -> tensor<8x1xf32>
// CHECK-NEXT: %[[L:.*]] = bcast.sum_to_size %[[A]] : (tensor<2x8x8xf32>) -> tensor<8x1xf32>
// CHECK-NEXT: %[[R:.*]] = shard.all_reduce %[[L]] on @grid grid_axes = [0, 1] : tensor<8x1xf32> -> tensor<8x1xf32>
// CHECK-NEXT: return %[[R]]
func.func @sum_to_size_split_summed_dims(%a: tensor<4x8x16xf32>) -> tensor<8x1xf32> {
  %s = shard.sharding @grid split_axes = [[0], [], [1]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<4x8x16xf32>
  %r = bcast.sum_to_size %a1 : (tensor<4x8x16xf32>) -> tensor<8x1xf32>
  return %r : tensor<8x1xf32>
}

// A bool sum_to_size is a sum into i64; split so that each shard holds one
// element of the summed dim, the shard sums nothing and converts it (a
// local sum_to_size would keep i1), then the all-reduce sums.
// CHECK-LABEL: func.func @sum_to_size_bool_one_element_per_shard(
// CHECK-SAME: %[[A:.*]]: tensor<1x3xi1>) -> tensor<1x3xi64>
// CHECK-NEXT: %[[L:.*]] = bcast.cast %[[A]] : (tensor<1x3xi1>) -> tensor<1x3xi64>
// CHECK-NEXT: %[[R:.*]] = shard.all_reduce %[[L]] on @grid grid_axes = [0] : tensor<1x3xi64> -> tensor<1x3xi64>
// CHECK-NEXT: return %[[R]]
func.func @sum_to_size_bool_one_element_per_shard(%a: tensor<2x3xi1>) -> tensor<1x3xi64> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<2x3xi1>
  %r = bcast.sum_to_size %a1 : (tensor<2x3xi1>) -> tensor<1x3xi64>
  return %r : tensor<1x3xi64>
}

// Split along a dim the result keeps whole: local, split result.
// CHECK-LABEL: func.func @sum_to_size_split_kept_dim(
// CHECK-SAME: tensor<4x4x16xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: bcast.sum_to_size {{.*}} : (tensor<4x4x16xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: return
func.func @sum_to_size_split_kept_dim(%a: tensor<4x8x16xf32>) -> tensor<8x1xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<4x8x16xf32>
  %r = bcast.sum_to_size %a1 : (tensor<4x8x16xf32>) -> tensor<8x1xf32>
  return %r : tensor<8x1xf32>
}

// softmax split along a dim it does not normalize over: local.
// CHECK-LABEL: func.func @softmax_split_other_dim(
// CHECK-SAME: tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: bcast.softmax {{.*}} {dim = -1 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: return
func.func @softmax_split_other_dim(%a: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x16xf32>
  %r = bcast.softmax %a1 {dim = -1 : i64} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// specify_shape keeps every dim in place: split along a static dim over both
// grid axes, the result's 8 becomes 8/4 = 2 locally; the dim it refines
// (? to 16) is whole, so the local check is still of 16. No collective.
// CHECK-LABEL: func.func @specify_shape_split_static_dim(
// CHECK-SAME: %[[A:.*]]: tensor<2x?xf32>, %[[B:.*]]: tensor<16xf32>) -> tensor<2x16xf32>
// CHECK-NEXT: %[[P:.*]] = bcast.specify_shape %[[A]] : (tensor<2x?xf32>) -> tensor<2x16xf32>
// CHECK-NEXT: %[[R:.*]] = bcast.add %[[P]], %[[B]] : (tensor<2x16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
// CHECK-NEXT: return %[[R]]
func.func @specify_shape_split_static_dim(%a: tensor<8x?xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0, 1]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x?xf32>
  %p = bcast.specify_shape %a1 : (tensor<8x?xf32>) -> tensor<8x16xf32>
  %r = bcast.add %p, %b : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// The split comes from the result's annotation (backward propagation): the
// operand is split like it, along the dim the op leaves alone.
// CHECK-LABEL: func.func @specify_shape_result_split(
// CHECK-SAME: %[[A:.*]]: tensor<?x8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT: %[[P:.*]] = bcast.specify_shape %[[A]] : (tensor<?x8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT: return %[[P]]
func.func @specify_shape_result_split(%a: tensor<?x16xf32>) -> tensor<1x16xf32> {
  %s = shard.sharding @grid split_axes = [[], [1]] : !shard.sharding
  %p = bcast.specify_shape %a : (tensor<?x16xf32>) -> tensor<1x16xf32>
  %p1 = shard.shard %p to %s : tensor<1x16xf32>
  return %p1 : tensor<1x16xf32>
}

// A ? it does not refine splits as an element-wise ? does (it stays ?; the
// pipeline, bcast-shard-to-mpi, rejects the split ? before partitioning).
// CHECK-LABEL: func.func @specify_shape_split_unrefined_dim(
// CHECK-SAME: %[[A:.*]]: tensor<?x?xf32>) -> tensor<?x1xf32>
// CHECK-NEXT: %[[P:.*]] = bcast.specify_shape %[[A]] : (tensor<?x?xf32>) -> tensor<?x1xf32>
// CHECK-NEXT: return %[[P]]
func.func @specify_shape_split_unrefined_dim(%a: tensor<?x?xf32>) -> tensor<?x1xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<?x?xf32>
  %p = bcast.specify_shape %a1 : (tensor<?x?xf32>) -> tensor<?x1xf32>
  return %p : tensor<?x1xf32>
}

// expand_view split along its static dim: the ? dim, which may broadcast,
// is whole, so its target size %n is the same locally. No collective.
// CHECK-LABEL: func.func @expand_view_split_static_dim(
// CHECK-SAME: %[[A:.*]]: tensor<?x4xf32>, %[[N:.*]]: index) -> tensor<?x4xf32>
// CHECK-NEXT: %[[V:.*]] = bcast.expand_view %[[A]][%[[N]]] : tensor<?x4xf32>
// CHECK-NEXT: %[[R:.*]] = bcast.neg %[[V]] : (tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @expand_view_split_static_dim(%a: tensor<?x8xf32>, %n: index) -> tensor<?x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<?x8xf32>
  %v = bcast.expand_view %a1 [%n] : tensor<?x8xf32>
  %r = bcast.neg %v : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// The split from the result's annotation, two static dims around a ? one.
// CHECK-LABEL: func.func @expand_view_result_split(
// CHECK-SAME: %[[A:.*]]: tensor<2x?x3xf32>, %[[N:.*]]: index) -> tensor<2x?x3xf32>
// CHECK-NEXT: %[[V:.*]] = bcast.expand_view %[[A]][%[[N]]] : tensor<2x?x3xf32>
// CHECK-NEXT: return %[[V]]
func.func @expand_view_result_split(%a: tensor<4x?x6xf32>, %n: index) -> tensor<4x?x6xf32> {
  %s = shard.sharding @grid split_axes = [[0], [], [1]] : !shard.sharding
  %v = bcast.expand_view %a [%n] : tensor<4x?x6xf32>
  %v1 = shard.shard %v to %s : tensor<4x?x6xf32>
  return %v1 : tensor<4x?x6xf32>
}

// runtime_check reads scalars only: every process runs it unchanged.
// CHECK-LABEL: func.func @runtime_check_beside_split(
// CHECK-SAME: %[[A:.*]]: tensor<4x16xf32>, %[[BAD:.*]]: i1, %[[N:.*]]: i64) -> tensor<4x16xf32>
// CHECK-NEXT: bcast.runtime_check %[[BAD]], "bad %ld"(%[[N]] : i64)
// CHECK-NEXT: %[[R:.*]] = bcast.neg %[[A]] : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: return %[[R]]
func.func @runtime_check_beside_split(%a: tensor<8x16xf32>, %bad: i1, %n: i64) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x16xf32>
  bcast.runtime_check %bad, "bad %ld" (%n : i64)
  %r = bcast.neg %a1 : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
