// bcast-collapse-dims: adjacent loops of one iterator type that every
// operand reads alike (both at dims contiguous in its memory, or neither)
// become one loop of a generic on collapsed views; size-1 dims read at
// index 0 fold into a neighbouring dim. Loops that some operand reads only
// one of, or reads at dims a stride separates, stay apart.
// RUN: bcast-opt %s --bcast-collapse-dims -split-input-file | FileCheck %s

// A BatchNorm's statistics [C,1,1] over an [N,C,H,W] activation: H and W
// merge; N and C do not (the statistics read C, not N).
// CHECK-DAG:   #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG:   #[[C:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @channels(
// CHECK-SAME:    %[[X:.*]]: memref<2x4x3x5xf32>, %[[S:.*]]: memref<4x1x1xf32>, %[[O:.*]]: memref<2x4x3x5xf32>)
// CHECK-DAG:     %[[XC:.*]] = memref.collapse_shape %[[X]] {{\[}}[0], [1], [2, 3]] : memref<2x4x3x5xf32> into memref<2x4x15xf32>
// CHECK-DAG:     %[[SC:.*]] = memref.collapse_shape %[[S]] {{\[}}[0, 1, 2]] : memref<4x1x1xf32> into memref<4xf32>
// CHECK-DAG:     %[[OC:.*]] = memref.collapse_shape %[[O]] {{\[}}[0], [1], [2, 3]] : memref<2x4x3x5xf32> into memref<2x4x15xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[ID3]], #[[C]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:      ins(%[[XC]], %[[SC]] : memref<2x4x15xf32>, memref<4xf32>) outs(%[[OC]] : memref<2x4x15xf32>)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[A]], %[[B]] {bcast.marker} : f32
// CHECK-NEXT:      linalg.yield %[[M]] : f32
// CHECK-NOT:     linalg.generic
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#c4 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
func.func @channels(%x: memref<2x4x3x5xf32>, %s: memref<4x1x1xf32>, %o: memref<2x4x3x5xf32>) {
  linalg.generic {indexing_maps = [#id4, #c4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %s : memref<2x4x3x5xf32>, memref<4x1x1xf32>) outs(%o : memref<2x4x3x5xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.mulf %a, %b {bcast.marker} : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Every operand reads every loop at contiguous dims: one loop. The
// generic's own attributes are kept.
// CHECK-DAG:   #[[ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @contiguous(
// CHECK:         memref.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : memref<2x3x4xf32> into memref<24xf32>
// CHECK:         memref.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : memref<2x3x4xf32> into memref<24xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]]], iterator_types = ["parallel"]}
// CHECK-SAME:      ins(%{{.*}} : memref<24xf32>) outs(%{{.*}} : memref<24xf32>)
// CHECK-SAME:      attrs = {bcast.kept}
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @contiguous(%x: memref<2x3x4xf32>, %o: memref<2x3x4xf32>) {
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : memref<2x3x4xf32>) outs(%o : memref<2x3x4xf32>) attrs = {bcast.kept} {
  ^bb0(%a: f32, %out: f32):
    %0 = math.exp %a : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A row [C] over [R,C] and a column [R,1]: each operand reads one loop the
// other does not, so nothing merges.
// CHECK-LABEL: func.func @row_and_column(
// CHECK-NOT:     memref.collapse_shape
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : memref<4x5xf32>, memref<5xf32>, memref<4x1xf32>)
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#col = affine_map<(d0, d1) -> (d0, 0)>
func.func @row_and_column(%x: memref<4x5xf32>, %r: memref<5xf32>, %c: memref<4x1xf32>, %o: memref<4x5xf32>) {
  linalg.generic {indexing_maps = [#id2, #row, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %r, %c : memref<4x5xf32>, memref<5xf32>, memref<4x1xf32>) outs(%o : memref<4x5xf32>) {
  ^bb0(%a: f32, %b: f32, %d: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
    %1 = arith.addf %0, %d : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// A keepdim mean's sum over the last two dims: the parallel loops merge,
// and so do the reduced ones; the [N,C,1,1] accumulator becomes [N*C].
// CHECK-DAG:   #[[IN:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG:   #[[OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @reduce_last_two(
// CHECK-DAG:     memref.collapse_shape %{{.*}} {{\[}}[0, 1], [2, 3]] : memref<2x3x4x5xf32> into memref<6x20xf32>
// CHECK-DAG:     memref.collapse_shape %{{.*}} {{\[}}[0, 1, 2, 3]] : memref<2x3x1x1xf32> into memref<6xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction"]}
#in = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#acc = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
func.func @reduce_last_two(%x: memref<2x3x4x5xf32>, %o: memref<2x3x1x1xf32>) {
  linalg.generic {indexing_maps = [#in, #acc], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x : memref<2x3x4x5xf32>) outs(%o : memref<2x3x1x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.addf %acc, %a : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A sum over the first dim: a reduced loop and a parallel one never merge.
// CHECK-LABEL: func.func @reduce_first(
// CHECK-NOT:     memref.collapse_shape
// CHECK:         iterator_types = ["reduction", "parallel"]
#in2 = affine_map<(d0, d1) -> (d0, d1)>
#acc2 = affine_map<(d0, d1) -> (d1)>
func.func @reduce_first(%x: memref<4x5xf32>, %o: memref<5xf32>) {
  linalg.generic {indexing_maps = [#in2, #acc2], iterator_types = ["reduction", "parallel"]} ins(%x : memref<4x5xf32>) outs(%o : memref<5xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %0 = arith.addf %acc, %a : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Strides decide for views: rows of 5 with a stride of 5 (a chunk of rows
// of a contiguous buffer) merge; rows of 5 with a stride of 8 do not.
// CHECK-LABEL: func.func @contiguous_view(
// CHECK:         memref.collapse_shape %{{.*}} {{\[}}[0, 1]] : memref<4x5xf32, strided<[5, 1], offset: ?>> into memref<20xf32, strided<[1], offset: ?>>
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel"]
#id2b = affine_map<(d0, d1) -> (d0, d1)>
func.func @contiguous_view(%x: memref<4x5xf32, strided<[5, 1], offset: ?>>, %o: memref<4x5xf32>) {
  linalg.generic {indexing_maps = [#id2b, #id2b], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x5xf32, strided<[5, 1], offset: ?>>) outs(%o : memref<4x5xf32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  }
  return
}

// CHECK-LABEL: func.func @strided_view(
// CHECK-NOT:     memref.collapse_shape
// CHECK:         iterator_types = ["parallel", "parallel"]
func.func @strided_view(%x: memref<4x5xf32, strided<[8, 1]>>, %o: memref<4x5xf32>) {
  linalg.generic {indexing_maps = [#id2b, #id2b], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x5xf32, strided<[8, 1]>>) outs(%o : memref<4x5xf32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

// Dynamic sizes of identity layouts merge; a [1,1] operand read at index 0
// becomes a rank-0 view.
// CHECK-DAG:   #[[SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @dynamic_and_scalar(
// CHECK-DAG:     memref.collapse_shape %{{.*}} {{\[}}[0, 1]] : memref<?x?xf32> into memref<?xf32>
// CHECK-DAG:     memref.collapse_shape %{{.*}} [] : memref<1x1xf32> into memref<f32>
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[SCALAR]], #{{.*}}], iterator_types = ["parallel"]}
#id2c = affine_map<(d0, d1) -> (d0, d1)>
#zero = affine_map<(d0, d1) -> (0, 0)>
func.func @dynamic_and_scalar(%x: memref<?x?xf32>, %s: memref<1x1xf32>, %o: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#id2c, #zero, #id2c], iterator_types = ["parallel", "parallel"]} ins(%x, %s : memref<?x?xf32>, memref<1x1xf32>) outs(%o : memref<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Two loops of one iteration each stay apart (nothing to gain, and a [1,1]
// operand may be a view of a rank-0 buffer); a loop of one iteration still
// merges with a longer one.
// CHECK-LABEL: func.func @unit_loops(
// CHECK-NOT:     memref.collapse_shape
// CHECK:         iterator_types = ["parallel", "parallel"]
// CHECK-LABEL: func.func @unit_and_longer(
// CHECK:         memref.collapse_shape %{{.*}} {{\[}}[0, 1]] : memref<1x7xf32> into memref<7xf32>
// CHECK:         iterator_types = ["parallel"]
#id2u = affine_map<(d0, d1) -> (d0, d1)>
func.func @unit_loops(%x: memref<1x1xi64>, %o: memref<1x1xf32>) {
  linalg.generic {indexing_maps = [#id2u, #id2u], iterator_types = ["parallel", "parallel"]} ins(%x : memref<1x1xi64>) outs(%o : memref<1x1xf32>) {
  ^bb0(%a: i64, %out: f32):
    %0 = arith.sitofp %a : i64 to f32
    linalg.yield %0 : f32
  }
  return
}
func.func @unit_and_longer(%x: memref<1x7xf32>, %o: memref<1x7xf32>) {
  linalg.generic {indexing_maps = [#id2u, #id2u], iterator_types = ["parallel", "parallel"]} ins(%x : memref<1x7xf32>) outs(%o : memref<1x7xf32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

// Left alone: a body that reads its loop indices, a generic on tensors, and
// a constant index into a dim that is not of size 1.
// CHECK-LABEL: func.func @left_alone(
// CHECK-NOT:     memref.collapse_shape
// CHECK-COUNT-3: iterator_types = ["parallel", "parallel"]
#id2d = affine_map<(d0, d1) -> (d0, d1)>
#first = affine_map<(d0, d1) -> (d0, 0)>
func.func @left_alone(%x: memref<4x5xf32>, %w: memref<4x3xf32>, %o: memref<4x5xf32>, %t: tensor<4x5xf32>) -> tensor<4x5xf32> {
  linalg.generic {indexing_maps = [#id2d, #id2d], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x5xf32>) outs(%o : memref<4x5xf32>) {
  ^bb0(%a: f32, %out: f32):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    %0 = arith.addf %a, %f : f32
    linalg.yield %0 : f32
  }
  %r = linalg.generic {indexing_maps = [#id2d, #id2d], iterator_types = ["parallel", "parallel"]} ins(%t : tensor<4x5xf32>) outs(%t : tensor<4x5xf32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  } -> tensor<4x5xf32>
  linalg.generic {indexing_maps = [#id2d, #first, #id2d], iterator_types = ["parallel", "parallel"]} ins(%x, %w : memref<4x5xf32>, memref<4x3xf32>) outs(%o : memref<4x5xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  }
  return %r : tensor<4x5xf32>
}
