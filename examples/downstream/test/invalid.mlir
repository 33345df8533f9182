// The verifier's diagnostics reach the downstream tool unchanged.
// RUN: downstream-opt %s -verify-diagnostics

func.func @static_mismatch(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'bcast.add' op The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0}}
  %r = bcast.add %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
