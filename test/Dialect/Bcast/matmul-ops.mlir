// Round trip of bcast.matmul for every rank combination (1-D, 2-D, N-D on
// each side), broadcast batch dims on either side, sizes 0 and `?`, and
// every element type it accepts, in the custom form and again through the
// generic form. The declared result types are the inferred ones (the
// verifier compares them; matmul-invalid.mlir has the rejected ones).
// RUN: bcast-opt %s | bcast-opt | FileCheck %s
// RUN: bcast-opt %s --mlir-print-op-generic | bcast-opt | FileCheck %s
// RUN: bcast-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// GENERIC: "bcast.matmul"(%{{.*}}, %{{.*}}) : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>

// CHECK-LABEL: func @ranks
func.func @ranks(%v: tensor<3xf32>, %m: tensor<4x3xf32>, %n: tensor<3x5xf32>,
                 %bl: tensor<2x4x3xf32>, %br: tensor<2x3x5xf32>) {
  // CHECK: bcast.matmul %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  %0 = bcast.matmul %v, %v : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  // CHECK: bcast.matmul %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4xf32>
  %1 = bcast.matmul %m, %v : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4xf32>
  // CHECK: bcast.matmul %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<3x5xf32>) -> tensor<5xf32>
  %2 = bcast.matmul %v, %n : (tensor<3xf32>, tensor<3x5xf32>) -> tensor<5xf32>
  // CHECK: bcast.matmul %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  %3 = bcast.matmul %m, %n : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  // CHECK: bcast.matmul %{{.*}}, %{{.*}} : (tensor<2x4x3xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  %4 = bcast.matmul %bl, %v : (tensor<2x4x3xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  // CHECK: bcast.matmul %{{.*}}, %{{.*}} : (tensor<2x4x3xf32>, tensor<3x5xf32>) -> tensor<2x4x5xf32>
  %5 = bcast.matmul %bl, %n : (tensor<2x4x3xf32>, tensor<3x5xf32>) -> tensor<2x4x5xf32>
  // CHECK: bcast.matmul %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<2x3x5xf32>) -> tensor<2x5xf32>
  %6 = bcast.matmul %v, %br : (tensor<3xf32>, tensor<2x3x5xf32>) -> tensor<2x5xf32>
  // CHECK: bcast.matmul %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<2x3x5xf32>) -> tensor<2x4x5xf32>
  %7 = bcast.matmul %m, %br : (tensor<4x3xf32>, tensor<2x3x5xf32>) -> tensor<2x4x5xf32>
  // CHECK: bcast.matmul %{{.*}}, %{{.*}} : (tensor<2x4x3xf32>, tensor<2x3x5xf32>) -> tensor<2x4x5xf32>
  %8 = bcast.matmul %bl, %br : (tensor<2x4x3xf32>, tensor<2x3x5xf32>) -> tensor<2x4x5xf32>
  return
}

// CHECK-LABEL: func @batch_broadcast
func.func @batch_broadcast(%a: tensor<2x1x4x3xf32>, %b: tensor<5x3x6xf32>,
                           %c: tensor<512x1x32x32xf32>, %d: tensor<1x512x32x32xf32>) {
  // CHECK: bcast.matmul %{{.*}}, %{{.*}} : (tensor<2x1x4x3xf32>, tensor<5x3x6xf32>) -> tensor<2x5x4x6xf32>
  %0 = bcast.matmul %a, %b : (tensor<2x1x4x3xf32>, tensor<5x3x6xf32>) -> tensor<2x5x4x6xf32>
  // CHECK: bcast.matmul %{{.*}}, %{{.*}} : (tensor<512x1x32x32xf32>, tensor<1x512x32x32xf32>) -> tensor<512x512x32x32xf32>
  %1 = bcast.matmul %c, %d : (tensor<512x1x32x32xf32>, tensor<1x512x32x32xf32>) -> tensor<512x512x32x32xf32>
  return
}

// CHECK-LABEL: func @sizes_zero
func.func @sizes_zero(%a: tensor<2x0xf32>, %b: tensor<0x3xf32>, %c: tensor<0xf32>,
                      %d: tensor<2x0x3xf32>, %e: tensor<1x3x4xf32>) {
  // CHECK: (tensor<2x0xf32>, tensor<0x3xf32>) -> tensor<2x3xf32>
  %0 = bcast.matmul %a, %b : (tensor<2x0xf32>, tensor<0x3xf32>) -> tensor<2x3xf32>
  // CHECK: (tensor<0xf32>, tensor<0xf32>) -> tensor<f32>
  %1 = bcast.matmul %c, %c : (tensor<0xf32>, tensor<0xf32>) -> tensor<f32>
  // CHECK: (tensor<2x0x3xf32>, tensor<1x3x4xf32>) -> tensor<2x0x4xf32>
  %2 = bcast.matmul %d, %e : (tensor<2x0x3xf32>, tensor<1x3x4xf32>) -> tensor<2x0x4xf32>
  return
}

// `?` sizes: inferred where they decide, refined or kept in the declared type.
// CHECK-LABEL: func @dynamic
func.func @dynamic(%a: tensor<?x4x?xf32>, %b: tensor<3x?x5xf32>, %c: tensor<?xf32>) {
  // CHECK: (tensor<?x4x?xf32>, tensor<3x?x5xf32>) -> tensor<3x4x5xf32>
  %0 = bcast.matmul %a, %b : (tensor<?x4x?xf32>, tensor<3x?x5xf32>) -> tensor<3x4x5xf32>
  // CHECK: (tensor<?x4x?xf32>, tensor<3x?x5xf32>) -> tensor<?x?x?xf32>
  %1 = bcast.matmul %a, %b : (tensor<?x4x?xf32>, tensor<3x?x5xf32>) -> tensor<?x?x?xf32>
  // CHECK: (tensor<?x4x?xf32>, tensor<?xf32>) -> tensor<?x4xf32>
  %2 = bcast.matmul %a, %c : (tensor<?x4x?xf32>, tensor<?xf32>) -> tensor<?x4xf32>
  return
}

// CHECK-LABEL: func @element_types
func.func @element_types(%f32: tensor<3x3xf32>, %f64: tensor<3x3xf64>,
                         %bf16: tensor<3x3xbf16>, %i8: tensor<3x3xi8>,
                         %i16: tensor<3x3xi16>, %i32: tensor<3x3xi32>,
                         %i64: tensor<3x3xi64>, %u8: tensor<3x3xui8>) {
  // CHECK: (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %0 = bcast.matmul %f32, %f32 : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  // CHECK: (tensor<3x3xf64>, tensor<3x3xf64>) -> tensor<3x3xf64>
  %1 = bcast.matmul %f64, %f64 : (tensor<3x3xf64>, tensor<3x3xf64>) -> tensor<3x3xf64>
  // CHECK: (tensor<3x3xbf16>, tensor<3x3xbf16>) -> tensor<3x3xbf16>
  %2 = bcast.matmul %bf16, %bf16 : (tensor<3x3xbf16>, tensor<3x3xbf16>) -> tensor<3x3xbf16>
  // CHECK: (tensor<3x3xi8>, tensor<3x3xi8>) -> tensor<3x3xi8>
  %3 = bcast.matmul %i8, %i8 : (tensor<3x3xi8>, tensor<3x3xi8>) -> tensor<3x3xi8>
  // CHECK: (tensor<3x3xi16>, tensor<3x3xi16>) -> tensor<3x3xi16>
  %4 = bcast.matmul %i16, %i16 : (tensor<3x3xi16>, tensor<3x3xi16>) -> tensor<3x3xi16>
  // CHECK: (tensor<3x3xi32>, tensor<3x3xi32>) -> tensor<3x3xi32>
  %5 = bcast.matmul %i32, %i32 : (tensor<3x3xi32>, tensor<3x3xi32>) -> tensor<3x3xi32>
  // CHECK: (tensor<3x3xi64>, tensor<3x3xi64>) -> tensor<3x3xi64>
  %6 = bcast.matmul %i64, %i64 : (tensor<3x3xi64>, tensor<3x3xi64>) -> tensor<3x3xi64>
  // CHECK: (tensor<3x3xui8>, tensor<3x3xui8>) -> tensor<3x3xui8>
  %7 = bcast.matmul %u8, %u8 : (tensor<3x3xui8>, tensor<3x3xui8>) -> tensor<3x3xui8>
  return
}
