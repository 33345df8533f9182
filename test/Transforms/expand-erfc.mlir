// bcast-expand-erfc: math.erfc marked afn on f64 vectors becomes inline
// arithmetic.
// RUN: bcast-opt %s --bcast-expand-erfc | FileCheck %s

// |z| clamped to 27.3 (operands ordered so that a NaN passes); one division
// for t and 1 / (1 + 2a); the degree-13 polynomial in t (13 FMAs); exp(-a^2) by the 1.5 * 2^52 rounding,
// ln 2 in two parts and the degree-9 Taylor polynomial (9 FMAs); 2^n as two powers of two built from n's bits; and
// 2 - erfc(|z|) for z < 0.
// CHECK-LABEL: func @erfc_f64
// CHECK-SAME: (%[[Z:.*]]: vector<8xf64>)
// CHECK: %[[ABS:.*]] = math.absf %[[Z]] : vector<8xf64>
// CHECK: %[[HIGH:.*]] = arith.constant dense<2.730000e+01> : vector<8xf64>
// CHECK: %[[ABOVE:.*]] = arith.cmpf olt, %[[HIGH]], %[[ABS]]
// CHECK: %[[A:.*]] = arith.select %[[ABOVE]], %[[HIGH]], %[[ABS]]
// CHECK: %[[K:.*]] = arith.constant dense<3.000000e+00> : vector<8xf64>
// CHECK: %[[SUM:.*]] = arith.addf %[[A]], %[[K]]
// CHECK: %[[DIFF:.*]] = arith.subf %[[A]], %{{.*}}
// CHECK: %[[U:.*]] = math.fma %[[A]], %{{.*}}, %{{.*}} : vector<8xf64>
// CHECK: %[[DEN:.*]] = arith.mulf %[[SUM]], %[[U]]
// CHECK: %[[Q:.*]] = arith.divf %{{.*}}, %[[DEN]] : vector<8xf64>
// CHECK: %[[DU:.*]] = arith.mulf %[[DIFF]], %[[U]]
// CHECK: %[[T:.*]] = arith.mulf %[[DU]], %[[Q]]
// CHECK: %[[RECIP:.*]] = arith.mulf %[[SUM]], %[[Q]]
// CHECK-COUNT-12: math.fma %{{.*}}, %[[T]], %{{.*}} : vector<8xf64>
// CHECK: %[[P:.*]] = math.fma %{{.*}}, %[[T]], %{{.*}} : vector<8xf64>
// CHECK: %[[SQ:.*]] = arith.mulf %[[A]], %[[A]]
// CHECK: %[[W:.*]] = arith.negf %[[SQ]]
// CHECK: %[[MAGIC:.*]] = arith.constant dense<0x4338000000000000> : vector<8xf64>
// CHECK: %[[S:.*]] = math.fma %[[W]], %{{.*}}, %[[MAGIC]]
// CHECK: %[[N:.*]] = arith.subf %[[S]], %[[MAGIC]]
// CHECK: %[[R0:.*]] = math.fma %[[N]], %{{.*}}, %[[W]]
// CHECK: %[[R:.*]] = math.fma %[[N]], %{{.*}}, %[[R0]]
// CHECK-COUNT-8: math.fma %{{.*}}, %[[R]], %{{.*}} : vector<8xf64>
// CHECK: %[[E:.*]] = math.fma %{{.*}}, %[[R]], %{{.*}} : vector<8xf64>
// CHECK: %[[SB:.*]] = arith.bitcast %[[S]] : vector<8xf64> to vector<8xi64>
// CHECK: %[[MB:.*]] = arith.bitcast %[[MAGIC]] : vector<8xf64> to vector<8xi64>
// CHECK: %[[NB:.*]] = arith.subi %[[SB]], %[[MB]]
// CHECK: %[[HALF:.*]] = arith.shrsi %[[NB]]
// CHECK: %[[REST:.*]] = arith.subi %[[NB]], %[[HALF]]
// CHECK: %[[QP:.*]] = arith.mulf %[[P]], %[[RECIP]]
// CHECK: %[[E1:.*]] = arith.addi %[[HALF]]
// CHECK: %[[F1:.*]] = arith.shli %[[E1]]
// CHECK: %[[P1:.*]] = arith.bitcast %[[F1]] : vector<8xi64> to vector<8xf64>
// CHECK: %[[QE:.*]] = arith.mulf %[[QP]], %[[E]]
// CHECK: %[[S1:.*]] = arith.mulf %[[QE]], %[[P1]]
// CHECK: %[[E2:.*]] = arith.addi %[[REST]]
// CHECK: %[[F2:.*]] = arith.shli %[[E2]]
// CHECK: %[[P2:.*]] = arith.bitcast %[[F2]] : vector<8xi64> to vector<8xf64>
// CHECK: %[[POS:.*]] = arith.mulf %[[S1]], %[[P2]]
// CHECK: %[[NEG:.*]] = arith.subf %{{.*}}, %[[POS]]
// CHECK: %[[ISNEG:.*]] = arith.cmpf olt, %[[Z]], %{{.*}}
// CHECK: %[[Y:.*]] = arith.select %[[ISNEG]], %[[NEG]], %[[POS]]
// CHECK: return %[[Y]]
// CHECK-NOT: math.erfc
func.func @erfc_f64(%z: vector<8xf64>) -> vector<8xf64> {
  %y = math.erfc %z fastmath<afn> : vector<8xf64>
  return %y : vector<8xf64>
}

// Without afn (f64 gelu's, bcast.erfc's; nnan alone is not afn), on f32
// vectors and on scalars, math.erfc stays (libmvec and libm compute it).
// CHECK-LABEL: func @kept
// CHECK: math.erfc %{{.*}} : vector<8xf64>
// CHECK: math.erfc %{{.*}} fastmath<afn> : vector<16xf32>
// CHECK: math.erfc %{{.*}} fastmath<afn> : f64
// CHECK: math.erfc %{{.*}} fastmath<nnan> : vector<4xf64>
// CHECK-NOT: math.fma
func.func @kept(%x: vector<8xf64>, %y: vector<16xf32>, %s: f64,
                %v: vector<4xf64>) -> (vector<8xf64>, vector<16xf32>, f64, vector<4xf64>) {
  %a = math.erfc %x : vector<8xf64>
  %b = math.erfc %y fastmath<afn> : vector<16xf32>
  %c = math.erfc %s fastmath<afn> : f64
  %d = math.erfc %v fastmath<nnan> : vector<4xf64>
  return %a, %b, %c, %d : vector<8xf64>, vector<16xf32>, f64, vector<4xf64>
}

// `fast` includes afn.
// CHECK-LABEL: func @fast
// CHECK-NOT: math.erfc
// CHECK: arith.divf
// CHECK: return
func.func @fast(%x: vector<4xf64>) -> vector<4xf64> {
  %y = math.erfc %x fastmath<fast> : vector<4xf64>
  return %y : vector<4xf64>
}
