// Hostile shardings (issue 17): a grid that does not exist, a symbol that is
// not a grid, a grid axis the grid does not have, more split dims than the
// tensor has, split axes on a 0-d tensor, a split of a size specify_shape
// refines from ?, a split of a ? size expand_view may broadcast. Each is a
// diagnostic and exit 1 through the whole pipeline, never a crash or a
// silently unsharded program.
// RUN: bcast-opt %s -split-input-file -verify-diagnostics --bcast-to-llvm
// RUN: not bcast-opt %s -split-input-file --bcast-to-llvm 2>&1 | FileCheck %s --check-prefix=ALL
// ALL-COUNT-7: error:

shard.grid @grid(shape = 2) {sym_visibility = "private"}
func.func @no_such_grid(%a: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  // expected-error @below {{Undefined required grid symbol "nogrid"}}
  %s = shard.sharding @nogrid split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x16xf32>
  %r = bcast.add %a1, %b : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

func.func private @grid()
func.func @not_a_grid(%a: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @below {{Undefined required grid symbol "grid"}}
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x16xf32>
  %r = bcast.neg %a1 : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}
func.func @axis_beyond_grid(%a: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[3]] : !shard.sharding
  // expected-error @below {{'shard.shard' op splits dim 0 over grid axis 3, which grid @grid of rank 1 does not have}}
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x16xf32>
  %r = bcast.add %a1, %b : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}
func.func @dim_beyond_tensor(%a: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  // expected-error @below {{'shard.shard' op splits dim 2 of a rank-2 tensor}}
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x16xf32>
  %r = bcast.add %a1, %b : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}
func.func @rank0(%a: tensor<f32>) -> tensor<f32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  // expected-error @below {{'shard.shard' op splits dim 0 of a rank-0 tensor}}
  %a1 = shard.shard %a to %s annotate_for_users : tensor<f32>
  %r = bcast.neg %a1 : (tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// The split ? operand is rejected before partitioning, as any split ? is;
// sharding-invalid.mlir has the sharding model's own diagnostic.
shard.grid @grid(shape = 2) {sym_visibility = "private"}
func.func @specify_shape_split_refined(%a: tensor<?x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  // expected-error @below {{'shard.shard' op dim 0 of dynamic size cannot be split over grid axis 0; bcast shards static sizes only}}
  %a1 = shard.shard %a to %s annotate_for_users : tensor<?x16xf32>
  %p = bcast.specify_shape %a1 : (tensor<?x16xf32>) -> tensor<8x16xf32>
  return %p : tensor<8x16xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}
func.func @expand_view_split_dynamic(%a: tensor<?x4xf32>, %n: index) -> tensor<?x4xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  // expected-error @below {{'shard.shard' op dim 0 of dynamic size cannot be split over grid axis 0; bcast shards static sizes only}}
  %a1 = shard.shard %a to %s annotate_for_users : tensor<?x4xf32>
  %v = bcast.expand_view %a1 [%n] : tensor<?x4xf32>
  return %v : tensor<?x4xf32>
}
