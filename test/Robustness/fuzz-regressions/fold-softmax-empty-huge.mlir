module {
  func.func @fuzz(%arg0: tensor<0x2147483648x4x1xui16>, %arg1: tensor<0x2147483648x1x2xi8>) -> (tensor<0x2147483648x1x2xf32>, tensor<0x2147483648x1x2xf32>) {
    %cst = arith.constant dense<> : tensor<0x2147483648x1x2xi8>
    %0 = bcast.cast %arg0 : (tensor<0x2147483648x4x1xui16>) -> tensor<0x2147483648x4x1xui16>
    %cst_0 = arith.constant dense<> : tensor<0x2147483648x1x2xi8>
    %false = arith.constant false
    %c8 = arith.constant 8 : index
    %1 = bcast.or %arg0, %0 : (tensor<0x2147483648x4x1xui16>, tensor<0x2147483648x4x1xui16>) -> tensor<0x2147483648x4x1xui16>
    %2 = bcast.specify_shape %1 : (tensor<0x2147483648x4x1xui16>) -> tensor<0x2147483648x4x1xui16>
    %cast = tensor.cast %arg1 : tensor<0x2147483648x1x2xi8> to tensor<0x2147483648x?x?xi8>
    %3 = bcast.asin %cst_0 : (tensor<0x2147483648x1x2xi8>) -> tensor<0x2147483648x1x2xf32>
    %4 = bcast.cos %arg1 : (tensor<0x2147483648x1x2xi8>) -> tensor<0x2147483648x1x2xf32>
    %5 = bcast.softmax %3 {dim = -4 : i64} : (tensor<0x2147483648x1x2xf32>) -> tensor<0x2147483648x1x2xf32>
    return %5, %4 : tensor<0x2147483648x1x2xf32>, tensor<0x2147483648x1x2xf32>
  }
}
