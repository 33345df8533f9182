// bcast-map-elementwise-to-gpu: thread x along the contiguous innermost
// dimension, block y over the rows with a grid-stride loop; short static
// rows are flattened.
// RUN: bcast-opt %s --bcast-map-elementwise-to-gpu -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func @row_broadcast
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf32>, %[[B:.*]]: memref<?xf32>, %[[O:.*]]: memref<?x?xf32>)
// CHECK-DAG: %[[ROWS:.*]] = memref.dim %[[O]], %{{[a-z0-9_]+}} : memref<?x?xf32>
// CHECK-DAG: %[[COLS:.*]] = memref.dim %[[O]], %{{[a-z0-9_]+}} : memref<?x?xf32>
// CHECK-DAG: %[[BLOCK:.*]] = arith.constant 256 : index
// CHECK: %[[GX:.*]] = arith.ceildivui %[[COLS]], %[[BLOCK]]
// CHECK: %[[CAP:.*]] = arith.constant 2112 : index
// CHECK: arith.minui %[[ROWS]], %[[CAP]]
// CHECK: gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %{{.*}}) in (%{{.*}} = %{{.*}}, %[[GY:.*]] = %{{.*}}, %{{.*}} = %{{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[BLOCK]],
// CHECK: %[[BASE:.*]] = arith.muli %[[BX]], %[[BLOCK]]
// CHECK: %[[J:.*]] = arith.addi %[[BASE]], %[[TX]]
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[J]], %[[COLS]]
// CHECK: scf.if %[[IN]] {
// CHECK: scf.for %[[ROW:.*]] = %[[BY]] to %[[ROWS]] step %[[GY]] {
// CHECK: %[[X:.*]] = memref.load %[[A]][%[[ROW]], %[[J]]]
// CHECK: %[[Y:.*]] = memref.load %[[B]][%[[J]]]
// CHECK: %[[S:.*]] = arith.addf %[[X]], %[[Y]]
// CHECK: memref.store %[[S]], %[[O]][%[[ROW]], %[[J]]]
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
func.func @row_broadcast(%a: memref<?x?xf32>, %b: memref<?xf32>, %o: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : memref<?x?xf32>, memref<?xf32>) outs(%o : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A column broadcast and a scalar: constant-0 and empty maps.
// CHECK-LABEL: func @column_and_scalar
// CHECK: gpu.launch
// CHECK: memref.load %{{.*}}[%[[ROW:.*]], %{{.*}}] : memref<64x1xf32>
// CHECK: memref.load %{{.*}}[] : memref<f32>
func.func @column_and_scalar(%c: memref<64x1xf32>, %d: memref<f32>, %o: memref<64x512xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c, %d : memref<64x1xf32>, memref<f32>) outs(%o : memref<64x512xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.mulf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Rows shorter than a block: one grid-stride loop over every element.
// CHECK-LABEL: func @short_rows_flat
// CHECK: gpu.launch
// CHECK: %[[START:.*]] = arith.addi
// CHECK: %[[STRIDE:.*]] = arith.muli %{{.*}}, %{{.*}}
// CHECK: scf.for %[[I:.*]] = %[[START]] to %{{.*}} step %[[STRIDE]]
// CHECK: arith.remui %[[I]]
// CHECK: arith.divui %[[I]]
func.func @short_rows_flat(%a: memref<1000x3xi32>, %b: memref<3xi32>, %o: memref<1000x3xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : memref<1000x3xi32>, memref<3xi32>) outs(%o : memref<1000x3xi32>) {
  ^bb0(%x: i32, %y: i32, %out: i32):
    %s = arith.subi %x, %y : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// Rank 1 with a dynamic size: one row, thread x over all of it.
// CHECK-LABEL: func @rank1_dynamic
// CHECK-SAME: (%[[A:.*]]: memref<?xf32>, %[[B:.*]]: memref<?xf32>, %[[O:.*]]: memref<?xf32>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[N:.*]] = memref.dim %[[O]]
// CHECK: gpu.launch
// CHECK: %[[J:.*]] = arith.addi
// CHECK: arith.cmpi ult, %[[J]], %[[N]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[ONE]] step
// CHECK: memref.load %[[A]][%[[J]]]
// CHECK: memref.store %{{.*}}, %[[O]][%[[J]]]
func.func @rank1_dynamic(%a: memref<?xf32>, %b: memref<?xf32>, %o: memref<?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %b : memref<?xf32>, memref<?xf32>) outs(%o : memref<?xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.subf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Rank 3: the rows are the product of the two outer sizes, delinearized in
// the loop.
// CHECK-LABEL: func @rank3_rows
// CHECK-SAME: (%[[A:.*]]: memref<?x?x?xf32>, %[[B:.*]]: memref<?xf32>, %[[O:.*]]: memref<?x?x?xf32>)
// CHECK-DAG: %[[D0:.*]] = memref.dim %[[O]], %c0
// CHECK-DAG: %[[D1:.*]] = memref.dim %[[O]], %c1
// CHECK: %[[ROWS:.*]] = arith.muli %[[D0]], %[[D1]]
// CHECK: gpu.launch
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %[[ROWS]] step
// CHECK: %[[I1:.*]] = arith.remui %[[ROW]], %[[D1]]
// CHECK: %[[I0:.*]] = arith.divui %[[ROW]], %[[D1]]
// CHECK: memref.load %[[A]][%[[I0]], %[[I1]], %{{.*}}]
func.func @rank3_rows(%a: memref<?x?x?xf32>, %b: memref<?xf32>, %o: memref<?x?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a, %b : memref<?x?x?xf32>, memref<?xf32>) outs(%o : memref<?x?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Rank 0: one thread.
// CHECK-LABEL: func @rank0
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %[[ONE:.*]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]]) threads({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]])
func.func @rank0(%a: memref<f32>, %o: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%a : memref<f32>) outs(%o : memref<f32>) {
  ^bb0(%x: f32, %out: f32):
    %s = arith.negf %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

func.func @reduction(%a: memref<8xf32>, %o: memref<f32>) {
  // expected-error @+1 {{cannot be mapped to the GPU: bcast's GPU lowering handles element-wise generics with broadcast indexing maps}}
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%a : memref<8xf32>) outs(%o : memref<f32>) {
  ^bb0(%x: f32, %out: f32):
    %s = arith.addf %x, %out : f32
    linalg.yield %s : f32
  }
  return
}

// -----

func.func @reads_indices(%a: memref<8xf32>, %o: memref<8xf32>) {
  // expected-error @+1 {{cannot be mapped to the GPU: its body reads the loop indices (linalg.index)}}
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : memref<8xf32>) outs(%o : memref<8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    %s = arith.addf %x, %f : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Copies on device buffers become kernels: the copy-back of an in-place op
// in a function that computes, and a copy out of a view of an argument (all
// that is left of a broadcast_to). A driver's copy between its own host
// buffers stays a host copy.
// CHECK-LABEL: func @copy_back
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>, %[[T:.*]]: memref<?x?xf32>)
// CHECK: gpu.launch
// CHECK: gpu.launch
// CHECK: %[[V:.*]] = memref.load %[[T]]
// CHECK: memref.store %[[V]], %[[X]]
// CHECK-NOT: memref.copy
func.func @copy_back(%x: memref<?x?xf32>, %t: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<?x?xf32>) outs(%t : memref<?x?xf32>) {
  ^bb0(%a: f32, %out: f32):
    %s = arith.mulf %a, %a : f32
    linalg.yield %s : f32
  }
  memref.copy %t, %x : memref<?x?xf32> to memref<?x?xf32>
  return
}

// CHECK-LABEL: func @copy_of_view
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast
// CHECK: gpu.launch
// CHECK: memref.load %[[VIEW]]
// CHECK-NOT: memref.copy
func.func @copy_of_view(%a: memref<3xf32>, %o: memref<4x3xf32>) {
  %v = memref.reinterpret_cast %a to offset: [0], sizes: [4, 3], strides: [0, 1] : memref<3xf32> to memref<4x3xf32, strided<[0, 1]>>
  memref.copy %v, %o : memref<4x3xf32, strided<[0, 1]>> to memref<4x3xf32>
  return
}

// CHECK-LABEL: func @driver
// CHECK-NOT: gpu.launch
// CHECK: memref.copy
func.func @driver() {
  %g = memref.get_global @values : memref<3xf32>
  %h = memref.alloc() : memref<3xf32>
  memref.copy %g, %h : memref<3xf32> to memref<3xf32>
  memref.dealloc %h : memref<3xf32>
  return
}
memref.global "private" constant @values : memref<3xf32> = dense<1.0>
