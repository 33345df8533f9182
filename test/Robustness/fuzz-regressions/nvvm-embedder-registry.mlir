func.func @kernel(%a: tensor<3x1xf32>, %b: tensor<4xf32>) -> tensor<3x4xf32> {
  %r = bcast.add %a, %b : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
