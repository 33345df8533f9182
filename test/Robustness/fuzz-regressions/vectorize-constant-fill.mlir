func.func @f() -> tensor<4x4xf32> {
  %c = arith.constant dense<1.0> : tensor<1xf32>
  %r = bcast.broadcast_to %c : tensor<1xf32> -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
