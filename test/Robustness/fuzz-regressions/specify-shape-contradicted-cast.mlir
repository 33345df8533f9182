func.func @specify_shape_of_cast_contradicted(%s: tensor<3x3xf32>) -> tensor<?x1xf32> {
  %d = tensor.cast %s : tensor<3x3xf32> to tensor<?x?xf32>
  %r = bcast.specify_shape %d : (tensor<?x?xf32>) -> tensor<?x1xf32>
  return %r : tensor<?x1xf32>
}
