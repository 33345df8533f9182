// In-place updates of several tensors in one function, an Adam step as
// users write it (m *= b1; m += (1 - b1) * g; v *= b2; v += (1 - b2) * g * g;
// p -= lr * m / (sqrt(v) / bc + eps), the traced form @bcast.jit gives with
// run-time scalars), become one linalg.generic with three results: each
// input read once, each output written once (bcast-fuse-elementwise's
// in-place chains and multiple-results). After bufferization the generic
// writes straight into p, m and v, with no allocation; the vector loop
// runs 8 f32 lanes (32-byte vectors), the f64 scalars converted once per
// row outside it.
// RUN: bcast-opt %s --bcast-to-linalg | FileCheck %s
// RUN: bcast-opt %s --bcast-to-linalg | bcast-opt --pass-pipeline="builtin.module(func.func(eliminate-empty-tensors),one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},func.func(canonicalize),buffer-deallocation-pipeline,convert-bufferization-to-memref,func.func(bcast-fuse-rows,bcast-vectorize-elementwise{grain-size=0},canonicalize,cse))" | FileCheck %s --check-prefix=LOOPS
// The GPU mapping takes one result per generic: there, the producers whose
// results are written out stay generics of their own.
// RUN: bcast-opt %s --pass-pipeline="builtin.module(func.func(convert-bcast-to-linalg),bcast-signless-boundary,func.func(canonicalize,bcast-fuse-elementwise,canonicalize,cse))" | FileCheck %s --check-prefix=ONE

// CHECK-LABEL: func.func @adam(
// CHECK-SAME:    %[[P:[^:]*]]: memref<4096xf32>, %[[M:[^:]*]]: memref<4096xf32>, %[[V:[^:]*]]: memref<4096xf32>, %[[G:[^:]*]]: memref<4096xf32>
// CHECK-DAG:     %[[PT:.*]] = bufferization.to_tensor %[[P]] restrict writable
// CHECK-DAG:     %[[MT:.*]] = bufferization.to_tensor %[[M]] restrict writable
// CHECK-DAG:     %[[VT:.*]] = bufferization.to_tensor %[[V]] restrict writable
// CHECK-DAG:     %[[GT:.*]] = bufferization.to_tensor %[[G]] restrict :
// CHECK:         %[[R:.*]]:3 = linalg.generic
// CHECK-SAME:      outs(%[[MT]], %[[VT]], %[[PT]] : tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>)
// CHECK:           math.sqrt
// CHECK:           linalg.yield
// CHECK-NOT:     linalg.generic
// CHECK:         bufferization.materialize_in_destination %[[R]]#0 in restrict writable %[[M]]
// CHECK:         bufferization.materialize_in_destination %[[R]]#1 in restrict writable %[[V]]
// CHECK:         bufferization.materialize_in_destination %[[R]]#2 in restrict writable %[[P]]

// LOOPS-LABEL: func.func @adam(
// LOOPS-NOT:     memref.alloc
// LOOPS:         scf.for
// LOOPS-COUNT-4:   vector.load {{.*}} : memref<4096xf32>, vector<8xf32>
// LOOPS-NOT:       vector.load
// LOOPS-COUNT-3:   vector.store {{.*}} : memref<4096xf32>, vector<8xf32>
// LOOPS-NOT:       vector.store
// LOOPS:         return

// ONE-LABEL: func.func @adam(
// ONE-COUNT-3: linalg.generic
// ONE-NOT:     linalg.generic
func.func @adam(%m0: memref<4096xf32>, %m1: memref<4096xf32>, %m2: memref<4096xf32>, %m3: memref<4096xf32>, %s0: memref<f64>, %s1: memref<f64>, %s2: memref<f64>, %s3: memref<f64>, %s4: memref<f64>) {
  %v0 = bufferization.to_tensor %m0 restrict writable : memref<4096xf32> to tensor<4096xf32>
  %v1 = bufferization.to_tensor %m1 restrict writable : memref<4096xf32> to tensor<4096xf32>
  %v2 = bufferization.to_tensor %m2 restrict writable : memref<4096xf32> to tensor<4096xf32>
  %v3 = bufferization.to_tensor %m3 restrict : memref<4096xf32> to tensor<4096xf32>
  %v4 = bufferization.to_tensor %s0 restrict : memref<f64> to tensor<f64>
  %v5 = bufferization.to_tensor %s1 restrict : memref<f64> to tensor<f64>
  %v6 = bufferization.to_tensor %s2 restrict : memref<f64> to tensor<f64>
  %v7 = bufferization.to_tensor %s3 restrict : memref<f64> to tensor<f64>
  %v8 = bufferization.to_tensor %s4 restrict : memref<f64> to tensor<f64>
  %v9 = bcast.cast %v5 : (tensor<f64>) -> tensor<f32>
  %v10 = bcast.mul_ %v1, %v9 : (tensor<4096xf32>, tensor<f32>) -> tensor<4096xf32>
  %v11 = arith.constant dense<1.0> : tensor<f64>
  %v12 = bcast.sub %v11, %v5 : (tensor<f64>, tensor<f64>) -> tensor<f64>
  %v13 = bcast.cast %v12 : (tensor<f64>) -> tensor<f32>
  %v14 = bcast.mul %v13, %v3 : (tensor<f32>, tensor<4096xf32>) -> tensor<4096xf32>
  %v15 = bcast.add_ %v10, %v14 : (tensor<4096xf32>, tensor<4096xf32>) -> tensor<4096xf32>
  %v16 = bcast.cast %v6 : (tensor<f64>) -> tensor<f32>
  %v17 = bcast.mul_ %v2, %v16 : (tensor<4096xf32>, tensor<f32>) -> tensor<4096xf32>
  %v18 = arith.constant dense<1.0> : tensor<f64>
  %v19 = bcast.sub %v18, %v6 : (tensor<f64>, tensor<f64>) -> tensor<f64>
  %v20 = bcast.cast %v19 : (tensor<f64>) -> tensor<f32>
  %v21 = bcast.mul %v20, %v3 : (tensor<f32>, tensor<4096xf32>) -> tensor<4096xf32>
  %v22 = bcast.mul %v21, %v3 : (tensor<4096xf32>, tensor<4096xf32>) -> tensor<4096xf32>
  %v23 = bcast.add_ %v17, %v22 : (tensor<4096xf32>, tensor<4096xf32>) -> tensor<4096xf32>
  %v24 = bcast.cast %v4 : (tensor<f64>) -> tensor<f32>
  %v25 = bcast.mul %v24, %v15 : (tensor<f32>, tensor<4096xf32>) -> tensor<4096xf32>
  %v26 = bcast.sqrt %v23 : (tensor<4096xf32>) -> tensor<4096xf32>
  %v27 = bcast.cast %v7 : (tensor<f64>) -> tensor<f32>
  %v28 = bcast.div %v26, %v27 : (tensor<4096xf32>, tensor<f32>) -> tensor<4096xf32>
  %v29 = bcast.cast %v8 : (tensor<f64>) -> tensor<f32>
  %v30 = bcast.add %v28, %v29 : (tensor<4096xf32>, tensor<f32>) -> tensor<4096xf32>
  %v31 = bcast.div %v25, %v30 : (tensor<4096xf32>, tensor<4096xf32>) -> tensor<4096xf32>
  %v32 = bcast.sub_ %v0, %v31 : (tensor<4096xf32>, tensor<4096xf32>) -> tensor<4096xf32>
  bufferization.materialize_in_destination %v15 in restrict writable %m1 : (tensor<4096xf32>, memref<4096xf32>) -> ()
  bufferization.materialize_in_destination %v23 in restrict writable %m2 : (tensor<4096xf32>, memref<4096xf32>) -> ()
  bufferization.materialize_in_destination %v32 in restrict writable %m0 : (tensor<4096xf32>, memref<4096xf32>) -> ()
  return
}
