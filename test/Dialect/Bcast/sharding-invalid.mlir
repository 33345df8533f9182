// The sharding models' rejections under upstream's sharding-propagation and
// shard-partition, in the order bcast-shard-to-mpi runs them (whose own
// check of split dims, before partitioning, is not run here). The accepted
// counterparts are in sharding.mlir.
// RUN: bcast-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(sharding-propagation{traversal=forward-backward},cse),func.func(shard-partition,canonicalize,cse))'

// specify_shape split along a dim it refines from ?: the operand's block
// would be of a dynamic size.
shard.grid @grid(shape = 2x2) {sym_visibility = "private"}
func.func @specify_shape_split_refined_dim(%a: tensor<?x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0, 1]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<?x16xf32>
  // expected-error @below {{'bcast.specify_shape' op cannot be partitioned along dim 0, which it refines from ? to 8: its operand's dim 0 of dynamic size cannot be split over grid axes 0, 1; keep the dim whole or give the operand a static size}}
  %p = bcast.specify_shape %a1 : (tensor<?x16xf32>) -> tensor<8x16xf32>
  return %p : tensor<8x16xf32>
}

// -----

// The same split asked for by the result's annotation.
shard.grid @grid(shape = 4) {sym_visibility = "private"}
func.func @specify_shape_result_split_refined_dim(%a: tensor<4x?xf32>) -> tensor<4x16xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  // expected-error @below {{'bcast.specify_shape' op cannot be partitioned along dim 1, which it refines from ? to 16: its operand's dim 1 of dynamic size cannot be split over grid axis 0; keep the dim whole or give the operand a static size}}
  %p = bcast.specify_shape %a : (tensor<4x?xf32>) -> tensor<4x16xf32>
  %p1 = shard.shard %p to %s : tensor<4x16xf32>
  return %p1 : tensor<4x16xf32>
}

// -----

// A static size its grid axis does not divide: the local type would drop
// the remainder.
shard.grid @grid(shape = 4) {sym_visibility = "private"}
func.func @specify_shape_indivisible(%a: tensor<6x?xf32>) -> tensor<6x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<6x?xf32>
  // expected-error @below {{'bcast.specify_shape' op dim 0 of size 6 is not divisible by grid axis 0}}
  %p = bcast.specify_shape %a1 : (tensor<6x?xf32>) -> tensor<6x16xf32>
  return %p : tensor<6x16xf32>
}

// -----

// expand_view split along a ? dim, which may be 1 and repeat at run time.
shard.grid @grid(shape = 2) {sym_visibility = "private"}
func.func @expand_view_split_dynamic_dim(%a: tensor<?x4xf32>, %n: index) -> tensor<?x4xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<?x4xf32>
  // expected-error @below {{'bcast.expand_view' op cannot be partitioned along dim 0 of dynamic size, which may be 1 and broadcast at run time, over grid axis 0; keep it whole}}
  %v = bcast.expand_view %a1 [%n] : tensor<?x4xf32>
  return %v : tensor<?x4xf32>
}

// -----

// The same split asked for by the result's annotation.
shard.grid @grid(shape = 2) {sym_visibility = "private"}
func.func @expand_view_result_split_dynamic_dim(%a: tensor<4x?xf32>, %n: index) -> tensor<4x?xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  // expected-error @below {{'bcast.expand_view' op cannot be partitioned along dim 1 of dynamic size, which may be 1 and broadcast at run time, over grid axis 0; keep it whole}}
  %v = bcast.expand_view %a [%n] : tensor<4x?xf32>
  %v1 = shard.shard %v to %s : tensor<4x?xf32>
  return %v1 : tensor<4x?xf32>
}

// -----

// A static size its grid axis does not divide.
shard.grid @grid(shape = 4) {sym_visibility = "private"}
func.func @expand_view_indivisible(%a: tensor<?x6xf32>, %n: index) -> tensor<?x6xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<?x6xf32>
  // expected-error @below {{'bcast.expand_view' op dim 1 of size 6 is not divisible by grid axis 0}}
  %v = bcast.expand_view %a1 [%n] : tensor<?x6xf32>
  return %v : tensor<?x6xf32>
}

// -----

// A grid axis of dynamic size: the local size would not be known.
shard.grid @grid(shape = ?) {sym_visibility = "private"}
func.func @specify_shape_dynamic_grid(%a: tensor<8x?xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x?xf32>
  // expected-error @below {{'bcast.specify_shape' op splits dim 0 over grid axis 0 of dynamic size; bcast shards over static grids only}}
  %p = bcast.specify_shape %a1 : (tensor<8x?xf32>) -> tensor<8x16xf32>
  return %p : tensor<8x16xf32>
}

// -----

// A grid axis the grid does not have (upstream's verifiers let it through).
shard.grid @grid(shape = 2) {sym_visibility = "private"}
func.func @specify_shape_axis_beyond_grid(%a: tensor<8x?xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[3]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x?xf32>
  // expected-error @below {{'bcast.specify_shape' op splits dim 0 over grid axis 3, which grid @grid of rank 1 does not have}}
  %p = bcast.specify_shape %a1 : (tensor<8x?xf32>) -> tensor<8x16xf32>
  return %p : tensor<8x16xf32>
}
