module {
  func.func @fuzz(%arg0: tensor<4x?xi16>) -> (tensor<0x?xbf16>, tensor<?x?xbf16>) {
    %cast = tensor.cast %arg0 : tensor<4x?xi16> to tensor<4x?xi16>
    %cast_0 = tensor.cast %arg0 : tensor<4x?xi16> to tensor<?x?xi16>
    %0 = bcast.cast %cast_0 : (tensor<?x?xi16>) -> tensor<?x?xbf16>
    %1 = bcast.log %0 : (tensor<?x?xbf16>) -> tensor<?x?xbf16>
    %2 = bcast.log_ %0 : (tensor<?x?xbf16>) -> tensor<?x?xbf16>
    %3 = bcast.atan %2 : (tensor<?x?xbf16>) -> tensor<?x?xbf16>
    %4 = bcast.specify_shape %3 : (tensor<?x?xbf16>) -> tensor<0x?xbf16>
    return %4, %3 : tensor<0x?xbf16>, tensor<?x?xbf16>
  }
}
