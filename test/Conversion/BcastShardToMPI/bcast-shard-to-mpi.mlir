// bcast-shard-to-mpi: partitioning and the lowering of the collectives to
// libbcast_mpi_runtime.so calls (all-reduce, all-gather), all-slice to local
// slices at the process's MPI rank, the MPICH DLTI default, and no shard op
// or grid left.
// RUN: bcast-opt %s -split-input-file --bcast-shard-to-mpi | FileCheck %s

// No grid: the pass leaves the module alone (no DLTI entry either).
// CHECK-LABEL: module {
// CHECK-NEXT: func.func @unsharded(%{{.*}}: tensor<8x16xf32>) -> tensor<8x16xf32>
func.func @unsharded(%a: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = bcast.neg %a : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// The sum over the split dim calls the all-reduce entry point with the
// reduction code (0: sum), the grid (rank 1, shape 2 padded with 1) and the
// axes (1 axis: 0, padded with -1), on flat buffers.
// CHECK-LABEL: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "MPICH">}
// CHECK-NOT: shard.
// CHECK-LABEL: func.func @sum_over_split_dim(
// CHECK-SAME: %[[A:.*]]: tensor<4x16xf32>) -> tensor<16xf32>
// CHECK-DAG: %[[M1:.*]] = arith.constant -1 : i64
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK: %[[L:.*]] = bcast.sum %[[A]] {dims = array<i64: 0>} : (tensor<4x16xf32>) -> tensor<16xf32>
// CHECK: %[[IN:.*]] = bufferization.to_buffer %[[L]] read_only : tensor<16xf32> to memref<16xf32>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<16xf32>
// CHECK: %[[INF:.*]] = memref.cast %[[IN]] : memref<16xf32> to memref<?xf32>
// CHECK: %[[OUTF:.*]] = memref.cast %[[OUT]] : memref<16xf32> to memref<?xf32>
// CHECK: call @bcast_mpi_all_reduce_f32(%[[INF]], %[[OUTF]], %[[ZERO]], %[[ONE]], %[[TWO]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ZERO]], %[[M1]], %[[M1]], %[[M1]])
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<16xf32> to tensor<16xf32>
// CHECK: return %[[R]]
// CHECK: func.func private @bcast_mpi_all_reduce_f32(memref<?xf32>, memref<?xf32>, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
shard.grid @grid(shape = 2) {sym_visibility = "private"}
func.func @sum_over_split_dim(%a: tensor<8x16xf32>) -> tensor<16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x16xf32>
  %r = bcast.sum %a1 {dims = array<i64: 0>} : (tensor<8x16xf32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// A DLTI map of the module keeps its entries and gains MPICH.
// CHECK-LABEL: module attributes {dlti.map = #dlti.map<"other" = 1 : i64, "MPI:Implementation" = "MPICH">}
// A 2-D split resharded to replicated: one all-gather per dim (dim 0 over
// axis 0: 1 outer row of 32; then dim 1 over axis 1: 8 outer rows of 8),
// never one all-gather for both (MLIR 22.1.8 returned tensor<8x8xf32>).
// CHECK-LABEL: func.func @two_axes_to_replicated(
// CHECK-SAME: tensor<4x8xf32>, %{{.*}}: tensor<8xf32>) -> tensor<8x16xf32>
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[EIGHT:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : i64
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[M1:.*]] = arith.constant -1 : i64
// CHECK: memref.alloc() : memref<8x8xf32>
// CHECK: call @bcast_mpi_all_gather_f32(%{{.*}}, %{{.*}}, %[[ONE]], %[[C32]], %[[TWO]], %[[TWO]], %[[TWO]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ZERO]], %[[M1]], %[[M1]], %[[M1]])
// CHECK: memref.alloc() : memref<8x16xf32>
// CHECK: call @bcast_mpi_all_gather_f32(%{{.*}}, %{{.*}}, %[[EIGHT]], %[[EIGHT]], %[[TWO]], %[[TWO]], %[[TWO]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[M1]], %[[M1]], %[[M1]])
// CHECK: return %{{.*}} : tensor<8x16xf32>
// A driver function beside the kernels (ops without sharding models) is not
// propagated or partitioned.
// CHECK-LABEL: func.func @driver(
// CHECK: scf.for
// CHECK: vector.print
module attributes {dlti.map = #dlti.map<"other" = 1>} {
shard.grid @grid2(shape = 2x2) {sym_visibility = "private"}
func.func @two_axes_to_replicated(%a: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid2 split_axes = [[0], [1]] : !shard.sharding
  %rep = shard.sharding @grid2 split_axes = [[]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x16xf32>
  %r = bcast.add %a1, %b : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %r1 = shard.shard %r to %s : tensor<8x16xf32>
  %r2 = shard.shard %r1 to %rep annotate_for_users : tensor<8x16xf32>
  return %r2 : tensor<8x16xf32>
}
func.func @driver(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = arith.constant 1.0 : f32
    vector.print %v : f32
  }
  return
}
}

// -----

// All-slice: a replicated [16] operand against a big operand split on its
// last dim is sliced at the process's rank, with no communication.
// CHECK-LABEL: func.func @slice_replicated_operand(
// CHECK-SAME: %[[A:.*]]: tensor<8x8xf32>, %[[B:.*]]: tensor<16xf32>) -> tensor<8x8xf32>
// CHECK-NOT: call
// CHECK: %[[WORLD:.*]] = mpi.comm_world : !mpi.comm
// CHECK: %{{.*}}, %[[RANK:.*]] = mpi.comm_rank(%[[WORLD]]) : !mpi.retval, i32
// CHECK: %[[SLICE:.*]] = tensor.extract_slice %[[B]][%{{.*}}] [8] [1] : tensor<16xf32> to tensor<8xf32>
// CHECK: %[[R:.*]] = bcast.sub %[[A]], %[[SLICE]] : (tensor<8x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
// CHECK: return %[[R]]
// CHECK-NOT: shard.
shard.grid @grid(shape = 2) {sym_visibility = "private"}
func.func @slice_replicated_operand(%a: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %sb = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %a1 = shard.shard %a to %s annotate_for_users : tensor<8x16xf32>
  %b0 = shard.shard %b to %rep : tensor<16xf32>
  %b1 = shard.shard %b0 to %sb annotate_for_users : tensor<16xf32>
  %r = bcast.sub %a1, %b1 : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}
