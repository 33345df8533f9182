// Folding of the unary ops on constants: exact ops to the run-time value,
// float functions through the C library in the compute precision (f16 in
// f32, rounded once; gelu through f64). Values checked against NumPy and
// mpmath when written.
// RUN: bcast-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func @exp_f32
// CHECK: %cst = arith.constant dense<{{\[}}1.000000e+00, 2.71828175, 3.783510e-44]> : tensor<3xf32>
// CHECK-NEXT: return %cst : tensor<3xf32>
func.func @exp_f32() -> tensor<3xf32> {
  %c = arith.constant dense<[0.0, 1.0, -100.0]> : tensor<3xf32>
  %r = bcast.exp %c : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// CHECK-LABEL: func @sqrt_int
// CHECK: %cst = arith.constant dense<{{\[}}2.000000e+00, 1.41421354]> : tensor<2xf32>
// CHECK-NEXT: return %cst : tensor<2xf32>
func.func @sqrt_int() -> tensor<2xf32> {
  %c = arith.constant dense<[4, 2]> : tensor<2xi32>
  %r = bcast.sqrt %c : (tensor<2xi32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// CHECK-LABEL: func @exp_half
// CHECK: %cst = arith.constant dense<{{\[}}2.718750e+00, 5.987200e+04]> : tensor<2xf16>
// CHECK-NEXT: return %cst : tensor<2xf16>
func.func @exp_half() -> tensor<2xf16> {
  %c = arith.constant dense<[1.0, 11.0]> : tensor<2xf16>
  %r = bcast.exp %c : (tensor<2xf16>) -> tensor<2xf16>
  return %r : tensor<2xf16>
}

// -----

// CHECK-LABEL: func @abs_neg_wrap
// CHECK: %cst = arith.constant dense<{{\[}}-128, 7]> : tensor<2xi8>
// CHECK-NEXT: %cst_0 = arith.constant dense<{{\[}}-128, -7]> : tensor<2xi8>
// CHECK-NEXT: return %cst, %cst_0 : tensor<2xi8>, tensor<2xi8>
func.func @abs_neg_wrap() -> (tensor<2xi8>, tensor<2xi8>) {
  %c = arith.constant dense<[-128, 7]> : tensor<2xi8>
  %a = bcast.abs %c : (tensor<2xi8>) -> tensor<2xi8>
  %n = bcast.neg %c : (tensor<2xi8>) -> tensor<2xi8>
  return %a, %n : tensor<2xi8>, tensor<2xi8>
}

// -----

// CHECK-LABEL: func @sign_float
// CHECK: %cst = arith.constant dense<{{\[}}0.000000e+00, 0.000000e+00, -1.000000e+00, 1.000000e+00, -1.000000e+00]> : tensor<5xf32>
// CHECK-NEXT: return %cst : tensor<5xf32>
func.func @sign_float() -> tensor<5xf32> {
  %c = arith.constant dense<[0x7FC00000, -0.0, -2.0, 3.0, 0xFF800000]> : tensor<5xf32>
  %r = bcast.sign %c : (tensor<5xf32>) -> tensor<5xf32>
  return %r : tensor<5xf32>
}

// -----

// CHECK-LABEL: func @sign_int
// CHECK: %cst = arith.constant dense<{{\[}}-1, 0, 1]> : tensor<3xi32>
// CHECK-NEXT: return %cst : tensor<3xi32>
func.func @sign_int() -> tensor<3xi32> {
  %c = arith.constant dense<[-7, 0, 9]> : tensor<3xi32>
  %r = bcast.sign %c : (tensor<3xi32>) -> tensor<3xi32>
  return %r : tensor<3xi32>
}

// -----

// CHECK-LABEL: func @rounding
// CHECK: %cst = arith.constant dense<{{\[}}0.000000e+00, 2.000000e+00, 2.000000e+00, -0.000000e+00, -3.000000e+00]> : tensor<5xf32>
// CHECK-NEXT: %cst_0 = arith.constant dense<{{\[}}0.000000e+00, 1.000000e+00, 2.000000e+00, -1.000000e+00, -3.000000e+00]> : tensor<5xf32>
// CHECK-NEXT: %cst_1 = arith.constant dense<{{\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, -0.000000e+00, -2.000000e+00]> : tensor<5xf32>
// CHECK-NEXT: %cst_2 = arith.constant dense<{{\[}}0.000000e+00, 1.000000e+00, 2.000000e+00, -0.000000e+00, -2.000000e+00]> : tensor<5xf32>
// CHECK-NEXT: return %cst, %cst_0, %cst_1, %cst_2 : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
func.func @rounding() -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) {
  %c = arith.constant dense<[0.5, 1.5, 2.5, -0.5, -2.7]> : tensor<5xf32>
  %r = bcast.round %c : (tensor<5xf32>) -> tensor<5xf32>
  %f = bcast.floor %c : (tensor<5xf32>) -> tensor<5xf32>
  %e = bcast.ceil %c : (tensor<5xf32>) -> tensor<5xf32>
  %t = bcast.trunc %c : (tensor<5xf32>) -> tensor<5xf32>
  return %r, %f, %e, %t : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
}

// -----

// CHECK-LABEL: func @relu
// CHECK: %cst = arith.constant dense<{{\[}}0x7FC00000, -0.000000e+00, 0.000000e+00, 2.000000e+00]> : tensor<4xf32>
// CHECK-NEXT: %cst_0 = arith.constant dense<{{\[}}0, 0, 4]> : tensor<3xi16>
// CHECK-NEXT: return %cst, %cst_0 : tensor<4xf32>, tensor<3xi16>
func.func @relu() -> (tensor<4xf32>, tensor<3xi16>) {
  %c = arith.constant dense<[0x7FC00000, -0.0, -1.0, 2.0]> : tensor<4xf32>
  %r = bcast.relu %c : (tensor<4xf32>) -> tensor<4xf32>
  %i = arith.constant dense<[-3, 0, 4]> : tensor<3xi16>
  %s = bcast.relu %i : (tensor<3xi16>) -> tensor<3xi16>
  return %r, %s : tensor<4xf32>, tensor<3xi16>
}

// -----

// CHECK-LABEL: func @tests
// CHECK: %cst = arith.constant dense<{{\[}}true, false, false, false]> : tensor<4xi1>
// CHECK-NEXT: %cst_0 = arith.constant dense<{{\[}}false, true, false, false]> : tensor<4xi1>
// CHECK-NEXT: %cst_1 = arith.constant dense<{{\[}}false, false, true, true]> : tensor<4xi1>
// CHECK-NEXT: %cst_2 = arith.constant dense<{{\[}}false, false, true, false]> : tensor<4xi1>
// CHECK-NEXT: %cst_3 = arith.constant dense<{{\[}}0.000000e+00, 0.000000e+00, 1.000000e+00, 0.000000e+00]> : tensor<4xf32>
// CHECK-NEXT: return %cst, %cst_0, %cst_1, %cst_2, %cst_3 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>
func.func @tests() -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>) {
  %c = arith.constant dense<[0x7FC00000, 0xFF800000, 0.0, 2.0]> : tensor<4xf32>
  %n = bcast.isnan %c : (tensor<4xf32>) -> tensor<4xi1>
  %i = bcast.isinf %c : (tensor<4xf32>) -> tensor<4xi1>
  %f = bcast.isfinite %c : (tensor<4xf32>) -> tensor<4xi1>
  %l = bcast.logical_not %c : (tensor<4xf32>) -> tensor<4xi1>
  %p = bcast.logical_not_ %c : (tensor<4xf32>) -> tensor<4xf32>
  return %n, %i, %f, %l, %p : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func @bitwise_not
// CHECK: %cst = arith.constant dense<{{\[}}-1, 127]> : tensor<2xi8>
// CHECK-NEXT: %cst_0 = arith.constant dense<{{\[}}false, true]> : tensor<2xi1>
// CHECK-NEXT: return %cst, %cst_0 : tensor<2xi8>, tensor<2xi1>
func.func @bitwise_not() -> (tensor<2xi8>, tensor<2xi1>) {
  %c = arith.constant dense<[0, -128]> : tensor<2xi8>
  %r = bcast.bitwise_not %c : (tensor<2xi8>) -> tensor<2xi8>
  %b = arith.constant dense<[true, false]> : tensor<2xi1>
  %s = bcast.bitwise_not %b : (tensor<2xi1>) -> tensor<2xi1>
  return %r, %s : tensor<2xi8>, tensor<2xi1>
}

// -----

// CHECK-LABEL: func @sigmoid_tails
// CHECK: %cst = arith.constant dense<{{\[}}8.19400869E-40, 5.000000e-01, 1.000000e+00]> : tensor<3xf32>
// CHECK-NEXT: return %cst : tensor<3xf32>
func.func @sigmoid_tails() -> tensor<3xf32> {
  %c = arith.constant dense<[-90.0, 0.0, 20.0]> : tensor<3xf32>
  %r = bcast.sigmoid %c : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// CHECK-LABEL: func @gelu
// CHECK: %cst = arith.constant dense<{{\[}}-7.61985298E-23, 0.345731229, 2.99595022]> : tensor<3xf32>
// CHECK-NEXT: %cst_0 = arith.constant dense<{{\[}}-1.20409239E-37, 3.457140e-01, 2.99636269]> : tensor<3xf32>
// CHECK-NEXT: return %cst, %cst_0 : tensor<3xf32>, tensor<3xf32>
func.func @gelu() -> (tensor<3xf32>, tensor<3xf32>) {
  %c = arith.constant dense<[-10.0, 0.5, 3.0]> : tensor<3xf32>
  %r = bcast.gelu %c : (tensor<3xf32>) -> tensor<3xf32>
  %t = bcast.gelu %c {approximate = "tanh"} : (tensor<3xf32>) -> tensor<3xf32>
  return %r, %t : tensor<3xf32>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func @exp_in_place_not_folded_for_dynamic
// CHECK: %0 = bcast.exp_ %arg0 : (tensor<?xf32>) -> tensor<?xf32>
// CHECK-NEXT: return %0 : tensor<?xf32>
func.func @exp_in_place_not_folded_for_dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = bcast.exp_ %x : (tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
