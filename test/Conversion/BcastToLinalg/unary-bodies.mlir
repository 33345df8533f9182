// The element-wise bodies of the unary ops (the numbers are checked in
// test/Integration/numeric-unary.test).
// RUN: bcast-opt %s --convert-bcast-to-linalg | FileCheck %s

// A float function is one math op; integers are converted to f32 first, and
// f16 is computed in f32 and rounded once.
// CHECK-LABEL: func @float_functions
func.func @float_functions(%a: tensor<4xf32>, %i: tensor<4xi32>, %h: tensor<4xf16>, %u: tensor<4xi1>) {
  // CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
  // CHECK-NEXT: %[[R:.*]] = math.exp %[[X]] : f32
  // CHECK-NEXT: linalg.yield %[[R]]
  %0 = bcast.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: ^bb0(%[[X:.*]]: i32, %{{.*}}: f32):
  // CHECK-NEXT: %[[F:.*]] = arith.sitofp %[[X]] : i32 to f32
  // CHECK-NEXT: %[[R:.*]] = math.sqrt %[[F]] : f32
  // CHECK-NEXT: linalg.yield %[[R]]
  %1 = bcast.sqrt %i : (tensor<4xi32>) -> tensor<4xf32>
  // CHECK: ^bb0(%[[X:.*]]: f16, %{{.*}}: f16):
  // CHECK-NEXT: %[[F:.*]] = arith.extf %[[X]] : f16 to f32
  // CHECK-NEXT: %[[R:.*]] = math.erf %[[F]] : f32
  // CHECK-NEXT: %[[T:.*]] = arith.truncf %[[R]] : f32 to f16
  // CHECK-NEXT: linalg.yield %[[T]]
  %2 = bcast.erf %h : (tensor<4xf16>) -> tensor<4xf16>
  // Bools convert as 0 and 1.
  // CHECK: ^bb0(%[[X:.*]]: i1, %{{.*}}: f32):
  // CHECK-NEXT: arith.uitofp %[[X]] : i1 to f32
  // CHECK-NEXT: math.log1p
  %3 = bcast.log1p %u : (tensor<4xi1>) -> tensor<4xf32>
  // CHECK: math.rsqrt
  %4 = bcast.rsqrt %a : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
  // CHECK: %[[R:.*]] = arith.divf %{{.*}}, %[[X]] : f32
  %5 = bcast.reciprocal %a : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// sigmoid: e = exp(-|x|), then 1 / (1 + e) or e / (1 + e) by the sign.
// CHECK-LABEL: func @sigmoid_silu
func.func @sigmoid_silu(%a: tensor<4xf32>) {
  // CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
  // CHECK: %[[ABS:.*]] = math.absf %[[X]]
  // CHECK-NEXT: %[[NEG:.*]] = arith.negf %[[ABS]]
  // CHECK-NEXT: %[[E:.*]] = math.exp %[[NEG]]
  // CHECK-NEXT: %[[DEN:.*]] = arith.addf %{{.*}}, %[[E]]
  // CHECK: %[[POS:.*]] = arith.cmpf oge, %[[X]]
  // CHECK-NEXT: %[[NUM:.*]] = arith.select %[[POS]], %{{.*}}, %[[E]]
  // CHECK-NEXT: %[[R:.*]] = arith.divf %[[NUM]], %[[DEN]]
  // CHECK-NEXT: linalg.yield %[[R]]
  %0 = bcast.sigmoid %a : (tensor<4xf32>) -> tensor<4xf32>
  // silu: x * sigmoid(x) in f64, rounded once.
  // CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
  // CHECK-NEXT: %[[D:.*]] = arith.extf %[[X]] : f32 to f64
  // CHECK: %[[S:.*]] = arith.divf %{{.*}}, %{{.*}} : f64
  // CHECK-NEXT: %[[R:.*]] = arith.mulf %[[D]], %[[S]] : f64
  // CHECK-NEXT: %[[T:.*]] = arith.truncf %[[R]] : f64 to f32
  // CHECK-NEXT: linalg.yield %[[T]]
  %1 = bcast.silu %a : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// gelu in f64: 0.5 * x * erfc(-x / sqrt(2)), or x * sigmoid(2u). Rounded to
// f32, the erfc is marked afn (bcast-expand-erfc may compute it inline);
// f64 gelu's is not.
// CHECK-LABEL: func @gelu
func.func @gelu(%a: tensor<4xf32>, %w: tensor<4xf64>) {
  // CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
  // CHECK-NEXT: %[[D:.*]] = arith.extf %[[X]] : f32 to f64
  // CHECK: %[[S:.*]] = arith.mulf %[[D]], %{{.*}} : f64
  // CHECK: %[[H:.*]] = arith.mulf %{{.*}}, %[[D]] : f64
  // CHECK-NEXT: %[[E:.*]] = math.erfc %[[S]] fastmath<afn> : f64
  // CHECK-NEXT: %[[R:.*]] = arith.mulf %[[H]], %[[E]] : f64
  // CHECK-NEXT: %[[T:.*]] = arith.truncf %[[R]] : f64 to f32
  // CHECK-NEXT: linalg.yield %[[T]]
  %0 = bcast.gelu %a : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: arith.extf %{{.*}} : f32 to f64
  // CHECK: math.exp %{{.*}} : f64
  // CHECK: arith.truncf %{{.*}} : f64 to f32
  %1 = bcast.gelu %a {approximate = "tanh"} : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: ^bb0(%[[W:.*]]: f64, %{{.*}}: f64):
  // CHECK: %[[WS:.*]] = arith.mulf %[[W]], %{{.*}} : f64
  // CHECK: %[[WH:.*]] = arith.mulf %{{.*}}, %[[W]] : f64
  // CHECK-NEXT: %[[WE:.*]] = math.erfc %[[WS]] : f64
  // CHECK-NEXT: arith.mulf %[[WH]], %[[WE]] : f64
  // CHECK-NEXT: linalg.yield
  %2 = bcast.gelu %w : (tensor<4xf64>) -> tensor<4xf64>
  return
}

// CHECK-LABEL: func @exact_ops
func.func @exact_ops(%a: tensor<4xf32>, %i: tensor<4xi32>, %u: tensor<4xui8>) {
  // CHECK: math.absf
  %0 = bcast.abs %a : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: math.absi
  %1 = bcast.abs %i : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: arith.negf
  %2 = bcast.neg %a : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: ^bb0(%[[X:.*]]: i32, %{{.*}}: i32):
  // CHECK: %[[R:.*]] = arith.subi %{{.*}}, %[[X]] : i32
  %3 = bcast.neg %i : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: math.floor
  %4 = bcast.floor %a : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: math.ceil
  %5 = bcast.ceil %a : (tensor<4xf32>) -> tensor<4xf32>
  // Halves to even.
  // CHECK: math.roundeven
  %6 = bcast.round %a : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: math.trunc
  %7 = bcast.trunc %a : (tensor<4xf32>) -> tensor<4xf32>
  // Integers are unchanged.
  // CHECK: ^bb0(%[[X:.*]]: i32, %{{.*}}: i32):
  // CHECK-NEXT: linalg.yield %[[X]]
  %8 = bcast.floor %i : (tensor<4xi32>) -> tensor<4xi32>
  // x < 0 is false for NaN and -0, which are kept.
  // CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
  // CHECK: %[[LT:.*]] = arith.cmpf olt, %[[X]], %[[ZERO:.*]] : f32
  // CHECK-NEXT: %[[R:.*]] = arith.select %[[LT]], %[[ZERO]], %[[X]]
  %9 = bcast.relu %a : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: arith.maxsi
  %10 = bcast.relu %i : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: arith.cmpf ogt
  // CHECK: arith.cmpf olt
  %11 = bcast.sign %a : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: arith.xori
  %12 = bcast.bitwise_not %i : (tensor<4xi32>) -> tensor<4xi32>
  return
}

// CHECK-LABEL: func @tests
func.func @tests(%a: tensor<4xf32>, %i: tensor<4xi32>) {
  // CHECK: arith.cmpf uno
  %0 = bcast.isnan %a : (tensor<4xf32>) -> tensor<4xi1>
  // CHECK: %[[ABS:.*]] = math.absf
  // CHECK-NEXT: arith.cmpf oeq, %[[ABS]], %{{.*}} : f32
  %1 = bcast.isinf %a : (tensor<4xf32>) -> tensor<4xi1>
  // CHECK: %[[ABS:.*]] = math.absf
  // CHECK-NEXT: arith.cmpf olt, %[[ABS]], %{{.*}} : f32
  %2 = bcast.isfinite %a : (tensor<4xf32>) -> tensor<4xi1>
  // Integers are never NaN.
  // CHECK: ^bb0(%{{.*}}: i32, %{{.*}}: i1):
  // CHECK-NEXT: %[[F:.*]] = arith.constant false
  // CHECK-NEXT: linalg.yield %[[F]]
  %3 = bcast.isnan %i : (tensor<4xi32>) -> tensor<4xi1>
  // In place, the i1 value is stored as 0 or 1 in the operand's type.
  // CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
  // CHECK: %[[Z:.*]] = arith.cmpf oeq, %[[X]]
  // CHECK-NEXT: %[[R:.*]] = arith.uitofp %[[Z]] : i1 to f32
  // CHECK-NEXT: linalg.yield %[[R]]
  %4 = bcast.logical_not_ %a : (tensor<4xf32>) -> tensor<4xf32>
  return
}
