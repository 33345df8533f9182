// The math-vector-bytes option of bcast-vectorize-elementwise and
// bcast-vectorize-reductions: generics whose body has a costly math function
// (exp, not sqrt) computed per element take vectors of that many bytes, the
// others keep vector-bytes (--bcast-to-llvm sets it to 64 with
// vector-math=libmvec-avx512).
// RUN: bcast-opt %s --bcast-vectorize-elementwise=math-vector-bytes=64 --bcast-vectorize-reductions=math-vector-bytes=64 | FileCheck %s
// RUN: bcast-opt %s --bcast-vectorize-elementwise --bcast-vectorize-reductions | FileCheck %s --check-prefix=DEFAULT
// RUN: not bcast-opt %s --bcast-vectorize-elementwise=math-vector-bytes=-1 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not bcast-opt %s --bcast-vectorize-reductions=math-vector-bytes=-1 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: error: math-vector-bytes must not be negative

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0, 0)>

// CHECK-LABEL: func @map_exp
// CHECK: math.exp %{{.*}} : vector<16xf32>
// DEFAULT-LABEL: func @map_exp
// DEFAULT: math.exp %{{.*}} : vector<8xf32>
func.func @map_exp(%x: memref<64x100xf32>, %y: memref<64x100xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<64x100xf32>) outs(%y : memref<64x100xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}

// No math function, or only a cheap one: vector-bytes.
// CHECK-LABEL: func @map_cheap
// CHECK: arith.addf %{{.*}} : vector<8xf32>
// CHECK: math.sqrt %{{.*}} : vector<8xf32>
// DEFAULT-LABEL: func @map_cheap
// DEFAULT: arith.addf %{{.*}} : vector<8xf32>
// DEFAULT: math.sqrt %{{.*}} : vector<8xf32>
func.func @map_cheap(%x: memref<64x100xf32>, %y: memref<64x100xf32>, %z: memref<64x100xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<64x100xf32>) outs(%y : memref<64x100xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<64x100xf32>) outs(%z : memref<64x100xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.sqrt %a : f32
    linalg.yield %s : f32
  }
  return
}

// A math function of operands that do not vary along the row (the log of
// log-softmax's row sums) is computed once per row: vector-bytes.
// CHECK-LABEL: func @map_row_invariant_log
// CHECK: math.log %{{.*}} : f32
// CHECK: arith.subf %{{.*}} : vector<8xf32>
// DEFAULT-LABEL: func @map_row_invariant_log
// DEFAULT: arith.subf %{{.*}} : vector<8xf32>
func.func @map_row_invariant_log(%x: memref<64x100xf32>, %s: memref<64x1xf32>, %y: memref<64x100xf32>) {
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %s : memref<64x100xf32>, memref<64x1xf32>) outs(%y : memref<64x100xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %l = math.log %b : f32
    %d = arith.subf %a, %l : f32
    linalg.yield %d : f32
  }
  return
}

// A row sum of exp(x) takes the wider vectors too; a row max does not.
// CHECK-LABEL: func @reductions
// CHECK: math.exp %{{.*}} : vector<16xf32>
// CHECK: arith.maximumf %{{.*}} : vector<8xf32>
// DEFAULT-LABEL: func @reductions
// DEFAULT: math.exp %{{.*}} : vector<8xf32>
// DEFAULT: arith.maximumf %{{.*}} : vector<8xf32>
func.func @reductions(%x: memref<64x100xf32>, %s: memref<64x1xf32>, %m: memref<64x1xf32>) {
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["parallel", "reduction"]} ins(%x : memref<64x100xf32>) outs(%s : memref<64x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %e = math.exp %a : f32
    %r = arith.addf %acc, %e : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["parallel", "reduction"]} ins(%x : memref<64x100xf32>) outs(%m : memref<64x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}
