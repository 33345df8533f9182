// bcast-expand-exp: math.exp on f32 vectors becomes inline arithmetic.
// RUN: bcast-opt %s --bcast-expand-exp | FileCheck %s

// The clamp (operands ordered so that a NaN passes), n by the 1.5 * 2^23
// rounding, r with ln 2 in two parts, the degree-7 polynomial (seven FMAs),
// and 2^n as two powers of two built from n's bits.
// CHECK-LABEL: func @exp_f32
// CHECK-SAME: (%[[X:.*]]: vector<16xf32>)
// CHECK-DAG: %[[LOW:.*]] = arith.constant dense<-1.040000e+02> : vector<16xf32>
// CHECK-DAG: %[[HIGH:.*]] = arith.constant dense<8.900000e+01> : vector<16xf32>
// CHECK: %[[BELOW:.*]] = arith.cmpf ogt, %[[LOW]], %[[X]]
// CHECK: %[[C0:.*]] = arith.select %[[BELOW]], %[[LOW]], %[[X]]
// CHECK: %[[ABOVE:.*]] = arith.cmpf olt, %[[HIGH]], %[[C0]]
// CHECK: %[[C:.*]] = arith.select %[[ABOVE]], %[[HIGH]], %[[C0]]
// CHECK: %[[MAGIC:.*]] = arith.constant dense<0x4B400000> : vector<16xf32>
// CHECK: %[[T:.*]] = math.fma %[[C]], %{{.*}}, %[[MAGIC]]
// CHECK: %[[N:.*]] = arith.subf %[[T]], %[[MAGIC]]
// CHECK: %[[R0:.*]] = math.fma %[[N]], %{{.*}}, %[[C]]
// CHECK: %[[R:.*]] = math.fma %[[N]], %{{.*}}, %[[R0]]
// CHECK-COUNT-6: math.fma %{{.*}}, %[[R]], %{{.*}} : vector<16xf32>
// CHECK: %[[P:.*]] = math.fma %{{.*}}, %[[R]], %{{.*}} : vector<16xf32>
// CHECK: %[[TB:.*]] = arith.bitcast %[[T]] : vector<16xf32> to vector<16xi32>
// CHECK: %[[MB:.*]] = arith.bitcast %[[MAGIC]] : vector<16xf32> to vector<16xi32>
// CHECK: %[[NB:.*]] = arith.subi %[[TB]], %[[MB]]
// CHECK: %[[HALF:.*]] = arith.shrsi %[[NB]]
// CHECK: %[[REST:.*]] = arith.subi %[[NB]], %[[HALF]]
// CHECK: %[[E1:.*]] = arith.addi %[[HALF]]
// CHECK: %[[F1:.*]] = arith.shli %[[E1]]
// CHECK: %[[P1:.*]] = arith.bitcast %[[F1]] : vector<16xi32> to vector<16xf32>
// CHECK: %[[S1:.*]] = arith.mulf %[[P]], %[[P1]]
// CHECK: %[[E2:.*]] = arith.addi %[[REST]]
// CHECK: %[[F2:.*]] = arith.shli %[[E2]]
// CHECK: %[[P2:.*]] = arith.bitcast %[[F2]] : vector<16xi32> to vector<16xf32>
// CHECK: %[[Y:.*]] = arith.mulf %[[S1]], %[[P2]]
// CHECK: return %[[Y]]
// CHECK-NOT: math.exp
func.func @exp_f32(%x: vector<16xf32>) -> vector<16xf32> {
  %y = math.exp %x : vector<16xf32>
  return %y : vector<16xf32>
}

// f64 vectors and scalars keep math.exp (libmvec and libm compute them).
// CHECK-LABEL: func @kept
// CHECK: math.exp %{{.*}} : vector<8xf64>
// CHECK: math.exp %{{.*}} : f32
// CHECK-NOT: math.fma
func.func @kept(%x: vector<8xf64>, %s: f32) -> (vector<8xf64>, f32) {
  %y = math.exp %x : vector<8xf64>
  %z = math.exp %s : f32
  return %y, %z : vector<8xf64>, f32
}
