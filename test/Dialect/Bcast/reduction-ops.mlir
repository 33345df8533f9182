// Round trip of the reductions, softmax and sum_to_size in the custom form,
// and again through the generic form, with the result types the verifier
// requires (the valid neighbours of reduction-invalid.mlir): dims absent,
// negative and several, keepdim, rank 0, PyTorch's result element types,
// and `?` sizes refined or kept.
// RUN: bcast-opt %s | bcast-opt | FileCheck %s
// RUN: bcast-opt %s -mlir-print-op-generic | bcast-opt | FileCheck %s

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<4x3xf32>, %i: tensor<4x3xi32>, %b: tensor<4x3xi1>, %u: tensor<4x3xui8>, %w: tensor<4x3xui32>, %h: tensor<4x3xf16>) {
  // CHECK: bcast.sum %{{.*}} {dims = array<i64: 1>, keepdim = true} : (tensor<4x3xf32>) -> tensor<4x1xf32>
  %0 = bcast.sum %x {dims = array<i64: 1>, keepdim = true} : (tensor<4x3xf32>) -> tensor<4x1xf32>
  // CHECK: bcast.sum %{{.*}} : (tensor<4x3xi32>) -> tensor<i64>
  %1 = bcast.sum %i : (tensor<4x3xi32>) -> tensor<i64>
  // CHECK: bcast.sum %{{.*}} {dims = array<i64: -1>} : (tensor<4x3xi1>) -> tensor<4xi64>
  %2 = bcast.sum %b {dims = array<i64: -1>} : (tensor<4x3xi1>) -> tensor<4xi64>
  // CHECK: bcast.prod %{{.*}} {dims = array<i64: 0>} : (tensor<4x3xui8>) -> tensor<3xi64>
  %3 = bcast.prod %u {dims = array<i64: 0>} : (tensor<4x3xui8>) -> tensor<3xi64>
  // CHECK: bcast.sum %{{.*}} : (tensor<4x3xui32>) -> tensor<ui64>
  %4 = bcast.sum %w : (tensor<4x3xui32>) -> tensor<ui64>
  // CHECK: bcast.sum %{{.*}} : (tensor<4x3xf16>) -> tensor<f16>
  %5 = bcast.sum %h : (tensor<4x3xf16>) -> tensor<f16>
  // CHECK: bcast.mean %{{.*}} {dims = array<i64: 0, 1>, keepdim = true} : (tensor<4x3xf32>) -> tensor<1x1xf32>
  %6 = bcast.mean %x {dims = array<i64: 0, 1>, keepdim = true} : (tensor<4x3xf32>) -> tensor<1x1xf32>
  // CHECK: bcast.amax %{{.*}} {dims = array<i64: 1>} : (tensor<4x3xui8>) -> tensor<4xui8>
  %7 = bcast.amax %u {dims = array<i64: 1>} : (tensor<4x3xui8>) -> tensor<4xui8>
  // CHECK: bcast.amin %{{.*}} : (tensor<4x3xi1>) -> tensor<i1>
  %8 = bcast.amin %b : (tensor<4x3xi1>) -> tensor<i1>
  // CHECK: bcast.any %{{.*}} {dims = array<i64: 0>} : (tensor<4x3xf32>) -> tensor<3xi1>
  %9 = bcast.any %x {dims = array<i64: 0>} : (tensor<4x3xf32>) -> tensor<3xi1>
  // CHECK: bcast.all %{{.*}} : (tensor<4x3xui8>) -> tensor<ui8>
  %10 = bcast.all %u : (tensor<4x3xui8>) -> tensor<ui8>
  // CHECK: bcast.logsumexp %{{.*}} {dims = array<i64: 1>} : (tensor<4x3xi32>) -> tensor<4xf32>
  %11 = bcast.logsumexp %i {dims = array<i64: 1>} : (tensor<4x3xi32>) -> tensor<4xf32>
  // CHECK: bcast.var %{{.*}} {correction = 0 : i64, dims = array<i64: 1>} : (tensor<4x3xf16>) -> tensor<4xf16>
  %12 = bcast.var %h {correction = 0 : i64, dims = array<i64: 1>} : (tensor<4x3xf16>) -> tensor<4xf16>
  // CHECK: bcast.std %{{.*}} : (tensor<4x3xf32>) -> tensor<f32>
  %13 = bcast.std %x : (tensor<4x3xf32>) -> tensor<f32>
  // CHECK: bcast.argmax %{{.*}} {dim = 1 : i64, keepdim = true} : (tensor<4x3xf32>) -> tensor<4x1xi64>
  %14 = bcast.argmax %x {dim = 1 : i64, keepdim = true} : (tensor<4x3xf32>) -> tensor<4x1xi64>
  // CHECK: bcast.argmin %{{.*}} {keepdim = true} : (tensor<4x3xui8>) -> tensor<1x1xi64>
  %15 = bcast.argmin %u {keepdim = true} : (tensor<4x3xui8>) -> tensor<1x1xi64>
  // CHECK: bcast.argmax %{{.*}} : (tensor<4x3xi32>) -> tensor<i64>
  %16 = bcast.argmax %i : (tensor<4x3xi32>) -> tensor<i64>
  return
}

// CHECK-LABEL: func.func @rank0_and_dynamic
func.func @rank0_and_dynamic(%s: tensor<f32>, %d: tensor<?x?xf32>, %e: tensor<0x3xf32>) {
  // CHECK: bcast.sum %{{.*}} {dims = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  %0 = bcast.sum %s {dims = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  // CHECK: bcast.amax %{{.*}} {dims = array<i64: -1>, keepdim = true} : (tensor<f32>) -> tensor<f32>
  %1 = bcast.amax %s {dims = array<i64: -1>, keepdim = true} : (tensor<f32>) -> tensor<f32>
  // CHECK: bcast.argmax %{{.*}} {dim = 0 : i64} : (tensor<f32>) -> tensor<i64>
  %2 = bcast.argmax %s {dim = 0 : i64} : (tensor<f32>) -> tensor<i64>
  // CHECK: bcast.sum %{{.*}} {dims = array<i64: 1>, keepdim = true} : (tensor<?x?xf32>) -> tensor<?x1xf32>
  %3 = bcast.sum %d {dims = array<i64: 1>, keepdim = true} : (tensor<?x?xf32>) -> tensor<?x1xf32>
  // A `?` refined to a static size (checked at run time), and a static 1
  // left as `?`.
  // CHECK: bcast.amax %{{.*}} {dims = array<i64: 1>, keepdim = true} : (tensor<?x?xf32>) -> tensor<8x?xf32>
  %4 = bcast.amax %d {dims = array<i64: 1>, keepdim = true} : (tensor<?x?xf32>) -> tensor<8x?xf32>
  // Empty reductions that are defined: sum 0, amax over a non-empty dim.
  // CHECK: bcast.sum %{{.*}} {dims = array<i64: 0>} : (tensor<0x3xf32>) -> tensor<3xf32>
  %5 = bcast.sum %e {dims = array<i64: 0>} : (tensor<0x3xf32>) -> tensor<3xf32>
  // CHECK: bcast.amax %{{.*}} {dims = array<i64: 1>} : (tensor<0x3xf32>) -> tensor<0xf32>
  %6 = bcast.amax %e {dims = array<i64: 1>} : (tensor<0x3xf32>) -> tensor<0xf32>
  return
}

// CHECK-LABEL: func.func @softmax_and_sum_to_size
func.func @softmax_and_sum_to_size(%x: tensor<4x3xf32>, %h: tensor<2x3xbf16>, %s: tensor<f64>, %g: tensor<8x16x32xf32>, %d: tensor<?x?xi32>) {
  // CHECK: bcast.softmax %{{.*}} {dim = -1 : i64} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %0 = bcast.softmax %x {dim = -1 : i64} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  // CHECK: bcast.log_softmax %{{.*}} {dim = 0 : i64} : (tensor<2x3xbf16>) -> tensor<2x3xbf16>
  %1 = bcast.log_softmax %h {dim = 0 : i64} : (tensor<2x3xbf16>) -> tensor<2x3xbf16>
  // CHECK: bcast.softmax %{{.*}} {dim = -1 : i64} : (tensor<f64>) -> tensor<f64>
  %2 = bcast.softmax %s {dim = -1 : i64} : (tensor<f64>) -> tensor<f64>
  // CHECK: bcast.sum_to_size %{{.*}} : (tensor<8x16x32xf32>) -> tensor<16x1xf32>
  %3 = bcast.sum_to_size %g : (tensor<8x16x32xf32>) -> tensor<16x1xf32>
  // CHECK: bcast.sum_to_size %{{.*}} : (tensor<8x16x32xf32>) -> tensor<f32>
  %4 = bcast.sum_to_size %g : (tensor<8x16x32xf32>) -> tensor<f32>
  // CHECK: bcast.sum_to_size %{{.*}} : (tensor<?x?xi32>) -> tensor<1x5xi32>
  %5 = bcast.sum_to_size %d : (tensor<?x?xi32>) -> tensor<1x5xi32>
  // CHECK: bcast.sum_to_size %{{.*}} : (tensor<8x16x32xf32>) -> tensor<?x32xf32>
  %6 = bcast.sum_to_size %g : (tensor<8x16x32xf32>) -> tensor<?x32xf32>
  // A target 1 over a dynamic size: the sum's type or the input's.
  // CHECK: bcast.sum_to_size %{{.*}} : (tensor<?x?xi32>) -> tensor<1x5xi64>
  %7 = bcast.sum_to_size %d : (tensor<?x?xi32>) -> tensor<1x5xi64>
  return
}

// sum_to_size is a sum where it sums (bool and integers give i64, ui16
// ui64), and keeps the type where it sums nothing.
// CHECK-LABEL: func.func @sum_to_size_dtypes
func.func @sum_to_size_dtypes(%b: tensor<2x3xi1>, %i: tensor<1x3xi8>, %u: tensor<2x3xui16>, %e: tensor<i1>) {
  // CHECK: bcast.sum_to_size %{{.*}} : (tensor<2x3xi1>) -> tensor<1x3xi64>
  %0 = bcast.sum_to_size %b : (tensor<2x3xi1>) -> tensor<1x3xi64>
  // CHECK: bcast.sum_to_size %{{.*}} : (tensor<2x3xi1>) -> tensor<2x3xi1>
  %1 = bcast.sum_to_size %b : (tensor<2x3xi1>) -> tensor<2x3xi1>
  // CHECK: bcast.sum_to_size %{{.*}} : (tensor<1x3xi8>) -> tensor<1x3xi8>
  %2 = bcast.sum_to_size %i : (tensor<1x3xi8>) -> tensor<1x3xi8>
  // CHECK: bcast.sum_to_size %{{.*}} : (tensor<1x3xi8>) -> tensor<3xi64>
  %3 = bcast.sum_to_size %i : (tensor<1x3xi8>) -> tensor<3xi64>
  // CHECK: bcast.sum_to_size %{{.*}} : (tensor<2x3xui16>) -> tensor<3xui64>
  %4 = bcast.sum_to_size %u : (tensor<2x3xui16>) -> tensor<3xui64>
  // CHECK: bcast.sum_to_size %{{.*}} : (tensor<i1>) -> tensor<i64>
  %5 = bcast.sum_to_size %e : (tensor<i1>) -> tensor<i64>
  return
}

// any and all of ui8 give ui8 (PyTorch 1.13's uint8), of the rest i1.
// CHECK-LABEL: func.func @any_all_dtypes
func.func @any_all_dtypes(%u: tensor<4x3xui8>, %i: tensor<4x3xi8>) {
  // CHECK: bcast.any %{{.*}} {dims = array<i64: 1>} : (tensor<4x3xui8>) -> tensor<4xui8>
  %0 = bcast.any %u {dims = array<i64: 1>} : (tensor<4x3xui8>) -> tensor<4xui8>
  // CHECK: bcast.all %{{.*}} : (tensor<4x3xui8>) -> tensor<ui8>
  %1 = bcast.all %u : (tensor<4x3xui8>) -> tensor<ui8>
  // CHECK: bcast.any %{{.*}} : (tensor<4x3xi8>) -> tensor<i1>
  %2 = bcast.any %i : (tensor<4x3xi8>) -> tensor<i1>
  return
}

// dtype: the input converted first; the result of dtype.
// CHECK-LABEL: func.func @dtype
func.func @dtype(%i: tensor<4x3xi8>, %f: tensor<4x3xf32>, %h: tensor<4x3xf16>) {
  // CHECK: bcast.sum %{{.*}} {dtype = f16} : (tensor<4x3xi8>) -> tensor<f16>
  %0 = bcast.sum %i {dtype = f16} : (tensor<4x3xi8>) -> tensor<f16>
  // CHECK: bcast.sum %{{.*}} {dims = array<i64: 1>, dtype = i8} : (tensor<4x3xi8>) -> tensor<4xi8>
  %1 = bcast.sum %i {dims = array<i64: 1>, dtype = i8} : (tensor<4x3xi8>) -> tensor<4xi8>
  // CHECK: bcast.mean %{{.*}} {dtype = f32} : (tensor<4x3xi8>) -> tensor<f32>
  %2 = bcast.mean %i {dtype = f32} : (tensor<4x3xi8>) -> tensor<f32>
  // CHECK: bcast.prod %{{.*}} {dtype = i8} : (tensor<4x3xf32>) -> tensor<i8>
  %3 = bcast.prod %f {dtype = i8} : (tensor<4x3xf32>) -> tensor<i8>
  // CHECK: bcast.softmax %{{.*}} {dim = 0 : i64, dtype = f64} : (tensor<4x3xf16>) -> tensor<4x3xf64>
  %4 = bcast.softmax %h {dim = 0 : i64, dtype = f64} : (tensor<4x3xf16>) -> tensor<4x3xf64>
  // CHECK: bcast.log_softmax %{{.*}} {dim = 1 : i64, dtype = f32} : (tensor<4x3xi8>) -> tensor<4x3xf32>
  %5 = bcast.log_softmax %i {dim = 1 : i64, dtype = f32} : (tensor<4x3xi8>) -> tensor<4x3xf32>
  return
}
