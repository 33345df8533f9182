// bcast-vectorize-elementwise on bufferized broadcast generics.
// RUN: bcast-opt %s --bcast-vectorize-elementwise="vector-bytes=64 nontemporal-threshold=8388608 grain-size=0" -split-input-file | FileCheck %s
// RUN: bcast-opt %s --bcast-vectorize-elementwise=parallel=false -split-input-file | FileCheck %s --check-prefix=SEQ
// RUN: bcast-opt %s --bcast-vectorize-elementwise -split-input-file | FileCheck %s --check-prefix=DEFAULT
// RUN: bcast-opt %s --bcast-vectorize-elementwise=grain-size=100 -split-input-file | FileCheck %s --check-prefix=GRAIN

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#col = affine_map<(d0, d1) -> (d0, 0)>
#scalar = affine_map<(d0, d1) -> ()>

// A row, a column and a scalar: the column and the scalar are loaded once
// per row, and c * d (row-invariant) is computed once per row.
// CHECK-LABEL: func @chain
// CHECK-SAME: (%[[A:.*]]: memref<64x40xf32>, %[[B:.*]]: memref<40xf32>, %[[C:.*]]: memref<64x1xf32>, %[[D:.*]]: memref<f32>, %[[O:.*]]: memref<64x40xf32>)
// CHECK: scf.parallel (%[[TASK:.*]]) =
// CHECK: scf.for %[[I:.*]] = %[[TASK]] to
// CHECK-DAG: %[[CI:.*]] = memref.load %[[C]][%[[I]], %{{.*}}] : memref<64x1xf32>
// CHECK-DAG: %[[DV:.*]] = memref.load %[[D]][] : memref<f32>
// CHECK: %[[CD:.*]] = arith.mulf %[[CI]], %[[DV]] : f32
// CHECK: %[[SPLAT:.*]] = vector.broadcast %[[CD]] : f32 to vector<16xf32>
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %c16
// CHECK: %[[VA:.*]] = vector.load %[[A]][%[[I]], %[[J]]] : memref<64x40xf32>, vector<16xf32>
// CHECK: %[[VB:.*]] = vector.load %[[B]][%[[J]]] : memref<40xf32>, vector<16xf32>
// CHECK: %[[S:.*]] = arith.addf %[[VA]], %[[VB]] : vector<16xf32>
// CHECK: %[[P:.*]] = arith.mulf %[[S]], %[[SPLAT]] : vector<16xf32>
// CHECK: vector.store %[[P]], %[[O]][%[[I]], %[[J]]] : memref<64x40xf32>, vector<16xf32>
// The scalar tail:
// CHECK: scf.for
// CHECK: memref.load %[[A]]
// CHECK: memref.store
// CHECK-NOT: linalg.generic
// SEQ-LABEL: func @chain
// SEQ-NOT: scf.parallel
// SEQ: vector.load
// By default vectors are 32 bytes; rows of 40 are 5 of them, no tail.
// DEFAULT-LABEL: func @chain
// 64 x 40 elements are fewer than the default grain size: one thread.
// DEFAULT-NOT: scf.parallel
// DEFAULT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c8
// DEFAULT: vector.load {{.*}} : memref<64x40xf32>, vector<8xf32>
// DEFAULT: vector.store {{.*}} : memref<64x40xf32>, vector<8xf32>
// DEFAULT-NOT: memref.store
// No non-temporal stores by default.
// DEFAULT-LABEL: func @large_nontemporal
// DEFAULT-NOT: nontemporal
// DEFAULT-LABEL: func @dynamic_stride
func.func @chain(%a: memref<64x40xf32>, %b: memref<40xf32>, %c: memref<64x1xf32>, %d: memref<f32>, %o: memref<64x40xf32>) {
  linalg.generic {indexing_maps = [#id, #row, #col, #scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %b, %c, %d : memref<64x40xf32>, memref<40xf32>, memref<64x1xf32>, memref<f32>) outs(%o : memref<64x40xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %w: f32, %out: f32):
    %cd = arith.mulf %z, %w : f32
    %s = arith.addf %x, %y : f32
    %p = arith.mulf %s, %cd : f32
    linalg.yield %p : f32
  }
  return
}

// -----

// Large results use non-temporal stores and fence each task.
// CHECK-LABEL: func @large_nontemporal
// CHECK: vector.store {{.*}} {nontemporal = true}
// CHECK: llvm.fence seq_cst
func.func @large_nontemporal(%a: memref<4096x4096xf32>, %b: memref<4096xf32>, %o: memref<4096x4096xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : memref<4096x4096xf32>, memref<4096xf32>) outs(%o : memref<4096x4096xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A stride-0 view (the numpy policy): per vector, a splat or a load,
// behind a guard that strides are 0 or 1 (else a scalar loop).
// CHECK-LABEL: func @dynamic_stride
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf32>, %[[B:.*]]: memref<?xf32, strided<[?], offset: ?>>, %[[O:.*]]: memref<?x?xf32>)
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %[[STRIDE:.*]] = memref.extract_strided_metadata %[[B]]
// CHECK: %[[UNIT:.*]] = memref.reinterpret_cast %[[B]] {{.*}} to memref<?xf32, strided<[1], offset: ?>>
// CHECK: scf.if %{{.*}} {
// CHECK: scf.for
// CHECK: %[[ZERO:.*]] = arith.cmpi eq, %[[STRIDE]], %{{.*}}
// CHECK: scf.if %[[ZERO]] -> (vector<16xf32>) {
// CHECK: memref.load %[[B]]
// CHECK: vector.broadcast
// CHECK: } else {
// CHECK: vector.load %[[UNIT]]
// CHECK: } else {
// CHECK: scf.for
// CHECK: memref.load %[[B]]
func.func @dynamic_stride(%a: memref<?x?xf32>, %b: memref<?xf32, strided<[?], offset: ?>>, %o: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : memref<?x?xf32>, memref<?xf32, strided<[?], offset: ?>>) outs(%o : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// i1 buffers and region ops in the body are left to the loop lowering.
// CHECK-LABEL: func @not_eligible
// CHECK: linalg.generic
// CHECK-NOT: vector.load
func.func @not_eligible(%a: memref<8xf32>, %b: memref<8xf32>, %o: memref<8xi1>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %b : memref<8xf32>, memref<8xf32>) outs(%o : memref<8xi1>) {
  ^bb0(%x: f32, %y: f32, %out: i1):
    %c = arith.cmpf olt, %x, %y : f32
    linalg.yield %c : i1
  }
  return
}

// -----

// Dynamic sizes: non-temporal stores or not, decided once at run time.
// CHECK-LABEL: func @dynamic_nontemporal
// CHECK: %[[BIG:.*]] = arith.cmpi uge, %{{.*}}, %c8388608
// CHECK: scf.if %[[BIG]] {
// CHECK: vector.store {{.*}} {nontemporal = true}
// CHECK: llvm.fence
// CHECK: } else {
// CHECK: vector.store
// CHECK-NOT: nontemporal
// CHECK: }
func.func @dynamic_nontemporal(%a: memref<?x?xf32>, %o: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<?x?xf32>) outs(%o : memref<?x?xf32>) {
  ^bb0(%x: f32, %out: f32):
    %s = arith.negf %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Tasks are blocks of rows counted over all outer dimensions, so that a
// result with a short first dimension (a batch of 1 or 2) still has rows
// for every core: 2 x 3 = 6 rows here, each task recovering its row's
// indices from the row number.
// CHECK-LABEL: func @rows_over_outer_dims
// CHECK-SAME: (%[[A:.*]]: memref<2x3x40xf32>, %[[B:.*]]: memref<40xf32>, %[[O:.*]]: memref<2x3x40xf32>)
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[ROWS:.*]] = arith.muli %[[C2]], %[[C3]] : index
// CHECK: scf.parallel (%[[TASK:.*]]) = (%{{.*}}) to (%[[ROWS]])
// CHECK: scf.for %[[ROW:.*]] = %[[TASK]] to
// CHECK: %[[J:.*]] = arith.remui %[[ROW]], %[[C3]] : index
// CHECK: %[[I:.*]] = arith.divui %[[ROW]], %[[C3]] : index
// CHECK: vector.load %[[A]][%[[I]], %[[J]], %{{.*}}] : memref<2x3x40xf32>, vector<16xf32>
// CHECK: vector.store %{{.*}}, %[[O]][%[[I]], %[[J]], %{{.*}}] : memref<2x3x40xf32>, vector<16xf32>
func.func @rows_over_outer_dims(%a: memref<2x3x40xf32>, %b: memref<40xf32>, %o: memref<2x3x40xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a, %b : memref<2x3x40xf32>, memref<40xf32>) outs(%o : memref<2x3x40xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The grain size with dynamic sizes: one run-time branch on the number of
// elements, the parallel nest above it and the sequential one below.
// CHECK-LABEL: func @grain_dynamic
// CHECK: scf.parallel
// CHECK-NOT: scf.if
// DEFAULT-LABEL: func @grain_dynamic
// DEFAULT-SAME: (%[[A:.*]]: memref<?x?xf32>, %[[O:.*]]: memref<?x?xf32>)
// DEFAULT-DAG: %[[D0:.*]] = memref.dim %[[O]], %c0
// DEFAULT-DAG: %[[D1:.*]] = memref.dim %[[O]], %c1
// DEFAULT: %[[N:.*]] = arith.muli %[[D0]], %[[D1]] : index
// DEFAULT: %[[LARGE:.*]] = arith.cmpi uge, %[[N]], %c32768 : index
// DEFAULT: scf.if %[[LARGE]] {
// DEFAULT: scf.parallel
// DEFAULT: vector.store
// DEFAULT: } else {
// DEFAULT-NOT: scf.parallel
// DEFAULT: scf.for
// DEFAULT: vector.store
// DEFAULT: }
// GRAIN-LABEL: func @grain_dynamic
// GRAIN: arith.cmpi uge, %{{.*}}, %c100 : index
func.func @grain_dynamic(%a: memref<?x?xf32>, %o: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<?x?xf32>) outs(%o : memref<?x?xf32>) {
  ^bb0(%x: f32, %out: f32):
    %s = arith.negf %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Static sizes decide at compile time: 128 x 256 = 32768 elements reach the
// default grain size (parallel), 100 elements under grain-size=100 too, 99
// do not.
// DEFAULT-LABEL: func @grain_static_at_threshold
// DEFAULT: scf.parallel
// GRAIN-LABEL: func @grain_static_at_threshold
// GRAIN: scf.parallel
func.func @grain_static_at_threshold(%a: memref<128x256xf32>, %o: memref<128x256xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<128x256xf32>) outs(%o : memref<128x256xf32>) {
  ^bb0(%x: f32, %out: f32):
    %s = arith.negf %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// DEFAULT-LABEL: func @grain_static_below
// DEFAULT-NOT: scf.parallel
// DEFAULT: scf.for
// GRAIN-LABEL: func @grain_static_below
// GRAIN-NOT: scf.parallel
// GRAIN-NOT: scf.if
// GRAIN: scf.for
func.func @grain_static_below(%a: memref<99xf32>, %o: memref<99xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : memref<99xf32>) outs(%o : memref<99xf32>) {
  ^bb0(%x: f32, %out: f32):
    %s = arith.negf %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// GRAIN-LABEL: func @grain_static_at_100
// GRAIN: scf.parallel
func.func @grain_static_at_100(%a: memref<100xf32>, %o: memref<100xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : memref<100xf32>) outs(%o : memref<100xf32>) {
  ^bb0(%x: f32, %out: f32):
    %s = arith.negf %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An input the body does not read (bcast-fuse-rows' next chunk of rows) is
// prefetched at the element each vector iteration reads of the others, and
// never loaded.
// CHECK-LABEL: func.func @prefetch_unread_input(
// CHECK-SAME:    %[[X:.*]]: memref<?x64xf32, strided<[64, 1], offset: ?>>, %[[N:.*]]: memref<?x64xf32, strided<[64, 1], offset: ?>>, %[[Y:.*]]: memref<?x64xf32, strided<[64, 1], offset: ?>>)
// CHECK:         scf.for %[[J:.*]] = %{{.*}} step %c16
// CHECK:           memref.prefetch %[[N]][%{{.*}}, %[[J]]], read, locality<3>, data
// CHECK-NOT:       %[[N]]
// CHECK:           math.exp
// DEFAULT-LABEL: func.func @prefetch_unread_input(
// DEFAULT:         memref.prefetch
func.func @prefetch_unread_input(%x: memref<?x64xf32, strided<[64, 1], offset: ?>>, %next: memref<?x64xf32, strided<[64, 1], offset: ?>>, %y: memref<?x64xf32, strided<[64, 1], offset: ?>>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %next : memref<?x64xf32, strided<[64, 1], offset: ?>>, memref<?x64xf32, strided<[64, 1], offset: ?>>) outs(%y : memref<?x64xf32, strided<[64, 1], offset: ?>>) {
  ^bb0(%a: f32, %unused: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// A run-time scalar argument (a Python float: a 0-d f64 buffer, truncated
// to f32 in the body) is converted once per row, outside the vector loop:
// the loop keeps the f32 width, 8 lanes at the default 32 bytes, not the
// 4 an f64 element would give. An f64 value computed per element (the
// second function) does take the f64 width.
// DEFAULT-LABEL: func.func @f64_scalar_f32_loop(
// DEFAULT:         %[[S:.*]] = memref.load %{{.*}}[] : memref<f64>
// DEFAULT:         %[[T:.*]] = arith.truncf %[[S]] : f64 to f32
// DEFAULT:         scf.for %{{.*}} step %c8
// DEFAULT:           vector.load {{.*}} : memref<64x1024xf32>, vector<8xf32>
// DEFAULT:           arith.subf {{.*}} : vector<8xf32>
// DEFAULT:           vector.store {{.*}} : memref<64x1024xf32>, vector<8xf32>
// DEFAULT-LABEL: func.func @f64_per_element(
// DEFAULT:         scf.for %{{.*}} step %c4
// DEFAULT:           arith.extf {{.*}} : vector<4xf32> to vector<4xf64>
func.func @f64_scalar_f32_loop(%a: memref<64x1024xf32>, %d: memref<f64>, %o: memref<64x1024xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %d : memref<64x1024xf32>, memref<f64>) outs(%o : memref<64x1024xf32>) {
  ^bb0(%x: f32, %s: f64, %out: f32):
    %t = arith.truncf %s : f64 to f32
    %r = arith.subf %x, %t : f32
    linalg.yield %r : f32
  }
  return
}
func.func @f64_per_element(%a: memref<64x1024xf32>, %d: memref<f64>, %o: memref<64x1024xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %d : memref<64x1024xf32>, memref<f64>) outs(%o : memref<64x1024xf32>) {
  ^bb0(%x: f32, %s: f64, %out: f32):
    %e = arith.extf %x : f32 to f64
    %r = arith.subf %e, %s : f64
    %t = arith.truncf %r : f64 to f32
    linalg.yield %t : f32
  }
  return
}

// -----

// A map whose dims increase but are not aligned with the loops (fusion
// through a transpose of a [64,1] tensor: a[d1, 0]) reads along the inner
// loop in its first dim. The vectorizer took it for invariant along that
// loop (its last result is 0) and read a[0, 0] for every column, a wrong
// result; such generics are left to convert-linalg-to-loops.
// CHECK:       #[[MISALIGNED:.+]] = affine_map<(d0, d1) -> (d1, 0)>
// CHECK-LABEL: func.func @misaligned_map(
// CHECK:         linalg.generic {indexing_maps = [#{{.+}}, #[[MISALIGNED]],
// CHECK-NOT:     vector.
func.func @misaligned_map(%a: memref<64x1xf32>, %b: memref<64x1xf32>, %o: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%b, %a : memref<64x1xf32>, memref<64x1xf32>) outs(%o : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  }
  return
}
