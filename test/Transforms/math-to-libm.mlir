// bcast-math-to-libm: the math functions that convert-math-to-llvm expands
// inaccurately (expm1, log1p) or not at all (asinh, acosh, atanh, erf, erfc)
// become C library calls, one per lane of a vector; the others stay.
// RUN: bcast-opt %s --bcast-math-to-libm | FileCheck %s

// The C library's declarations.
// CHECK-DAG: func.func private @erff(f32) -> f32
// CHECK-DAG: func.func private @erfcf(f32) -> f32

// CHECK-LABEL: func @scalars
func.func @scalars(%x: f32, %y: f64) -> (f32, f32, f64, f32, f32) {
  // CHECK: call @erff(%{{.*}}) : (f32) -> f32
  %0 = math.erf %x : f32
  // CHECK: call @expm1f(%{{.*}}) : (f32) -> f32
  %1 = math.expm1 %x : f32
  // CHECK: call @log1p(%{{.*}}) : (f64) -> f64
  %2 = math.log1p %y : f64
  // CHECK: call @asinhf
  %3 = math.asinh %x : f32
  // Left to convert-math-to-llvm (an LLVM intrinsic).
  // CHECK: math.exp %{{.*}} : f32
  %4 = math.exp %x : f32
  return %0, %1, %2, %3, %4 : f32, f32, f64, f32, f32
}

// CHECK-LABEL: func @vector
func.func @vector(%v: vector<2xf32>) -> (vector<2xf32>, vector<2xf32>) {
  // CHECK-COUNT-2: call @erfcf
  // CHECK-NOT: call @erfcf
  %0 = math.erfc %v : vector<2xf32>
  // CHECK: math.tanh %{{.*}} : vector<2xf32>
  %1 = math.tanh %v : vector<2xf32>
  return %0, %1 : vector<2xf32>, vector<2xf32>
}
