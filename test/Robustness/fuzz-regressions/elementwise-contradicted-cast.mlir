module {
  func.func @fuzz(%arg0: tensor<1x1x2xui8>, %arg1: tensor<?x?x1xui8>, %arg2: tensor<2xbf16>) -> tensor<1x1x2xui8> {
    %cast = tensor.cast %arg2 : tensor<2xbf16> to tensor<?xbf16>
    %0 = bcast.broadcast_to %arg2 : tensor<2xbf16> -> tensor<4x2xbf16>
    %1 = bcast.logical_xor %0, %0 : (tensor<4x2xbf16>, tensor<4x2xbf16>) -> tensor<4x2xi1>
    %true = arith.constant true
    bcast.runtime_check %true, "no values"
    %2 = bcast.logical_xor %cast, %1 : (tensor<?xbf16>, tensor<4x2xi1>) -> tensor<4x2xi1>
    %3 = bcast.expand_view %arg0[] : tensor<1x1x2xui8>
    %cst = arith.constant dense<[[false, true], [true, false], [false, true], [false, true]]> : tensor<4x2xi1>
    %cast_0 = tensor.cast %1 : tensor<4x2xi1> to tensor<?x2xi1>
    %4 = bcast.remainder_ %arg0, %cast_0 : (tensor<1x1x2xui8>, tensor<?x2xi1>) -> tensor<1x1x2xui8>
    return %4 : tensor<1x1x2xui8>
  }
}
