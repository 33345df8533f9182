// Round trip of bcast.permute in the custom and the generic form: every
// rank from 0, negative dims (kept as written), `?` sizes moving with their
// dim, and element types of every kind.
// RUN: bcast-opt %s | bcast-opt | FileCheck %s
// RUN: bcast-opt %s --mlir-print-op-generic | bcast-opt | FileCheck %s
// RUN: bcast-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @permute_forms
// GENERIC-LABEL: sym_name = "permute_forms"
func.func @permute_forms(%a: tensor<8x12x128x64xf32>, %b: tensor<?x3x?xi64>, %s: tensor<f64>, %v: tensor<5xui8>, %h: tensor<2x3xbf16>, %c: tensor<2x?xi1>) {
  // CHECK: bcast.permute %{{.*}} {dims = array<i64: 0, 1, 3, 2>} : (tensor<8x12x128x64xf32>) -> tensor<8x12x64x128xf32>
  // GENERIC: "bcast.permute"(%{{.*}}) <{dims = array<i64: 0, 1, 3, 2>}> : (tensor<8x12x128x64xf32>) -> tensor<8x12x64x128xf32>
  %0 = bcast.permute %a {dims = array<i64: 0, 1, 3, 2>} : (tensor<8x12x128x64xf32>) -> tensor<8x12x64x128xf32>
  // CHECK: bcast.permute %{{.*}} {dims = array<i64: -1, 0, -2>} : (tensor<?x3x?xi64>) -> tensor<?x?x3xi64>
  %1 = bcast.permute %b {dims = array<i64: -1, 0, -2>} : (tensor<?x3x?xi64>) -> tensor<?x?x3xi64>
  // CHECK: bcast.permute %{{.*}} {dims = array<i64>} : (tensor<f64>) -> tensor<f64>
  %2 = bcast.permute %s {dims = array<i64>} : (tensor<f64>) -> tensor<f64>
  // CHECK: bcast.permute %{{.*}} {dims = array<i64: 0>} : (tensor<5xui8>) -> tensor<5xui8>
  %3 = bcast.permute %v {dims = array<i64: 0>} : (tensor<5xui8>) -> tensor<5xui8>
  // CHECK: bcast.permute %{{.*}} {dims = array<i64: 1, 0>} : (tensor<2x3xbf16>) -> tensor<3x2xbf16>
  %4 = bcast.permute %h {dims = array<i64: 1, 0>} : (tensor<2x3xbf16>) -> tensor<3x2xbf16>
  // CHECK: bcast.permute %{{.*}} {dims = array<i64: 1, 0>} : (tensor<2x?xi1>) -> tensor<?x2xi1>
  %5 = bcast.permute %c {dims = array<i64: 1, 0>} : (tensor<2x?xi1>) -> tensor<?x2xi1>
  return
}
