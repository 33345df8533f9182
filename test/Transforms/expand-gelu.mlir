// bcast-expand-gelu: f32 gelu (erf form), which bcast.gelu computes in f64
// and rounds once, becomes f32 arithmetic, on scalars (a linalg body, before
// the vectorizers) and on vectors; other f64 erfc products are left alone.
// RUN: bcast-opt %s --bcast-expand-gelu | FileCheck %s

// |x| clamped to 15 below 0 and to 6 from 0 on, where gelu(x) rounds to x
// (operands ordered so that a NaN passes); one division, of (|x| + 2.5)(1 +
// 2|x|), gives s = 2|x| / (|x| + 2.5) and 1 / (1 + 2|x|); P of degree 10 in
// s (10 FMAs, the last one's rounding kept); P / (1 + 2|x|) with the
// residual of the quotient; x^2 / 2 as
// a sum of two floats; exp(-x^2 / 2) by bcast-expand-exp's emitter with the
// low part added to the reduced argument (7 FMAs of its polynomial); one
// scaling by 2^(n - 1); -E below 0 (minus x - x: NaN for -inf), x - E
// otherwise; the select carries bcast.inline_math, and no f64 op remains.
// CHECK-LABEL: func @gelu_f32_vector
// CHECK-SAME: (%[[X:.*]]: vector<16xf32>)
// CHECK-NOT: arith.extf
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK: %[[NEG:.*]] = arith.cmpf olt, %[[X]], %[[ZERO]]
// CHECK: %[[ABS:.*]] = math.absf %[[X]] : vector<16xf32>
// CHECK: %[[CAPNEG:.*]] = arith.constant dense<1.500000e+01> : vector<16xf32>
// CHECK: %[[CAPPOS:.*]] = arith.constant dense<6.000000e+00> : vector<16xf32>
// CHECK: %[[HIGH:.*]] = arith.select %[[NEG]], %[[CAPNEG]], %[[CAPPOS]]
// CHECK: %[[ABOVE:.*]] = arith.cmpf olt, %[[HIGH]], %[[ABS]]
// CHECK: %[[M:.*]] = arith.select %[[ABOVE]], %[[HIGH]], %[[ABS]]
// CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : vector<16xf32>
// CHECK: %[[TWO:.*]] = arith.constant dense<2.000000e+00> : vector<16xf32>
// CHECK: %[[K:.*]] = arith.constant dense<2.500000e+00> : vector<16xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[M]], %[[K]]
// CHECK: %[[D:.*]] = math.fma %[[M]], %[[TWO]], %[[ONE]]
// CHECK: %[[ONEMD:.*]] = arith.subf %[[ONE]], %[[D]]
// CHECK: %[[DLOW:.*]] = math.fma %[[M]], %[[TWO]], %[[ONEMD]]
// CHECK: %[[PROD:.*]] = arith.mulf %[[SUM]], %[[D]]
// CHECK: %[[BOTH:.*]] = arith.divf %[[ONE]], %[[PROD]] : vector<16xf32>
// CHECK: %[[TWOM:.*]] = arith.addf %[[M]], %[[M]]
// CHECK: %[[SREC:.*]] = arith.mulf %[[D]], %[[BOTH]]
// CHECK: %[[S:.*]] = arith.mulf %[[TWOM]], %[[SREC]]
// CHECK: %[[REC:.*]] = arith.mulf %[[SUM]], %[[BOTH]]
// CHECK-COUNT-8: math.fma %{{.*}}, %[[S]], %{{.*}} : vector<16xf32>
// CHECK: %[[INNER:.*]] = math.fma %{{.*}}, %[[S]], %{{.*}} : vector<16xf32>
// CHECK: %[[C0:.*]] = arith.constant dense<1.000000e+00> : vector<16xf32>
// CHECK: %[[P:.*]] = math.fma %[[INNER]], %[[S]], %[[C0]] : vector<16xf32>
// CHECK: %[[C0MP:.*]] = arith.subf %[[C0]], %[[P]]
// CHECK: %[[PLOW:.*]] = math.fma %[[INNER]], %[[S]], %[[C0MP]]
// CHECK: %[[R:.*]] = arith.mulf %[[P]], %[[REC]]
// CHECK: %[[NR:.*]] = arith.negf %[[R]]
// CHECK: %[[RES0:.*]] = math.fma %[[NR]], %[[D]], %[[P]]
// CHECK: %[[RES1:.*]] = math.fma %[[NR]], %[[DLOW]], %[[RES0]]
// CHECK: %[[RES:.*]] = arith.addf %[[RES1]], %[[PLOW]]
// CHECK: %[[RLOW:.*]] = arith.mulf %[[RES]], %[[REC]]
// CHECK: %[[HALFM:.*]] = arith.mulf %[[M]], %{{.*}}
// CHECK: %[[SQ:.*]] = arith.mulf %[[HALFM]], %[[M]]
// CHECK: %[[NSQ:.*]] = arith.negf %[[SQ]]
// CHECK: %[[SQL:.*]] = math.fma %[[HALFM]], %[[M]], %[[NSQ]]
// CHECK: %[[NSQL:.*]] = arith.negf %[[SQL]]
// CHECK: %[[MAGIC:.*]] = arith.constant dense<0x4B400000> : vector<16xf32>
// CHECK: %[[SHIFTED:.*]] = math.fma %[[NSQ]], %{{.*}}, %[[MAGIC]]
// CHECK: %[[N:.*]] = arith.subf %[[SHIFTED]], %[[MAGIC]]
// CHECK: %[[R0:.*]] = math.fma %[[N]], %{{.*}}, %[[NSQ]]
// CHECK: %[[R1:.*]] = math.fma %[[N]], %{{.*}}, %[[R0]]
// CHECK: %[[RED:.*]] = arith.addf %[[R1]], %[[NSQL]]
// CHECK-COUNT-6: math.fma %{{.*}}, %[[RED]], %{{.*}} : vector<16xf32>
// CHECK: %[[EXPP:.*]] = math.fma %{{.*}}, %[[RED]], %{{.*}} : vector<16xf32>
// CHECK: %[[H:.*]] = arith.mulf %[[R]], %[[M]]
// CHECK: %[[NH:.*]] = arith.negf %[[H]]
// CHECK: %[[HL0:.*]] = math.fma %[[R]], %[[M]], %[[NH]]
// CHECK: %[[HL:.*]] = math.fma %[[RLOW]], %[[M]], %[[HL0]]
// CHECK: %[[PHL:.*]] = arith.mulf %[[EXPP]], %[[HL]]
// CHECK: %[[MANT:.*]] = math.fma %[[EXPP]], %[[H]], %[[PHL]]
// CHECK: %[[P1:.*]] = arith.bitcast %{{.*}} : vector<16xi32> to vector<16xf32>
// CHECK: %[[S1:.*]] = arith.mulf %[[MANT]], %[[P1]]
// CHECK: %[[P2:.*]] = arith.bitcast %{{.*}} : vector<16xi32> to vector<16xf32>
// CHECK: %[[E:.*]] = arith.mulf %[[S1]], %[[P2]]
// CHECK: %[[MINUSE:.*]] = arith.negf %[[E]]
// CHECK: %[[XX:.*]] = arith.subf %[[X]], %[[X]]
// CHECK: %[[LOW:.*]] = arith.subf %[[MINUSE]], %[[XX]]
// CHECK: %[[UP:.*]] = arith.subf %[[X]], %[[E]]
// CHECK: %[[Y:.*]] = arith.select %[[NEG]], %[[LOW]], %[[UP]] {bcast.inline_math}
// CHECK-NOT: math.erfc
// CHECK-NOT: f64
// CHECK: return %[[Y]] : vector<16xf32>
func.func @gelu_f32_vector(%x: vector<16xf32>) -> vector<16xf32> {
  %half = arith.constant dense<5.000000e-01> : vector<16xf64>
  %c = arith.constant dense<-0.70710678118654757> : vector<16xf64>
  %e = arith.extf %x : vector<16xf32> to vector<16xf64>
  %a = arith.mulf %e, %c : vector<16xf64>
  %h = arith.mulf %e, %half : vector<16xf64>
  %r = math.erfc %a fastmath<afn> : vector<16xf64>
  %p = arith.mulf %h, %r : vector<16xf64>
  %y = arith.truncf %p : vector<16xf64> to vector<16xf32>
  return %y : vector<16xf32>
}

// A scalar, with the constants on the left and the product's operands
// swapped: the same rewrite.
// CHECK-LABEL: func @gelu_f32_scalar_operands_swapped
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK: math.absf %[[X]] : f32
// CHECK: arith.divf
// CHECK-NOT: arith.divf
// CHECK: %[[Y:.*]] = arith.select %{{.*}} {bcast.inline_math} : f32
// CHECK-NOT: math.erfc
// CHECK: return %[[Y]] : f32
func.func @gelu_f32_scalar_operands_swapped(%x: f32) -> f32 {
  %half = arith.constant 5.000000e-01 : f64
  %c = arith.constant -0.70710678118654757 : f64
  %e = arith.extf %x : f32 to f64
  %a = arith.mulf %c, %e : f64
  %h = arith.mulf %half, %e : f64
  %r = math.erfc %a fastmath<afn> : f64
  %p = arith.mulf %r, %h : f64
  %y = arith.truncf %p : f64 to f32
  return %y : f32
}

// The extension has another user: it stays, the gelu is rewritten.
// CHECK-LABEL: func @gelu_f32_extension_kept
// CHECK: %[[E:.*]] = arith.extf
// CHECK-NOT: math.erfc
// CHECK: return %{{.*}}, %[[E]] : f32, f64
func.func @gelu_f32_extension_kept(%x: f32) -> (f32, f64) {
  %half = arith.constant 5.000000e-01 : f64
  %c = arith.constant -0.70710678118654757 : f64
  %e = arith.extf %x : f32 to f64
  %a = arith.mulf %e, %c : f64
  %h = arith.mulf %e, %half : f64
  %r = math.erfc %a fastmath<afn> : f64
  %p = arith.mulf %h, %r : f64
  %y = arith.truncf %p : f64 to f32
  return %y, %e : f32, f64
}

// Not f32 gelu's pattern, left alone: an erfc without afn; another
// constant; a result rounded to f16 (f16 and bf16 gelu keep the f64 form,
// rounded once to their type); f64 gelu (no extension and no rounding).
// CHECK-LABEL: func @erfc_without_afn
// CHECK: math.erfc %{{.*}} : f64
// CHECK: arith.truncf
func.func @erfc_without_afn(%x: f32) -> f32 {
  %half = arith.constant 5.000000e-01 : f64
  %c = arith.constant -0.70710678118654757 : f64
  %e = arith.extf %x : f32 to f64
  %a = arith.mulf %e, %c : f64
  %h = arith.mulf %e, %half : f64
  %r = math.erfc %a : f64
  %p = arith.mulf %h, %r : f64
  %y = arith.truncf %p : f64 to f32
  return %y : f32
}

// CHECK-LABEL: func @other_constant
// CHECK: math.erfc %{{.*}} fastmath<afn> : f64
// CHECK: arith.truncf
func.func @other_constant(%x: f32) -> f32 {
  %half = arith.constant 5.000000e-01 : f64
  %c = arith.constant -0.7 : f64
  %e = arith.extf %x : f32 to f64
  %a = arith.mulf %e, %c : f64
  %h = arith.mulf %e, %half : f64
  %r = math.erfc %a fastmath<afn> : f64
  %p = arith.mulf %h, %r : f64
  %y = arith.truncf %p : f64 to f32
  return %y : f32
}

// CHECK-LABEL: func @gelu_f16
// CHECK: math.erfc %{{.*}} fastmath<afn> : vector<8xf64>
// CHECK: arith.truncf %{{.*}} : vector<8xf64> to vector<8xf16>
func.func @gelu_f16(%x: vector<8xf16>) -> vector<8xf16> {
  %half = arith.constant dense<5.000000e-01> : vector<8xf64>
  %c = arith.constant dense<-0.70710678118654757> : vector<8xf64>
  %e = arith.extf %x : vector<8xf16> to vector<8xf64>
  %a = arith.mulf %e, %c : vector<8xf64>
  %h = arith.mulf %e, %half : vector<8xf64>
  %r = math.erfc %a fastmath<afn> : vector<8xf64>
  %p = arith.mulf %h, %r : vector<8xf64>
  %y = arith.truncf %p : vector<8xf64> to vector<8xf16>
  return %y : vector<8xf16>
}

// CHECK-LABEL: func @gelu_f64
// CHECK: math.erfc %{{.*}} : f64
// CHECK-NOT: math.absf
func.func @gelu_f64(%x: f64) -> f64 {
  %half = arith.constant 5.000000e-01 : f64
  %c = arith.constant -0.70710678118654757 : f64
  %a = arith.mulf %x, %c : f64
  %h = arith.mulf %x, %half : f64
  %r = math.erfc %a : f64
  %p = arith.mulf %h, %r : f64
  return %p : f64
}
