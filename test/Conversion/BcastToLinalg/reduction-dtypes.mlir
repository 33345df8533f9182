// convert-bcast-to-linalg on the result dtypes of issue 28: any/all of ui8
// compare each element to zero and keep the truth value as a ui8 0 or 1;
// sum_to_size of i1 that sums is an i64 sum; `dtype` converts the input
// first (as bcast.cast), then reduces in it.
// RUN: bcast-opt %s --convert-bcast-to-linalg --canonicalize --cse | FileCheck %s

// CHECK-LABEL: func.func @any_uint8
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i8
// CHECK: linalg.fill ins(%[[ZERO]] : i8)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK:   %[[NZ:.*]] = arith.cmpi ne, %{{.*}}, %[[ZERO]] : i8
// CHECK:   %[[EXT:.*]] = arith.extui %[[NZ]] : i1 to i8
// CHECK:   arith.ori %{{.*}}, %[[EXT]] : i8
// CHECK: return %{{.*}} : tensor<4xui8>
func.func @any_uint8(%x: tensor<4x3xui8>) -> tensor<4xui8> {
  %0 = bcast.any %x {dims = array<i64: 1>} : (tensor<4x3xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// CHECK-LABEL: func.func @all_uint8
// CHECK: %[[ONE:.*]] = arith.constant 1 : i8
// CHECK: linalg.fill ins(%[[ONE]] : i8)
// CHECK: linalg.generic
// CHECK:   arith.cmpi ne
// CHECK:   arith.extui %{{.*}} : i1 to i8
// CHECK:   arith.andi %{{.*}} : i8
func.func @all_uint8(%x: tensor<4x3xui8>) -> tensor<ui8> {
  %0 = bcast.all %x : (tensor<4x3xui8>) -> tensor<ui8>
  return %0 : tensor<ui8>
}

// CHECK-LABEL: func.func @sum_to_size_bool
// CHECK: linalg.fill ins(%{{.*}} : i64) outs(%{{.*}} : tensor<1x3xi64>)
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}} ins(%{{.*}} : tensor<2x3xi1>) outs(%{{.*}} : tensor<1x3xi64>)
// CHECK:   arith.extui %{{.*}} : i1 to i64
// CHECK:   arith.addi
func.func @sum_to_size_bool(%x: tensor<2x3xi1>) -> tensor<1x3xi64> {
  %0 = bcast.sum_to_size %x : (tensor<2x3xi1>) -> tensor<1x3xi64>
  return %0 : tensor<1x3xi64>
}

// CHECK-LABEL: func.func @sum_dtype
// CHECK: %[[H:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%{{.*}} : tensor<4x3xi8>) outs(%{{.*}} : tensor<4x3xf16>)
// CHECK:   arith.sitofp %{{.*}} : i8 to f16
// CHECK: %[[S:.*]] = linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]{{.*}} ins(%[[H]] : tensor<4x3xf16>) outs(%{{.*}} : tensor<f32>)
// CHECK:   arith.extf %{{.*}} : f16 to f32
// CHECK:   arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[S]] : tensor<f32>) outs(%{{.*}} : tensor<f16>)
// CHECK:   arith.truncf
func.func @sum_dtype(%x: tensor<4x3xi8>) -> tensor<f16> {
  %0 = bcast.sum %x {dtype = f16} : (tensor<4x3xi8>) -> tensor<f16>
  return %0 : tensor<f16>
}

// An i1 dtype sums as a logical or.
// CHECK-LABEL: func.func @sum_dtype_bool
// CHECK: linalg.generic
// CHECK:   arith.cmpi ne, %{{.*}} : i64
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]
// CHECK:   arith.ori %{{.*}} : i1
func.func @sum_dtype_bool(%x: tensor<5xi64>) -> tensor<i1> {
  %0 = bcast.sum %x {dtype = i1} : (tensor<5xi64>) -> tensor<i1>
  return %0 : tensor<i1>
}

// CHECK-LABEL: func.func @softmax_dtype
// CHECK: %[[D:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4x3xf16>) outs(%{{.*}} : tensor<4x3xf64>)
// CHECK:   arith.extf %{{.*}} : f16 to f64
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}} ins(%[[D]] : tensor<4x3xf64>)
// CHECK:   arith.maximumf
// CHECK: return %{{.*}} : tensor<4x3xf64>
func.func @softmax_dtype(%x: tensor<4x3xf16>) -> tensor<4x3xf64> {
  %0 = bcast.softmax %x {dim = 0 : i64, dtype = f64} : (tensor<4x3xf16>) -> tensor<4x3xf64>
  return %0 : tensor<4x3xf64>
}
