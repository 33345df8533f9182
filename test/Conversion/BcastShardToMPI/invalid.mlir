// The diagnostics of bcast-shard-to-mpi and of the bcast sharding models.
// RUN: bcast-opt %s -split-input-file -verify-diagnostics --bcast-shard-to-mpi

// Indivisible by one grid axis: partitioning would drop rows.
shard.grid @grid(shape = 4) {sym_visibility = "private"}
func.func @indivisible(%a: tensor<6x16xf32>, %b: tensor<16xf32>) -> tensor<6x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  // expected-error @below {{'shard.shard' op dim 0 of size 6 is not divisible by grid axis 0}}
  %a1 = shard.shard %a to %s annotate_for_users : tensor<6x16xf32>
  %r = bcast.add %a1, %b : (tensor<6x16xf32>, tensor<16xf32>) -> tensor<6x16xf32>
  return %r : tensor<6x16xf32>
}

// -----

// Indivisible by the product of two axes.
shard.grid @grid(shape = 2x2) {sym_visibility = "private"}
func.func @indivisible_two_axes(%a: tensor<6x16xf32>) -> tensor<6x16xf32> {
  %s = shard.sharding @grid split_axes = [[0, 1]] : !shard.sharding
  // expected-error @below {{'shard.shard' op dim 0 of size 6 is not divisible by grid axes 0, 1}}
  %a1 = shard.shard %a to %s annotate_for_users : tensor<6x16xf32>
  %r = bcast.neg %a1 : (tensor<6x16xf32>) -> tensor<6x16xf32>
  return %r : tensor<6x16xf32>
}

// -----

// A split dynamic dim.
shard.grid @grid(shape = 2) {sym_visibility = "private"}
func.func @dynamic(%a: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  // expected-error @below {{dim 0 of dynamic size cannot be split over grid axis 0; bcast shards static sizes only}}
  %a1 = shard.shard %a to %s annotate_for_users : tensor<?x16xf32>
  %r = bcast.neg %a1 : (tensor<?x16xf32>) -> tensor<?x16xf32>
  return %r : tensor<?x16xf32>
}

// -----

// Open MPI's ABI is refused.
// expected-error @below {{MPI:Implementation is "OpenMPI"; bcast's MPI runtime (libbcast_mpi_runtime.so) is built against MPICH, whose ABI is the only one supported}}
module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">} {
shard.grid @grid(shape = 2) {sym_visibility = "private"}
}

// -----

// A reduction without an associative combination, split along its reduced dim.
shard.grid @grid(shape = 2) {sym_visibility = "private"}
func.func @var_split(%a: tensor<8x16xf32>) -> tensor<16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x16xf32>
  // expected-error @below {{'bcast.var' op cannot be partitioned along a reduced dim: partial var results of the shards do not combine with one all-reduce; keep the reduced dims whole (split axes [[0], []])}}
  %r = bcast.var %a1 {dims = array<i64: 0>} : (tensor<8x16xf32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// Halo sizes (uneven or overlapping shards).
shard.grid @grid(shape = 2) {sym_visibility = "private"}
func.func @halo(%a: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] halo_sizes = [1, 1] : !shard.sharding
  // expected-error @below {{has halo sizes or sharded dims offsets; bcast splits dims into equal contiguous blocks only}}
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x16xf32>
  %r = bcast.neg %a1 : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// An element type the runtime has no entry point for.
shard.grid @grid(shape = 2) {sym_visibility = "private"}
func.func @f16_reduce(%a: tensor<8x16xf16>) -> tensor<16xf16> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x16xf16>
  // expected-error @below {{'shard.all_reduce' op on elements of type 'f16' has no lowering to bcast's MPI runtime (f32, f64, i1, i8, i16, i32, i64)}}
  %r = bcast.sum %a1 {dims = array<i64: 0>} : (tensor<8x16xf16>) -> tensor<16xf16>
  return %r : tensor<16xf16>
}

// -----

// log_softmax normalizes over the split dim.
shard.grid @grid(shape = 2) {sym_visibility = "private"}
func.func @log_softmax_split_dim(%a: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x16xf32>
  // expected-error @below {{'bcast.log_softmax' op cannot be partitioned along its dim 1, which it normalizes over; keep it whole (split axes [[], [0]])}}
  %r = bcast.log_softmax %a1 {dim = 1 : i64} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// A collective with no lowering: convert-shard-to-mpi reports it and still
// succeeds; bcast-shard-to-mpi makes the leftover an error.
shard.grid @grid(shape = 2) {sym_visibility = "private"}
func.func @explicit_all_to_all(%a: tensor<8x16xf32>) -> tensor<16x8xf32> {
  // expected-error @below {{failed to legalize operation 'shard.all_to_all' that was explicitly marked illegal}}
  // expected-error @below {{'shard.all_to_all' op has no lowering to MPI in bcast (lowered: all_slice, all_reduce, all_gather)}}
  %r = shard.all_to_all %a on @grid grid_axes = [0] split_axis = 1 concat_axis = 0 : tensor<8x16xf32> -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// -----

// Two dims trading grid axes: no one-dim-at-a-time order is valid, and
// shard-partition's all-to-all has no lowering: an error, not a crash.
shard.grid @g2(shape = 2x2) {sym_visibility = "private"}
func.func @trade_axes(%a: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @g2 split_axes = [[0], [1]] : !shard.sharding
  %t = shard.sharding @g2 split_axes = [[1], [0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x16xf32>
  %r = bcast.neg %a1 : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %r1 = shard.shard %r to %s : tensor<8x16xf32>
  // expected-error @below {{failed to legalize operation 'shard.all_to_all' that was explicitly marked illegal}}
  // expected-error @below {{'shard.all_to_all' op has no lowering to MPI in bcast (lowered: all_slice, all_reduce, all_gather)}}
  %r2 = shard.shard %r1 to %t annotate_for_users : tensor<8x16xf32>
  return %r2 : tensor<8x16xf32>
}
