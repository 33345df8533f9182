// The element-wise bodies, per op and element type family (PyTorch's
// semantics; the numbers are checked in test/Integration).
// RUN: bcast-opt %s --convert-bcast-to-linalg | FileCheck %s

// CHECK-LABEL: func @float_ops
func.func @float_ops(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // CHECK: arith.divf
  // CHECK-NEXT: linalg.yield
  %0 = bcast.div %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: %[[Q:.*]] = arith.divf
  // CHECK-NEXT: math.trunc %[[Q]]
  %1 = bcast.div %a, %b {rounding_mode = "trunc"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // Floor: fmod, floor, the sign fix-ups, and a / b when b is 0.
  // CHECK: arith.remf
  // CHECK: math.floor
  // CHECK: math.copysign
  // CHECK: arith.cmpf oeq
  %2 = bcast.div %a, %b {rounding_mode = "floor"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // Remainder takes the sign of the divisor: fmod, then + b when signs differ.
  // CHECK: %[[M:.*]] = arith.remf
  // CHECK: %[[P:.*]] = arith.addf %[[M]]
  // CHECK: arith.select %{{.*}}, %[[P]], %[[M]]
  %3 = bcast.remainder %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: math.powf
  %4 = bcast.pow %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // fmod is C's: the sign of the dividend, no fix-up.
  // CHECK: %[[F:.*]] = arith.remf
  // CHECK-NEXT: linalg.yield %[[F]]
  %11 = bcast.fmod %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // NaN-propagating maximum and minimum.
  // CHECK: arith.maximumf
  %5 = bcast.maximum %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: arith.minimumf
  %6 = bcast.minimum %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // Ordered comparisons, but `ne` is unordered (true with NaN).
  // CHECK: arith.cmpf oeq
  %7 = bcast.eq %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  // CHECK: arith.cmpf une
  %8 = bcast.ne %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  // CHECK: arith.cmpf olt
  %9 = bcast.lt %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  // CHECK: arith.cmpf oge
  %10 = bcast.ge %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return
}

// CHECK-LABEL: func @int_ops
func.func @int_ops(%a: tensor<4xi32>, %b: tensor<4xi32>) {
  // CHECK: arith.divsi
  %0 = bcast.div %a, %b {rounding_mode = "trunc"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: arith.floordivsi
  %1 = bcast.div %a, %b {rounding_mode = "floor"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: %[[R:.*]] = arith.remsi
  // CHECK: %[[P:.*]] = arith.addi %[[R]]
  // CHECK: arith.select %{{.*}}, %[[P]], %[[R]]
  %2 = bcast.remainder %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // Repeated squaring over the 32 bits of the exponent.
  // CHECK: %[[C32:.*]] = arith.constant 32 : index
  // CHECK: scf.for %{{.*}} = %{{.*}} to %[[C32]]
  // CHECK: arith.muli
  // CHECK: arith.shrui
  %3 = bcast.pow %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: arith.maxsi
  %4 = bcast.maximum %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: arith.minsi
  %5 = bcast.minimum %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: arith.xori
  %6 = bcast.xor %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: arith.cmpi slt
  %7 = bcast.lt %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  // CHECK: %[[F:.*]] = arith.remsi
  // CHECK-NEXT: linalg.yield %[[F]]
  %8 = bcast.fmod %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// i1 is PyTorch's bool: add is or, mul is and, comparisons are unsigned.
// CHECK-LABEL: func @bool_ops
func.func @bool_ops(%a: tensor<4xi1>, %b: tensor<4xi1>) {
  // CHECK: arith.ori
  %0 = bcast.add %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: arith.andi
  %1 = bcast.mul %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: arith.cmpi ult
  %2 = bcast.lt %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: arith.ori
  %3 = bcast.maximum %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// Operands are converted to the promoted type in the body, the result back to
// the result element type.
// CHECK-LABEL: func @promotion
func.func @promotion(%i: tensor<4xi32>, %h: tensor<f16>, %b: tensor<4xi1>, %x: tensor<4xf32>, %d: tensor<4xf64>, %z: tensor<f64>) {
  // CHECK: ^bb0(%[[I:.*]]: i32, %[[H:.*]]: f16, %{{.*}}: f16):
  // Integers become f16 through f32, as PyTorch builds a Half from a float.
  // CHECK: %[[IS:.*]] = arith.sitofp %[[I]] : i32 to f32
  // CHECK: %[[IF:.*]] = arith.truncf %[[IS]] : f32 to f16
  // CHECK: %[[S:.*]] = arith.addf %[[IF]], %[[H]] : f16
  // CHECK: linalg.yield %[[S]]
  %0 = bcast.add %i, %h : (tensor<4xi32>, tensor<f16>) -> tensor<4xf16>
  // i1 is 0 or 1: extended without sign.
  // CHECK: arith.extui %{{.*}} : i1 to i32
  // CHECK: arith.muli
  %1 = bcast.mul %b, %i : (tensor<4xi1>, tensor<4xi32>) -> tensor<4xi32>
  // True division of integers in f32.
  // CHECK: arith.sitofp %{{.*}} : i32 to f32
  // CHECK: arith.sitofp %{{.*}} : i32 to f32
  // CHECK: arith.divf %{{.*}}, %{{.*}} : f32
  %2 = bcast.div %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xf32>
  // In place: f32[4].add_(f64[4]) is computed in f64 and rounded once into
  // the f32 operand.
  // CHECK: %[[XD:.*]] = arith.extf %{{.*}} : f32 to f64
  // CHECK: %[[SUM:.*]] = arith.addf %[[XD]], %{{.*}} : f64
  // CHECK: %[[T:.*]] = arith.truncf %[[SUM]] : f64 to f32
  // CHECK: linalg.yield %[[T]] : f32
  %3 = bcast.add_ %x, %d : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  // A zero-dim f64 does not outrank a dimensioned f32: computed in f32.
  // CHECK: %[[ZT:.*]] = arith.truncf %{{.*}} : f64 to f32
  // CHECK: arith.addf %{{.*}}, %[[ZT]] : f32
  %4 = bcast.add_ %x, %z : (tensor<4xf32>, tensor<f64>) -> tensor<4xf32>
  return
}
