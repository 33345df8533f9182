// The strict mode: implicit rank and element-type promotions are errors, or
// warnings with warn-only=true; explicit forms pass.
// RUN: bcast-opt %s --bcast-strict -split-input-file -verify-diagnostics
// The annotations are for the first run only.
// RUN: sed s/expected-error/annotation/ %s | bcast-opt --bcast-strict=warn-only=true -split-input-file 2>&1 | FileCheck %s --check-prefix=WARN

func.func @rank_promotion(%x: tensor<4x3xf32>, %y: tensor<3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{rank promotion of tensor b from rank 1 to rank 2 is implicit; make it explicit with bcast.broadcast_to or tensor.expand_shape}}
  %r = bcast.add %x, %y : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

func.func @element_type_promotion(%x: tensor<3xf32>, %y: tensor<3xi32>) -> tensor<3xf32> {
  // expected-error @+1 {{promotion of tensor b from 'i32' to 'f32' is implicit; make it explicit with bcast.cast}}
  %r = bcast.mul %x, %y : (tensor<3xf32>, tensor<3xi32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// Both on one op; where's condition is not a value operand.
func.func @where_both(%c: tensor<2x3xi1>, %x: tensor<3xf16>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{rank promotion of tensor b from rank 1 to rank 2 is implicit}}
  // expected-error @+1 {{promotion of tensor b from 'f16' to 'f32' is implicit}}
  %r = bcast.where %c, %x, %y : (tensor<2x3xi1>, tensor<3xf16>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// True division promotes integers to f32.
func.func @true_division(%x: tensor<3xi32>, %y: tensor<3xi32>) -> tensor<3xf32> {
  // expected-error @+2 {{promotion of tensor a from 'i32' to 'f32' is implicit}}
  // expected-error @+1 {{promotion of tensor b from 'i32' to 'f32' is implicit}}
  %r = bcast.div %x, %y : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// Explicit forms, size-1 broadcasting at equal rank, and scalars (rank 0, as
// in JAX) pass.
func.func @explicit(%x: tensor<4x3xf32>, %y: tensor<3xi32>, %s: tensor<f32>, %col: tensor<4x1xf32>) -> tensor<4x3xf32> {
  %c = bcast.cast %y : (tensor<3xi32>) -> tensor<3xf32>
  %e = bcast.broadcast_to %c : tensor<3xf32> -> tensor<4x3xf32>
  %a = bcast.add %x, %e : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %b = bcast.mul %a, %col : (tensor<4x3xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
  %r = bcast.sub %b, %s : (tensor<4x3xf32>, tensor<f32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// WARN: warning: rank promotion of tensor b from rank 1 to rank 2 is implicit
// WARN: warning: promotion of tensor b from 'i32' to 'f32' is implicit
// WARN-NOT: {{: error: }}
