// The math-interleave option of bcast-vectorize-elementwise: a generic whose
// body computes a costly math function per element runs its vector loop on
// that many vectors at once (one vector as many times as wide), then a loop
// of single vectors over what is left of the row, then the scalar tail;
// static rows leave out the loops they do not need. Other generics keep one
// vector per iteration. (--bcast-to-llvm sets the option on the libmvec
// routes: test/Pipelines/math-interleave.mlir.)
// RUN: bcast-opt %s --bcast-vectorize-elementwise="parallel=false math-interleave=4" | FileCheck %s
// RUN: bcast-opt %s --bcast-vectorize-elementwise="parallel=false" | FileCheck %s --check-prefix=ONE
// RUN: not bcast-opt %s --bcast-vectorize-elementwise=math-interleave=0 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: math-interleave must be positive

#id = affine_map<(d0, d1) -> (d0, d1)>
#id1 = affine_map<(d0) -> (d0)>

// Rows of 1000 elements, 8 lanes: 31 iterations of 32 (992), one vector
// of 8, no tail.
// CHECK-LABEL: func @exp_static
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[WCOUNT:.*]] = arith.divui %{{.*}}, %[[C32]] : index
// CHECK: %[[WEND:.*]] = arith.addi
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[WEND]] step %{{.*}} {
// CHECK: math.exp %{{.*}} : vector<32xf32>
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[VCOUNT:.*]] = arith.divui %{{.*}}, %[[C8]] : index
// CHECK: %[[VEND:.*]] = arith.addi %[[WEND]]
// CHECK: scf.for %{{.*}} = %[[WEND]] to %[[VEND]] step %{{.*}} {
// CHECK: math.exp %{{.*}} : vector<8xf32>
// CHECK-NOT: scf.for
// CHECK: return
// ONE-LABEL: func @exp_static
// ONE: scf.for
// ONE: math.exp %{{.*}} : vector<8xf32>
// ONE-NOT: scf.for
// ONE: return
func.func @exp_static(%x: memref<4x1000xf32>, %y: memref<4x1000xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x1000xf32>) outs(%y : memref<4x1000xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}

// Rows of 20 elements: shorter than 32, so no interleaved loop; two vectors of 8
// and a scalar tail of 4.
// CHECK-LABEL: func @exp_short
// CHECK-NOT: vector<32xf32>
// CHECK: scf.for
// CHECK: math.exp %{{.*}} : vector<8xf32>
// CHECK: scf.for
// CHECK: math.exp %{{.*}} : f32
// CHECK: return
func.func @exp_short(%x: memref<4x20xf32>, %y: memref<4x20xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x20xf32>) outs(%y : memref<4x20xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}

// Rows of 64 elements, a multiple of 32: the interleaved loop alone.
// CHECK-LABEL: func @exp_multiple
// CHECK: scf.for
// CHECK: math.exp %{{.*}} : vector<32xf32>
// CHECK-NOT: scf.for
// CHECK: return
func.func @exp_multiple(%x: memref<4x64xf32>, %y: memref<4x64xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x64xf32>) outs(%y : memref<4x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}

// A dynamic row (rank 1: blocks of it, a multiple of 32 long, are the
// tasks): all three loops, each from where the one before ended.
// CHECK-LABEL: func @exp_dynamic
// CHECK: scf.for %[[TASK:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %{{.*}} = %[[TASK]] to %[[WEND:.*]] step %{{.*}} {
// CHECK-NEXT: vector.load %{{.*}} : memref<?xf32>, vector<32xf32>
// CHECK: scf.for %{{.*}} = %[[WEND]] to %[[VEND:.*]] step %{{.*}} {
// CHECK-NEXT: vector.load %{{.*}} : memref<?xf32>, vector<8xf32>
// CHECK: scf.for %{{.*}} = %[[VEND]] to %{{.*}} step %{{.*}} {
// CHECK-NEXT: memref.load
// CHECK-NEXT: math.exp %{{.*}} : f32
// CHECK: return
func.func @exp_dynamic(%x: memref<?xf32>, %y: memref<?xf32>) {
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}

// No costly math: one vector per iteration.
// CHECK-LABEL: func @add_static
// CHECK-NOT: vector<32xf32>
// CHECK: arith.addf %{{.*}} : vector<8xf32>
// CHECK-NOT: vector<32xf32>
// CHECK: return
func.func @add_static(%x: memref<4x1000xf32>, %y: memref<4x1000xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x1000xf32>) outs(%y : memref<4x1000xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  return
}
