// RUN: bcast-opt %s --split-input-file --bcast-matmul-to-blas="epilogue-rows=4" | FileCheck %s
// RUN: bcast-opt %s --split-input-file --bcast-matmul-to-blas="epilogue-rows=0" | FileCheck %s --check-prefix=WHOLE

// A product with its epilogue (a bias row): blocks of 4 rows (the last one
// of 2), each computed by the BLAS into the epilogue's output and finished
// there in place; the product's buffer is gone. With epilogue-rows=0, one
// call computes the whole product into the epilogue's output, which the
// epilogue then finishes in place; the product's buffer is gone too.

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
// WHOLE-SAME: (%[[A:.*]]: memref<10x8xf32>, %[[B:.*]]: memref<8x6xf32>, %[[BIAS:.*]]: memref<6xf32>, %[[OUT:.*]]: memref<10x6xf32>)
// WHOLE-NOT: memref.alloc
// WHOLE-NOT: scf.for
// WHOLE: %[[COUT:.*]] = memref.cast %[[OUT]] : memref<10x6xf32> to memref<*xf32>
// WHOLE: {{(func.)?}}call @bcastMatmulF32(%{{.*}}, %{{.*}}, %[[COUT]])
// WHOLE: linalg.generic
// WHOLE-SAME: ins(%[[OUT]], %[[BIAS]] : memref<10x6xf32>, memref<6xf32>)
// WHOLE-SAME: outs(%[[OUT]] : memref<10x6xf32>)
// WHOLE-NOT: memref.dealloc
// WHOLE: return
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
// WHOLE-SAME: %[[OUT:[^:]*]]: memref<3x5x2xf64>)
// WHOLE-NOT: memref.alloc
// WHOLE-NOT: scf.for
// WHOLE: call @bcastMatmulF64
// WHOLE: linalg.generic
// WHOLE-SAME: outs(%[[OUT]] : memref<3x5x2xf64>)
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
// (one GEMM), which a block per matrix would undo. Kept whole, computed
// into the epilogue's output.

// CHECK-LABEL: func.func @rhs_broadcast
// CHECK-SAME: %[[OUT:[^:]*]]: memref<3x5x2xf32>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: scf.for
// CHECK: %[[COUT:.*]] = memref.cast %[[OUT]]
// CHECK: {{(func.)?}}call @bcastMatmulF32(%{{.*}}, %{{.*}}, %[[COUT]])
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[OUT]] : memref<3x5x2xf32>) outs(%[[OUT]] : memref<3x5x2xf32>)
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
// output (an accumulation), one whose other input is its output, a product
// that is read again after the epilogue, an output of another shape (a
// dynamic one) and one with a strided layout. Each keeps its buffer.

// CHECK-LABEL: func.func @reads_output
// CHECK: memref.alloc() : memref<10x6xf32>
// CHECK-NOT: scf.for
// CHECK-LABEL: func.func @output_is_input
// CHECK: memref.alloc() : memref<10x6xf32>
// CHECK-NOT: scf.for
// CHECK-LABEL: func.func @product_read_again
// CHECK: memref.alloc() : memref<10x6xf32>
// CHECK-NOT: scf.for
// CHECK-LABEL: func.func @dynamic_output
// WHOLE-LABEL: func.func @reads_output
// WHOLE: memref.alloc() : memref<10x6xf32>
// WHOLE-LABEL: func.func @output_is_input
// WHOLE: memref.alloc() : memref<10x6xf32>
// WHOLE-LABEL: func.func @product_read_again
// WHOLE: memref.alloc() : memref<10x6xf32>
// WHOLE-LABEL: func.func @dynamic_output
// WHOLE: memref.alloc() : memref<10x6xf32>
// WHOLE-LABEL: func.func @strided_output
// WHOLE: memref.alloc() : memref<10x6xf32>
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
func.func @dynamic_output(%a: memref<10x8xf32>, %b: memref<8x6xf32>, %out: memref<?x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<10x6xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<10x6xf32>)
  linalg.generic {indexing_maps = [#lhs, #rhs, #res], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<10x8xf32>, memref<8x6xf32>) outs(%p : memref<10x6xf32>) attrs = {bcast.matmul} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%p : memref<10x6xf32>) outs(%out : memref<?x6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %x : f32
    linalg.yield %s : f32
  }
  memref.dealloc %p : memref<10x6xf32>
  return
}
func.func @strided_output(%a: memref<10x8xf32>, %b: memref<8x6xf32>, %out: memref<10x6xf32, strided<[12, 2]>>) {
  %zero = arith.constant 0.0 : f32
  %p = memref.alloc() : memref<10x6xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<10x6xf32>)
  linalg.generic {indexing_maps = [#lhs, #rhs, #res], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<10x8xf32>, memref<8x6xf32>) outs(%p : memref<10x6xf32>) attrs = {bcast.matmul} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%p : memref<10x6xf32>) outs(%out : memref<10x6xf32, strided<[12, 2]>>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %x : f32
    linalg.yield %s : f32
  }
  memref.dealloc %p : memref<10x6xf32>
  return
}

// -----

// bcast-matmul-to-blas on a product whose operand maps read the source's
// dims in another order (a bcast.permute the lowering read through): the
// operand is handed over as a memref.transpose view of its own buffer (no
// copy; its strides choose the BLAS's trans flag), the standard operand as
// it is. A map that is not a matmul operand's in any order stays for the
// loops.
//
// q @ k.transpose(-1, -2): k (b, h, n, k) read at (d0, d1, d4, d3).
// CHECK-LABEL: func @transposed_rhs
// CHECK-SAME: (%[[Q:.*]]: memref<2x3x5x4xf32>, %[[K:.*]]: memref<2x3x6x4xf32>, %[[R:.*]]: memref<2x3x5x6xf32>)
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[KT:.*]] = memref.transpose %[[K]] (d0, d1, d2, d3) -> (d0, d1, d3, d2) : memref<2x3x6x4xf32> to memref<2x3x4x6xf32, strided<[72, 24, 1, 4]>>
// CHECK-DAG: %[[UQ:.*]] = memref.cast %[[Q]] : memref<2x3x5x4xf32> to memref<*xf32>
// CHECK-DAG: %[[UK:.*]] = memref.cast %[[KT]] : memref<2x3x4x6xf32, strided<[72, 24, 1, 4]>> to memref<*xf32>
// CHECK-DAG: %[[UR:.*]] = memref.cast %[[R]] : memref<2x3x5x6xf32> to memref<*xf32>
// CHECK: call @bcastMatmulF32(%[[UQ]], %[[UK]], %[[UR]])
// CHECK-NOT: linalg.generic
func.func @transposed_rhs(%q: memref<2x3x5x4xf32>, %k: memref<2x3x6x4xf32>, %r: memref<2x3x5x6xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%r : memref<2x3x5x6xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%q, %k : memref<2x3x5x4xf32>, memref<2x3x6x4xf32>) outs(%r : memref<2x3x5x6xf32>) attrs = {bcast.matmul} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// a.T @ b in f64 with a broadcast batch dim on the permuted lhs: a is
// (k, 1, m) read at (d2, 0, d1); its view puts the broadcast dim first.
// CHECK-LABEL: func @transposed_lhs_broadcast
// CHECK-SAME: (%[[A:.*]]: memref<4x1x5xf64>, %[[B:.*]]: memref<3x4x6xf64>, %[[R:.*]]: memref<3x5x6xf64>)
// CHECK: %[[AT:.*]] = memref.transpose %[[A]] (d0, d1, d2) -> (d1, d2, d0) : memref<4x1x5xf64> to memref<1x5x4xf64, strided<[5, 1, 5]>>
// CHECK: memref.cast %[[AT]]
// CHECK: call @bcastMatmulF64
func.func @transposed_lhs_broadcast(%a: memref<4x1x5xf64>, %b: memref<3x4x6xf64>, %r: memref<3x5x6xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%r : memref<3x5x6xf64>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d2, 0, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%a, %b : memref<4x1x5xf64>, memref<3x4x6xf64>) outs(%r : memref<3x5x6xf64>) attrs = {bcast.matmul} {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// The k loop read twice by the rhs (a diagonal), never a matmul operand:
// left to the loops.
// CHECK-LABEL: func @not_an_operand_map
// CHECK-NOT: memref.transpose
// CHECK-NOT: call @bcastMatmulF32
// CHECK: linalg.fill
// CHECK: linalg.generic
func.func @not_an_operand_map(%a: memref<5x4xf32>, %b: memref<4x4xf32>, %r: memref<5x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%r : memref<5x4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d1, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<5x4xf32>, memref<4x4xf32>) outs(%r : memref<5x4xf32>) attrs = {bcast.matmul} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
