// The folds of bcast.permute: the identity permutation is its operand, a
// permute of a permute is one permute (or the source, when they cancel),
// and a constant is permuted (splat or not, integers and floats).
// RUN: bcast-opt %s -canonicalize -split-input-file -mlir-print-local-scope | FileCheck %s

// CHECK-LABEL: func.func @identity
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>)
// CHECK-NOT: bcast.permute
// CHECK: return %[[X]], %[[X]]
func.func @identity(%x: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  %0 = bcast.permute %x {dims = array<i64: 0, 1>} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  %1 = bcast.permute %x {dims = array<i64: -2, -1>} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0, %1 : tensor<?x3xf32>, tensor<?x3xf32>
}

// -----

// y = x.permute(1, 2, 0) (4x5x2), z = y.permute(2, 0, 1) is x again.
// CHECK-LABEL: func.func @inverse_pair
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x5xi32>)
// CHECK-NOT: bcast.permute
// CHECK: return %[[X]]
func.func @inverse_pair(%x: tensor<2x4x5xi32>) -> tensor<2x4x5xi32> {
  %0 = bcast.permute %x {dims = array<i64: 1, 2, 0>} : (tensor<2x4x5xi32>) -> tensor<4x5x2xi32>
  %1 = bcast.permute %0 {dims = array<i64: 2, 0, 1>} : (tensor<4x5x2xi32>) -> tensor<2x4x5xi32>
  return %1 : tensor<2x4x5xi32>
}

// -----

// y = x.permute(1, 2, 0) (4x5x2); y.permute(0, 2, 1) is x.permute(1, 0, 2).
// CHECK-LABEL: func.func @composed
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x?xf32>)
// CHECK: %[[R:.*]] = bcast.permute %[[X]] {dims = array<i64: 1, 0, 2>} : (tensor<2x4x?xf32>) -> tensor<4x2x?xf32>
// CHECK-NOT: bcast.permute
// CHECK: return %[[R]]
func.func @composed(%x: tensor<2x4x?xf32>) -> tensor<4x2x?xf32> {
  %0 = bcast.permute %x {dims = array<i64: 1, 2, 0>} : (tensor<2x4x?xf32>) -> tensor<4x?x2xf32>
  %1 = bcast.permute %0 {dims = array<i64: 0, 2, 1>} : (tensor<4x?x2xf32>) -> tensor<4x2x?xf32>
  return %1 : tensor<4x2x?xf32>
}

// -----

// CHECK-LABEL: func.func @constant_2d
// CHECK: arith.constant dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi64>
// CHECK-NOT: bcast.permute
func.func @constant_2d() -> tensor<3x2xi64> {
  %c = arith.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %0 = bcast.permute %c {dims = array<i64: 1, 0>} : (tensor<2x3xi64>) -> tensor<3x2xi64>
  return %0 : tensor<3x2xi64>
}

// -----

// x[i, j, k] = 100 i + 10 j + k (2x3x2); result[a, b, c] = x[c, a, b]
// (dims = [1, 2, 0]: result dim 0 is x's dim 1, ...).
// CHECK-LABEL: func.func @constant_3d
// CHECK: arith.constant dense<{{\[}}{{\[}}[0.000000e+00, 1.000000e+02], [1.000000e+00, 1.010000e+02]], {{\[}}[1.000000e+01, 1.100000e+02], [1.100000e+01, 1.110000e+02]], {{\[}}[2.000000e+01, 1.200000e+02], [2.100000e+01, 1.210000e+02]]]> : tensor<3x2x2xf32>
func.func @constant_3d() -> tensor<3x2x2xf32> {
  %c = arith.constant dense<[[[0.0, 1.0], [10.0, 11.0], [20.0, 21.0]], [[100.0, 101.0], [110.0, 111.0], [120.0, 121.0]]]> : tensor<2x3x2xf32>
  %0 = bcast.permute %c {dims = array<i64: 1, 2, 0>} : (tensor<2x3x2xf32>) -> tensor<3x2x2xf32>
  return %0 : tensor<3x2x2xf32>
}

// -----

// CHECK-LABEL: func.func @constant_splat
// CHECK: arith.constant dense<true> : tensor<4x1x2xi1>
// CHECK-NOT: bcast.permute
func.func @constant_splat() -> tensor<4x1x2xi1> {
  %c = arith.constant dense<true> : tensor<2x4x1xi1>
  %0 = bcast.permute %c {dims = array<i64: 1, 2, 0>} : (tensor<2x4x1xi1>) -> tensor<4x1x2xi1>
  return %0 : tensor<4x1x2xi1>
}
