// Inputs convert-bcast-to-linalg refuses, with a diagnostic.
// RUN: bcast-opt %s --convert-bcast-to-linalg -split-input-file -verify-diagnostics

func.func @element_count_overflows(%a: tensor<4611686018427387904x4xf32>, %b: tensor<4xf32>) -> tensor<4611686018427387904x4xf32> {
  // expected-error @+1 {{result type 'tensor<4611686018427387904x4xf32>' is too large to lower: its size in bytes overflows a 64-bit integer}}
  %r = bcast.add %a, %b : (tensor<4611686018427387904x4xf32>, tensor<4xf32>) -> tensor<4611686018427387904x4xf32>
  return %r : tensor<4611686018427387904x4xf32>
}

// -----

func.func @bytes_overflow(%a: tensor<3074457345618258603x1xi32>, %b: tensor<1xi32>) -> tensor<3074457345618258603x1xi32> {
  // expected-error @+1 {{is too large to lower}}
  %r = bcast.mul %a, %b : (tensor<3074457345618258603x1xi32>, tensor<1xi32>) -> tensor<3074457345618258603x1xi32>
  return %r : tensor<3074457345618258603x1xi32>
}
