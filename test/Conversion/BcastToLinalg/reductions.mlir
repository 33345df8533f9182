// convert-bcast-to-linalg on the reductions: a linalg.generic with reduction
// iterators into a tensor of the accumulator type filled with the identity,
// the reduced tensor indexed through the keepdim map (reduced dims as 0) so
// that consumers broadcast it back; run-time checks for dynamic sizes.
// RUN: bcast-opt %s --convert-bcast-to-linalg --canonicalize --cse | FileCheck %s

func.func @sum_keepdim(%x: tensor<4x3xf32>) -> tensor<4x1xf32> {
  %0 = bcast.sum %x {dims = array<i64: 1>, keepdim = true} : (tensor<4x3xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}
func.func @amax_dynamic(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %0 = bcast.amax %x {dims = array<i64: 0>} : (tensor<?x?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func @sum_to_size(%x: tensor<?x3xf32>) -> tensor<4x1xf32> {
  %0 = bcast.sum_to_size %x : (tensor<?x3xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}
func.func @softmax(%x: tensor<8x16xf16>) -> tensor<8x16xf16> {
  %0 = bcast.softmax %x {dim = 1 : i64} : (tensor<8x16xf16>) -> tensor<8x16xf16>
  return %0 : tensor<8x16xf16>
}
func.func @argmax(%x: tensor<4x3xui8>) -> tensor<4xi64> {
  %0 = bcast.argmax %x {dim = 1 : i64} : (tensor<4x3xui8>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[KEEP:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[COLS:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ROWS:.*]] = affine_map<(d0, d1) -> (d0)>

// CHECK-LABEL: func.func @sum_keepdim
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<4x1xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[KEEP]]], iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<4x3xf32>) outs(%[[INIT]] : tensor<4x1xf32>)
// CHECK:   arith.addf

// CHECK-LABEL: func.func @amax_dynamic
// CHECK: %[[LOWEST:.*]] = arith.constant 0xFF800000 : f32
// CHECK: bcast.runtime_check %{{.*}}, "amax(): Expected reduction dim 0 to have non-zero size."
// CHECK: linalg.fill ins(%[[LOWEST]] : f32)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[COLS]]], iterator_types = ["reduction", "parallel"]}
// CHECK:   arith.maximumf

// CHECK-LABEL: func.func @sum_to_size
// CHECK: %[[DIM:.*]] = tensor.dim
// CHECK: bcast.runtime_check %{{.*}}, "size {[%ld, %ld]} is not expandable to size {[%ld, %ld]}."(%c4, %c1, %[[DIM]], %c3 : index, index, index, index)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[KEEP]]], iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<?x3xf32>) outs(%{{.*}} : tensor<4x1xf32>)

// f16 in f32: the maximum, the exponentials of x - max (reading it through
// the keepdim map) as an f32 tensor, their sum, then each exponential
// divided by it, rounded once.
// CHECK-LABEL: func.func @softmax
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} outs(%{{.*}} : tensor<8x1xf32>)
// CHECK:   arith.extf
// CHECK:   arith.maximumf
// CHECK: %[[EXP:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[KEEP]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %[[MAX]] : tensor<8x16xf16>, tensor<8x1xf32>) outs(%{{.*}} : tensor<8x16xf32>)
// CHECK:   arith.extf
// CHECK:   arith.subf
// CHECK:   math.exp
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[KEEP]]], iterator_types = ["parallel", "reduction"]} ins(%[[EXP]] : tensor<8x16xf32>)
// CHECK-NOT: math.exp
// CHECK:   arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[KEEP]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[EXP]], %[[SUM]] :
// CHECK-NOT: math.exp
// CHECK:   arith.divf
// CHECK:   arith.truncf

// Unsigned as unsigned, on signless tensors; the index of the reduced dim.
// CHECK-LABEL: func.func @argmax
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : tensor<4x3xui8> to tensor<4x3xi8>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROWS]], #[[ROWS]]], iterator_types = ["parallel", "reduction"]}
// CHECK:   arith.cmpi ugt
// CHECK:   linalg.index 1
