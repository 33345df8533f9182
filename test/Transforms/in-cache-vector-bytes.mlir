// The in-cache-vector-bytes and in-cache-bytes options of
// bcast-vectorize-elementwise and bcast-vectorize-reductions: a generic
// whose buffers (what its operands view, each counted once) all have static
// shapes and hold at most in-cache-bytes together takes vectors of
// in-cache-vector-bytes, the others keep vector-bytes; a costly math
// function per element keeps math-vector-bytes (--bcast-to-llvm sets 64 and
// its in-cache-bytes with vector-math=libmvec-avx512).
// @map_add's two buffers hold 2 * 64 * 100 * 4 = 51200 bytes.
// RUN: bcast-opt %s --bcast-vectorize-elementwise="in-cache-vector-bytes=64 in-cache-bytes=51200" --bcast-vectorize-reductions="in-cache-vector-bytes=64 in-cache-bytes=51200" | FileCheck %s --check-prefix=FITS
// RUN: bcast-opt %s --bcast-vectorize-elementwise="in-cache-vector-bytes=64 in-cache-bytes=51199" --bcast-vectorize-reductions="in-cache-vector-bytes=64 in-cache-bytes=51199" | FileCheck %s --check-prefix=BEYOND
// RUN: bcast-opt %s --bcast-vectorize-elementwise --bcast-vectorize-reductions | FileCheck %s --check-prefix=BEYOND
// RUN: bcast-opt %s --bcast-vectorize-elementwise="vector-bytes=16 math-vector-bytes=64 in-cache-vector-bytes=32 in-cache-bytes=1000000000" | FileCheck %s --check-prefix=MATH
// RUN: not bcast-opt %s --bcast-vectorize-elementwise=in-cache-vector-bytes=-1 2>&1 | FileCheck %s --check-prefix=NEG-WIDTH
// RUN: not bcast-opt %s --bcast-vectorize-reductions=in-cache-vector-bytes=-1 2>&1 | FileCheck %s --check-prefix=NEG-WIDTH
// RUN: not bcast-opt %s --bcast-vectorize-elementwise=in-cache-bytes=-1 2>&1 | FileCheck %s --check-prefix=NEG-BYTES
// RUN: not bcast-opt %s --bcast-vectorize-reductions=in-cache-bytes=-1 2>&1 | FileCheck %s --check-prefix=NEG-BYTES
// NEG-WIDTH: error: in-cache-vector-bytes must not be negative
// NEG-BYTES: error: in-cache-bytes must not be negative

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// FITS-LABEL: func @map_add
// FITS: arith.addf %{{.*}} : vector<16xf32>
// BEYOND-LABEL: func @map_add
// BEYOND: arith.addf %{{.*}} : vector<8xf32>
// MATH-LABEL: func @map_add
// MATH: arith.addf %{{.*}} : vector<8xf32>
func.func @map_add(%x: memref<64x100xf32>, %y: memref<64x100xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<64x100xf32>) outs(%y : memref<64x100xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  return
}

// In place: %x is both an input and the output, counted once (51200 bytes).
// FITS-LABEL: func @map_in_place
// FITS: arith.addf %{{.*}} : vector<16xf32>
// BEYOND-LABEL: func @map_in_place
// BEYOND: arith.addf %{{.*}} : vector<8xf32>
func.func @map_in_place(%x: memref<64x100xf32>, %y: memref<64x100xf32>) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %y : memref<64x100xf32>, memref<64x100xf32>) outs(%x : memref<64x100xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// A chunk of rows of larger buffers (bcast-fuse-rows' views): the loop over
// the chunks walks the whole buffers, 2 * 128 * 100 * 4 bytes, too many.
// FITS-LABEL: func @map_chunk
// FITS: arith.addf %{{.*}} : vector<8xf32>
func.func @map_chunk(%x: memref<128x100xf32>, %y: memref<128x100xf32>) {
  %xs = memref.subview %x[0, 0] [16, 100] [1, 1] : memref<128x100xf32> to memref<16x100xf32, strided<[100, 1]>>
  %ys = memref.subview %y[0, 0] [16, 100] [1, 1] : memref<128x100xf32> to memref<16x100xf32, strided<[100, 1]>>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%xs : memref<16x100xf32, strided<[100, 1]>>) outs(%ys : memref<16x100xf32, strided<[100, 1]>>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  return
}

// Sizes known only at run time: vector-bytes.
// FITS-LABEL: func @map_dynamic
// FITS: arith.addf %{{.*}} : vector<8xf32>
func.func @map_dynamic(%x: memref<?x100xf32>, %y: memref<?x100xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<?x100xf32>) outs(%y : memref<?x100xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  return
}

// A row reduction: 128 * 99 * 4 + 128 * 4 = 51200 bytes.
// FITS-LABEL: func @row_sum
// FITS: arith.addf %{{.*}} : vector<16xf32>
// BEYOND-LABEL: func @row_sum
// BEYOND: arith.addf %{{.*}} : vector<8xf32>
func.func @row_sum(%x: memref<128x99xf32>, %y: memref<128xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<128x99xf32>) outs(%y : memref<128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  }
  return
}

// A costly math function per element keeps math-vector-bytes.
// MATH-LABEL: func @map_exp
// MATH: math.exp %{{.*}} : vector<16xf32>
func.func @map_exp(%x: memref<64x100xf32>, %y: memref<64x100xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<64x100xf32>) outs(%y : memref<64x100xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}
