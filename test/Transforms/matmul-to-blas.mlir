// RUN: bcast-opt %s --split-input-file --bcast-matmul-to-blas="epilogue-rows=4" | FileCheck %s
// RUN: bcast-opt %s --split-input-file --bcast-matmul-to-blas="epilogue-rows=0" | FileCheck %s --check-prefix=WHOLE

// A product with its epilogue (a bias row): blocks of 4 rows (the last one
// of 2), each computed by the BLAS into the epilogue's output and finished
// there in place; the product's buffer is gone. With epilogue-rows=0, one
// call on the whole product, then the epilogue reads it.

// CHECK-DAG: #[[$MIN:.*]] = affine_map<(d0) -> (-d0 + 10, 4)>
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[A:.*]]: memref<10x8xf32>, %[[B:.*]]: memref<8x6xf32>, %[[BIAS:.*]]: memref<6xf32>, %[[OUT:.*]]: memref<10x6xf32>)
// CHECK-NOT: memref.alloc
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %[[C4:.*]] {
// CHECK-DAG: %[[OUTTILE:.*]] = memref.subview %[[OUT]][%[[I]], 0] [%{{.*}}, 6] [1, 1]
// CHECK-DAG: %[[ATILE:.*]] = memref.subview %[[A]][%[[I]], 0] [%{{.*}}, 8] [1, 1]
// CHECK-DAG: %[[CA:.*]] = memref.cast %[[ATILE]]
// CHECK-DAG: %[[CB:.*]] = memref.cast %[[B]]
// CHECK: {{(func.)?}}call @bcastMatmulF32(%[[CA]], %[[CB]], %[[CC:.*]]) :
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %[[BIAS]] : memref<?x6xf32, strided<[6, 1], offset: ?>>, memref<6xf32>)
// CHECK-SAME: outs(%{{.*}} : memref<?x6xf32, strided<[6, 1], offset: ?>>)
// CHECK: arith.addf
// CHECK: }
// CHECK-NEXT: }
// CHECK-NEXT: return
// WHOLE-LABEL: func.func @linear
// WHOLE: %[[P:.*]] = memref.alloc() : memref<10x6xf32>
// WHOLE-NOT: scf.for
// WHOLE: {{(func.)?}}call @bcastMatmulF32
// WHOLE: linalg.generic
// WHOLE-SAME: ins(%[[P]], %{{.*}} : memref<10x6xf32>, memref<6xf32>)
#lhs = affine_map<(d0, d1, d2) -> (d0, d1)>
#rhs = affine_map<(d0, d1, d2) -> (d1, d2)>
#res = affine_map<(d0, d1, d2) -> (d0, d2)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @linear(%a: memref<10x8xf32>, %b: memref<8x6xf32>, %bias: memref<6xf32>, %out: memref<10x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<10x6xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<10x6xf32>)
  linalg.generic {indexing_maps = [#lhs, #rhs, #res], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<10x8xf32>, memref<8x6xf32>) outs(%p : memref<10x6xf32>) attrs = {bcast.matmul} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%p, %bias : memref<10x6xf32>, memref<6xf32>) outs(%out : memref<10x6xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  memref.dealloc %p : memref<10x6xf32>
  return
}

// -----

// The epilogue finishes the product in its own buffer, which is then
// returned: blocks of it, in place; the buffer stays.

// CHECK-LABEL: func.func @in_place
// CHECK: %[[P:.*]] = memref.alloc() : memref<10x6xf32>
// CHECK: scf.for %[[I:.*]] = {{.*}} {
// CHECK-COUNT-2: memref.subview %[[P]][%[[I]], 0]
// CHECK: {{(func.)?}}call @bcastMatmulF32
// CHECK: linalg.generic
// CHECK: return %[[P]]
// WHOLE-LABEL: func.func @in_place
// WHOLE-NOT: scf.for
#lhs = affine_map<(d0, d1, d2) -> (d0, d1)>
#rhs = affine_map<(d0, d1, d2) -> (d1, d2)>
#res = affine_map<(d0, d1, d2) -> (d0, d2)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @in_place(%a: memref<10x8xf32>, %b: memref<8x6xf32>) -> memref<10x6xf32> {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<10x6xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<10x6xf32>)
  linalg.generic {indexing_maps = [#lhs, #rhs, #res], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<10x8xf32>, memref<8x6xf32>) outs(%p : memref<10x6xf32>) attrs = {bcast.matmul} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%p : memref<10x6xf32>) outs(%p : memref<10x6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = math.tanh %x : f32
    linalg.yield %s : f32
  }
  return %p : memref<10x6xf32>
}

// -----

// Batched, the lhs broadcast over the batch (its stride stays 0: a block
// of it is its own row block), f64, with a scaled residual: one loop per
// batch dim and one over blocks of rows; every block a [1,?,2] view.

// CHECK-LABEL: func.func @batched
// CHECK-NOT: memref.alloc
// CHECK: scf.for %[[N:.*]] = %{{.*}} to %[[C3:.*]] step %[[C1:.*]] {
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-DAG: memref.subview %{{.*}}[0, %[[I]], 0] [1, %{{.*}}, 4] [1, 1, 1] : memref<1x5x4xf64>
// CHECK-DAG: memref.subview %{{.*}}[%[[N]], 0, 0] [1, 4, 2] [1, 1, 1] : memref<3x4x2xf64>
// CHECK: {{(func.)?}}call @bcastMatmulF64
// CHECK: linalg.generic
// CHECK-SAME: memref<1x?x2xf64, strided<[10, 2, 1], offset: ?>>
// WHOLE-LABEL: func.func @batched
// WHOLE: memref.alloc() : memref<3x5x2xf64>
// WHOLE-NOT: scf.for
#lhs = affine_map<(d0, d1, d2, d3) -> (0, d1, d2)>
#rhs = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#res = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @batched(%a: memref<1x5x4xf64>, %b: memref<3x4x2xf64>, %res: memref<3x5x2xf64>, %out: memref<3x5x2xf64>) {
  %zero = arith.constant 0.0 : f64
  %p = memref.alloc() : memref<3x5x2xf64>
  linalg.fill ins(%zero : f64) outs(%p : memref<3x5x2xf64>)
  linalg.generic {indexing_maps = [#lhs, #rhs, #res], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%a, %b : memref<1x5x4xf64>, memref<3x4x2xf64>) outs(%p : memref<3x5x2xf64>) attrs = {bcast.matmul} {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %m = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%p, %res : memref<3x5x2xf64>, memref<3x5x2xf64>) outs(%out : memref<3x5x2xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %s = arith.addf %x, %y : f64
    linalg.yield %s : f64
  }
  memref.dealloc %p : memref<3x5x2xf64>
  return
}

// -----

// The rhs broadcast over the batch: the runtime folds the batch into M
// (one GEMM), which a block per matrix would undo. Kept whole.

// CHECK-LABEL: func.func @rhs_broadcast
// CHECK: memref.alloc() : memref<3x5x2xf32>
// CHECK-NOT: scf.for
// CHECK: {{(func.)?}}call @bcastMatmulF32
#lhs = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#rhs = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#res = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @rhs_broadcast(%a: memref<3x5x4xf32>, %b: memref<4x2xf32>, %out: memref<3x5x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<3x5x2xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<3x5x2xf32>)
  linalg.generic {indexing_maps = [#lhs, #rhs, #res], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%a, %b : memref<3x5x4xf32>, memref<4x2xf32>) outs(%p : memref<3x5x2xf32>) attrs = {bcast.matmul} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%p : memref<3x5x2xf32>) outs(%out : memref<3x5x2xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %x : f32
    linalg.yield %s : f32
  }
  memref.dealloc %p : memref<3x5x2xf32>
  return
}

// -----

// Epilogues the product cannot be written into: one that reads its own
// output (an accumulation), one whose other input is its output, and a
// product that is read again after the epilogue. Each keeps its buffer.

// CHECK-LABEL: func.func @reads_output
// CHECK: memref.alloc() : memref<10x6xf32>
// CHECK-NOT: scf.for
// CHECK-LABEL: func.func @output_is_input
// CHECK: memref.alloc() : memref<10x6xf32>
// CHECK-NOT: scf.for
// CHECK-LABEL: func.func @product_read_again
// CHECK: memref.alloc() : memref<10x6xf32>
// CHECK-NOT: scf.for
#lhs = affine_map<(d0, d1, d2) -> (d0, d1)>
#rhs = affine_map<(d0, d1, d2) -> (d1, d2)>
#res = affine_map<(d0, d1, d2) -> (d0, d2)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @reads_output(%a: memref<10x8xf32>, %b: memref<8x6xf32>, %out: memref<10x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<10x6xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<10x6xf32>)
  linalg.generic {indexing_maps = [#lhs, #rhs, #res], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<10x8xf32>, memref<8x6xf32>) outs(%p : memref<10x6xf32>) attrs = {bcast.matmul} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%p : memref<10x6xf32>) outs(%out : memref<10x6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  }
  memref.dealloc %p : memref<10x6xf32>
  return
}
func.func @output_is_input(%a: memref<10x8xf32>, %b: memref<8x6xf32>, %out: memref<10x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<10x6xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<10x6xf32>)
  linalg.generic {indexing_maps = [#lhs, #rhs, #res], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<10x8xf32>, memref<8x6xf32>) outs(%p : memref<10x6xf32>) attrs = {bcast.matmul} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%p, %out : memref<10x6xf32>, memref<10x6xf32>) outs(%out : memref<10x6xf32>) {
  ^bb0(%x: f32, %r: f32, %o: f32):
    %s = arith.addf %x, %r : f32
    linalg.yield %s : f32
  }
  memref.dealloc %p : memref<10x6xf32>
  return
}
func.func @product_read_again(%a: memref<10x8xf32>, %b: memref<8x6xf32>, %out: memref<10x6xf32>, %copy: memref<10x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<10x6xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<10x6xf32>)
  linalg.generic {indexing_maps = [#lhs, #rhs, #res], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<10x8xf32>, memref<8x6xf32>) outs(%p : memref<10x6xf32>) attrs = {bcast.matmul} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%p : memref<10x6xf32>) outs(%out : memref<10x6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %x : f32
    linalg.yield %s : f32
  }
  memref.copy %p, %copy : memref<10x6xf32> to memref<10x6xf32>
  memref.dealloc %p : memref<10x6xf32>
  return
}
