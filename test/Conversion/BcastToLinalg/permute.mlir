// bcast.permute to linalg: alone, a generic whose input map is the
// permutation (a copy only where nothing reads through it); read by an
// element-wise op, fused into that op's generic (the consumer reads the
// source through the permuted map, no tensor of the permuted shape); read
// by bcast.matmul, never a generic of its own: the matmul generic reads the
// permute's source through the composed map, on either operand, for every
// element type, and with `?` batch sizes (the stride-0 view is of the
// source).
// RUN: bcast-opt %s --convert-bcast-to-linalg -cse -mlir-print-local-scope -split-input-file | FileCheck %s
// RUN: bcast-opt %s --bcast-to-linalg -cse -mlir-print-local-scope -split-input-file | FileCheck %s --check-prefix=FUSED

// Result dim i is x's dim dims[i]: x (2x3x4) is read at (d2, d0, d1).
// CHECK-LABEL: func @permute_alone
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x4x2xf32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[E]] : tensor<3x4x2xf32>)
// CHECK-NOT: bcast.permute
func.func @permute_alone(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  %0 = bcast.permute %x {dims = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  return %0 : tensor<3x4x2xf32>
}

// -----

// `?` sizes move with their dim; unsigned elements cross as signless.
// CHECK-LABEL: func @permute_dynamic_unsigned
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xui8>)
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %[[C0]] : tensor<?x3xui8>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<3x?xi8>
// CHECK: %[[S:.*]] = builtin.unrealized_conversion_cast %[[X]] : tensor<?x3xui8> to tensor<?x3xi8>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME: ins(%[[S]] : tensor<?x3xi8>) outs(%[[E]] : tensor<3x?xi8>)
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : tensor<3x?xi8> to tensor<3x?xui8>
func.func @permute_dynamic_unsigned(%x: tensor<?x3xui8>) -> tensor<3x?xui8> {
  %0 = bcast.permute %x {dims = array<i64: 1, 0>} : (tensor<?x3xui8>) -> tensor<3x?xui8>
  return %0 : tensor<3x?xui8>
}

// -----

// An element-wise consumer reads x through the permuted map: after fusion,
// one generic, and no tensor of x's permuted shape.
// FUSED-LABEL: func @elementwise_reads_through
// FUSED-SAME: (%[[X:.*]]: tensor<4x3xf32>, %[[Y:.*]]: tensor<3x4xf32>)
// FUSED: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// FUSED-SAME: ins(%[[X]], %[[Y]] : tensor<4x3xf32>, tensor<3x4xf32>)
// FUSED: arith.addf
// FUSED-NOT: linalg.generic
func.func @elementwise_reads_through(%x: tensor<4x3xf32>, %y: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %t = bcast.permute %x {dims = array<i64: 1, 0>} : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %r = bcast.add %t, %y : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

// q @ k.transpose(-1, -2): the loops are (b, h, m, k, n); k is read at
// (b, h, n, k). No generic of the permute, no tensor of k's transposed
// shape.
// CHECK-LABEL: func @matmul_permuted_rhs
// CHECK-SAME: (%[[Q:.*]]: tensor<8x12x128x64xf32>, %[[K:.*]]: tensor<8x12x128x64xf32>)
// CHECK-NOT: tensor<8x12x64x128xf32>
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>]
// CHECK-SAME: ins(%[[Q]], %[[K]] : tensor<8x12x128x64xf32>, tensor<8x12x128x64xf32>)
// CHECK-SAME: bcast.matmul
// CHECK-NOT: tensor<8x12x64x128xf32>
// CHECK-NOT: bcast.permute
// FUSED-LABEL: func @matmul_permuted_rhs
// FUSED-NOT: tensor<8x12x64x128xf32>
// FUSED: linalg.generic
// FUSED-SAME: affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
// FUSED-NOT: tensor<8x12x64x128xf32>
func.func @matmul_permuted_rhs(%q: tensor<8x12x128x64xf32>, %k: tensor<8x12x128x64xf32>) -> tensor<8x12x128x128xf32> {
  %kt = bcast.permute %k {dims = array<i64: 0, 1, 3, 2>} : (tensor<8x12x128x64xf32>) -> tensor<8x12x64x128xf32>
  %s = bcast.matmul %q, %kt : (tensor<8x12x128x64xf32>, tensor<8x12x64x128xf32>) -> tensor<8x12x128x128xf32>
  return %s : tensor<8x12x128x128xf32>
}

// -----

// a.T @ b, integers (the loops' route): a is read at (k, m).
// CHECK-LABEL: func @matmul_permuted_lhs_i32
// CHECK-SAME: (%[[A:.*]]: tensor<3x4xi32>, %[[B:.*]]: tensor<3x5xi32>)
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>]
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<3x4xi32>, tensor<3x5xi32>)
// CHECK: arith.muli
// CHECK-NOT: bcast.permute
func.func @matmul_permuted_lhs_i32(%a: tensor<3x4xi32>, %b: tensor<3x5xi32>) -> tensor<4x5xi32> {
  %at = bcast.permute %a {dims = array<i64: 1, 0>} : (tensor<3x4xi32>) -> tensor<4x3xi32>
  %r = bcast.matmul %at, %b : (tensor<4x3xi32>, tensor<3x5xi32>) -> tensor<4x5xi32>
  return %r : tensor<4x5xi32>
}

// -----

// One permute read by both operands (x.T @ x.T): the source twice.
// CHECK-LABEL: func @matmul_same_permute_twice
// CHECK-SAME: (%[[X:.*]]: tensor<3x3xf64>)
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>]
// CHECK-SAME: ins(%[[X]], %[[X]] : tensor<3x3xf64>, tensor<3x3xf64>)
// CHECK-NOT: bcast.permute
func.func @matmul_same_permute_twice(%x: tensor<3x3xf64>) -> tensor<3x3xf64> {
  %t = bcast.permute %x {dims = array<i64: 1, 0>} : (tensor<3x3xf64>) -> tensor<3x3xf64>
  %r = bcast.matmul %t, %t : (tensor<3x3xf64>, tensor<3x3xf64>) -> tensor<3x3xf64>
  return %r : tensor<3x3xf64>
}

// -----

// A permute read by a matmul and by an element-wise op is a generic of its
// own (the matmul reads its result).
// CHECK-LABEL: func @permute_shared_with_elementwise
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>, %[[Y:.*]]: tensor<4x5xf32>)
// CHECK: %[[T:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME: ins(%[[X]] : tensor<4x3xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[T]], %[[Y]] : tensor<3x4xf32>, tensor<4x5xf32>)
// CHECK-SAME: bcast.matmul
// CHECK-NOT: bcast.permute
func.func @permute_shared_with_elementwise(%x: tensor<4x3xf32>, %y: tensor<4x5xf32>) -> (tensor<3x5xf32>, tensor<3x4xf32>) {
  %t = bcast.permute %x {dims = array<i64: 1, 0>} : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %r = bcast.matmul %t, %y : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %e = bcast.exp %t : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %r, %e : tensor<3x5xf32>, tensor<3x4xf32>
}

// -----

// `?` batch sizes under the numpy policy: the stride-0 view is of k itself,
// its dims in k's order (b, h, s, d), the batch ones given the result's.
// CHECK-LABEL: func @matmul_permuted_rhs_dynamic
// CHECK-SAME: (%[[Q:.*]]: tensor<?x?x?x64xf32>, %[[K:.*]]: tensor<?x?x?x64xf32>)
// CHECK: %[[V:.*]] = bcast.expand_view %[[K]][%{{.*}}, %{{.*}}, %{{.*}}] : tensor<?x?x?x64xf32>
// CHECK: linalg.generic
// CHECK-SAME: affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
// CHECK-SAME: ins(%{{.*}}, %[[V]] : tensor<?x?x?x64xf32>, tensor<?x?x?x64xf32>)
// CHECK-NOT: bcast.permute
func.func @matmul_permuted_rhs_dynamic(%q: tensor<?x?x?x64xf32>, %k: tensor<?x?x?x64xf32>) -> tensor<?x?x?x?xf32> {
  %kt = bcast.permute %k {dims = array<i64: 0, 1, 3, 2>} : (tensor<?x?x?x64xf32>) -> tensor<?x?x64x?xf32>
  %s = bcast.matmul %q, %kt : (tensor<?x?x?x64xf32>, tensor<?x?x64x?xf32>) -> tensor<?x?x?x?xf32>
  return %s : tensor<?x?x?x?xf32>
}
