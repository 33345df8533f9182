// Every diagnostic of bcast.matmul, with its exact text (PyTorch 1.13's
// sentences, and bcast's one sentence for contracted sizes), for every rank
// combination and for each kernel whose dtype checks PyTorch reaches; and
// the order of the checks (rank, batch dims, contracted sizes, types; dot
// rejects mixed types before it compares lengths). The accepted neighbours
// are in matmul-ops.mlir; test/Dialect/Bcast/Inputs/matmul_torch.py checks
// the verdicts and sentences against PyTorch itself.
// RUN: bcast-opt %s -split-input-file -verify-diagnostics

func.func @rank0_lhs(%a: tensor<f32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'bcast.matmul' op both arguments to matmul need to be at least 1D, but they are 0D and 1D}}
  %0 = bcast.matmul %a, %b : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @rank0_rhs(%a: tensor<3xf32>, %b: tensor<f32>) {
  // expected-error @+1 {{'bcast.matmul' op both arguments to matmul need to be at least 1D, but they are 1D and 0D}}
  %0 = bcast.matmul %a, %b : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return
}

// -----

func.func @rank0_both(%a: tensor<f32>, %b: tensor<f32>) {
  // expected-error @+1 {{'bcast.matmul' op both arguments to matmul need to be at least 1D, but they are 0D and 0D}}
  %0 = bcast.matmul %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @rank0_before_types(%a: tensor<f16>, %b: tensor<2x3x4xf64>) {
  // expected-error @+1 {{'bcast.matmul' op both arguments to matmul need to be at least 1D, but they are 0D and 3D}}
  %0 = bcast.matmul %a, %b : (tensor<f16>, tensor<2x3x4xf64>) -> tensor<2x4xf32>
  return
}

// -----

func.func @batch_3d_3d(%a: tensor<3x2x3xf32>, %b: tensor<4x3x6xf32>) {
  // expected-error @+1 {{'bcast.matmul' op The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0}}
  %0 = bcast.matmul %a, %b : (tensor<3x2x3xf32>, tensor<4x3x6xf32>) -> tensor<3x2x6xf32>
  return
}

// -----

func.func @batch_trailing_most(%a: tensor<3x2x2x3xf32>, %b: tensor<4x3x3x6xf32>) {
  // expected-error @+1 {{'bcast.matmul' op The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1}}
  %0 = bcast.matmul %a, %b : (tensor<3x2x2x3xf32>, tensor<4x3x3x6xf32>) -> tensor<4x3x2x6xf32>
  return
}

// -----

func.func @batch_numbered_in_broadcast_rank(%a: tensor<5x3x2x3xf32>, %b: tensor<4x3x6xf32>) {
  // expected-error @+1 {{'bcast.matmul' op The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1}}
  %0 = bcast.matmul %a, %b : (tensor<5x3x2x3xf32>, tensor<4x3x6xf32>) -> tensor<5x3x2x6xf32>
  return
}

// -----

func.func @batch_zero_vs_two(%a: tensor<2x1x3xf32>, %b: tensor<0x3x4xf32>) {
  // expected-error @+1 {{'bcast.matmul' op The size of tensor a (2) must match the size of tensor b (0) at non-singleton dimension 0}}
  %0 = bcast.matmul %a, %b : (tensor<2x1x3xf32>, tensor<0x3x4xf32>) -> tensor<2x1x4xf32>
  return
}

// -----

func.func @batch_before_contraction(%a: tensor<3x2x3xf32>, %b: tensor<4x5x6xf32>) {
  // expected-error @+1 {{'bcast.matmul' op The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0}}
  %0 = bcast.matmul %a, %b : (tensor<3x2x3xf32>, tensor<4x5x6xf32>) -> tensor<3x2x6xf32>
  return
}

// -----

func.func @batch_before_types(%a: tensor<3x2x3xi1>, %b: tensor<4x3x6xf16>) {
  // expected-error @+1 {{'bcast.matmul' op The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0}}
  %0 = bcast.matmul %a, %b : (tensor<3x2x3xi1>, tensor<4x3x6xf16>) -> tensor<3x2x6xi1>
  return
}

// -----

func.func @contract_1d_1d(%a: tensor<3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'bcast.matmul' op mat1 and mat2 shapes cannot be multiplied (3 and 4)}}
  %0 = bcast.matmul %a, %b : (tensor<3xf32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @contract_2d_1d(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'bcast.matmul' op mat1 and mat2 shapes cannot be multiplied (2x3 and 4)}}
  %0 = bcast.matmul %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @contract_1d_2d(%a: tensor<4xf32>, %b: tensor<3x2xf32>) {
  // expected-error @+1 {{'bcast.matmul' op mat1 and mat2 shapes cannot be multiplied (4 and 3x2)}}
  %0 = bcast.matmul %a, %b : (tensor<4xf32>, tensor<3x2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @contract_2d_2d(%a: tensor<2x3xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+1 {{'bcast.matmul' op mat1 and mat2 shapes cannot be multiplied (2x3 and 4x4)}}
  %0 = bcast.matmul %a, %b : (tensor<2x3xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @contract_3d_1d(%a: tensor<5x2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'bcast.matmul' op mat1 and mat2 shapes cannot be multiplied (5x2x3 and 4)}}
  %0 = bcast.matmul %a, %b : (tensor<5x2x3xf32>, tensor<4xf32>) -> tensor<5x2xf32>
  return
}

// -----

func.func @contract_1d_3d(%a: tensor<4xf32>, %b: tensor<5x2x3xf32>) {
  // expected-error @+1 {{'bcast.matmul' op mat1 and mat2 shapes cannot be multiplied (4 and 5x2x3)}}
  %0 = bcast.matmul %a, %b : (tensor<4xf32>, tensor<5x2x3xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @contract_3d_2d(%a: tensor<5x2x3xf32>, %b: tensor<4x6xf32>) {
  // expected-error @+1 {{'bcast.matmul' op mat1 and mat2 shapes cannot be multiplied (5x2x3 and 4x6)}}
  %0 = bcast.matmul %a, %b : (tensor<5x2x3xf32>, tensor<4x6xf32>) -> tensor<5x2x6xf32>
  return
}

// -----

func.func @contract_2d_3d(%a: tensor<2x3xf32>, %b: tensor<5x4x6xf32>) {
  // expected-error @+1 {{'bcast.matmul' op mat1 and mat2 shapes cannot be multiplied (2x3 and 5x4x6)}}
  %0 = bcast.matmul %a, %b : (tensor<2x3xf32>, tensor<5x4x6xf32>) -> tensor<5x2x6xf32>
  return
}

// -----

func.func @contract_3d_3d(%a: tensor<5x2x3xf32>, %b: tensor<5x4x6xf32>) {
  // expected-error @+1 {{'bcast.matmul' op mat1 and mat2 shapes cannot be multiplied (5x2x3 and 5x4x6)}}
  %0 = bcast.matmul %a, %b : (tensor<5x2x3xf32>, tensor<5x4x6xf32>) -> tensor<5x2x6xf32>
  return
}

// -----

func.func @contract_4d_3d_broadcast(%a: tensor<2x1x2x3xf32>, %b: tensor<5x4x6xf32>) {
  // expected-error @+1 {{'bcast.matmul' op mat1 and mat2 shapes cannot be multiplied (2x1x2x3 and 5x4x6)}}
  %0 = bcast.matmul %a, %b : (tensor<2x1x2x3xf32>, tensor<5x4x6xf32>) -> tensor<2x5x2x6xf32>
  return
}

// -----

func.func @contract_dynamic_elsewhere(%a: tensor<?x2x3xf32>, %b: tensor<?x4x6xf32>) {
  // expected-error @+1 {{'bcast.matmul' op mat1 and mat2 shapes cannot be multiplied (?x2x3 and ?x4x6)}}
  %0 = bcast.matmul %a, %b : (tensor<?x2x3xf32>, tensor<?x4x6xf32>) -> tensor<?x2x6xf32>
  return
}

// -----

func.func @contract_zero(%a: tensor<2x0xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'bcast.matmul' op mat1 and mat2 shapes cannot be multiplied (2x0 and 3x4)}}
  %0 = bcast.matmul %a, %b : (tensor<2x0xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @contract_before_types(%a: tensor<2x3xf16>, %b: tensor<4x4xf64>) {
  // expected-error @+1 {{'bcast.matmul' op mat1 and mat2 shapes cannot be multiplied (2x3 and 4x4)}}
  %0 = bcast.matmul %a, %b : (tensor<2x3xf16>, tensor<4x4xf64>) -> tensor<2x4xf16>
  return
}

// -----

func.func @dot_bool(%a: tensor<3xi1>, %b: tensor<3xi1>) {
  // expected-error @+1 {{'bcast.matmul' op "dot" not implemented for 'Bool'}}
  %0 = bcast.matmul %a, %b : (tensor<3xi1>, tensor<3xi1>) -> tensor<i1>
  return
}

// -----

func.func @dot_half(%a: tensor<3xf16>, %b: tensor<3xf16>) {
  // expected-error @+1 {{'bcast.matmul' op "dot" not implemented for 'Half'}}
  %0 = bcast.matmul %a, %b : (tensor<3xf16>, tensor<3xf16>) -> tensor<f16>
  return
}

// -----

func.func @dot_mixed(%a: tensor<3xf32>, %b: tensor<3xf64>) {
  // expected-error @+1 {{'bcast.matmul' op dot : expected both vectors to have same dtype, but found Float and Double}}
  %0 = bcast.matmul %a, %b : (tensor<3xf32>, tensor<3xf64>) -> tensor<f32>
  return
}

// -----

func.func @dot_mixed_before_lengths(%a: tensor<3xi32>, %b: tensor<4xi64>) {
  // expected-error @+1 {{'bcast.matmul' op dot : expected both vectors to have same dtype, but found Int and Long}}
  %0 = bcast.matmul %a, %b : (tensor<3xi32>, tensor<4xi64>) -> tensor<i32>
  return
}

// -----

func.func @dot_half_after_lengths(%a: tensor<3xf16>, %b: tensor<4xf16>) {
  // expected-error @+1 {{'bcast.matmul' op mat1 and mat2 shapes cannot be multiplied (3 and 4)}}
  %0 = bcast.matmul %a, %b : (tensor<3xf16>, tensor<4xf16>) -> tensor<f16>
  return
}

// -----

func.func @mv_bool(%a: tensor<2x3xi1>, %b: tensor<3xi1>) {
  // expected-error @+1 {{'bcast.matmul' op "addmv_impl_cpu" not implemented for 'Bool'}}
  %0 = bcast.matmul %a, %b : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @mv_folded_half(%a: tensor<2x2x3xf16>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'bcast.matmul' op "addmv_impl_cpu" not implemented for 'Half'}}
  %0 = bcast.matmul %a, %b : (tensor<2x2x3xf16>, tensor<3xf32>) -> tensor<2x2xf16>
  return
}

// -----

func.func @mv_mixed(%a: tensor<2x3xf32>, %b: tensor<3xf16>) {
  // expected-error @+1 {{'bcast.matmul' op expected scalar type Float but found Half}}
  %0 = bcast.matmul %a, %b : (tensor<2x3xf32>, tensor<3xf16>) -> tensor<2xf32>
  return
}

// -----

func.func @mv_transposed_checks_rhs(%a: tensor<3xf32>, %b: tensor<2x3x4xf16>) {
  // expected-error @+1 {{'bcast.matmul' op "addmv_impl_cpu" not implemented for 'Half'}}
  %0 = bcast.matmul %a, %b : (tensor<3xf32>, tensor<2x3x4xf16>) -> tensor<2x4xf32>
  return
}

// -----

func.func @mv_transposed_mixed(%a: tensor<3xf32>, %b: tensor<2x3x4xf64>) {
  // expected-error @+1 {{'bcast.matmul' op expected scalar type Double but found Float}}
  %0 = bcast.matmul %a, %b : (tensor<3xf32>, tensor<2x3x4xf64>) -> tensor<2x4xf32>
  return
}

// -----

func.func @mm_bool(%a: tensor<2x3xi1>, %b: tensor<3x4xi1>) {
  // expected-error @+1 {{'bcast.matmul' op "addmm_impl_cpu_" not implemented for 'Bool'}}
  %0 = bcast.matmul %a, %b : (tensor<2x3xi1>, tensor<3x4xi1>) -> tensor<2x4xi1>
  return
}

// -----

func.func @mm_half(%a: tensor<2x3xf16>, %b: tensor<3x4xf16>) {
  // expected-error @+1 {{'bcast.matmul' op "addmm_impl_cpu_" not implemented for 'Half'}}
  %0 = bcast.matmul %a, %b : (tensor<2x3xf16>, tensor<3x4xf16>) -> tensor<2x4xf16>
  return
}

// -----

func.func @mm_row_bool(%a: tensor<3xi1>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'bcast.matmul' op "addmm_impl_cpu_" not implemented for 'Bool'}}
  %0 = bcast.matmul %a, %b : (tensor<3xi1>, tensor<3x4xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @mm_mixed(%a: tensor<2x3xf32>, %b: tensor<3x4xf64>) {
  // expected-error @+1 {{'bcast.matmul' op expected scalar type Float but found Double}}
  %0 = bcast.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf64>) -> tensor<2x4xf32>
  return
}

// -----

func.func @mm_mixed_bf16(%a: tensor<2x3xbf16>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'bcast.matmul' op expected scalar type BFloat16 but found Float}}
  %0 = bcast.matmul %a, %b : (tensor<2x3xbf16>, tensor<3x4xf32>) -> tensor<2x4xbf16>
  return
}

// -----

func.func @mm_folded_bool(%a: tensor<2x2x3xi1>, %b: tensor<3x4xi1>) {
  // expected-error @+1 {{'bcast.matmul' op "addmm_impl_cpu_" not implemented for 'Bool'}}
  %0 = bcast.matmul %a, %b : (tensor<2x2x3xi1>, tensor<3x4xi1>) -> tensor<2x2x4xi1>
  return
}

// -----

func.func @mm_transposed_mixed(%a: tensor<2x3xf16>, %b: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'bcast.matmul' op expected scalar type Float but found Half}}
  %0 = bcast.matmul %a, %b : (tensor<2x3xf16>, tensor<2x3x4xf32>) -> tensor<2x2x4xf16>
  return
}

// -----

func.func @mm_transposed_bool(%a: tensor<2x3xf32>, %b: tensor<2x3x4xi1>) {
  // expected-error @+1 {{'bcast.matmul' op "addmm_impl_cpu_" not implemented for 'Bool'}}
  %0 = bcast.matmul %a, %b : (tensor<2x3xf32>, tensor<2x3x4xi1>) -> tensor<2x2x4xf32>
  return
}

// -----

func.func @mm_uint16(%a: tensor<2x3xui16>, %b: tensor<3x4xui16>) {
  // expected-error @+1 {{'bcast.matmul' op "addmm_impl_cpu_" not implemented for 'UInt16'}}
  %0 = bcast.matmul %a, %b : (tensor<2x3xui16>, tensor<3x4xui16>) -> tensor<2x4xui16>
  return
}

// -----

func.func @mm_int_mixed(%a: tensor<2x3xi8>, %b: tensor<3x4xi64>) {
  // expected-error @+1 {{'bcast.matmul' op expected scalar type Char but found Long}}
  %0 = bcast.matmul %a, %b : (tensor<2x3xi8>, tensor<3x4xi64>) -> tensor<2x4xi8>
  return
}

// -----

func.func @mm_uint8_int8(%a: tensor<2x3xui8>, %b: tensor<3x4xi8>) {
  // expected-error @+1 {{'bcast.matmul' op expected scalar type Byte but found Char}}
  %0 = bcast.matmul %a, %b : (tensor<2x3xui8>, tensor<3x4xi8>) -> tensor<2x4xui8>
  return
}

// -----

func.func @bmm_bool(%a: tensor<2x2x3xi1>, %b: tensor<2x3x4xi1>) {
  // expected-error @+1 {{'bcast.matmul' op "bmm" not implemented for 'Bool'}}
  %0 = bcast.matmul %a, %b : (tensor<2x2x3xi1>, tensor<2x3x4xi1>) -> tensor<2x2x4xi1>
  return
}

// -----

func.func @bmm_half_lhs(%a: tensor<2x1x2x3xf16>, %b: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'bcast.matmul' op "bmm" not implemented for 'Half'}}
  %0 = bcast.matmul %a, %b : (tensor<2x1x2x3xf16>, tensor<2x3x4xf32>) -> tensor<2x2x2x4xf16>
  return
}

// -----

func.func @bmm_mixed(%a: tensor<2x2x3xf32>, %b: tensor<2x3x4xf64>) {
  // expected-error @+1 {{'bcast.matmul' op expected scalar type Float but found Double}}
  %0 = bcast.matmul %a, %b : (tensor<2x2x3xf32>, tensor<2x3x4xf64>) -> tensor<2x2x4xf32>
  return
}

// -----

func.func @result_element_type(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'bcast.matmul' op result element type 'f64' does not match the operands' element type 'f32'}}
  %0 = bcast.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf64>
  return
}

// -----

func.func @result_shape(%a: tensor<2x1x4x3xf32>, %b: tensor<5x3x6xf32>) {
  // expected-error @+1 {{'bcast.matmul' op result shape [2, 5, 4, 7] is not compatible with the matmul shape [2, 5, 4, 6] (the broadcast shape [2, 5] of the batch dims, then the product's)}}
  %0 = bcast.matmul %a, %b : (tensor<2x1x4x3xf32>, tensor<5x3x6xf32>) -> tensor<2x5x4x7xf32>
  return
}

// -----

func.func @result_rank(%a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'bcast.matmul' op result shape [1] is not compatible with the matmul shape [] (the broadcast shape [] of the batch dims, then the product's)}}
  %0 = bcast.matmul %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<1xf32>
  return
}

// -----

// A declared `?` where the size is static is a refinement the verifier accepts.
func.func @result_static_where_dynamic_not(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  %0 = bcast.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x?xf32>
  return
}
