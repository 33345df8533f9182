// The shapes of PyTorch's broadcasting notes, as bcast ops.
func.func @notes(%x: tensor<5x1x4x1xf32>, %y: tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32> {
  %r = bcast.add %x, %y : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  return %r : tensor<5x3x4x1xf32>
}
