// An in-place op whose result feeds a consumer that broadcasts it, and a
// write into the result of a dynamic broadcast_to: both once computed wrong
// numbers (the fused loop re-applied the in-place op once per broadcast
// element; the write went through the stride-0 view into the source).
// Expected values worked out by hand.
//
// RUN: bcast-opt %s --bcast-to-llvm | %runner | FileCheck %s
// RUN: bcast-opt %s --bcast-to-llvm=vectorize=false | %runner | FileCheck %s

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefF64(memref<*xf64>)

// x = a * b in place, then x + c with c a row: [[2], [3]] * [[5], [-1]] =
// [[10], [-3]]; + [10, 20, 30] = [[20, 30, 40], [7, 17, 27]].
// CHECK-LABEL: in place, then broadcast
// CHECK: [20, 30, 40]
// CHECK-NEXT: [7, 17, 27]
func.func @mul_in_place_then_add(%a: tensor<2x1xf32>, %b: tensor<2x1xf32>, %c: tensor<3xf32>) -> tensor<2x3xf32> {
  %x = bcast.mul_ %a, %b : (tensor<2x1xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  %r = bcast.add %x, %c : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// Dynamic sizes in the other operands: floor(7.5 / 2) = 3, floor(-7.5 / 2) = -4; times [1, 2, 3, 4].
// CHECK-LABEL: dynamic in place, then broadcast
// CHECK: [3, 6, 9, 12]
// CHECK-NEXT: [-4, -8, -12, -16]
func.func @floor_div_in_place_then_mul(%a: tensor<2x1xf64>, %b: tensor<?x?xf64>, %c: tensor<?xf64>) -> tensor<2x?xf64> {
  %x = bcast.div_ %a, %b {rounding_mode = "floor"} : (tensor<2x1xf64>, tensor<?x?xf64>) -> tensor<2x1xf64>
  %r = bcast.mul %x, %c : (tensor<2x1xf64>, tensor<?xf64>) -> tensor<2x?xf64>
  return %r : tensor<2x?xf64>
}

// broadcast_to of a `?x?` that is 1x3 at run time to 2x3, then one element
// written: only that element changes, and the source keeps its values.
// CHECK-LABEL: write into broadcast_to
// CHECK: [100, 2, 3]
// CHECK-NEXT: [1, 2, 3]
// CHECK-LABEL: source after the write
// CHECK: {{\[}}[1, 2, 3]]
func.func @insert_into_broadcast(%a: tensor<?x?xf32>) -> tensor<2x3xf32> {
  %x = bcast.broadcast_to %a : tensor<?x?xf32> -> tensor<2x3xf32>
  %c0 = arith.constant 0 : index
  %f = arith.constant 100.0 : f32
  %y = tensor.insert %f into %x[%c0, %c0] : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// The same broadcast_to as the in-place operand while still used: the
// product is [[1, 2, 3], [1, 2, 3]] * [[1, 2, 3], [4, 5, 6]].
// CHECK-LABEL: in place on broadcast_to
// CHECK: [1, 4, 9]
// CHECK-NEXT: [4, 10, 18]
// CHECK: [1, 2, 3]
// CHECK-NEXT: [1, 2, 3]
func.func @in_place_on_broadcast(%a: tensor<?x?xf32>, %b: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %x = bcast.broadcast_to %a : tensor<?x?xf32> -> tensor<2x3xf32>
  %r = bcast.mul_ %x, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r, %x : tensor<2x3xf32>, tensor<2x3xf32>
}

func.func @print(%t: tensor<2x3xf32>) {
  %m = bufferization.to_buffer %t : tensor<2x3xf32> to memref<2x3xf32>
  %u = memref.cast %m : memref<2x3xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  vector.print str "in place, then broadcast\n"
  %a = arith.constant dense<[[2.0], [3.0]]> : tensor<2x1xf32>
  %b = arith.constant dense<[[5.0], [-1.0]]> : tensor<2x1xf32>
  %c = arith.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %r = call @mul_in_place_then_add(%a, %b, %c) : (tensor<2x1xf32>, tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  call @print(%r) : (tensor<2x3xf32>) -> ()

  vector.print str "dynamic in place, then broadcast\n"
  %da = arith.constant dense<[[7.5], [-7.5]]> : tensor<2x1xf64>
  %db = arith.constant dense<[[2.0], [2.0]]> : tensor<2x1xf64>
  %dc = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf64>
  %db2 = tensor.cast %db : tensor<2x1xf64> to tensor<?x?xf64>
  %dc2 = tensor.cast %dc : tensor<4xf64> to tensor<?xf64>
  %dr = call @floor_div_in_place_then_mul(%da, %db2, %dc2) : (tensor<2x1xf64>, tensor<?x?xf64>, tensor<?xf64>) -> tensor<2x?xf64>
  %dm = bufferization.to_buffer %dr : tensor<2x?xf64> to memref<2x?xf64>
  %du = memref.cast %dm : memref<2x?xf64> to memref<*xf64>
  call @printMemrefF64(%du) : (memref<*xf64>) -> ()

  vector.print str "write into broadcast_to\n"
  %s = arith.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>
  %s2 = tensor.cast %s : tensor<1x3xf32> to tensor<?x?xf32>
  %y = call @insert_into_broadcast(%s2) : (tensor<?x?xf32>) -> tensor<2x3xf32>
  call @print(%y) : (tensor<2x3xf32>) -> ()
  vector.print str "source after the write\n"
  %sm = bufferization.to_buffer %s2 : tensor<?x?xf32> to memref<?x?xf32>
  %su = memref.cast %sm : memref<?x?xf32> to memref<*xf32>
  call @printMemrefF32(%su) : (memref<*xf32>) -> ()

  vector.print str "in place on broadcast_to\n"
  %m = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %p:2 = call @in_place_on_broadcast(%s2, %m) : (tensor<?x?xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  call @print(%p#0) : (tensor<2x3xf32>) -> ()
  call @print(%p#1) : (tensor<2x3xf32>) -> ()
  return
}
