// The unary ops' diagnostics, with their exact text (PyTorch 1.13's
// sentences where it has one). The valid neighbours are in unary-ops.mlir.
// RUN: bcast-opt %s -split-input-file -verify-diagnostics

func.func @exp_int_in_place(%x: tensor<3xi32>) {
  // expected-error @+1 {{'bcast.exp_' op result type Float can't be cast to the desired output type Int}}
  %0 = bcast.exp_ %x : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

func.func @sqrt_bool_in_place(%x: tensor<3xi1>) {
  // expected-error @+1 {{'bcast.sqrt_' op result type Float can't be cast to the desired output type Bool}}
  %0 = bcast.sqrt_ %x : (tensor<3xi1>) -> tensor<3xi1>
  return
}

// -----

func.func @sigmoid_byte_in_place(%x: tensor<3xui8>) {
  // expected-error @+1 {{'bcast.sigmoid_' op result type Float can't be cast to the desired output type Byte}}
  %0 = bcast.sigmoid_ %x : (tensor<3xui8>) -> tensor<3xui8>
  return
}

// -----

func.func @exp_int_result(%x: tensor<3xi32>) {
  // expected-error @+1 {{'bcast.exp' op result element type 'i32' does not match the promoted element type 'f32'}}
  %0 = bcast.exp %x : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

func.func @exp_half_result(%x: tensor<3xf16>) {
  // expected-error @+1 {{'bcast.exp' op result element type 'f32' does not match the promoted element type 'f16'}}
  %0 = bcast.exp %x : (tensor<3xf16>) -> tensor<3xf32>
  return
}

// -----

func.func @abs_int_result(%x: tensor<3xi32>) {
  // expected-error @+1 {{'bcast.abs' op result element type 'f32' does not match the promoted element type 'i32'}}
  %0 = bcast.abs %x : (tensor<3xi32>) -> tensor<3xf32>
  return
}

// -----

func.func @exp_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{'bcast.exp' op result shape [3] is not compatible with the broadcast shape [4]}}
  %0 = bcast.exp %x : (tensor<4xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @abs_in_place_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'bcast.abs_' op result type 'tensor<?xf32>' must equal the type of the in-place operand 'tensor<4xf32>'}}
  %0 = bcast.abs_ %x : (tensor<4xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @abs_bool(%x: tensor<3xi1>) {
  // expected-error @+1 {{'bcast.abs' op "abs_cpu" not implemented for 'Bool'}}
  %0 = bcast.abs %x : (tensor<3xi1>) -> tensor<3xi1>
  return
}

// -----

func.func @abs_bool_in_place(%x: tensor<3xi1>) {
  // expected-error @+1 {{'bcast.abs_' op "abs_cpu" not implemented for 'Bool'}}
  %0 = bcast.abs_ %x : (tensor<3xi1>) -> tensor<3xi1>
  return
}

// -----

func.func @neg_bool(%x: tensor<3xi1>) {
  // expected-error @+1 {{'bcast.neg' op Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.}}
  %0 = bcast.neg %x : (tensor<3xi1>) -> tensor<3xi1>
  return
}

// -----

func.func @floor_bool(%x: tensor<3xi1>) {
  // expected-error @+1 {{'bcast.floor' op "floor_vml_cpu" not implemented for 'Bool'}}
  %0 = bcast.floor %x : (tensor<3xi1>) -> tensor<3xi1>
  return
}

// -----

func.func @ceil_bool(%x: tensor<3xi1>) {
  // expected-error @+1 {{'bcast.ceil_' op "ceil_vml_cpu" not implemented for 'Bool'}}
  %0 = bcast.ceil_ %x : (tensor<3xi1>) -> tensor<3xi1>
  return
}

// -----

func.func @round_bool(%x: tensor<3xi1>) {
  // expected-error @+1 {{'bcast.round' op "round_vml_cpu" not implemented for 'Bool'}}
  %0 = bcast.round %x : (tensor<3xi1>) -> tensor<3xi1>
  return
}

// -----

func.func @trunc_bool(%x: tensor<3xi1>) {
  // expected-error @+1 {{'bcast.trunc' op "trunc_vml_cpu" not implemented for 'Bool'}}
  %0 = bcast.trunc %x : (tensor<3xi1>) -> tensor<3xi1>
  return
}

// -----

func.func @relu_bool(%x: tensor<3xi1>) {
  // expected-error @+1 {{'bcast.relu' op Boolean inputs not supported for relu}}
  %0 = bcast.relu %x : (tensor<3xi1>) -> tensor<3xi1>
  return
}

// -----

func.func @silu_int(%x: tensor<3xi32>) {
  // expected-error @+1 {{'bcast.silu' op "silu_cpu" not implemented for 'Int'}}
  %0 = bcast.silu %x : (tensor<3xi32>) -> tensor<3xf32>
  return
}

// -----

func.func @silu_byte(%x: tensor<3xui8>) {
  // expected-error @+1 {{'bcast.silu' op "silu_cpu" not implemented for 'Byte'}}
  %0 = bcast.silu %x : (tensor<3xui8>) -> tensor<3xf32>
  return
}

// -----

func.func @silu_bool(%x: tensor<3xi1>) {
  // expected-error @+1 {{'bcast.silu' op "silu_cpu" not implemented for 'Bool'}}
  %0 = bcast.silu %x : (tensor<3xi1>) -> tensor<3xf32>
  return
}

// -----

func.func @gelu_long(%x: tensor<3xi64>) {
  // expected-error @+1 {{'bcast.gelu' op "GeluKernelImpl" not implemented for 'Long'}}
  %0 = bcast.gelu %x : (tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

func.func @gelu_approximate(%x: tensor<3xf32>) {
  // expected-error @+1 {{'bcast.gelu' op approximate argument must be either none or tanh.}}
  %0 = bcast.gelu %x {approximate = "erf"} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @bitwise_not_float(%x: tensor<3xf32>) {
  // expected-error @+1 {{'bcast.bitwise_not' op "bitwise_not_cpu" not implemented for 'Float'}}
  %0 = bcast.bitwise_not %x : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @bitwise_not_bf16(%x: tensor<3xbf16>) {
  // expected-error @+1 {{'bcast.bitwise_not_' op "bitwise_not_cpu" not implemented for 'BFloat16'}}
  %0 = bcast.bitwise_not_ %x : (tensor<3xbf16>) -> tensor<3xbf16>
  return
}

// -----

func.func @isnan_result(%x: tensor<3xf32>) {
  // expected-error @+1 {{'bcast.isnan' op result #0 must be ranked tensor without encoding of 1-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = bcast.isnan %x : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @exp_complex(%x: tensor<3xcomplex<f32>>) {
  // expected-error @+1 {{'bcast.exp' op operand #0 must be ranked tensor without encoding of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or signless integer (i1 to i64) or 8-bit unsigned integer or 16-bit unsigned integer or 32-bit unsigned integer or 64-bit unsigned integer values, but got 'tensor<3xcomplex<f32>>'}}
  %0 = bcast.exp %x : (tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>>
  return
}

// -----

func.func @exp_f8(%x: tensor<3xf8E4M3FN>) {
  // expected-error @+1 {{'bcast.exp' op operand #0 must be ranked tensor without encoding of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or signless integer (i1 to i64) or 8-bit unsigned integer or 16-bit unsigned integer or 32-bit unsigned integer or 64-bit unsigned integer values, but got 'tensor<3xf8E4M3FN>'}}
  %0 = bcast.exp %x : (tensor<3xf8E4M3FN>) -> tensor<3xf8E4M3FN>
  return
}

// -----

func.func @exp_two_operands(%x: tensor<3xf32>) {
  // expected-error @+1 {{'bcast.exp' op requires a single operand}}
  %0 = bcast.exp %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}
