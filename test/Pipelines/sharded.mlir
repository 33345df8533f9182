// --bcast-to-llvm on sharded modules: a divisible one lowers to LLVM with
// the runtime call and MPI's rank query and no shard op or grid left; an
// indivisible one exits 1 with the dim, its size and the grid axis.
// RUN: bcast-opt --bcast-to-llvm %s | FileCheck %s
// RUN: sed 's/8x16/7x16/g' %s | not bcast-opt --bcast-to-llvm 2>&1 | FileCheck %s --check-prefix=UNEVEN

// CHECK-NOT: shard.
// CHECK-LABEL: llvm.func @gather
// CHECK: llvm.call @bcast_mpi_all_gather_f32(
// CHECK-LABEL: llvm.func @slice
// CHECK: llvm.call @MPI_Comm_rank(
// CHECK-NOT: shard.
// UNEVEN: error: 'shard.shard' op dim 0 of size 7 is not divisible by grid axis 0

shard.grid @grid(shape = 2) {sym_visibility = "private"}
func.func @gather(%a: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x16xf32>
  %r = bcast.add %a1, %b : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %r1 = shard.shard %r to %s : tensor<8x16xf32>
  %r2 = shard.shard %r1 to %rep annotate_for_users : tensor<8x16xf32>
  return %r2 : tensor<8x16xf32>
}
func.func @slice(%a: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %sb = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x16xf32>
  %b0 = shard.shard %b to %rep : tensor<16xf32>
  %b1 = shard.shard %b0 to %sb annotate_for_users : tensor<16xf32>
  %r = bcast.sub %a1, %b1 : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
