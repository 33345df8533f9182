// A sharded bcast program: `(x + bias) * scale` for x of 8x16, a row bias
// [16] and a column scale [8,1], on a 1-D grid of 2 MPI processes. x is split
// by rows (dim 0); the bias broadcasts along dim 0 and stays whole on every
// rank, with no communication; scale is split with x's rows. The result is
// gathered back to every rank (resharded to replicated), and `colsum`
// reduces over the split dim (an all-reduce).
//
// Build and run (examples/sharded/README.md):
//   bcast-opt --bcast-to-llvm=parallel=false sharded.mlir | mlir-translate --mlir-to-llvmir
module {
  // Private, so that the grid is erased with the annotations.
  shard.grid @grid(shape = 2) {sym_visibility = "private"}

  func.func @scaled(%x: tensor<8x16xf32>, %bias: tensor<16xf32>,
                    %scale: tensor<8x1xf32>) -> tensor<8x16xf32>
      attributes {llvm.emit_c_interface} {
    %rows = shard.sharding @grid split_axes = [[0]] : !shard.sharding
    %whole = shard.sharding @grid split_axes = [[]] : !shard.sharding
    %x1 = shard.shard %x to %rows annotate_for_users : tensor<8x16xf32>
    %0 = bcast.add %x1, %bias : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
    %1 = bcast.mul %0, %scale : (tensor<8x16xf32>, tensor<8x1xf32>) -> tensor<8x16xf32>
    // Computed split by rows, returned whole on every rank.
    %2 = shard.shard %1 to %rows : tensor<8x16xf32>
    %3 = shard.shard %2 to %whole annotate_for_users : tensor<8x16xf32>
    return %3 : tensor<8x16xf32>
  }

  func.func @colsum(%x: tensor<8x16xf32>) -> tensor<16xf32>
      attributes {llvm.emit_c_interface} {
    %rows = shard.sharding @grid split_axes = [[0]] : !shard.sharding
    %x1 = shard.shard %x to %rows annotate_for_users : tensor<8x16xf32>
    %r = bcast.sum %x1 {dims = array<i64: 0>} : (tensor<8x16xf32>) -> tensor<16xf32>
    return %r : tensor<16xf32>
  }
}
