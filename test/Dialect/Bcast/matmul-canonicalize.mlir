// Folding of bcast.matmul on small constants: exact for integers (wrapping
// in the element width, as PyTorch's products do), f32 and bf16 summed in
// f64 and rounded once, f64 left to run time; zeros whatever the operands
// where the contracted size is 0. Values derived by hand.
// RUN: bcast-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @mm_i32
// CHECK: arith.constant dense<{{\[}}[19, 22], [43, 50]]> : tensor<2x2xi32>
// CHECK-NOT: bcast.matmul
func.func @mm_i32() -> tensor<2x2xi32> {
  %a = arith.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %b = arith.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  %0 = bcast.matmul %a, %b : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

// CHECK-LABEL: func.func @dot_f32
// CHECK: arith.constant dense<3.200000e+01> : tensor<f32>
func.func @dot_f32() -> tensor<f32> {
  %a = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = arith.constant dense<[4.0, 5.0, 6.0]> : tensor<3xf32>
  %0 = bcast.matmul %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// 1-D rhs: a column, removed from the result.
// CHECK-LABEL: func.func @mv_i64
// CHECK: arith.constant dense<[-1, 4]> : tensor<2xi64>
func.func @mv_i64() -> tensor<2xi64> {
  %a = arith.constant dense<[[1, -1], [2, 1]]> : tensor<2x2xi64>
  %b = arith.constant dense<[1, 2]> : tensor<2xi64>
  %0 = bcast.matmul %a, %b : (tensor<2x2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// 1-D lhs: a row, removed from the result.
// CHECK-LABEL: func.func @vm_i16
// CHECK: arith.constant dense<[7, 10]> : tensor<2xi16>
func.func @vm_i16() -> tensor<2xi16> {
  %a = arith.constant dense<[1, 2]> : tensor<2xi16>
  %b = arith.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi16>
  %0 = bcast.matmul %a, %b : (tensor<2xi16>, tensor<2x2xi16>) -> tensor<2xi16>
  return %0 : tensor<2xi16>
}

// -----

// 100 * 2 + 100 * 1 = 300 wraps to 44 in i8 (torch.matmul gives 44).
// CHECK-LABEL: func.func @wrap_i8
// CHECK: arith.constant dense<44> : tensor<i8>
func.func @wrap_i8() -> tensor<i8> {
  %a = arith.constant dense<[100, 100]> : tensor<2xi8>
  %b = arith.constant dense<[2, 1]> : tensor<2xi8>
  %0 = bcast.matmul %a, %b : (tensor<2xi8>, tensor<2xi8>) -> tensor<i8>
  return %0 : tensor<i8>
}

// -----

// 200 * 2 + 100 = 500 wraps to 244 in ui8 (torch.matmul gives 244).
// CHECK-LABEL: func.func @wrap_ui8
// CHECK: arith.constant dense<244> : tensor<ui8>
func.func @wrap_ui8() -> tensor<ui8> {
  %a = arith.constant dense<[200, 100]> : tensor<2xui8>
  %b = arith.constant dense<[2, 1]> : tensor<2xui8>
  %0 = bcast.matmul %a, %b : (tensor<2xui8>, tensor<2xui8>) -> tensor<ui8>
  return %0 : tensor<ui8>
}

// -----

// Batch dims that broadcast on both sides: result[i][j] = a[i] . b[j].
// CHECK-LABEL: func.func @batch_broadcast
// CHECK: arith.constant dense<{{\[\[\[\[1\]\], \[\[2\]\], \[\[3\]\]\], \[\[\[3\]\], \[\[4\]\], \[\[7\]\]\]\]}}> : tensor<2x3x1x1xi32>
func.func @batch_broadcast() -> tensor<2x3x1x1xi32> {
  %a = arith.constant dense<[[[[1, 2]]], [[[3, 4]]]]> : tensor<2x1x1x2xi32>
  %b = arith.constant dense<[[[1], [0]], [[0], [1]], [[1], [1]]]> : tensor<3x2x1xi32>
  %0 = bcast.matmul %a, %b : (tensor<2x1x1x2xi32>, tensor<3x2x1xi32>) -> tensor<2x3x1x1xi32>
  return %0 : tensor<2x3x1x1xi32>
}

// -----

// Summed in f64 and rounded once: 1e8 + 1 - 1e8 is 1 (an f32 running sum
// would lose the 1).
// CHECK-LABEL: func.func @f32_rounded_once
// CHECK: arith.constant dense<1.000000e+00> : tensor<f32>
func.func @f32_rounded_once() -> tensor<f32> {
  %a = arith.constant dense<[1.0e8, 1.0, -1.0e8]> : tensor<3xf32>
  %b = arith.constant dense<1.0> : tensor<3xf32>
  %0 = bcast.matmul %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @bf16
// CHECK: arith.constant dense<1.100000e+01> : tensor<bf16>
func.func @bf16() -> tensor<bf16> {
  %a = arith.constant dense<[1.0, 2.0]> : tensor<2xbf16>
  %b = arith.constant dense<[3.0, 4.0]> : tensor<2xbf16>
  %0 = bcast.matmul %a, %b : (tensor<2xbf16>, tensor<2xbf16>) -> tensor<bf16>
  return %0 : tensor<bf16>
}

// -----

// A contracted size of 0 gives zeros, whatever the operands.
// CHECK-LABEL: func.func @contracted_zero
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK: return %[[Z]]
func.func @contracted_zero(%a: tensor<2x0xf32>, %b: tensor<0x3xf32>) -> tensor<2x3xf32> {
  %0 = bcast.matmul %a, %b : (tensor<2x0xf32>, tensor<0x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// f64 products are left to run time.
// CHECK-LABEL: func.func @f64_not_folded
// CHECK: bcast.matmul
func.func @f64_not_folded() -> tensor<f64> {
  %a = arith.constant dense<[1.0, 2.0]> : tensor<2xf64>
  %0 = bcast.matmul %a, %a : (tensor<2xf64>, tensor<2xf64>) -> tensor<f64>
  return %0 : tensor<f64>
}

// -----

// Not folded: a result of more than 1024 elements, an operand that is not
// a constant.
// CHECK-LABEL: func.func @not_folded
// CHECK: bcast.matmul
// CHECK: bcast.matmul
func.func @not_folded(%x: tensor<2x2xi32>) -> (tensor<64x64xi32>, tensor<2x2xi32>) {
  %a = arith.constant dense<1> : tensor<64x2xi32>
  %b = arith.constant dense<1> : tensor<2x64xi32>
  %0 = bcast.matmul %a, %b : (tensor<64x2xi32>, tensor<2x64xi32>) -> tensor<64x64xi32>
  %c = arith.constant dense<1> : tensor<2x2xi32>
  %1 = bcast.matmul %x, %c : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  return %0, %1 : tensor<64x64xi32>, tensor<2x2xi32>
}
