// bcast.matmul's sharding model (ShardingInterfaceImpl.cpp) under upstream's
// sharding-propagation and shard-partition, in the order bcast-shard-to-mpi
// runs them: batch, M and N splits partition with no communication (an
// operand that broadcasts a batch dim, size 1 or missing, stays whole along
// it), a K split leaves partial products summed by shard.all_reduce
// (rejections: sharding-matmul-invalid.mlir).
// RUN: bcast-opt %s --pass-pipeline='builtin.module(func.func(sharding-propagation{traversal=forward-backward},cse),func.func(shard-partition,canonicalize,cse))' | FileCheck %s

shard.grid @grid(shape = 2x2) {sym_visibility = "private"}
shard.grid @g2(shape = 2) {sym_visibility = "private"}

// A batch dim both operands have, split over both grid axes: both operands
// are split along it.
// CHECK-LABEL: func.func @batch_split(
// CHECK-SAME: %[[A:.*]]: tensor<1x6x8xf32>, %[[B:.*]]: tensor<1x8x3xf32>) -> tensor<1x6x3xf32>
// CHECK-NEXT: %[[R:.*]] = bcast.matmul %[[A]], %[[B]] : (tensor<1x6x8xf32>, tensor<1x8x3xf32>) -> tensor<1x6x3xf32>
// CHECK-NEXT: return %[[R]]
func.func @batch_split(%a: tensor<4x6x8xf32>, %b: tensor<4x8x3xf32>) -> tensor<4x6x3xf32> {
  %s = shard.sharding @grid split_axes = [[0, 1]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<4x6x8xf32>
  %r = bcast.matmul %a1, %b : (tensor<4x6x8xf32>, tensor<4x8x3xf32>) -> tensor<4x6x3xf32>
  return %r : tensor<4x6x3xf32>
}

// M split: rhs, which has no M, stays whole.
// CHECK-LABEL: func.func @m_split(
// CHECK-SAME: %[[A:.*]]: tensor<4x4xf32>, %[[B:.*]]: tensor<4x6xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: %[[R:.*]] = bcast.matmul %[[A]], %[[B]] : (tensor<4x4xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
// CHECK-NEXT: return %[[R]]
func.func @m_split(%a: tensor<8x4xf32>, %b: tensor<4x6xf32>) -> tensor<8x6xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x4xf32>
  %r = bcast.matmul %a1, %b : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// N split asked for by the result: lhs stays whole, rhs is split on its
// last dim.
// CHECK-LABEL: func.func @n_split(
// CHECK-SAME: %[[A:.*]]: tensor<8x4xf32>, %[[B:.*]]: tensor<4x3xf32>) -> tensor<8x3xf32>
// CHECK-NEXT: %[[R:.*]] = bcast.matmul %[[A]], %[[B]] : (tensor<8x4xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
// CHECK-NEXT: return %[[R]]
func.func @n_split(%a: tensor<8x4xf32>, %b: tensor<4x6xf32>) -> tensor<8x6xf32> {
  %s = shard.sharding @g2 split_axes = [[], [0]] : !shard.sharding
  %r = bcast.matmul %a, %b : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  %r1 = shard.shard %r to %s : tensor<8x6xf32>
  return %r1 : tensor<8x6xf32>
}

// K split: each process multiplies its blocks, and the partial products
// are summed over the grid axis; the result is whole.
// CHECK-LABEL: func.func @k_split(
// CHECK-SAME: %[[A:.*]]: tensor<8x2xf32>, %[[B:.*]]: tensor<2x6xf32>) -> tensor<8x6xf32>
// CHECK-NEXT: %[[P:.*]] = bcast.matmul %[[A]], %[[B]] : (tensor<8x2xf32>, tensor<2x6xf32>) -> tensor<8x6xf32>
// CHECK-NEXT: %[[R:.*]] = shard.all_reduce %[[P]] on @grid grid_axes = [0, 1] : tensor<8x6xf32> -> tensor<8x6xf32>
// CHECK-NEXT: return %[[R]]
func.func @k_split(%a: tensor<8x8xf32>, %b: tensor<8x6xf32>) -> tensor<8x6xf32> {
  %s = shard.sharding @grid split_axes = [[], [0, 1]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x8xf32>
  %r = bcast.matmul %a1, %b : (tensor<8x8xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// M over one grid axis and K over the other: the sum runs over the K axis
// only, and the result stays split on M.
// CHECK-LABEL: func.func @m_and_k_split(
// CHECK-SAME: %[[A:.*]]: tensor<4x4xi32>, %[[B:.*]]: tensor<4x6xi32>) -> tensor<4x6xi32>
// CHECK-NEXT: %[[P:.*]] = bcast.matmul %[[A]], %[[B]] : (tensor<4x4xi32>, tensor<4x6xi32>) -> tensor<4x6xi32>
// CHECK-NEXT: %[[R:.*]] = shard.all_reduce %[[P]] on @grid grid_axes = [1] : tensor<4x6xi32> -> tensor<4x6xi32>
// CHECK-NEXT: return %[[R]]
func.func @m_and_k_split(%a: tensor<8x8xi32>, %b: tensor<8x6xi32>) -> tensor<8x6xi32> {
  %s = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x8xi32>
  %r = bcast.matmul %a1, %b : (tensor<8x8xi32>, tensor<8x6xi32>) -> tensor<8x6xi32>
  return %r : tensor<8x6xi32>
}

// A split batch dim that rhs broadcasts (size 1): rhs stays [1,8,2], whole
// on every process, with no collective.
// CHECK-LABEL: func.func @batch_split_rhs_size1(
// CHECK-SAME: %[[A:.*]]: tensor<2x6x8xf32>, %[[B:.*]]: tensor<1x8x2xf32>) -> tensor<2x6x2xf32>
// CHECK-NEXT: %[[R:.*]] = bcast.matmul %[[A]], %[[B]] : (tensor<2x6x8xf32>, tensor<1x8x2xf32>) -> tensor<2x6x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @batch_split_rhs_size1(%a: tensor<4x6x8xf32>, %b: tensor<1x8x2xf32>) -> tensor<4x6x2xf32> {
  %s = shard.sharding @g2 split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<4x6x8xf32>
  %r = bcast.matmul %a1, %b : (tensor<4x6x8xf32>, tensor<1x8x2xf32>) -> tensor<4x6x2xf32>
  return %r : tensor<4x6x2xf32>
}

// Each operand broadcasts a different batch dim, and the result is split on
// both batch dims over the two grid axes: each operand is split along its
// full batch dim and stays whole along its size-1 one.
// CHECK-LABEL: func.func @batch_split_both_broadcast(
// CHECK-SAME: %[[A:.*]]: tensor<2x1x6x8xf32>, %[[B:.*]]: tensor<1x2x8x2xf32>) -> tensor<2x2x6x2xf32>
// CHECK-NEXT: %[[R:.*]] = bcast.matmul %[[A]], %[[B]] : (tensor<2x1x6x8xf32>, tensor<1x2x8x2xf32>) -> tensor<2x2x6x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @batch_split_both_broadcast(%a: tensor<4x1x6x8xf32>, %b: tensor<1x4x8x2xf32>) -> tensor<4x4x6x2xf32> {
  %s = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %r = bcast.matmul %a, %b : (tensor<4x1x6x8xf32>, tensor<1x4x8x2xf32>) -> tensor<4x4x6x2xf32>
  %r1 = shard.shard %r to %s : tensor<4x4x6x2xf32>
  return %r1 : tensor<4x4x6x2xf32>
}

// A batch dim rhs lacks (a 2-D weight shared by every batch): the weight
// stays whole; lhs's batch and M split over the two axes.
// CHECK-LABEL: func.func @batch_and_m_split_rhs_2d(
// CHECK-SAME: %[[A:.*]]: tensor<2x3x8xf32>, %[[B:.*]]: tensor<8x5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT: %[[R:.*]] = bcast.matmul %[[A]], %[[B]] : (tensor<2x3x8xf32>, tensor<8x5xf32>) -> tensor<2x3x5xf32>
// CHECK-NEXT: return %[[R]]
func.func @batch_and_m_split_rhs_2d(%a: tensor<4x6x8xf32>, %b: tensor<8x5xf32>) -> tensor<4x6x5xf32> {
  %s = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<4x6x8xf32>
  %r = bcast.matmul %a1, %b : (tensor<4x6x8xf32>, tensor<8x5xf32>) -> tensor<4x6x5xf32>
  return %r : tensor<4x6x5xf32>
}

// K split with a batch dim rhs broadcasts: rhs is split on K only.
// CHECK-LABEL: func.func @k_split_rhs_size1_batch(
// CHECK-SAME: %[[A:.*]]: tensor<4x6x4xf64>, %[[B:.*]]: tensor<1x4x2xf64>) -> tensor<4x6x2xf64>
// CHECK-NEXT: %[[P:.*]] = bcast.matmul %[[A]], %[[B]] : (tensor<4x6x4xf64>, tensor<1x4x2xf64>) -> tensor<4x6x2xf64>
// CHECK-NEXT: %[[R:.*]] = shard.all_reduce %[[P]] on @g2 grid_axes = [0] : tensor<4x6x2xf64> -> tensor<4x6x2xf64>
// CHECK-NEXT: return %[[R]]
func.func @k_split_rhs_size1_batch(%a: tensor<4x6x8xf64>, %b: tensor<1x8x2xf64>) -> tensor<4x6x2xf64> {
  %s = shard.sharding @g2 split_axes = [[], [], [0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<4x6x8xf64>
  %r = bcast.matmul %a1, %b : (tensor<4x6x8xf64>, tensor<1x8x2xf64>) -> tensor<4x6x2xf64>
  return %r : tensor<4x6x2xf64>
}

// 1-D x 1-D: the dot product's partial sums, all-reduced to a rank-0 result.
// CHECK-LABEL: func.func @dot_k_split(
// CHECK-SAME: %[[A:.*]]: tensor<2xf32>, %[[B:.*]]: tensor<2xf32>) -> tensor<f32>
// CHECK-NEXT: %[[P:.*]] = bcast.matmul %[[A]], %[[B]] : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>
// CHECK-NEXT: %[[R:.*]] = shard.all_reduce %[[P]] on @grid grid_axes = [0, 1] : tensor<f32> -> tensor<f32>
// CHECK-NEXT: return %[[R]]
func.func @dot_k_split(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<f32> {
  %s = shard.sharding @grid split_axes = [[0, 1]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8xf32>
  %r = bcast.matmul %a1, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  return %r : tensor<f32>
}

// Matrix-vector, M split: the 1-D rhs has no M and stays whole.
// CHECK-LABEL: func.func @mv_m_split(
// CHECK-SAME: %[[A:.*]]: tensor<4x6xf32>, %[[B:.*]]: tensor<6xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = bcast.matmul %[[A]], %[[B]] : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %[[R]]
func.func @mv_m_split(%a: tensor<8x6xf32>, %b: tensor<6xf32>) -> tensor<8xf32> {
  %s = shard.sharding @g2 split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x6xf32>
  %r = bcast.matmul %a1, %b : (tensor<8x6xf32>, tensor<6xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// Matrix-vector, K split: the 1-D rhs is split with lhs's last dim.
// CHECK-LABEL: func.func @mv_k_split(
// CHECK-SAME: %[[A:.*]]: tensor<8x3xf32>, %[[B:.*]]: tensor<3xf32>) -> tensor<8xf32>
// CHECK-NEXT: %[[P:.*]] = bcast.matmul %[[A]], %[[B]] : (tensor<8x3xf32>, tensor<3xf32>) -> tensor<8xf32>
// CHECK-NEXT: %[[R:.*]] = shard.all_reduce %[[P]] on @g2 grid_axes = [0] : tensor<8xf32> -> tensor<8xf32>
// CHECK-NEXT: return %[[R]]
func.func @mv_k_split(%a: tensor<8x6xf32>, %b: tensor<6xf32>) -> tensor<8xf32> {
  %s = shard.sharding @g2 split_axes = [[0]] : !shard.sharding
  %b1 = shard.shard %b to %s annotate_for_users : tensor<6xf32>
  %r = bcast.matmul %a, %b1 : (tensor<8x6xf32>, tensor<6xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// A 1-D lhs against a batch of matrices split on the batch dim: the vector,
// which lacks the batch dim, stays whole.
// CHECK-LABEL: func.func @vm_batch_split(
// CHECK-SAME: %[[A:.*]]: tensor<6xf32>, %[[B:.*]]: tensor<2x6x5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT: %[[R:.*]] = bcast.matmul %[[A]], %[[B]] : (tensor<6xf32>, tensor<2x6x5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT: return %[[R]]
func.func @vm_batch_split(%a: tensor<6xf32>, %b: tensor<4x6x5xf32>) -> tensor<4x5xf32> {
  %s = shard.sharding @g2 split_axes = [[0]] : !shard.sharding
  %b1 = shard.shard %b to %s annotate_for_users : tensor<4x6x5xf32>
  %r = bcast.matmul %a, %b1 : (tensor<6xf32>, tensor<4x6x5xf32>) -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}

// Megatron's MLP: x whole, w1 split on N (column-parallel), relu on the
// split activations, w2 split on K (row-parallel), one all-reduce sum.
// CHECK-LABEL: func.func @mlp_column_then_row(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[W1:.*]]: tensor<8x8xf32>, %[[W2:.*]]: tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[H:.*]] = bcast.matmul %[[X]], %[[W1]] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[A:.*]] = bcast.clamp_min %[[H]], %{{.*}} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[P:.*]] = bcast.matmul %[[A]], %[[W2]] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[Y:.*]] = shard.all_reduce %[[P]] on @g2 grid_axes = [0] : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[Y]]
func.func @mlp_column_then_row(%x: tensor<4x8xf32>, %w1: tensor<8x16xf32>, %w2: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %sn = shard.sharding @g2 split_axes = [[], [0]] : !shard.sharding
  %sk = shard.sharding @g2 split_axes = [[0]] : !shard.sharding
  %w1s = shard.shard %w1 to %sn annotate_for_users : tensor<8x16xf32>
  %w2s = shard.shard %w2 to %sk annotate_for_users : tensor<16x8xf32>
  %h = bcast.matmul %x, %w1s : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %a = bcast.clamp_min %h, %zero : (tensor<4x16xf32>, tensor<f32>) -> tensor<4x16xf32>
  %y = bcast.matmul %a, %w2s : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// bf16 split on M: no partial products, so no double rounding (a bf16 K
// split is rejected).
// CHECK-LABEL: func.func @bf16_m_split(
// CHECK-SAME: %[[A:.*]]: tensor<2x8xbf16>, %[[B:.*]]: tensor<8x4xbf16>) -> tensor<2x4xbf16>
// CHECK-NEXT: %[[R:.*]] = bcast.matmul %[[A]], %[[B]] : (tensor<2x8xbf16>, tensor<8x4xbf16>) -> tensor<2x4xbf16>
// CHECK-NEXT: return %[[R]]
func.func @bf16_m_split(%a: tensor<4x8xbf16>, %b: tensor<8x4xbf16>) -> tensor<4x4xbf16> {
  %s = shard.sharding @g2 split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<4x8xbf16>
  %r = bcast.matmul %a1, %b : (tensor<4x8xbf16>, tensor<8x4xbf16>) -> tensor<4x4xbf16>
  return %r : tensor<4x4xbf16>
}

// A ? batch dim left whole while M is split: it keeps its run-time size
// (a split ? batch dim is rejected).
// CHECK-LABEL: func.func @dynamic_batch_whole_m_split(
// CHECK-SAME: %[[A:.*]]: tensor<?x3x8xf32>, %[[B:.*]]: tensor<?x8x2xf32>) -> tensor<?x3x2xf32>
// CHECK-NEXT: %[[R:.*]] = bcast.matmul %[[A]], %[[B]] : (tensor<?x3x8xf32>, tensor<?x8x2xf32>) -> tensor<?x3x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @dynamic_batch_whole_m_split(%a: tensor<?x6x8xf32>, %b: tensor<?x8x2xf32>) -> tensor<?x6x2xf32> {
  %s = shard.sharding @g2 split_axes = [[], [0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<?x6x8xf32>
  %r = bcast.matmul %a1, %b : (tensor<?x6x8xf32>, tensor<?x8x2xf32>) -> tensor<?x6x2xf32>
  return %r : tensor<?x6x2xf32>
}

// 1-D x 2-D split on N: the vector, which has only K, stays whole.
// CHECK-LABEL: func.func @vm_n_split(
// CHECK-SAME: %[[A:.*]]: tensor<6xf32>, %[[B:.*]]: tensor<6x4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = bcast.matmul %[[A]], %[[B]] : (tensor<6xf32>, tensor<6x4xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %[[R]]
func.func @vm_n_split(%a: tensor<6xf32>, %b: tensor<6x8xf32>) -> tensor<8xf32> {
  %s = shard.sharding @g2 split_axes = [[0]] : !shard.sharding
  %r = bcast.matmul %a, %b : (tensor<6xf32>, tensor<6x8xf32>) -> tensor<8xf32>
  %r1 = shard.shard %r to %s : tensor<8xf32>
  return %r1 : tensor<8xf32>
}

// A 2-D lhs against a batch of matrices split on the batch dim and N: lhs,
// which lacks the batch dim and N, stays whole.
// CHECK-LABEL: func.func @mm_batch_and_n_split_lhs_2d(
// CHECK-SAME: %[[A:.*]]: tensor<6x8xf32>, %[[B:.*]]: tensor<2x8x5xf32>) -> tensor<2x6x5xf32>
// CHECK-NEXT: %[[R:.*]] = bcast.matmul %[[A]], %[[B]] : (tensor<6x8xf32>, tensor<2x8x5xf32>) -> tensor<2x6x5xf32>
// CHECK-NEXT: return %[[R]]
func.func @mm_batch_and_n_split_lhs_2d(%a: tensor<6x8xf32>, %b: tensor<4x8x10xf32>) -> tensor<4x6x10xf32> {
  %s = shard.sharding @grid split_axes = [[0], [], [1]] : !shard.sharding
  %b1 = shard.shard %b to %s annotate_for_users : tensor<4x8x10xf32>
  %r = bcast.matmul %a, %b1 : (tensor<6x8xf32>, tensor<4x8x10xf32>) -> tensor<4x6x10xf32>
  return %r : tensor<4x6x10xf32>
}
