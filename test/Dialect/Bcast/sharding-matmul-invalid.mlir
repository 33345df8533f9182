// bcast.matmul's sharding model's rejections under upstream's
// sharding-propagation and shard-partition, in the order bcast-shard-to-mpi
// runs them (whose own check of split dims, before partitioning, is not run
// here). The accepted counterparts are in sharding-matmul.mlir.
// RUN: bcast-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(sharding-propagation{traversal=forward-backward},cse),func.func(shard-partition,canonicalize,cse))'

// A contracted size its grid axis does not divide: the local blocks would
// drop the remainder of the sum.
shard.grid @grid(shape = 4) {sym_visibility = "private"}
func.func @k_indivisible(%a: tensor<4x6xf32>, %b: tensor<6x8xf32>) -> tensor<4x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<4x6xf32>
  // expected-error @below {{'bcast.matmul' op contracted dim (operand 0's dim 1) of size 6 is not divisible by grid axis 0}}
  %r = bcast.matmul %a1, %b : (tensor<4x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A batch size its grid axis does not divide.
shard.grid @grid(shape = 4) {sym_visibility = "private"}
func.func @batch_indivisible(%a: tensor<6x2x3xf32>, %b: tensor<6x3x2xf32>) -> tensor<6x2x2xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<6x2x3xf32>
  // expected-error @below {{'bcast.matmul' op result dim 0 of size 6 is not divisible by grid axis 0}}
  %r = bcast.matmul %a1, %b : (tensor<6x2x3xf32>, tensor<6x3x2xf32>) -> tensor<6x2x2xf32>
  return %r : tensor<6x2x2xf32>
}

// -----

// A split batch dim where lhs has a ? size: 1 at run time, it would
// broadcast, and its block would not be the block of the result's dim.
shard.grid @grid(shape = 2x2) {sym_visibility = "private"}
func.func @batch_split_dynamic_operand(%a: tensor<?x2x3xf32>, %b: tensor<4x3x2xf32>) -> tensor<4x2x2xf32> {
  %s = shard.sharding @grid split_axes = [[0, 1]] : !shard.sharding
  // expected-error @below {{'bcast.matmul' op cannot be partitioned along batch dim 0: operand 0's dim 0 is of dynamic size, which may be 1 and broadcast at run time, and cannot be split over grid axes 0, 1; keep it whole}}
  %r = bcast.matmul %a, %b : (tensor<?x2x3xf32>, tensor<4x3x2xf32>) -> tensor<4x2x2xf32>
  %r1 = shard.shard %r to %s : tensor<4x2x2xf32>
  return %r1 : tensor<4x2x2xf32>
}

// -----

// bf16 accumulates in f32 and rounds once: partial products would be
// rounded before their sum.
shard.grid @grid(shape = 4) {sym_visibility = "private"}
func.func @bf16_k_split(%a: tensor<4x8xbf16>, %b: tensor<8x4xbf16>) -> tensor<4x4xbf16> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<4x8xbf16>
  // expected-error @below {{'bcast.matmul' op cannot be partitioned along its contracted dim with bf16 operands: each partial product would be rounded to bf16 before the sum, which the unsharded product rounds once; keep the contracted dim whole (split over grid axis 0)}}
  %r = bcast.matmul %a1, %b : (tensor<4x8xbf16>, tensor<8x4xbf16>) -> tensor<4x4xbf16>
  return %r : tensor<4x4xbf16>
}

// -----

// The operands split the contracted dim over different grid axes: no
// process holds matching blocks of it.
shard.grid @grid(shape = 2x2) {sym_visibility = "private"}
func.func @k_split_mismatch(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %s0 = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %s1 = shard.sharding @grid split_axes = [[1]] : !shard.sharding
  %a1 = shard.shard %a to %s0 annotate_for_users : tensor<4x8xf32>
  %b1 = shard.shard %b to %s1 annotate_for_users : tensor<8x4xf32>
  // expected-error @below {{'bcast.matmul' op operand 1 is split [[1]] but the result's sharding [[], []] and its contracted dim's split [0] need it split [[0]]}}
  %r = bcast.matmul %a1, %b1 : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// lhs's contracted size is ?: rhs's static 6 is the one checked.
shard.grid @grid(shape = 4) {sym_visibility = "private"}
func.func @k_indivisible_rhs_static(%a: tensor<4x?xf32>, %b: tensor<6x8xf32>) -> tensor<4x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<4x?xf32>
  // expected-error @below {{'bcast.matmul' op contracted dim (operand 1's dim 0) of size 6 is not divisible by grid axis 0}}
  %r = bcast.matmul %a1, %b : (tensor<4x?xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
