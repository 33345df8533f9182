"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4x1x35x1xui8>, tensor<4x2x35x1xbf16>, tensor<4x2x1x1xui8>, tensor<2x35x1xf64>) -> tensor<4x2x1x1xi1>, sym_name = "fuzz"}> ({
  ^bb0(%arg0: tensor<4x1x35x1xui8>, %arg1: tensor<4x2x35x1xbf16>, %arg2: tensor<4x2x1x1xui8>, %arg3: tensor<2x35x1xf64>):
    %0 = "bcast.erfc"(%arg2) : (tensor<4x2x1x1xui8>) -> tensor<4x2x1x1xf32>
    %1 = "bcast.erf"(%arg0) : (tensor<4x1x35x1xui8>) -> tensor<4x1x35x1xf32>
    %2 = "bcast.mean"(%arg1) <{keepdim = true}> : (tensor<4x2x35x1xbf16>) -> tensor<1x1x1x1xbf16>
    %3 = "tensor.cast"(%2) : (tensor<1x1x1x1xbf16>) -> tensor<?x?x?x1xbf16>
    %4 = "tensor.cast"(%2) : (tensor<1x1x1x1xbf16>) -> tensor<?x1x1x1xbf16>
    %5 = "bcast.argmax"(%4) <{dim = -2 : i64, keepdim = false}> : (tensor<?x1x1x1xbf16>) -> tensor<?x1x1xi64>
    %6 = "tensor.cast"(%arg2) : (tensor<4x2x1x1xui8>) -> tensor<?x2x?x1xui8>
    %7 = "bcast.sum"(%5) <{dims = array<i64: -2>, keepdim = false}> : (tensor<?x1x1xi64>) -> tensor<?x1xi64>
    %8 = "bcast.eq"(%arg2, %5) : (tensor<4x2x1x1xui8>, tensor<?x1x1xi64>) -> tensor<4x2x1x1xi1>
    "func.return"(%8) : (tensor<4x2x1x1xi1>) -> ()
  }) : () -> ()
}) : () -> ()
