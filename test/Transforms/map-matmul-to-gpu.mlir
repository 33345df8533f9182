// RUN: bcast-opt %s --split-input-file --bcast-map-matmul-to-gpu | FileCheck %s
// RUN: bcast-opt %s --split-input-file --bcast-map-matmul-to-gpu="tile=8" | FileCheck %s --check-prefix=TILE8
// RUN: not bcast-opt %s --split-input-file --bcast-map-matmul-to-gpu="tile=33" 2>&1 | FileCheck %s --check-prefix=BADTILE

// A batched product, the lhs broadcast over the batch (read at index 0):
// blocks of 16 x 16 threads, lhs and rhs tiles in workgroup memory, the
// batch in grid z, row tiles in grid y, column tiles in grid x; along K in
// steps of 16 with a barrier after staging and after use; the product's
// own body accumulates; the result stored where in bounds.

// CHECK-LABEL: func.func @batched
// CHECK-SAME: (%[[A:.*]]: memref<1x5x7xf32>, %[[B:.*]]: memref<3x7x9xf32>, %[[C:.*]]: memref<3x5x9xf32>)
// CHECK-NOT: linalg.generic
// CHECK: gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %[[BZ:.*]]) in (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[GZ:.*]] = %{{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) workgroup(%[[AS:.*]] : memref<16x16xf32, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<16x16xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for %[[N:.*]] = %[[BZ]] to %{{.*}} step %[[GZ]]
// CHECK: scf.for
// CHECK: scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: memref.load %[[A]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<1x5x7xf32>
// CHECK: memref.store %{{.*}}, %[[AS]]
// CHECK: memref.load %[[B]]
// CHECK: memref.store %{{.*}}, %[[BS]]
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK: memref.load %[[AS]]
// CHECK: memref.load %[[BS]]
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[C]]
// CHECK: gpu.terminator
// TILE8-LABEL: func.func @batched
// TILE8: threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c64{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) workgroup(%{{.*}} : memref<8x8xf32, #gpu.address_space<workgroup>>
// BADTILE: error: tile must be positive with tile * tile <= 1024
#lhs = affine_map<(d0, d1, d2, d3) -> (0, d1, d2)>
#rhs = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#res = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
func.func @batched(%a: memref<1x5x7xf32>, %b: memref<3x7x9xf32>, %c: memref<3x5x9xf32>) {
  linalg.generic {indexing_maps = [#lhs, #rhs, #res], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%a, %b : memref<1x5x7xf32>, memref<3x7x9xf32>) outs(%c : memref<3x5x9xf32>) attrs = {bcast.matmul} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An integer product (the body wraps) with `?` sizes: sizes read with
// memref.dim on the host.

// CHECK-LABEL: func.func @dynamic
// CHECK: memref.dim
// CHECK: gpu.launch
// CHECK: arith.muli %{{.*}}, %{{.*}} : i32
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
#lhs = affine_map<(d0, d1, d2) -> (d0, d1)>
#rhs = affine_map<(d0, d1, d2) -> (d1, d2)>
#res = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @dynamic(%a: memref<?x?xi32>, %b: memref<?x?xi32>, %c: memref<?x?xi32>) {
  linalg.generic {indexing_maps = [#lhs, #rhs, #res], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<?x?xi32>, memref<?x?xi32>) outs(%c : memref<?x?xi32>) attrs = {bcast.matmul} {
  ^bb0(%x: i32, %y: i32, %acc: i32):
    %m = arith.muli %x, %y : i32
    %s = arith.addi %acc, %m : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// Left alone: a matrix-vector product (a 1-D rhs) and a generic that is not
// a product.

// CHECK-LABEL: func.func @vector
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
// CHECK-LABEL: func.func @not_marked
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
#lhs = affine_map<(d0, d1) -> (d0, d1)>
#rhs = affine_map<(d0, d1) -> (d1)>
#res = affine_map<(d0, d1) -> (d0)>
func.func @vector(%a: memref<5x7xf32>, %b: memref<7xf32>, %c: memref<5xf32>) {
  linalg.generic {indexing_maps = [#lhs, #rhs, #res], iterator_types = ["parallel", "reduction"]} ins(%a, %b : memref<5x7xf32>, memref<7xf32>) outs(%c : memref<5xf32>) attrs = {bcast.matmul} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}
#lhs2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#rhs2 = affine_map<(d0, d1, d2) -> (d1, d2)>
#res2 = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @not_marked(%a: memref<5x7xf32>, %b: memref<7x9xf32>, %c: memref<5x9xf32>) {
  linalg.generic {indexing_maps = [#lhs2, #rhs2, #res2], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<5x7xf32>, memref<7x9xf32>) outs(%c : memref<5x9xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}
