// atan2 of two zeros is C's (and PyTorch's) +-0 or +-pi by the signs, both
// where the zeros become constants only once lowered (`a != a` of a bool
// folds after fusion; upstream's math.atan2 folder gives NaN for two zero
// constants: the differential fuzzer's seed 3007266) and where they are
// run-time values.
// RUN: bcast-opt %s --bcast-to-llvm | %runner | FileCheck %s
// RUN: bcast-opt %s --bcast-to-linalg | FileCheck %s --check-prefix=FOLDED

// atan2(+0, +0), atan2(-0, +0), atan2(+0, -0), atan2(-0, -0), folded:
// CHECK:      [0]
// CHECK:      [-0]
// CHECK:      [3.14159]
// CHECK:      [-3.14159]
// The same four at run time, and atan2(1, -1):
// CHECK:      [0,  -0,  3.14159,  -3.14159,  2.35619]

// FOLDED-LABEL: func.func @folded
// FOLDED-NOT:   0x7FC00000
// FOLDED:       return

func.func private @printMemrefF32(memref<*xf32>)

func.func @folded(%a: tensor<i1>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %f = bcast.ne %a, %a : (tensor<i1>, tensor<i1>) -> tensor<i1>
  %z = bcast.cast %f : (tensor<i1>) -> tensor<f32>
  %n = bcast.neg %z : (tensor<f32>) -> tensor<f32>
  %0 = bcast.atan2 %z, %z : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %1 = bcast.atan2 %n, %z : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %2 = bcast.atan2 %z, %n : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %3 = bcast.atan2 %n, %n : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0, %1, %2, %3 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}

func.func @at_run_time(%y: tensor<5xf32>, %x: tensor<5xf32>) -> tensor<5xf32> {
  %0 = bcast.atan2 %y, %x : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

func.func @print(%t: tensor<f32>) {
  %m = bufferization.to_buffer %t : tensor<f32> to memref<f32>
  %u = memref.cast %m : memref<f32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %a = arith.constant dense<true> : tensor<i1>
  %r:4 = func.call @folded(%a) : (tensor<i1>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
  func.call @print(%r#0) : (tensor<f32>) -> ()
  func.call @print(%r#1) : (tensor<f32>) -> ()
  func.call @print(%r#2) : (tensor<f32>) -> ()
  func.call @print(%r#3) : (tensor<f32>) -> ()
  %y = arith.constant dense<[0.0, -0.0, 0.0, -0.0, 1.0]> : tensor<5xf32>
  %x = arith.constant dense<[0.0, 0.0, -0.0, -0.0, -1.0]> : tensor<5xf32>
  %t = func.call @at_run_time(%y, %x) : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  %m = bufferization.to_buffer %t : tensor<5xf32> to memref<5xf32>
  %u = memref.cast %m : memref<5xf32> to memref<*xf32>
  func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
