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

// The binary additions of issue 13. atan2 is one math op in the compute
// type: integers are converted to f32, and f16 is computed in f32 and
// rounded once; copysign is exact in f16.
// CHECK-LABEL: func @binary_functions
func.func @binary_functions(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<4xi32>, %h: tensor<4xf16>) {
  // Two zeros give C's +-0 or +-pi by their signs, selected over the
  // math op's value (upstream's folder of math.atan2 gives NaN for them).
  // CHECK: ^bb0(%[[Y:.*]]: f32, %[[X:.*]]: f32, %{{.*}}: f32):
  // CHECK-NEXT: %[[R:.*]] = math.atan2 %[[Y]], %[[X]] : f32
  // CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK-NEXT: %[[YZ:.*]] = arith.cmpf oeq, %[[Y]], %[[ZERO]] : f32
  // CHECK-NEXT: %[[XZ:.*]] = arith.cmpf oeq, %[[X]], %[[ZERO]] : f32
  // CHECK-NEXT: %[[BOTH:.*]] = arith.andi %[[YZ]], %[[XZ]] : i1
  // CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
  // CHECK-NEXT: %[[XS:.*]] = math.copysign %[[ONE]], %[[X]] : f32
  // CHECK-NEXT: %[[XN:.*]] = arith.cmpf olt, %[[XS]], %[[ZERO]] : f32
  // CHECK-NEXT: %[[PI:.*]] = arith.constant 3.14159274 : f32
  // CHECK-NEXT: %[[BASE:.*]] = arith.select %[[XN]], %[[PI]], %[[ZERO]] : f32
  // CHECK-NEXT: %[[SPECIAL:.*]] = math.copysign %[[BASE]], %[[Y]] : f32
  // CHECK-NEXT: %[[PICK:.*]] = arith.select %[[BOTH]], %[[SPECIAL]], %[[R]] : f32
  // CHECK-NEXT: linalg.yield %[[PICK]]
  %0 = bcast.atan2 %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: ^bb0(%[[Y:.*]]: i32, %[[X:.*]]: i32, %{{.*}}: f32):
  // CHECK-NEXT: %[[FY:.*]] = arith.sitofp %[[Y]] : i32 to f32
  // CHECK-NEXT: %[[FX:.*]] = arith.sitofp %[[X]] : i32 to f32
  // CHECK-NEXT: math.atan2 %[[FY]], %[[FX]] : f32
  %1 = bcast.atan2 %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xf32>
  // CHECK: ^bb0(%[[Y:.*]]: f16, %[[X:.*]]: f16, %{{.*}}: f16):
  // CHECK-NEXT: %[[FY:.*]] = arith.extf %[[Y]] : f16 to f32
  // CHECK-NEXT: %[[FX:.*]] = arith.extf %[[X]] : f16 to f32
  // CHECK-NEXT: %[[R:.*]] = math.atan2 %[[FY]], %[[FX]] : f32
  // CHECK:      %[[PICK:.*]] = arith.select %{{.*}}, %{{.*}}, %[[R]] : f32
  // CHECK-NEXT: %[[T:.*]] = arith.truncf %[[PICK]] : f32 to f16
  // CHECK-NEXT: linalg.yield %[[T]]
  %2 = bcast.atan2 %h, %h : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  // CHECK: ^bb0(%[[M:.*]]: f16, %[[S:.*]]: f16, %{{.*}}: f16):
  // CHECK-NEXT: %[[R:.*]] = math.copysign %[[M]], %[[S]] : f16
  // CHECK-NEXT: linalg.yield %[[R]]
  %3 = bcast.copysign %h, %h : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  // CHECK: arith.sitofp
  // CHECK-NEXT: arith.sitofp
  // CHECK-NEXT: math.copysign %{{.*}}, %{{.*}} : f32
  %4 = bcast.copysign %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// hypot: f32 squares and sums in f64 and rounds once; f64 sums the exact
// squares (fma) of scaled operands; an infinite operand gives +inf.
// CHECK-LABEL: func @hypot
func.func @hypot(%a: tensor<4xf32>, %d: tensor<4xf64>, %h: tensor<4xbf16>) {
  // CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
  // CHECK-NEXT: %[[X64:.*]] = arith.extf %[[X]] : f32 to f64
  // CHECK-NEXT: %[[Y64:.*]] = arith.extf %[[Y]] : f32 to f64
  // CHECK-NEXT: %[[XX:.*]] = arith.mulf %[[X64]], %[[X64]] : f64
  // CHECK-NEXT: %[[YY:.*]] = arith.mulf %[[Y64]], %[[Y64]] : f64
  // CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[XX]], %[[YY]] : f64
  // CHECK-NEXT: %[[ROOT:.*]] = math.sqrt %[[SUM]] : f64
  // CHECK-NEXT: %[[R:.*]] = arith.truncf %[[ROOT]] : f64 to f32
  // CHECK: %[[INF:.*]] = arith.ori
  // CHECK-NEXT: %[[PINF:.*]] = arith.constant 0x7F800000 : f32
  // CHECK-NEXT: %[[SEL:.*]] = arith.select %[[INF]], %[[PINF]], %[[R]] : f32
  // CHECK-NEXT: linalg.yield %[[SEL]]
  %0 = bcast.hypot %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: ^bb0(%{{.*}}: f64, %{{.*}}: f64, %{{.*}}: f64):
  // CHECK: %[[HX:.*]] = arith.mulf %[[SX:.*]], %[[SX]] : f64
  // CHECK-NEXT: %[[NHX:.*]] = arith.negf %[[HX]] : f64
  // CHECK-NEXT: %[[LX:.*]] = math.fma %[[SX]], %[[SX]], %[[NHX]] : f64
  // CHECK: %[[HY:.*]] = arith.mulf %[[SY:.*]], %[[SY]] : f64
  // CHECK-NEXT: %[[NHY:.*]] = arith.negf %[[HY]] : f64
  // CHECK-NEXT: %[[LY:.*]] = math.fma %[[SY]], %[[SY]], %[[NHY]] : f64
  // CHECK-NEXT: %[[S1:.*]] = arith.addf %[[LY]], %[[LX]] : f64
  // CHECK-NEXT: %[[S2:.*]] = arith.addf %[[S1]], %[[HY]] : f64
  // CHECK-NEXT: %[[S3:.*]] = arith.addf %[[S2]], %[[HX]] : f64
  // CHECK-NEXT: %[[ROOT:.*]] = math.sqrt %[[S3]] : f64
  // CHECK-NEXT: arith.mulf %{{.*}}, %[[ROOT]] : f64
  // CHECK: linalg.yield
  %1 = bcast.hypot %d, %d : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  // bf16 is computed as f32 (through f64) and rounded to bf16 once.
  // CHECK: ^bb0(%[[X:.*]]: bf16, %{{.*}}: bf16, %{{.*}}: bf16):
  // CHECK-NEXT: arith.extf %[[X]] : bf16 to f32
  // CHECK: math.sqrt %{{.*}} : f64
  // CHECK: %[[R:.*]] = arith.select %{{.*}} : f32
  // CHECK-NEXT: %[[T:.*]] = arith.truncf %[[R]] : f32 to bf16
  // CHECK-NEXT: linalg.yield %[[T]]
  %2 = bcast.hypot %h, %h : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  return
}

// Shifts: an amount outside [0, 32), compared unsigned, gives 0 to the left
// and the sign fill (a shift by 31) to the right; no poison shift.
// CHECK-LABEL: func @shifts
func.func @shifts(%i: tensor<4xi32>, %c: tensor<4xi8>) {
  // CHECK: ^bb0(%[[X:.*]]: i32, %[[N:.*]]: i32, %{{.*}}: i32):
  // CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
  // CHECK-NEXT: %[[W:.*]] = arith.constant 32 : i32
  // CHECK-NEXT: %[[OK:.*]] = arith.cmpi ult, %[[N]], %[[W]] : i32
  // CHECK-NEXT: %[[AMT:.*]] = arith.select %[[OK]], %[[N]], %[[ZERO]] : i32
  // CHECK-NEXT: %[[SHL:.*]] = arith.shli %[[X]], %[[AMT]] : i32
  // CHECK-NEXT: %[[R:.*]] = arith.select %[[OK]], %[[SHL]], %[[ZERO]] : i32
  // CHECK-NEXT: linalg.yield %[[R]]
  %0 = bcast.bitwise_left_shift %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // The i8 amount is sign-extended first: -1 stays out of range.
  // CHECK: ^bb0(%[[X:.*]]: i32, %[[N8:.*]]: i8, %{{.*}}: i32):
  // CHECK-NEXT: %[[N:.*]] = arith.extsi %[[N8]] : i8 to i32
  // CHECK-NEXT: %[[W:.*]] = arith.constant 32 : i32
  // CHECK-NEXT: %[[OK:.*]] = arith.cmpi ult, %[[N]], %[[W]] : i32
  // CHECK-NEXT: %[[FILL:.*]] = arith.constant 31 : i32
  // CHECK-NEXT: %[[AMT:.*]] = arith.select %[[OK]], %[[N]], %[[FILL]] : i32
  // CHECK-NEXT: %[[R:.*]] = arith.shrsi %[[X]], %[[AMT]] : i32
  // CHECK-NEXT: linalg.yield %[[R]]
  %1 = bcast.bitwise_right_shift %i, %c : (tensor<4xi32>, tensor<4xi8>) -> tensor<4xi32>
  return
}

// Logical ops: each operand (promoted first) is tested against zero, NaN
// included (une); the in-place twin stores the i1 as 0 or 1.
// CHECK-LABEL: func @logical
func.func @logical(%a: tensor<4xf32>, %i: tensor<4xi32>, %p: tensor<4xi1>) {
  // CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: i32, %{{.*}}: i1):
  // CHECK-NEXT: %[[FY:.*]] = arith.sitofp %[[Y]] : i32 to f32
  // CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK-NEXT: %[[NX:.*]] = arith.cmpf une, %[[X]], %[[Z]] : f32
  // CHECK-NEXT: %[[Z2:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK-NEXT: %[[NY:.*]] = arith.cmpf une, %[[FY]], %[[Z2]] : f32
  // CHECK-NEXT: %[[R:.*]] = arith.andi %[[NX]], %[[NY]] : i1
  // CHECK-NEXT: linalg.yield %[[R]]
  %0 = bcast.logical_and %a, %i : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
  // CHECK: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i1, %{{.*}}: i1):
  // CHECK-NEXT: %[[WY:.*]] = arith.extui %[[Y]] : i1 to i32
  // CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i32
  // CHECK-NEXT: %[[NX:.*]] = arith.cmpi ne, %[[X]], %[[Z]] : i32
  // CHECK-NEXT: %[[Z2:.*]] = arith.constant 0 : i32
  // CHECK-NEXT: %[[NY:.*]] = arith.cmpi ne, %[[WY]], %[[Z2]] : i32
  // CHECK-NEXT: arith.ori %[[NX]], %[[NY]] : i1
  %1 = bcast.logical_or %i, %p : (tensor<4xi32>, tensor<4xi1>) -> tensor<4xi1>
  // Bools are their own test.
  // CHECK: ^bb0(%[[X:.*]]: i1, %[[Y:.*]]: i1, %{{.*}}: i1):
  // CHECK-NEXT: %[[R:.*]] = arith.xori %[[X]], %[[Y]] : i1
  // CHECK-NEXT: linalg.yield %[[R]]
  %2 = bcast.logical_xor %p, %p : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: %[[R:.*]] = arith.xori %{{.*}}, %{{.*}} : i1
  // CHECK-NEXT: %[[F:.*]] = arith.uitofp %[[R]] : i1 to f32
  // CHECK-NEXT: linalg.yield %[[F]] : f32
  %3 = bcast.logical_xor_ %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// The three-operand ops: one body over three block arguments.
// CHECK-LABEL: func @ternary
func.func @ternary(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>, %i: tensor<4xi32>, %h: tensor<4xbf16>) {
  // clamp: NaN-propagating maximum then minimum.
  // CHECK: ^bb0(%[[X:.*]]: f32, %[[LO:.*]]: f32, %[[HI:.*]]: f32, %{{.*}}: f32):
  // CHECK-NEXT: %[[M:.*]] = arith.maximumf %[[X]], %[[LO]] : f32
  // CHECK-NEXT: %[[R:.*]] = arith.minimumf %[[M]], %[[HI]] : f32
  // CHECK-NEXT: linalg.yield %[[R]]
  %0 = bcast.clamp %a, %b, %c : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: ^bb0(%[[X:.*]]: i32, %[[LO:.*]]: i32, %[[HI:.*]]: i32, %{{.*}}: i32):
  // CHECK-NEXT: %[[M:.*]] = arith.maxsi %[[X]], %[[LO]] : i32
  // CHECK-NEXT: %[[R:.*]] = arith.minsi %[[M]], %[[HI]] : i32
  %1 = bcast.clamp %i, %i, %i : (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // lerp: PyTorch 1.13's two formulas, chosen by weight < 0.5.
  // CHECK: ^bb0(%[[S:.*]]: f32, %[[E:.*]]: f32, %[[W:.*]]: f32, %{{.*}}: f32):
  // CHECK-NEXT: %[[D:.*]] = arith.subf %[[E]], %[[S]] : f32
  // CHECK-NEXT: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
  // CHECK-NEXT: %[[SMALL:.*]] = arith.cmpf olt, %[[W]], %[[HALF]] : f32
  // CHECK-NEXT: %[[WD:.*]] = arith.mulf %[[W]], %[[D]] : f32
  // CHECK-NEXT: %[[LOW:.*]] = arith.addf %[[S]], %[[WD]] : f32
  // CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
  // CHECK-NEXT: %[[C:.*]] = arith.subf %[[ONE]], %[[W]] : f32
  // CHECK-NEXT: %[[DC:.*]] = arith.mulf %[[D]], %[[C]] : f32
  // CHECK-NEXT: %[[HIGH:.*]] = arith.subf %[[E]], %[[DC]] : f32
  // CHECK-NEXT: %[[R:.*]] = arith.select %[[SMALL]], %[[LOW]], %[[HIGH]] : f32
  // CHECK-NEXT: linalg.yield %[[R]]
  %2 = bcast.lerp %a, %b, %c : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // addcmul without value: no multiplication by 1.
  // CHECK: ^bb0(%[[S:.*]]: f32, %[[T1:.*]]: f32, %[[T2:.*]]: f32, %{{.*}}: f32):
  // CHECK-NEXT: %[[P:.*]] = arith.mulf %[[T1]], %[[T2]] : f32
  // CHECK-NEXT: %[[R:.*]] = arith.addf %[[S]], %[[P]] : f32
  // CHECK-NEXT: linalg.yield %[[R]]
  %3 = bcast.addcmul %a, %b, %c : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // value * tensor1 first, then * tensor2, then + input.
  // CHECK: ^bb0(%[[S:.*]]: f32, %[[T1:.*]]: f32, %[[T2:.*]]: f32, %{{.*}}: f32):
  // CHECK-NEXT: %[[V:.*]] = arith.constant 5.000000e-01 : f32
  // CHECK-NEXT: %[[VT:.*]] = arith.mulf %[[V]], %[[T1]] : f32
  // CHECK-NEXT: %[[P:.*]] = arith.mulf %[[VT]], %[[T2]] : f32
  // CHECK-NEXT: arith.addf %[[S]], %[[P]] : f32
  %4 = bcast.addcmul %a, %b, %c {value = 0.5 : f64} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // Integers: value truncated towards zero (2.7 is 2), wrapping arithmetic.
  // CHECK: ^bb0(%[[S:.*]]: i32, %[[T1:.*]]: i32, %[[T2:.*]]: i32, %{{.*}}: i32):
  // CHECK-NEXT: %[[V:.*]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[VT:.*]] = arith.muli %[[V]], %[[T1]] : i32
  // CHECK-NEXT: %[[P:.*]] = arith.muli %[[VT]], %[[T2]] : i32
  // CHECK-NEXT: arith.addi %[[S]], %[[P]] : i32
  %5 = bcast.addcmul %i, %i, %i {value = 2.7 : f64} : (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // bf16: computed in f32 (value rounded to f32), rounded to bf16 once.
  // CHECK: ^bb0(%[[S:.*]]: bf16, %[[T1:.*]]: bf16, %[[T2:.*]]: bf16, %{{.*}}: bf16):
  // CHECK-NEXT: %[[FS:.*]] = arith.extf %[[S]] : bf16 to f32
  // CHECK-NEXT: %[[F1:.*]] = arith.extf %[[T1]] : bf16 to f32
  // CHECK-NEXT: %[[F2:.*]] = arith.extf %[[T2]] : bf16 to f32
  // CHECK-NEXT: %[[V:.*]] = arith.constant 1.000000e-01 : f32
  // CHECK-NEXT: %[[VT:.*]] = arith.mulf %[[V]], %[[F1]] : f32
  // CHECK-NEXT: %[[P:.*]] = arith.mulf %[[VT]], %[[F2]] : f32
  // CHECK-NEXT: %[[R:.*]] = arith.addf %[[FS]], %[[P]] : f32
  // CHECK-NEXT: %[[T:.*]] = arith.truncf %[[R]] : f32 to bf16
  // CHECK-NEXT: linalg.yield %[[T]]
  %6 = bcast.addcmul %h, %h, %h {value = 0.1 : f64} : (tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  // addcdiv: (value * tensor1) / tensor2 + input; integers are converted.
  // CHECK: ^bb0(%[[S:.*]]: i32, %[[T1:.*]]: f32, %[[T2:.*]]: f32, %{{.*}}: f32):
  // CHECK-NEXT: %[[FS:.*]] = arith.sitofp %[[S]] : i32 to f32
  // CHECK-NEXT: %[[V:.*]] = arith.constant -3.000000e+00 : f32
  // CHECK-NEXT: %[[VT:.*]] = arith.mulf %[[V]], %[[T1]] : f32
  // CHECK-NEXT: %[[Q:.*]] = arith.divf %[[VT]], %[[T2]] : f32
  // CHECK-NEXT: %[[R:.*]] = arith.addf %[[FS]], %[[Q]] : f32
  // CHECK-NEXT: linalg.yield %[[R]]
  %7 = bcast.addcdiv %i, %a, %b {value = -3.0 : f64} : (tensor<4xi32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// Unsigned compute types: a logical right shift (0 for an amount of at least
// the width) and an unsigned clamp.
// CHECK-LABEL: func @unsigned_shift_clamp
func.func @unsigned_shift_clamp(%x: tensor<4xui8>, %w: tensor<4xui32>) {
  // CHECK: ^bb0(%[[X:.*]]: i8, %[[N:.*]]: i8, %{{.*}}: i8):
  // CHECK-NEXT: %[[W:.*]] = arith.constant 8 : i8
  // CHECK-NEXT: %[[OK:.*]] = arith.cmpi ult, %[[N]], %[[W]] : i8
  // CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i8
  // CHECK-NEXT: %[[AMT:.*]] = arith.select %[[OK]], %[[N]], %[[ZERO]] : i8
  // CHECK-NEXT: %[[SHR:.*]] = arith.shrui %[[X]], %[[AMT]] : i8
  // CHECK-NEXT: %[[R:.*]] = arith.select %[[OK]], %[[SHR]], %[[ZERO]] : i8
  // CHECK-NEXT: linalg.yield %[[R]]
  %0 = bcast.bitwise_right_shift %x, %x : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  // CHECK: ^bb0(%[[V:.*]]: i32, %[[LO:.*]]: i32, %[[HI:.*]]: i32, %{{.*}}: i32):
  // CHECK-NEXT: %[[M:.*]] = arith.maxui %[[V]], %[[LO]] : i32
  // CHECK-NEXT: arith.minui %[[M]], %[[HI]] : i32
  %1 = bcast.clamp %w, %w, %w : (tensor<4xui32>, tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  return
}

// lerp's `scalar_weight` (a Python number's f64 carrier) is converted
// straight to the f32 compute type of bf16 tensors, never through bf16.
// CHECK-LABEL: func @lerp_scalar_weight_bf16
func.func @lerp_scalar_weight_bf16(%a: tensor<4xbf16>, %b: tensor<4xbf16>, %w: tensor<f64>) {
  // CHECK: ^bb0(%[[A:.*]]: bf16, %[[B:.*]]: bf16, %[[W:.*]]: f64, %{{.*}}: bf16):
  // CHECK-NEXT: arith.extf %[[A]] : bf16 to f32
  // CHECK-NEXT: arith.extf %[[B]] : bf16 to f32
  // CHECK-NEXT: %[[WF:.*]] = arith.truncf %[[W]] : f64 to f32
  // CHECK-NOT: bf16
  // CHECK: arith.cmpf olt, %[[WF]]
  // CHECK: arith.truncf %{{.*}} : f32 to bf16
  // CHECK-NEXT: linalg.yield
  %0 = bcast.lerp %a, %b, %w {scalar_weight} : (tensor<4xbf16>, tensor<4xbf16>, tensor<f64>) -> tensor<4xbf16>
  return
}
