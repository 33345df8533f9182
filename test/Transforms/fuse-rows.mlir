// bcast-fuse-rows on bufferized chains: the ops that share rows become one
// loop over row blocks applied to subviews of the rows; buffers that a row
// writes and another row reads, and chains without a reduction, are left
// alone.
// RUN: bcast-opt %s --bcast-fuse-rows -split-input-file -mlir-print-local-scope | FileCheck %s
// RUN: bcast-opt %s --bcast-fuse-rows=parallel=false -split-input-file | FileCheck %s --check-prefix=SEQ
// RUN: bcast-opt %s --bcast-fuse-rows=grain-size=64001 -split-input-file | FileCheck %s --check-prefix=GRAIN

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>

// A written-out softmax after fusion and bufferization: max, sum of
// exp(x - m), exp(x - m) / s. One parallel loop over row blocks; inside,
// a loop over chunks of rows and the five ops on subviews. The only
// buffers are the two [M,1] statistics and the result.
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME:    %[[X:.*]]: memref<64x1000xf32>, %[[Y:.*]]: memref<64x1000xf32>)
// CHECK-DAG:     %[[M:.*]] = memref.alloc() : memref<64x1xf32>
// CHECK-DAG:     %[[S:.*]] = memref.alloc() : memref<64x1xf32>
// CHECK-NOT:     memref.alloc
// CHECK:         scf.parallel (%[[TASK:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK:           scf.for %[[ROW:.*]] = %[[TASK]] to %{{.*}} step %{{.*}} {
// CHECK:             %[[N:.*]] = arith.minui
// CHECK:             %[[MV:.*]] = memref.subview %[[M]][%[[ROW]], 0] [%[[N]], 1] [1, 1]
// CHECK:             linalg.fill ins(%{{.*}} : f32) outs(%[[MV]] :
// CHECK:             %[[XV:.*]] = memref.subview %[[X]][%[[ROW]], 0] [%[[N]], 1000] [1, 1] : memref<64x1000xf32> to memref<?x1000xf32, strided<[1000, 1], offset: ?>>
// CHECK:             linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[XV]] : {{.*}}) outs(%{{.*}} :
// CHECK:               arith.maximumf
// CHECK:             linalg.fill
// CHECK:             linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]}
// CHECK:               math.exp
// CHECK:               arith.addf
// CHECK:             %[[YV:.*]] = memref.subview %[[Y]][%[[ROW]], 0] [%[[N]], 1000] [1, 1]
// CHECK:             linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} {{.*}} outs(%[[YV]] :
// CHECK:               arith.divf
// CHECK:           }
// CHECK:         }
// CHECK-NOT:     linalg.
// CHECK:         memref.dealloc %[[M]]
// CHECK:         memref.dealloc %[[S]]
// CHECK:         return
// The grain size applies to the group's widest op: 64,000 elements run in
// parallel from a grain size of 64,000 (the default run above), on one
// thread below it, in a marked loop and with no OpenMP region.
// GRAIN-LABEL: func.func @softmax(
// GRAIN-NOT:     scf.parallel
// GRAIN:         scf.for
// GRAIN:           scf.for
// GRAIN:             linalg.generic
// GRAIN:         } {bcast.sequential_rows}
// GRAIN-LABEL: func.func @layernorm(
// GRAIN:         arith.cmpi uge, %{{.*}}, %c64001 : index
// SEQ-LABEL: func.func @softmax(
// SEQ-NOT:     scf.parallel
// SEQ:         scf.for
// SEQ:           scf.for
// SEQ:             linalg.generic
func.func @softmax(%x: memref<64x1000xf32>, %y: memref<64x1000xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %m = memref.alloc() : memref<64x1xf32>
  linalg.fill ins(%ninf : f32) outs(%m : memref<64x1xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<64x1000xf32>) outs(%m : memref<64x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.maximumf %acc, %in : f32
    linalg.yield %c : f32
  }
  %s = memref.alloc() : memref<64x1xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<64x1xf32>)
  linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %m : memref<64x1000xf32>, memref<64x1xf32>) outs(%s : memref<64x1xf32>) {
  ^bb0(%in: f32, %mx: f32, %acc: f32):
    %d = arith.subf %in, %mx : f32
    %e = math.exp %d : f32
    %c = arith.addf %acc, %e : f32
    linalg.yield %c : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m, %s : memref<64x1000xf32>, memref<64x1xf32>, memref<64x1xf32>) outs(%y : memref<64x1000xf32>) {
  ^bb0(%in: f32, %mx: f32, %sum: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %e = math.exp %d : f32
    %q = arith.divf %e, %sum : f32
    linalg.yield %q : f32
  }
  memref.dealloc %m : memref<64x1xf32>
  memref.dealloc %s : memref<64x1xf32>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
#col = affine_map<(d0, d1) -> (d1)>

// A written-out LayerNorm after fusion and bufferization, dynamic sizes:
// sum, sum of squares of x - sum / N, then (x - mean) * rstd * w + b. The
// weight and bias are read whole (not indexed by the row); a free between
// the ops moves after the loop. The element-wise op that reads x also gets
// x's rows of the next chunk (at most the last rows), as an input its body
// does not read: bcast-vectorize-elementwise prefetches them.
// CHECK-LABEL: func.func @layernorm(
// CHECK-SAME:    %[[X:.*]]: memref<?x?xf32>, %[[W:.*]]: memref<?xf32>, %[[B:.*]]: memref<?xf32>, %[[Y:.*]]: memref<?x?xf32>)
// CHECK:         %[[ROWS:.*]] = memref.dim %[[X]], %c0
// CHECK:         %[[S1:.*]] = memref.alloc(%[[ROWS]]) : memref<?x1xf32>
// CHECK:         %[[S2:.*]] = memref.alloc(%[[ROWS]]) : memref<?x1xf32>
// CHECK-NOT:     memref.alloc
// CHECK:         %[[LARGE:.*]] = arith.cmpi uge, %{{.*}}, %c32768 : index
// CHECK:         scf.if %[[LARGE]] {
// CHECK:         scf.parallel
// CHECK:           scf.for
// CHECK:             linalg.fill
// CHECK:             linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]}
// CHECK:             linalg.fill
// CHECK:             linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]}
// CHECK:             %[[NEXT:.*]] = arith.minui %{{.*}}, %{{.*}} : index
// CHECK:             %[[XN:.*]] = memref.subview %[[X]][%[[NEXT]], 0]
// CHECK:             linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %{{.*}}, %{{.*}}, %[[W]], %[[B]], %[[XN]] : memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<?x1xf32, strided<[1, 1], offset: ?>>, memref<?x1xf32, strided<[1, 1], offset: ?>>, memref<?xf32>, memref<?xf32>, memref<?x?xf32, strided<[?, 1], offset: ?>>)
// CHECK-NEXT:          ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %[[UNUSED:.*]]: f32, %{{.*}}: f32):
// CHECK-NOT:             %[[UNUSED]]
// CHECK:               math.rsqrt
// CHECK:           scf.reduce
// CHECK-NEXT:      }
// Below the grain size (32,768 elements by default), decided at run time
// here, the same loop stays on the calling thread, marked so that the
// vector lowerings do not parallelize its ops either.
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.for
// CHECK-NOT:         scf.parallel
// CHECK:           } {bcast.sequential_rows}
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.dealloc %[[S1]]
// CHECK-NEXT:    memref.dealloc %[[S2]]
func.func @layernorm(%x: memref<?x?xf32>, %w: memref<?xf32>, %b: memref<?xf32>, %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 1024.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %s1 = memref.alloc(%rows) : memref<?x1xf32>
  linalg.fill ins(%zero : f32) outs(%s1 : memref<?x1xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<?x?xf32>) outs(%s1 : memref<?x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.addf %acc, %in : f32
    linalg.yield %c : f32
  }
  %s2 = memref.alloc(%rows) : memref<?x1xf32>
  linalg.fill ins(%zero : f32) outs(%s2 : memref<?x1xf32>)
  linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %s1 : memref<?x?xf32>, memref<?x1xf32>) outs(%s2 : memref<?x1xf32>) {
  ^bb0(%in: f32, %sum: f32, %acc: f32):
    %mean = arith.divf %sum, %n : f32
    %d = arith.subf %in, %mean : f32
    %sq = arith.mulf %d, %d : f32
    %c = arith.addf %acc, %sq : f32
    linalg.yield %c : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %s1, %s2, %w, %b : memref<?x?xf32>, memref<?x1xf32>, memref<?x1xf32>, memref<?xf32>, memref<?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%in: f32, %sum: f32, %sqs: f32, %wv: f32, %bv: f32, %out: f32):
    %mean = arith.divf %sum, %n : f32
    %d = arith.subf %in, %mean : f32
    %var = arith.divf %sqs, %n : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    %t = arith.mulf %d, %r : f32
    %u = arith.mulf %t, %wv : f32
    %v = arith.addf %u, %bv : f32
    linalg.yield %v : f32
  }
  memref.dealloc %s1 : memref<?x1xf32>
  memref.dealloc %s2 : memref<?x1xf32>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>
#first = affine_map<(d0, d1) -> (0, d1)>

// The second op reads row 0 of the buffer the first op writes row by row:
// a row's work would read another row's result. Not fused.
// CHECK-LABEL: func.func @no_fusion_cross_row_read(
// CHECK-NOT:     scf.parallel
// CHECK:         linalg.generic
// CHECK:         linalg.generic
func.func @no_fusion_cross_row_read(%x: memref<8x16xf32>, %t: memref<8x16xf32>, %s: memref<8x1xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<8x16xf32>) outs(%t : memref<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#first, #row], iterator_types = ["parallel", "reduction"]} ins(%t : memref<8x16xf32>) outs(%s : memref<8x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.addf %acc, %in : f32
    linalg.yield %c : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0, 0)>

// An op with a memory effect between the two ops (a copy) ends the run:
// each op alone needs no row loop.
// CHECK-LABEL: func.func @no_fusion_copy_between(
// CHECK-NOT:     scf.parallel
// CHECK:         linalg.generic
// CHECK:         memref.copy
// CHECK:         linalg.generic
func.func @no_fusion_copy_between(%x: memref<8x16xf32>, %s: memref<8x1xf32>, %z: memref<8x1xf32>, %y: memref<8x16xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<8x16xf32>) outs(%s : memref<8x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %c = arith.addf %acc, %in : f32
    linalg.yield %c : f32
  }
  memref.copy %s, %z : memref<8x1xf32> to memref<8x1xf32>
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %s : memref<8x16xf32>, memref<8x1xf32>) outs(%y : memref<8x16xf32>) {
  ^bb0(%in: f32, %sum: f32, %out: f32):
    %q = arith.divf %in, %sum : f32
    linalg.yield %q : f32
  }
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Element-wise ops only (no reduction): left to the vectorizer's own row
// loops.
// CHECK-LABEL: func.func @no_fusion_without_reduction(
// CHECK-NOT:     scf.parallel
func.func @no_fusion_without_reduction(%x: memref<8x16xf32>, %t: memref<8x16xf32>, %y: memref<8x16xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<8x16xf32>) outs(%t : memref<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %t : memref<8x16xf32>, memref<8x16xf32>) outs(%y : memref<8x16xf32>) {
  ^bb0(%in: f32, %e: f32, %out: f32):
    %q = arith.divf %in, %e : f32
    linalg.yield %q : f32
  }
  return
}
