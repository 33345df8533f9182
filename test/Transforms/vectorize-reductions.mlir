// bcast-vectorize-reductions on bufferized reduction generics.
// RUN: bcast-opt %s --bcast-vectorize-reductions --canonicalize --cse -split-input-file | FileCheck %s
// RUN: bcast-opt %s --bcast-vectorize-reductions=parallel=false --canonicalize --cse -split-input-file | FileCheck %s --check-prefix=SEQ
// RUN: bcast-opt %s --bcast-vectorize-reductions=grain-size=0 --canonicalize --cse -split-input-file | FileCheck %s --check-prefix=GRAIN0

// A row sum of exp(x - m): rows shared among parallel tasks, m (constant
// along the row) loaded and splat once per row, a cascade of three vector
// loops (blocks of 64 x 64 vectors, of 64 vectors, and vectors: four
// accumulators over groups of four vectors, added pairwise, then the
// remaining vectors), a horizontal reduce into the output's value and a
// scalar tail.
// CHECK-LABEL: func @row_sum_exp
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>, %[[M:.*]]: memref<?x1xf32>, %[[S:.*]]: memref<?x1xf32>)
// CHECK-DAG: %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK: scf.parallel
// CHECK: scf.for %[[I:.*]] =
// CHECK: %[[ACC:.*]] = memref.load %[[S]][%[[I]], %{{.*}}]
// CHECK: %[[MI:.*]] = memref.load %[[M]][%[[I]], %{{.*}}]
// CHECK: %[[MV:.*]] = vector.broadcast %[[MI]] : f32 to vector<8xf32>
// CHECK: %[[L2:.*]] = scf.for %{{.*}} step %c32768 iter_args(%[[A2:.*]] = %[[ZEROS]]) -> (vector<8xf32>)
// CHECK: %[[L1:.*]] = scf.for %{{.*}} step %c512 iter_args(%[[A1:.*]] = %[[ZEROS]]) -> (vector<8xf32>)
// CHECK: %[[G:.*]]:4 = scf.for %[[J:.*]] = %{{.*}} step %c32 iter_args(%[[A0:.*]] = %[[ZEROS]], %[[B0:.*]] = %[[ZEROS]], %[[C0:.*]] = %[[ZEROS]], %[[D0:.*]] = %[[ZEROS]]) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK: %[[V:.*]] = vector.load %[[X]][%[[I]], %[[J]]] : memref<?x?xf32>, vector<8xf32>
// CHECK: %[[D:.*]] = arith.subf %[[V]], %[[MV]] : vector<8xf32>
// CHECK: %[[E:.*]] = math.exp %[[D]] : vector<8xf32>
// CHECK: %[[N0:.*]] = arith.addf %[[A0]], %[[E]] : vector<8xf32>
// CHECK: %[[J1:.*]] = arith.addi %[[J]], %c8
// CHECK: vector.load %[[X]][%[[I]], %[[J1]]]
// CHECK: math.exp
// CHECK: %[[N1:.*]] = arith.addf %[[B0]], %{{.*}} : vector<8xf32>
// CHECK: math.exp
// CHECK: %[[N2:.*]] = arith.addf %[[C0]], %{{.*}} : vector<8xf32>
// CHECK: math.exp
// CHECK: %[[N3:.*]] = arith.addf %[[D0]], %{{.*}} : vector<8xf32>
// CHECK: scf.yield %[[N0]], %[[N1]], %[[N2]], %[[N3]]
// CHECK: %[[P0:.*]] = arith.addf %[[G]]#0, %[[G]]#1 : vector<8xf32>
// CHECK: %[[P1:.*]] = arith.addf %[[G]]#2, %[[G]]#3 : vector<8xf32>
// CHECK: %[[P:.*]] = arith.addf %[[P0]], %[[P1]] : vector<8xf32>
// CHECK: %[[L0:.*]] = scf.for %{{.*}} step %c8 iter_args(%[[R:.*]] = %[[P]]) -> (vector<8xf32>)
// CHECK: math.exp
// CHECK: arith.addf %[[R]], %{{.*}} : vector<8xf32>
// CHECK: arith.addf %[[A1]], %[[L0]] : vector<8xf32>
// CHECK: arith.addf %[[A2]], %[[L1]] : vector<8xf32>
// CHECK: %[[H:.*]] = vector.reduction <add>, %[[L2]], %[[ACC]] : vector<8xf32> into f32
// CHECK: %[[T:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[H]]) -> (f32)
// CHECK: memref.load %[[X]]
// CHECK: math.exp {{.*}} : f32
// CHECK: memref.store %[[T]], %[[S]][%[[I]], %{{.*}}]
// CHECK-NOT: linalg.generic
// SEQ-LABEL: func @row_sum_exp
// SEQ-NOT: scf.parallel
// SEQ: vector.reduction <add>
func.func @row_sum_exp(%x: memref<?x?xf32>, %m: memref<?x1xf32>, %s: memref<?x1xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %m : memref<?x?xf32>, memref<?x1xf32>) outs(%s : memref<?x1xf32>) {
  ^bb0(%in: f32, %mx: f32, %acc: f32):
    %d = arith.subf %in, %mx : f32
    %e = math.exp %d : f32
    %c = arith.addf %acc, %e : f32
    linalg.yield %c : f32
  }
  return
}

// -----

// A max (NaN-propagating, exact): no cascade. The vector loops take the
// ordered maximum (`v > acc ? v : acc`) and note NaNs; a row that saw a NaN
// or whose maximum is a zero (-0 < +0 decides) is reduced again with
// maximumf. Loops over groups of four vectors (four accumulators), over
// the remaining vectors, and a scalar tail, which uses maximumf.
// CHECK-LABEL: func @row_max
// CHECK-SAME: (%[[X:.*]]: memref<6x?xf32>, %[[M:.*]]: memref<6x1xf32>)
// CHECK-DAG: %[[NEG:.*]] = arith.constant dense<0xFF800000> : vector<8xf32>
// CHECK-DAG: %[[NONAN:.*]] = arith.constant dense<false> : vector<8xi1>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = memref.load %[[M]]
// CHECK: %[[G:.*]]:5 = scf.for %{{.*}} step %c32 iter_args(%[[A0:.*]] = %[[NEG]], %{{.*}} = %[[NEG]], %{{.*}} = %[[NEG]], %{{.*}} = %[[NEG]], %[[N0:.*]] = %[[NONAN]])
// CHECK: %[[V:.*]] = vector.load %[[X]]
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[V]], %[[A0]] : vector<8xf32>
// CHECK: arith.select %[[GT]], %[[V]], %[[A0]]
// CHECK: arith.cmpf uno, %[[V]], %[[V]] : vector<8xf32>
// CHECK-NOT: arith.maximumf
// CHECK: scf.yield
// CHECK: %[[R:.*]]:2 = scf.for %{{.*}} step %c8 iter_args
// CHECK-NOT: arith.maximumf
// CHECK: scf.yield
// CHECK: %[[FAST:.*]] = vector.reduction <maximumf>, %[[R]]#0 : vector<8xf32> into f32
// CHECK: %[[SAW:.*]] = vector.reduction <or>, %[[R]]#1 : vector<8xi1> into i1
// CHECK: %[[IS0:.*]] = arith.cmpf oeq, %[[FAST]], %[[ZERO]] : f32
// CHECK: %[[AGAIN:.*]] = arith.ori %[[SAW]], %[[IS0]] : i1
// CHECK: %[[ROW:.*]] = scf.if %[[AGAIN]] -> (f32) {
// CHECK: arith.maximumf {{.*}} : vector<8xf32>
// CHECK: vector.reduction <maximumf>
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[FAST]] : f32
// CHECK: %[[WITH:.*]] = arith.maximumf %[[INIT]], %[[ROW]] : f32
// CHECK: scf.for %{{.*}} step %c1 iter_args(%{{.*}} = %[[WITH]])
// CHECK: arith.maximumf {{.*}} : f32
func.func @row_max(%x: memref<6x?xf32>, %m: memref<6x1xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<6x?xf32>) outs(%m : memref<6x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.maximumf %acc, %in : f32
    linalg.yield %c : f32
  }
  return
}

// -----

// A min: the ordered minimum (`v < acc ? v : acc`), +inf lanes.
// CHECK-LABEL: func @row_min
// CHECK-DAG: arith.constant dense<0x7F800000> : vector<8xf32>
// CHECK: arith.cmpf olt, %[[V:.*]], %[[A:.*]] : vector<8xf32>
// CHECK: vector.reduction <minimumf>
// CHECK: scf.if
// CHECK: arith.minimumf {{.*}} : vector<8xf32>
// Its 96 elements are below the grain size (32,768): no parallel loop, the
// rows on the calling thread; with grain-size=0, a parallel loop.
// CHECK-NOT: scf.parallel
// GRAIN0-LABEL: func @row_min
// GRAIN0: scf.parallel
func.func @row_min(%x: memref<6x16xf32>, %m: memref<6x1xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<6x16xf32>) outs(%m : memref<6x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.minimumf %acc, %in : f32
    linalg.yield %c : f32
  }
  return
}

// -----

// A sum over dim 0 ([M,N] to [1,N]), vectorized across the kept columns:
// tasks take chunks of 256 columns; two stack buffers of one chunk hold
// the cascade's blocks (64 rows, then 64 blocks), added into the output.
// CHECK-LABEL: func @column_sum
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>, %[[S:.*]]: memref<1x?xf32>)
// CHECK: scf.parallel
// CHECK: %[[B0:.*]] = memref.alloca() : memref<256xf32>
// CHECK: %[[B1:.*]] = memref.alloca() : memref<256xf32>
// CHECK: scf.for {{.*}} step %c4096
// CHECK: vector.store %{{.*}}, %[[B1]]
// CHECK: scf.for {{.*}} step %c64
// CHECK: vector.store %{{.*}}, %[[B0]]
// CHECK: scf.for %[[K:.*]] =
// CHECK: scf.for %[[J:.*]] = {{.*}} step %c8
// CHECK-NOT: memref.prefetch
// CHECK: %[[OLD:.*]] = vector.load %[[B0]]
// CHECK: %[[V:.*]] = vector.load %[[X]][%[[K]], %[[J]]] : memref<?x?xf32>, vector<8xf32>
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[V]] : vector<8xf32>
// CHECK: vector.store %[[NEW]], %[[B0]]
// CHECK: vector.load %[[B1]]
// CHECK: vector.load %[[B0]]
// CHECK: vector.load %[[S]]
// CHECK: vector.load %[[B1]]
// CHECK: vector.store %{{.*}}, %[[S]]
func.func @column_sum(%x: memref<?x?xf32>, %s: memref<1x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : memref<?x?xf32>) outs(%s : memref<1x?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.addf %acc, %in : f32
    linalg.yield %c : f32
  }
  return
}

// -----

// A sum over dim 0 of exp(x - m): the row's vector loop also prefetches its
// columns of the row four ahead (the last row near the end); m, the same
// for every row, is not prefetched. The plain sum above prefetches nothing.
// CHECK-LABEL: func @column_sum_exp
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>, %[[M:.*]]: memref<1x?xf32>, %[[S:.*]]: memref<1x?xf32>)
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[ROWS:.*]] = memref.dim %[[X]], %c0
// CHECK: %[[LAST:.*]] = arith.subi %[[ROWS]], %c1
// CHECK: scf.for {{.*}} step %c64
// CHECK: scf.for %[[K:.*]] = {{.*}} step %c1
// CHECK: %[[K4:.*]] = arith.addi %[[K]], %[[C4]]
// CHECK: %[[AHEAD:.*]] = arith.minui %[[K4]], %[[LAST]]
// CHECK: scf.for %[[J:.*]] = {{.*}} step %c8
// CHECK-NOT: memref.prefetch %[[M]]
// CHECK: memref.prefetch %[[X]][%[[AHEAD]], %[[J]]], read, locality<3>, data
// CHECK-NOT: memref.prefetch
// CHECK: vector.load %[[X]][%[[K]], %[[J]]]
// CHECK: math.exp %{{.*}} : vector<8xf32>
// CHECK: scf.for
// CHECK-NOT: memref.prefetch
// CHECK: math.exp %{{.*}} : f32
func.func @column_sum_exp(%x: memref<?x?xf32>, %m: memref<1x?xf32>, %s: memref<1x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (0, d1)>], iterator_types = ["reduction", "parallel"]} ins(%x, %m : memref<?x?xf32>, memref<1x?xf32>) outs(%s : memref<1x?xf32>) {
  ^bb0(%in: f32, %mx: f32, %acc: f32):
    %d = arith.subf %in, %mx : f32
    %e = math.exp %d : f32
    %c = arith.addf %acc, %e : f32
    linalg.yield %c : f32
  }
  return
}

// -----

// The exponential of a per-row value ([M,1], the same along the kept
// columns) is computed once per row, not per vector: no prefetch.
// CHECK-LABEL: func @column_sum_row_exp
// CHECK-NOT: memref.prefetch
// CHECK: math.exp %{{.*}} : f32
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @column_sum_row_exp(%x: memref<?x?xf32>, %r: memref<?x1xf32>, %s: memref<1x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (0, d1)>], iterator_types = ["reduction", "parallel"]} ins(%x, %r : memref<?x?xf32>, memref<?x1xf32>) outs(%s : memref<1x?xf32>) {
  ^bb0(%in: f32, %row: f32, %acc: f32):
    %e = math.exp %row : f32
    %p = arith.mulf %in, %e : f32
    %c = arith.addf %acc, %p : f32
    linalg.yield %c : f32
  }
  return
}

// -----

// An integer sum widened to i64: vectors of 4 (the widest element, i64,
// sets the length), sign extension in the vector body, no cascade.
// CHECK-LABEL: func @int_row_sum
// CHECK: vector.load {{.*}} vector<4xi32>
// CHECK: arith.extsi {{.*}} : vector<4xi32> to vector<4xi64>
// CHECK: arith.addi {{.*}} : vector<4xi64>
// CHECK: vector.reduction <add>, {{.*}} : vector<4xi64> into i64
func.func @int_row_sum(%x: memref<3x100xi32>, %s: memref<3x1xi64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<3x100xi32>) outs(%s : memref<3x1xi64>) {
  ^bb0(%in: i32, %acc: i64):
    %w = arith.extsi %in : i32 to i64
    %c = arith.addi %acc, %w : i64
    linalg.yield %c : i64
  }
  return
}

// -----

// Inside a parallel loop (bcast-fuse-rows' row blocks) the reduction's own
// loops are sequential: one scf.parallel in all.
// CHECK-LABEL: func @nested_in_row_block
// CHECK: scf.parallel
// CHECK-NOT: scf.parallel
// CHECK: vector.reduction <add>
func.func @nested_in_row_block(%x: memref<64x100xf32>, %s: memref<64x1xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c8) {
    %xs = memref.subview %x[%i, 0] [8, 100] [1, 1] : memref<64x100xf32> to memref<8x100xf32, strided<[100, 1], offset: ?>>
    %ss = memref.subview %s[%i, 0] [8, 1] [1, 1] : memref<64x1xf32> to memref<8x1xf32, strided<[1, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%xs : memref<8x100xf32, strided<[100, 1], offset: ?>>) outs(%ss : memref<8x1xf32, strided<[1, 1], offset: ?>>) {
    ^bb0(%in: f32, %acc: f32):
      %c = arith.addf %acc, %in : f32
      linalg.yield %c : f32
    }
    scf.reduce
  }
  return
}

// -----

// argmax (two outputs, linalg.index in the body) is left to
// convert-linalg-to-loops.
// CHECK-LABEL: func @argmax_left_alone
// CHECK: linalg.generic
// CHECK-NOT: vector.
func.func @argmax_left_alone(%x: memref<4x9xf32>, %v: memref<4x1xf32>, %i: memref<4x1xi64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x9xf32>) outs(%v, %i : memref<4x1xf32>, memref<4x1xi64>) {
  ^bb0(%in: f32, %best: f32, %at: i64):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %in, %best : f32
    %nv = arith.select %gt, %in, %best : f32
    %ni = arith.select %gt, %ji, %at : i64
    linalg.yield %nv, %ni : f32, i64
  }
  return
}

// -----

// An outer reduction inside a parallel row block: the cascade's stack
// buffers are made once at the start of the parallel body, not in the
// sequential loops (where each iteration would grow the stack).
// CHECK-LABEL: func @outer_sum_in_row_block
// CHECK: scf.parallel
// CHECK-NEXT: memref.alloca() : memref<256xf32>
// CHECK-NEXT: memref.alloca() : memref<256xf32>
// CHECK-NOT: memref.alloca
// CHECK-NOT: scf.parallel
// CHECK: vector.store
func.func @outer_sum_in_row_block(%x: memref<4x70x300xf32>, %s: memref<4x1x300xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %xs = memref.subview %x[%i, 0, 0] [1, 70, 300] [1, 1, 1] : memref<4x70x300xf32> to memref<1x70x300xf32, strided<[21000, 300, 1], offset: ?>>
    %ss = memref.subview %s[%i, 0, 0] [1, 1, 300] [1, 1, 1] : memref<4x1x300xf32> to memref<1x1x300xf32, strided<[300, 300, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, 0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%xs : memref<1x70x300xf32, strided<[21000, 300, 1], offset: ?>>) outs(%ss : memref<1x1x300xf32, strided<[300, 300, 1], offset: ?>>) {
    ^bb0(%in: f32, %acc: f32):
      %c = arith.addf %acc, %in : f32
      linalg.yield %c : f32
    }
    scf.reduce
  }
  return
}

// -----

// A floating sum whose rows share an output element (BatchNorm's statistics:
// dims 0 and 2 of [N, C, W] into [1, C, 1]) cascades the rows as a row's
// vectors: blocks of 64 x 64 rows and of 64 rows, each summed from the
// identity, each row's sum (its lanes reduced from the identity) added into
// its block's, and the output's value read and written once per output
// element.
// SEQ-LABEL: func @shared_output_rows
// SEQ: scf.for {{.*}} to %c3 step %c1
// SEQ: %[[INIT:.*]] = memref.load %{{.*}} : memref<1x3x1xf32>
// SEQ: %[[ALL:.*]] = scf.for {{.*}} = %c0 to %c8192 step %c4096 iter_args(%[[A:arg[0-9]+]] = %{{.*}})
// SEQ: %[[BLOCKS:.*]] = scf.for {{.*}} step %c64 iter_args(%[[B:arg[0-9]+]] = %{{.*}})
// SEQ: %[[ROWS:.*]] = scf.for {{.*}} step %c1 iter_args(%[[R:arg[0-9]+]] = %{{.*}})
// SEQ: %[[ROW:.*]] = vector.reduction <add>, %{{.*}}, %[[ZERO:.*]] : vector<8xf32> into f32
// SEQ: arith.addf %[[R]], %[[ROW]] : f32
// SEQ: arith.addf %[[B]], %[[ROWS]] : f32
// SEQ: arith.addf %[[A]], %[[BLOCKS]] : f32
// SEQ: %[[SUM:.*]] = arith.addf %[[INIT]], %[[ALL]] : f32
// SEQ: memref.store %[[SUM]], {{.*}} : memref<1x3x1xf32>
// SEQ-NOT: memref.store
// SEQ: return
func.func @shared_output_rows(%x: memref<8192x3x64xf32>, %s: memref<1x3x1xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (0, d1, 0)>], iterator_types = ["reduction", "parallel", "reduction"]} ins(%x : memref<8192x3x64xf32>) outs(%s : memref<1x3x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.addf %acc, %in : f32
    linalg.yield %c : f32
  }
  return
}

// -----

// An integer sum of such rows wraps the same in any order: one row after
// another into the output.
// SEQ-LABEL: func @shared_output_rows_int
// SEQ: scf.for {{.*}} to %c3 step %c1
// SEQ: scf.for {{.*}} to %c16 step %c1
// SEQ: memref.load
// SEQ: memref.store
func.func @shared_output_rows_int(%x: memref<16x3x64xi32>, %s: memref<1x3x1xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (0, d1, 0)>], iterator_types = ["reduction", "parallel", "reduction"]} ins(%x : memref<16x3x64xi32>) outs(%s : memref<1x3x1xi32>) {
  ^bb0(%in: i32, %acc: i32):
    %c = arith.addi %acc, %in : i32
    linalg.yield %c : i32
  }
  return
}
