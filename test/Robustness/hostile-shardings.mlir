// Hostile shardings (issue 17): a grid that does not exist, a symbol that is
// not a grid, a grid axis the grid does not have, more split dims than the
// tensor has, split axes on a 0-d tensor, a split of a size specify_shape
// refines from ?, a split of a ? size expand_view may broadcast, matmul's
// K split of bf16 and of ui8 operands and its split ? batch dim. Each is a
// diagnostic and exit 1 through the whole pipeline, never a crash or a
// silently unsharded program.
// RUN: bcast-opt %s -split-input-file -verify-diagnostics --bcast-to-llvm
// RUN: not bcast-opt %s -split-input-file --bcast-to-llvm 2>&1 | FileCheck %s --check-prefix=ALL
// ALL-COUNT-10: error:

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

// -----

// matmul: a K split of bf16 operands, whose partial products would be
// rounded twice (sharding-matmul-invalid.mlir has the same under
// partitioning alone).
shard.grid @grid(shape = 2) {sym_visibility = "private"}
func.func @matmul_bf16_k_split(%a: tensor<4x8xbf16>, %b: tensor<8x4xbf16>) -> tensor<4x4xbf16> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<4x8xbf16>
  // expected-error @below {{'bcast.matmul' op cannot be partitioned along its contracted dim with bf16 operands: each partial product would be rounded to bf16 before the sum, which the unsharded product rounds once; keep the contracted dim whole (split over grid axis 0)}}
  %r = bcast.matmul %a1, %b : (tensor<4x8xbf16>, tensor<8x4xbf16>) -> tensor<4x4xbf16>
  return %r : tensor<4x4xbf16>
}

// -----

// matmul: a ui8 K split partitions, but the runtime has no unsigned
// all-reduce.
shard.grid @grid(shape = 2) {sym_visibility = "private"}
func.func @matmul_ui8_k_split(%a: tensor<4x8xui8>, %b: tensor<8x4xui8>) -> tensor<4x4xui8> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<4x8xui8>
  // expected-error @below {{'shard.all_reduce' op on elements of type 'ui8' has no lowering to bcast's MPI runtime (f32, f64, i1, i8, i16, i32, i64)}}
  %r = bcast.matmul %a1, %b : (tensor<4x8xui8>, tensor<8x4xui8>) -> tensor<4x4xui8>
  return %r : tensor<4x4xui8>
}

// -----

// matmul: a result split on a batch dim where lhs has a ? size gives lhs
// that split through propagation; the split ? operand is rejected before
// partitioning (sharding-matmul-invalid.mlir: the model's own diagnostic).
shard.grid @grid(shape = 2) {sym_visibility = "private"}
// expected-error @below {{'shard.shard' op dim 0 of dynamic size cannot be split over grid axis 0; bcast shards static sizes only}}
func.func @matmul_split_dynamic_batch(%a: tensor<?x2x3xf32>, %b: tensor<4x3x2xf32>) -> tensor<4x2x2xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %r = bcast.matmul %a, %b : (tensor<?x2x3xf32>, tensor<4x3x2xf32>) -> tensor<4x2x2xf32>
  %r1 = shard.shard %r to %s : tensor<4x2x2xf32>
  return %r1 : tensor<4x2x2xf32>
}
