module {
  func.func @fuzz(%arg0: tensor<bf16>, %arg1: tensor<ui16>, %arg2: tensor<i1>) -> tensor<i1> {
    %0 = bcast.atanh %arg0 : (tensor<bf16>) -> tensor<bf16>
    %1 = bcast.sign_ %arg0 : (tensor<bf16>) -> tensor<bf16>
    %cst = arith.constant dense<0xFF80> : tensor<f80>
    %2 = bcast.remainder %arg2, %0 : (tensor<i1>, tensor<bf16>) -> tensor<bf16>
    %3 = bcast.trunc %2 : (tensor<bf16>) -> tensor<bf16>
    %4 = bcast.acos_ %1 : (tensor<bf16>) -> tensor<bf16>
    %5 = bcast.eq %4, %3 : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
    return %5 : tensor<i1>
  }
}
