// bcast-guard-destinations: a tensor.empty whose in-place chain is
// materialized into a memref destination while another value of the chain
// is read after that write (or written in place after it) gets a
// bufferization.alloc_tensor instead; reads before the write, other ops
// writing into the same tensor.empty, a second materialization of the same value and tensor
// destinations keep the tensor.empty (and so the elimination's in-place
// result).
// RUN: bcast-opt %s --bcast-guard-destinations -split-input-file | FileCheck %s
// (The failing program runs in test/Robustness/differential-fuzz.test,
// seed 3005359.)

#id0 = affine_map<() -> ()>
#red = affine_map<(d0) -> (d0)>
#to0 = affine_map<(d0) -> ()>

// CHECK-LABEL: func.func @in_place_over_a_later_read(
// CHECK-SAME:    %[[X:.*]]: memref<3xi32>, %[[O0:.*]]: memref<i32>, %[[O1:.*]]: memref<i32>)
// CHECK-NOT:     tensor.empty
// CHECK:         %[[A:.*]] = bufferization.alloc_tensor() : tensor<i32>
// CHECK:         linalg.fill ins(%{{.*}} : i32) outs(%[[A]] : tensor<i32>)
// CHECK-NOT:     tensor.empty
func.func @in_place_over_a_later_read(%xm: memref<3xi32>, %o0: memref<i32>, %o1: memref<i32>) {
  %c0 = arith.constant 0 : i32
  %x = bufferization.to_tensor %xm restrict : memref<3xi32> to tensor<3xi32>
  %e = tensor.empty() : tensor<i32>
  %f = linalg.fill ins(%c0 : i32) outs(%e : tensor<i32>) -> tensor<i32>
  %p = linalg.generic {indexing_maps = [#red, #to0], iterator_types = ["reduction"]} ins(%x : tensor<3xi32>) outs(%f : tensor<i32>) {
  ^bb0(%in: i32, %acc: i32):
    %m = arith.muli %in, %in : i32
    %s = arith.addi %acc, %m : i32
    linalg.yield %s : i32
  } -> tensor<i32>
  %n = linalg.generic {indexing_maps = [#id0, #id0], iterator_types = []} ins(%p : tensor<i32>) outs(%p : tensor<i32>) {
  ^bb0(%in: i32, %out: i32):
    %neg = arith.subi %c0, %in : i32
    linalg.yield %neg : i32
  } -> tensor<i32>
  bufferization.materialize_in_destination %n in restrict writable %o0 : (tensor<i32>, memref<i32>) -> ()
  bufferization.materialize_in_destination %p in restrict writable %o1 : (tensor<i32>, memref<i32>) -> ()
  return
}

// -----

#id0 = affine_map<() -> ()>

// The same chain written in place after the first value is materialized:
// tied to %o1, the negation would overwrite %o1's value.
// CHECK-LABEL: func.func @written_after_the_write(
// CHECK:         bufferization.alloc_tensor() : tensor<i32>
// CHECK-NOT:     tensor.empty
func.func @written_after_the_write(%o0: memref<i32>, %o1: memref<i32>) {
  %c7 = arith.constant 7 : i32
  %e = tensor.empty() : tensor<i32>
  %f = linalg.fill ins(%c7 : i32) outs(%e : tensor<i32>) -> tensor<i32>
  bufferization.materialize_in_destination %f in restrict writable %o1 : (tensor<i32>, memref<i32>) -> ()
  %n = linalg.generic {indexing_maps = [#id0, #id0], iterator_types = []} ins(%f : tensor<i32>) outs(%f : tensor<i32>) {
  ^bb0(%in: i32, %out: i32):
    %neg = arith.subi %c7, %in : i32
    linalg.yield %neg : i32
  } -> tensor<i32>
  bufferization.materialize_in_destination %n in restrict writable %o0 : (tensor<i32>, memref<i32>) -> ()
  return
}

// -----

#id0 = affine_map<() -> ()>

// Every read of the chain comes before the write: one-shot bufferization
// orders the in-place writes against them, and the elimination may tie
// the chain to %o0.
// CHECK-LABEL: func.func @read_before_the_write(
// CHECK:         tensor.empty() : tensor<i32>
// CHECK-NOT:     alloc_tensor
func.func @read_before_the_write(%o0: memref<i32>) -> i32 {
  %c7 = arith.constant 7 : i32
  %e = tensor.empty() : tensor<i32>
  %f = linalg.fill ins(%c7 : i32) outs(%e : tensor<i32>) -> tensor<i32>
  %x = tensor.extract %f[] : tensor<i32>
  %n = linalg.generic {indexing_maps = [#id0, #id0], iterator_types = []} ins(%f : tensor<i32>) outs(%f : tensor<i32>) {
  ^bb0(%in: i32, %out: i32):
    %neg = arith.subi %c7, %in : i32
    linalg.yield %neg : i32
  } -> tensor<i32>
  bufferization.materialize_in_destination %n in restrict writable %o0 : (tensor<i32>, memref<i32>) -> ()
  return %x : i32
}

// -----

// One value returned twice: after the first write the destination holds
// that value, so the second copy reads it intact.
// CHECK-LABEL: func.func @same_value_twice(
// CHECK:         tensor.empty(%{{.*}}) : tensor<?xf32>
// CHECK-NOT:     alloc_tensor
func.func @same_value_twice(%n: index, %o0: memref<?xf32>, %o1: memref<?xf32>) {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  bufferization.materialize_in_destination %f in restrict writable %o0 : (tensor<?xf32>, memref<?xf32>) -> ()
  bufferization.materialize_in_destination %f in restrict writable %o1 : (tensor<?xf32>, memref<?xf32>) -> ()
  return
}

// -----

// Dynamic sizes carry over to the alloc_tensor.
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME:    %[[N:.*]]: index
// CHECK:         bufferization.alloc_tensor(%[[N]]) : tensor<?xf32>
// CHECK-NOT:     tensor.empty
func.func @dynamic(%n: index, %o0: memref<?xf32>, %o1: memref<?xf32>) {
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %g = linalg.fill ins(%two : f32) outs(%f : tensor<?xf32>) -> tensor<?xf32>
  bufferization.materialize_in_destination %g in restrict writable %o0 : (tensor<?xf32>, memref<?xf32>) -> ()
  bufferization.materialize_in_destination %f in restrict writable %o1 : (tensor<?xf32>, memref<?xf32>) -> ()
  return
}

// -----

// A tensor destination is seen by one-shot bufferization's own analysis.
// CHECK-LABEL: func.func @tensor_destination(
// CHECK:         tensor.empty() : tensor<4xf32>
// CHECK-NOT:     alloc_tensor
func.func @tensor_destination(%d: tensor<4xf32>) -> (tensor<4xf32>, f32) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %g = linalg.fill ins(%two : f32) outs(%f : tensor<4xf32>) -> tensor<4xf32>
  %r = bufferization.materialize_in_destination %g in %d : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %x = tensor.extract %f[%c0] : tensor<4xf32>
  return %r, %x : tensor<4xf32>, f32
}

// -----

#id = affine_map<(d0) -> (d0)>

// Two ops writing into one tensor.empty (CSE merged theirs), the second
// reading the first: each chain is one op long, and nothing shares its
// buffer after its write. Both keep the tensor.empty, and the elimination
// gives each its own destination.
// CHECK-LABEL: func.func @siblings_on_one_empty(
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<8xf32>
// CHECK-NOT:     alloc_tensor
// CHECK:         linalg.generic {{.*}} outs(%[[E]] : tensor<8xf32>)
// CHECK:         linalg.generic {{.*}} outs(%[[E]] : tensor<8xf32>)
func.func @siblings_on_one_empty(%xm: memref<8xf32>, %o0: memref<8xf32>, %o1: memref<8xf32>) {
  %x = bufferization.to_tensor %xm restrict : memref<8xf32> to tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.mulf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %in : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  bufferization.materialize_in_destination %a in restrict writable %o0 : (tensor<8xf32>, memref<8xf32>) -> ()
  bufferization.materialize_in_destination %b in restrict writable %o1 : (tensor<8xf32>, memref<8xf32>) -> ()
  return
}
