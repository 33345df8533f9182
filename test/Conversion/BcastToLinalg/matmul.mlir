// bcast.matmul to one linalg.generic over (batch..., m, k, n): each operand
// read through a map that drops the batch dims it lacks and gives 0 where
// it is statically 1 (never a copy of the broadcast operand), a zero-filled
// init, 1-D operands without m or n; bf16 accumulated in f32 and rounded
// once; `?` sizes checked at run time under both policies.
// RUN: bcast-opt %s --convert-bcast-to-linalg -cse -mlir-print-local-scope -split-input-file | FileCheck %s --check-prefixes=CHECK,NUMPY
// RUN: bcast-opt %s --convert-bcast-to-linalg=broadcast-policy=static -cse -mlir-print-local-scope -split-input-file | FileCheck %s --check-prefixes=CHECK,STATIC

// The lhs's batch dim of size 1 faces the rhs's 5: index 0, no copy; the
// rhs lacks the leading batch dim: dropped from its map.
// CHECK-LABEL: func @batch_broadcast_both_sides
// CHECK-SAME: (%[[A:.*]]: tensor<2x1x4x3xf32>, %[[B:.*]]: tensor<5x3x6xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x5x4x6xf32>
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<2x5x4x6xf32>)
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d1, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>]
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<2x1x4x3xf32>, tensor<5x3x6xf32>) outs(%[[Z]] : tensor<2x5x4x6xf32>)
// CHECK-SAME: bcast.matmul
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK: linalg.yield %[[S]]
// Never a tensor of either operand's expanded shape:
// CHECK-NOT: tensor<2x5x4x3xf32>
// CHECK-NOT: tensor<2x5x3x6xf32>
func.func @batch_broadcast_both_sides(%a: tensor<2x1x4x3xf32>, %b: tensor<5x3x6xf32>) -> tensor<2x5x4x6xf32> {
  %r = bcast.matmul %a, %b : (tensor<2x1x4x3xf32>, tensor<5x3x6xf32>) -> tensor<2x5x4x6xf32>
  return %r : tensor<2x5x4x6xf32>
}

// -----

// 1-D operands: no m (lhs) or no n (rhs) loop. k comes before n, so that
// the innermost loop walks rhs and result rows with unit stride.
// CHECK-LABEL: func @vector_matrix
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>]
// CHECK-SAME: iterator_types = ["reduction", "parallel"]
func.func @vector_matrix(%a: tensor<3xf32>, %b: tensor<3x5xf32>) -> tensor<5xf32> {
  %r = bcast.matmul %a, %b : (tensor<3xf32>, tensor<3x5xf32>) -> tensor<5xf32>
  return %r : tensor<5xf32>
}

// -----

// The dot product: one reduction loop into a rank-0 tensor.
// CHECK-LABEL: func @dot_i32
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>]
// CHECK-SAME: iterator_types = ["reduction"]
// CHECK: arith.muli
// CHECK: arith.addi
func.func @dot_i32(%a: tensor<7xi32>, %b: tensor<7xi32>) -> tensor<i32> {
  %r = bcast.matmul %a, %b : (tensor<7xi32>, tensor<7xi32>) -> tensor<i32>
  return %r : tensor<i32>
}

// -----

// N-D lhs, 1-D rhs.
// CHECK-LABEL: func @batched_matrix_vector
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
func.func @batched_matrix_vector(%a: tensor<5x2x3xf64>, %b: tensor<3xf64>) -> tensor<5x2xf64> {
  %r = bcast.matmul %a, %b : (tensor<5x2x3xf64>, tensor<3xf64>) -> tensor<5x2xf64>
  return %r : tensor<5x2xf64>
}

// -----

// bf16 accumulates in f32 and is rounded once.
// CHECK-LABEL: func @bf16_in_f32
// CHECK: %[[ACC:.*]] = linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[ACC]] : tensor<2x4xf32>) outs(%{{.*}} : tensor<2x4xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @bf16_in_f32(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>) -> tensor<2x4xbf16> {
  %r = bcast.matmul %a, %b : (tensor<2x3xbf16>, tensor<3x4xbf16>) -> tensor<2x4xbf16>
  return %r : tensor<2x4xbf16>
}

// -----

// ui8 computes on signless i8 (the same bits; products wrap alike).
// CHECK-LABEL: func @unsigned
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : tensor<2x3xui8> to tensor<2x3xi8>
// CHECK: linalg.generic
// CHECK: arith.muli %{{.*}}, %{{.*}} : i8
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : tensor<2x4xi8> to tensor<2x4xui8>
func.func @unsigned(%a: tensor<2x3xui8>, %b: tensor<3x4xui8>) -> tensor<2x4xui8> {
  %r = bcast.matmul %a, %b : (tensor<2x3xui8>, tensor<3x4xui8>) -> tensor<2x4xui8>
  return %r : tensor<2x4xui8>
}

// -----

// `?` batch sizes: checked at run time (trailing-most first), and under the
// numpy policy a stride-0 view where one may be 1; the contracted sizes
// after them, with both shapes in the sentence.
// CHECK-LABEL: func @dynamic
// CHECK-SAME: (%[[A:.*]]: tensor<?x4x?xf32>, %[[B:.*]]: tensor<?x?x5xf32>)
// NUMPY: bcast.runtime_check %{{.*}}, "The size of tensor a (%ld) must match the size of tensor b (%ld) at non-singleton dimension 0"
// STATIC: bcast.runtime_check %{{.*}}, "Incompatible vectorized shapes for input 0 and axis 0. Input 0 has shape 1, but is not statically known to have shape 1, and thus not broadcastable. Input 0 has size %ld and input 1 has size %ld."
// STATIC: bcast.runtime_check %{{.*}}, "Incompatible vectorized shapes for input 1 and axis 0. Input 1 has shape 1, but is not statically known to have shape 1, and thus not broadcastable. Input 1 has size %ld and input 0 has size %ld."
// STATIC: bcast.runtime_check %{{.*}}, "Vectorized input 1 has an incompatible shape in axis 0. Input 1 has size %ld and input 0 has size %ld."
// CHECK: bcast.runtime_check %{{.*}}, "mat1 and mat2 shapes cannot be multiplied (%ldx%ldx%ld and %ldx%ldx%ld)"
// CHECK: %[[VA:.*]] = bcast.expand_view %[[A]]
// CHECK: %[[VB:.*]] = bcast.expand_view %[[B]]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[VA]], %[[VB]] :
func.func @dynamic(%a: tensor<?x4x?xf32>, %b: tensor<?x?x5xf32>) -> tensor<?x4x5xf32> {
  %r = bcast.matmul %a, %b : (tensor<?x4x?xf32>, tensor<?x?x5xf32>) -> tensor<?x4x5xf32>
  return %r : tensor<?x4x5xf32>
}
