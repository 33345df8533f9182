// bcast-matmul-to-blas on a product whose operand maps read the source's
// dims in another order (a bcast.permute the lowering read through): the
// operand is handed over as a memref.transpose view of its own buffer (no
// copy; its strides choose the BLAS's trans flag), the standard operand as
// it is. A map that is not a matmul operand's in any order stays for the
// loops.
// RUN: bcast-opt %s --bcast-matmul-to-blas -split-input-file -mlir-print-local-scope | FileCheck %s

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
