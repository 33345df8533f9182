// Every bcast diagnostic, with its exact text.
// RUN: bcast-opt %s -split-input-file -verify-diagnostics

// PyTorch's notes: in the 3rd trailing dimension 2 != 3.
func.func @notes_not_broadcastable(%x: tensor<5x2x4x1xf32>, %y: tensor<3x1x1xf32>) {
  // expected-error @+1 {{'bcast.add' op The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1}}
  %0 = bcast.add %x, %y : (tensor<5x2x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  return
}

// -----

// The operands swapped: a and b swap too.
func.func @swapped_operands(%x: tensor<5x2x4x1xf32>, %y: tensor<3x1x1xf32>) {
  // expected-error @+1 {{The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1}}
  %0 = bcast.mul %y, %x : (tensor<3x1x1xf32>, tensor<5x2x4x1xf32>) -> tensor<5x3x4x1xf32>
  return
}

// -----

// PyTorch's notes: a (0,) tensor with a (2, 2) tensor does not broadcast.
func.func @size0_with_2(%x: tensor<0xf32>, %y: tensor<2x2xf32>) {
  // expected-error @+1 {{The size of tensor a (0) must match the size of tensor b (2) at non-singleton dimension 1}}
  %0 = bcast.add %x, %y : (tensor<0xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return
}

// -----

// Of several offending dimensions, the trailing-most is reported.
func.func @trailing_most(%x: tensor<2x3xf32>, %y: tensor<4x5xf32>) {
  // expected-error @+1 {{The size of tensor a (3) must match the size of tensor b (5) at non-singleton dimension 1}}
  %0 = bcast.sub %x, %y : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

// A `?` never counts as the offending dimension.
func.func @dynamic_not_offending(%x: tensor<2x?xf32>, %y: tensor<3x4xf32>) {
  // expected-error @+1 {{The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0}}
  %0 = bcast.add %x, %y : (tensor<2x?xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @compare_not_broadcastable(%x: tensor<2xi32>, %y: tensor<3xi32>) {
  // expected-error @+1 {{'bcast.lt' op The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0}}
  %0 = bcast.lt %x, %y : (tensor<2xi32>, tensor<3xi32>) -> tensor<3xi1>
  return
}

// -----

func.func @where_cond_vs_x(%c: tensor<2xi1>, %x: tensor<3xf32>, %y: tensor<f32>) {
  // expected-error @+1 {{'bcast.where' op The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0}}
  %0 = bcast.where %c, %x, %y : (tensor<2xi1>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return
}

// -----

func.func @where_cond_vs_y(%c: tensor<2x1xi1>, %x: tensor<1xf32>, %y: tensor<3x4xf32>) {
  // expected-error @+1 {{The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0}}
  %0 = bcast.where %c, %x, %y : (tensor<2x1xi1>, tensor<1xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @where_x_vs_y(%c: tensor<i1>, %x: tensor<5xf32>, %y: tensor<4x2xf32>) {
  // expected-error @+1 {{The size of tensor a (5) must match the size of tensor b (2) at non-singleton dimension 1}}
  %0 = bcast.where %c, %x, %y : (tensor<i1>, tensor<5xf32>, tensor<4x2xf32>) -> tensor<4x5xf32>
  return
}

// -----

// PyTorch's notes, in place: x (1, 3, 1) cannot take the broadcast with
// y (3, 1, 7).
func.func @notes_in_place(%x: tensor<1x3x1xf32>, %y: tensor<3x1x7xf32>) {
  // expected-error @+1 {{'bcast.add_' op output with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]: The expanded size of the tensor (1) must match the existing size (7) at non-singleton dimension 2}}
  %0 = bcast.add_ %x, %y : (tensor<1x3x1xf32>, tensor<3x1x7xf32>) -> tensor<1x3x1xf32>
  return
}

// -----

func.func @in_place_other_has_more_dims(%x: tensor<3xf32>, %y: tensor<2x3xf32>) {
  // expected-error @+1 {{output with shape [3] doesn't match the broadcast shape [2, 3]: the number of sizes provided (1) must be greater or equal to the number of dimensions in the tensor (2)}}
  %0 = bcast.mul_ %x, %y : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @in_place_dynamic_never_fits(%x: tensor<1x?xf32>, %y: tensor<5x?xf32>) {
  // expected-error @+1 {{output with shape [1, ?] doesn't match the broadcast shape [5, ?]: The expanded size of the tensor (1) must match the existing size (5) at non-singleton dimension 0}}
  %0 = bcast.sub_ %x, %y : (tensor<1x?xf32>, tensor<5x?xf32>) -> tensor<1x?xf32>
  return
}

// -----

// Operand broadcastability is checked before the in-place rule.
func.func @in_place_not_broadcastable(%x: tensor<2xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0}}
  %0 = bcast.add_ %x, %y : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @in_place_result_type(%x: tensor<4x3xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{result type 'tensor<4x?xf32>' must equal the type of the in-place operand 'tensor<4x3xf32>'}}
  %0 = bcast.add_ %x, %y : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x?xf32>
  return
}

// -----

func.func @result_shape(%x: tensor<5x1x4x1xf32>, %y: tensor<3x1x1xf32>) {
  // expected-error @+1 {{result shape [5, 3, 4, 2] is not compatible with the broadcast shape [5, 3, 4, 1]}}
  %0 = bcast.add %x, %y : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x2xf32>
  return
}

// -----

func.func @result_rank(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{result shape [1, 4] is not compatible with the broadcast shape [4]}}
  %0 = bcast.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
  return
}

// -----

// The broadcast of 0 with 1 is 0, not max(0, 1).
func.func @result_size0(%x: tensor<0xf32>, %y: tensor<1xf32>) {
  // expected-error @+1 {{result shape [1] is not compatible with the broadcast shape [0]}}
  %0 = bcast.add %x, %y : (tensor<0xf32>, tensor<1xf32>) -> tensor<1xf32>
  return
}

// -----

func.func @result_dynamic_inferred_static(%x: tensor<?xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{result shape [4] is not compatible with the broadcast shape [3]}}
  %0 = bcast.add %x, %y : (tensor<?xf32>, tensor<3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @result_element_type(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{result element type 'f64' does not match the promoted element type 'f32'}}
  %0 = bcast.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

func.func @compare_result_element_type(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'bcast.eq' op result #0 must be ranked tensor without encoding of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = bcast.eq %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @mixed_element_types(%x: tensor<4xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{result element type 'i32' does not match the promoted element type 'f32'}}
  %0 = bcast.add %x, %y : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

// A zero-dim operand of a higher category wins: int32[3] + f64[] is f64.
func.func @zero_dim_higher_category(%x: tensor<3xi32>, %y: tensor<f64>) {
  // expected-error @+1 {{result element type 'f32' does not match the promoted element type 'f64'}}
  %0 = bcast.add %x, %y : (tensor<3xi32>, tensor<f64>) -> tensor<3xf32>
  return
}

// -----

// ... but not one of the same category: f16[3] + f64[] is f16.
func.func @zero_dim_same_category(%x: tensor<3xf16>, %y: tensor<f64>) {
  // expected-error @+1 {{result element type 'f64' does not match the promoted element type 'f16'}}
  %0 = bcast.add %x, %y : (tensor<3xf16>, tensor<f64>) -> tensor<3xf64>
  return
}

// -----

func.func @unsigned_with_signed(%x: tensor<3xui32>, %y: tensor<3xi32>) {
  // expected-error @+1 {{promotion of ui32 and i32 is not supported}}
  %0 = bcast.add %x, %y : (tensor<3xui32>, tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// In any rank combination, though result_type would not ask.
func.func @unsigned_with_zero_dim_signed(%x: tensor<3xui16>, %y: tensor<i8>) {
  // expected-error @+1 {{promotion of ui16 and i8 is not supported}}
  %0 = bcast.mul %x, %y : (tensor<3xui16>, tensor<i8>) -> tensor<3xui16>
  return
}

// -----

func.func @unsigned_with_byte(%x: tensor<ui64>, %y: tensor<3xui8>) {
  // expected-error @+1 {{promotion of ui64 and ui8 is not supported}}
  %0 = bcast.lt %x, %y : (tensor<ui64>, tensor<3xui8>) -> tensor<3xi1>
  return
}

// -----

func.func @odd_width_mixed(%x: tensor<3xi4>, %y: tensor<3xi8>) {
  // expected-error @+1 {{promotion of i4 and i8 is not supported}}
  %0 = bcast.add %x, %y : (tensor<3xi4>, tensor<3xi8>) -> tensor<3xi8>
  return
}

// -----

func.func @where_branch_types(%c: tensor<4xi1>, %x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+1 {{result element type 'f16' does not match the promoted element type 'f32'}}
  %0 = bcast.where %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf16>
  return
}

// -----

func.func @in_place_float_into_long(%x: tensor<4xi64>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'bcast.add_' op result type Float can't be cast to the desired output type Long}}
  %0 = bcast.add_ %x, %y : (tensor<4xi64>, tensor<4xf32>) -> tensor<4xi64>
  return
}

// -----

func.func @in_place_int_into_bool(%x: tensor<4xi1>, %y: tensor<i32>) {
  // expected-error @+1 {{'bcast.maximum_' op result type Int can't be cast to the desired output type Bool}}
  %0 = bcast.maximum_ %x, %y : (tensor<4xi1>, tensor<i32>) -> tensor<4xi1>
  return
}

// -----

// The shape rules come first.
func.func @in_place_shape_before_dtype(%x: tensor<1x3xi64>, %y: tensor<3x3xf32>) {
  // expected-error @+1 {{output with shape [1, 3] doesn't match the broadcast shape [3, 3]}}
  %0 = bcast.mul_ %x, %y : (tensor<1x3xi64>, tensor<3x3xf32>) -> tensor<1x3xi64>
  return
}

// -----

func.func @where_cond_not_bool(%c: tensor<4xi8>, %x: tensor<4xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'bcast.where' op operand #0 must be ranked tensor without encoding of 1-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = bcast.where %c, %x, %y : (tensor<4xi8>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// PyTorch's sentences for the bitwise ops on floats name the promoted type,
// after the shapes' check and the in-place cast's.
func.func @bitwise_on_float(%x: tensor<4xf32>) {
  // expected-error @+1 {{'bcast.and' op "bitwise_and_cpu" not implemented for 'Float'}}
  %0 = bcast.and %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @bitwise_or_promoted(%x: tensor<4xi32>, %y: tensor<f64>) {
  // expected-error @+1 {{'bcast.or' op "bitwise_or_cpu" not implemented for 'Double'}}
  %0 = bcast.or %x, %y : (tensor<4xi32>, tensor<f64>) -> tensor<4xf64>
  return
}

// -----

func.func @bitwise_xor_half_with_bool(%x: tensor<4xf16>, %y: tensor<4xi1>) {
  // expected-error @+1 {{'bcast.xor' op "bitwise_xor_cpu" not implemented for 'Half'}}
  %0 = bcast.xor %x, %y : (tensor<4xf16>, tensor<4xi1>) -> tensor<4xf16>
  return
}

// -----

func.func @bitwise_and_in_place_float(%x: tensor<4xbf16>, %y: tensor<4xi8>) {
  // expected-error @+1 {{'bcast.and_' op "bitwise_and_cpu" not implemented for 'BFloat16'}}
  %0 = bcast.and_ %x, %y : (tensor<4xbf16>, tensor<4xi8>) -> tensor<4xbf16>
  return
}

// -----

func.func @bitwise_or_in_place_cast_first(%x: tensor<4xi64>, %y: tensor<4xf32>) {
  // expected-error @+1 {{'bcast.or_' op result type Float can't be cast to the desired output type Long}}
  %0 = bcast.or_ %x, %y : (tensor<4xi64>, tensor<4xf32>) -> tensor<4xi64>
  return
}

// -----

func.func @bitwise_shapes_first(%x: tensor<3xf32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0}}
  %0 = bcast.and %x, %y : (tensor<3xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @sub_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.}}
  %0 = bcast.sub %x, %x : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @sub_one_bool(%x: tensor<4xi1>, %y: tensor<f32>) {
  // expected-error @+1 {{Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.}}
  %0 = bcast.sub %y, %x : (tensor<f32>, tensor<4xi1>) -> tensor<4xf32>
  return
}

// -----

func.func @fmod_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{'bcast.fmod' op "fmod_cpu" not implemented for 'Bool'}}
  %0 = bcast.fmod %x, %x : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

// The shape rules come first.
func.func @fmod_bool_bad_shape(%x: tensor<4xi1>, %y: tensor<3xi1>) {
  // expected-error @+1 {{The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 0}}
  %0 = bcast.fmod_ %x, %y : (tensor<4xi1>, tensor<3xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @div_bad_rounding_mode(%x: tensor<4xf32>) {
  // expected-error @+1 {{div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'}}
  %0 = bcast.div %x, %x {rounding_mode = "round"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// Without a rounding mode, integers divide as floats.
func.func @div_integer_true_division(%x: tensor<4xi32>) {
  // expected-error @+1 {{result element type 'i32' does not match the promoted element type 'f32'}}
  %0 = bcast.div %x, %x : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

// The rounding mode is checked after the shapes.
func.func @div_shapes_first(%x: tensor<2xi32>, %y: tensor<3xi32>) {
  // expected-error @+1 {{The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0}}
  %0 = bcast.div %x, %y : (tensor<2xi32>, tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

func.func @div_in_place_true_division(%x: tensor<4xi32>) {
  // expected-error @+1 {{result type Float can't be cast to the desired output type Int}}
  %0 = bcast.div_ %x, %x : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @unranked(%x: tensor<*xf32>) {
  // expected-error @+1 {{'bcast.add' op operand #0 must be ranked tensor without encoding of}}
  %0 = bcast.add %x, %x : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  return
}

// -----

#enc = {sparse = true}
func.func @encoded(%x: tensor<4xf32, #enc>) {
  // expected-error @+1 {{'bcast.add' op operand #0 must be ranked tensor without encoding of}}
  %0 = bcast.add %x, %x : (tensor<4xf32, #enc>, tensor<4xf32, #enc>) -> tensor<4xf32>
  return
}

// -----

func.func @memref_operand(%x: memref<4xf32>) {
  // expected-error @+1 {{'bcast.add' op operand #0 must be ranked tensor without encoding of}}
  %0 = bcast.add %x, %x : (memref<4xf32>, memref<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @vector_operand(%x: vector<4xf32>) {
  // expected-error @+1 {{'bcast.add' op operand #0 must be ranked tensor without encoding of}}
  %0 = bcast.add %x, %x : (vector<4xf32>, vector<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @scalar_operand(%x: f32) {
  // expected-error @+1 {{'bcast.add' op operand #0 must be ranked tensor without encoding of}}
  %0 = bcast.add %x, %x : (f32, f32) -> tensor<f32>
  return
}

// -----

func.func @unsupported_element_type(%x: tensor<4xi128>) {
  // expected-error @+1 {{'bcast.add' op operand #0 must be ranked tensor without encoding of}}
  %0 = bcast.add %x, %x : (tensor<4xi128>, tensor<4xi128>) -> tensor<4xi128>
  return
}

// -----

func.func @unsigned_1_bit(%x: tensor<4xui1>) {
  // expected-error @+1 {{'bcast.add' op operand #0 must be ranked tensor without encoding of}}
  %0 = bcast.add %x, %x : (tensor<4xui1>, tensor<4xui1>) -> tensor<4xui1>
  return
}

// -----

func.func @signed_element_type(%x: tensor<4xsi8>) {
  // expected-error @+1 {{'bcast.add' op operand #0 must be ranked tensor without encoding of}}
  %0 = bcast.add %x, %x : (tensor<4xsi8>, tensor<4xsi8>) -> tensor<4xsi8>
  return
}

// -----

func.func @float8_element_type(%x: tensor<4xf8E4M3FN>) {
  // expected-error @+1 {{'bcast.add' op operand #0 must be ranked tensor without encoding of}}
  %0 = bcast.add %x, %x : (tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN>
  return
}

// -----

func.func @complex_element_type(%x: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{'bcast.add' op operand #0 must be ranked tensor without encoding of}}
  %0 = bcast.add %x, %x : (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return
}

// -----

func.func @generic_form_operand_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{'bcast.add' op expected 2 operands, but found 1}}
  %0 = "bcast.add"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @generic_form_result_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{'bcast.add' op requires one result}}
  "bcast.add"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> ()
  return
}

// -----

func.func @broadcast_to_size(%x: tensor<3x1x7xf32>) {
  // expected-error @+1 {{'bcast.broadcast_to' op The expanded size of the tensor (1) must match the existing size (7) at non-singleton dimension 2.  Target sizes: [1, 3, 1].  Tensor sizes: [3, 1, 7]}}
  %0 = bcast.broadcast_to %x : tensor<3x1x7xf32> -> tensor<1x3x1xf32>
  return
}

// -----

func.func @broadcast_to_rank(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{the number of sizes provided (1) must be greater or equal to the number of dimensions in the tensor (2)}}
  %0 = bcast.broadcast_to %x : tensor<2x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @broadcast_to_leading_dynamic(%x: tensor<3xf32>) {
  // expected-error @+1 {{The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0}}
  %0 = bcast.broadcast_to %x : tensor<3xf32> -> tensor<?x3xf32>
  return
}

// -----

func.func @broadcast_to_element_type(%x: tensor<3xf32>) {
  // expected-error @+1 {{result element type 'f16' must equal the operand's element type 'f32'}}
  %0 = bcast.broadcast_to %x : tensor<3xf32> -> tensor<2x3xf16>
  return
}

// -----

func.func @cast_broadcasts(%x: tensor<1x3xf32>) {
  // expected-error @+1 {{result shape [4, 3] must equal the operand's shape [1, 3] (cast does not broadcast)}}
  %0 = bcast.cast %x : (tensor<1x3xf32>) -> tensor<4x3xi32>
  return
}

// -----

func.func @cast_unsupported_type(%x: tensor<3xf32>) {
  // expected-error @+1 {{'bcast.cast' op result #0 must be ranked tensor without encoding of}}
  %0 = bcast.cast %x : (tensor<3xf32>) -> tensor<3xcomplex<f32>>
  return
}

// -----

// specify_shape: a static size may not change; PyTensor's run-time sentence
// (dimensions from 0), since the check would fail on every run.
func.func @specify_shape_changes_static_size(%x: tensor<3x?xf32>) {
  // expected-error @+1 {{'bcast.specify_shape' op SpecifyShape: dim 0 of input has shape 3, expected 1.}}
  %0 = bcast.specify_shape %x : (tensor<3x?xf32>) -> tensor<1x?xf32>
  return
}

// -----

// The first offending dimension from the left is named, as PyTensor does.
func.func @specify_shape_first_dim_from_left(%x: tensor<?x3x4xf32>) {
  // expected-error @+1 {{SpecifyShape: dim 1 of input has shape 3, expected 1.}}
  %0 = bcast.specify_shape %x : (tensor<?x3x4xf32>) -> tensor<?x1x1xf32>
  return
}

// -----

func.func @specify_shape_forgets_static_size(%x: tensor<?x1xf32>) {
  // expected-error @+1 {{dim 1 of input has static shape 1, but the result has ?: specify_shape only refines ? sizes (tensor.cast makes a size dynamic)}}
  %0 = bcast.specify_shape %x : (tensor<?x1xf32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @specify_shape_rank(%x: tensor<?x?xf32>) {
  // expected-error @+1 {{Input `x` is 2-dimensional and will never match a shape of length 3.}}
  %0 = bcast.specify_shape %x : (tensor<?x?xf32>) -> tensor<?x?x1xf32>
  return
}

// -----

func.func @specify_shape_element_type(%x: tensor<?xf32>) {
  // expected-error @+1 {{result element type 'f64' must equal the input's element type 'f32'}}
  %0 = bcast.specify_shape %x : (tensor<?xf32>) -> tensor<1xf64>
  return
}

// -----

func.func @specify_shape_memref(%x: memref<?xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor without encoding}}
  %0 = bcast.specify_shape %x : (memref<?xf32>) -> tensor<1xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// The binary additions and three-operand ops of issue 13: PyTorch 1.13's
// sentences, each beside a valid neighbour (a function without an expected
// error, which must verify).
//===----------------------------------------------------------------------===//

// atan2 of integers is a float function: f32, which an i32 cannot hold.
func.func @atan2_int_in_place(%x: tensor<3xi32>) {
  // expected-error @+1 {{'bcast.atan2_' op result type Float can't be cast to the desired output type Int}}
  %0 = bcast.atan2_ %x, %x : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return
}

func.func @atan2_float_in_place_int_other(%x: tensor<3xf32>, %i: tensor<3xi32>) {
  %0 = bcast.atan2_ %x, %i : (tensor<3xf32>, tensor<3xi32>) -> tensor<3xf32>
  return
}

// -----

func.func @atan2_int_result(%x: tensor<3xi32>) {
  // expected-error @+1 {{'bcast.atan2' op result element type 'i32' does not match the promoted element type 'f32'}}
  %0 = bcast.atan2 %x, %x : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return
}

// f16 keeps its type (computed in f32), though PyTorch 1.13's CPU kernel
// lacks it.
func.func @atan2_half(%x: tensor<3xf16>, %i: tensor<3xi32>) {
  %0 = bcast.atan2 %x, %i : (tensor<3xf16>, tensor<3xi32>) -> tensor<3xf16>
  return
}

// -----

func.func @copysign_int_in_place(%x: tensor<3xi64>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'bcast.copysign_' op result type Float can't be cast to the desired output type Long}}
  %0 = bcast.copysign_ %x, %y : (tensor<3xi64>, tensor<3xf32>) -> tensor<3xi64>
  return
}

func.func @copysign_ints(%x: tensor<3xi64>, %b: tensor<3xi1>) {
  %0 = bcast.copysign %x, %b : (tensor<3xi64>, tensor<3xi1>) -> tensor<3xf32>
  return
}

// -----

// hypot is defined on floats only; the sentence names the promoted type.
func.func @hypot_int(%x: tensor<3xi32>) {
  // expected-error @+1 {{'bcast.hypot' op "hypot_cpu" not implemented for 'Int'}}
  %0 = bcast.hypot %x, %x : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return
}

func.func @hypot_int_with_float(%x: tensor<3xi32>, %y: tensor<f32>) {
  %0 = bcast.hypot %x, %y : (tensor<3xi32>, tensor<f32>) -> tensor<3xf32>
  return
}

// -----

func.func @hypot_byte_char(%x: tensor<3xui8>, %y: tensor<3xi8>) {
  // expected-error @+1 {{"hypot_cpu" not implemented for 'Short'}}
  %0 = bcast.hypot %x, %y : (tensor<3xui8>, tensor<3xi8>) -> tensor<3xi16>
  return
}

// -----

func.func @hypot_bool(%x: tensor<3xi1>) {
  // expected-error @+1 {{"hypot_cpu" not implemented for 'Bool'}}
  %0 = bcast.hypot %x, %x : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return
}

func.func @hypot_half_bfloat(%x: tensor<3xf16>, %y: tensor<3xbf16>) {
  %0 = bcast.hypot %x, %y : (tensor<3xf16>, tensor<3xbf16>) -> tensor<3xf32>
  return
}

// -----

// In place, PyTorch's canCast comes before the kernel's dtype.
func.func @hypot_int_in_place_float(%x: tensor<3xi32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'bcast.hypot_' op result type Float can't be cast to the desired output type Int}}
  %0 = bcast.hypot_ %x, %y : (tensor<3xi32>, tensor<3xf32>) -> tensor<3xi32>
  return
}

// -----

func.func @hypot_int_in_place(%x: tensor<3xi32>) {
  // expected-error @+1 {{'bcast.hypot_' op "hypot_cpu" not implemented for 'Int'}}
  %0 = bcast.hypot_ %x, %x : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// The shifts are defined on integers only.
func.func @left_shift_float(%x: tensor<3xi32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'bcast.bitwise_left_shift' op "lshift_cpu" not implemented for 'Float'}}
  %0 = bcast.bitwise_left_shift %x, %y : (tensor<3xi32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

func.func @left_shift_bool_byte(%x: tensor<3xi1>, %y: tensor<3xui8>) {
  %0 = bcast.bitwise_left_shift %x, %y : (tensor<3xi1>, tensor<3xui8>) -> tensor<3xui8>
  return
}

// -----

func.func @left_shift_bool(%x: tensor<3xi1>) {
  // expected-error @+1 {{"lshift_cpu" not implemented for 'Bool'}}
  %0 = bcast.bitwise_left_shift %x, %x : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return
}

// -----

func.func @left_shift_half_bfloat(%x: tensor<3xf16>, %y: tensor<3xbf16>) {
  // expected-error @+1 {{"lshift_cpu" not implemented for 'Float'}}
  %0 = bcast.bitwise_left_shift %x, %y : (tensor<3xf16>, tensor<3xbf16>) -> tensor<3xf32>
  return
}

// -----

func.func @right_shift_double(%x: tensor<3xi8>, %y: tensor<f64>) {
  // expected-error @+1 {{'bcast.bitwise_right_shift' op "rshift_cpu" not implemented for 'Double'}}
  %0 = bcast.bitwise_right_shift %x, %y : (tensor<3xi8>, tensor<f64>) -> tensor<3xf64>
  return
}

// -----

func.func @left_shift_char_in_place_float(%x: tensor<3xi8>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'bcast.bitwise_left_shift_' op result type Float can't be cast to the desired output type Char}}
  %0 = bcast.bitwise_left_shift_ %x, %y : (tensor<3xi8>, tensor<3xf32>) -> tensor<3xi8>
  return
}

// A wider amount is computed in i64 and stored back into i8.
func.func @left_shift_char_in_place_long(%x: tensor<3xi8>, %y: tensor<3xi64>) {
  %0 = bcast.bitwise_right_shift_ %x, %y : (tensor<3xi8>, tensor<3xi64>) -> tensor<3xi8>
  return
}

// -----

func.func @logical_and_float_result(%x: tensor<3xf32>) {
  // expected-error @+1 {{'bcast.logical_and' op result #0 must be ranked tensor without encoding of 1-bit signless integer values, but got 'tensor<3xf32>'}}
  %0 = bcast.logical_and %x, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

func.func @logical_or_in_place_float(%x: tensor<3xf32>, %y: tensor<3xf64>) {
  %0 = bcast.logical_or_ %x, %y : (tensor<3xf32>, tensor<3xf64>) -> tensor<3xf32>
  return
}

// -----

func.func @logical_xor_shapes(%x: tensor<2xf32>, %y: tensor<3xi32>) {
  // expected-error @+1 {{'bcast.logical_xor' op The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0}}
  %0 = bcast.logical_xor %x, %y : (tensor<2xf32>, tensor<3xi32>) -> tensor<3xi1>
  return
}

// -----

// The three-operand ops: PyTorch folds the shapes pairwise, `a` the shape so
// far and `b` the next operand, as for `where`.
func.func @clamp_not_broadcastable(%x: tensor<2x3xf32>, %lo: tensor<2x1xf32>, %hi: tensor<5xf32>) {
  // expected-error @+1 {{'bcast.clamp' op The size of tensor a (3) must match the size of tensor b (5) at non-singleton dimension 1}}
  %0 = bcast.clamp %x, %lo, %hi : (tensor<2x3xf32>, tensor<2x1xf32>, tensor<5xf32>) -> tensor<2x3xf32>
  return
}

func.func @clamp_where_like(%x: tensor<2x1x1xf32>, %lo: tensor<3x1xf32>, %hi: tensor<4xf32>) {
  %0 = bcast.clamp %x, %lo, %hi : (tensor<2x1x1xf32>, tensor<3x1xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

// PyTorch folds the shapes in operand order: x [2, 3] and y [4, 1] already
// fail at dimension 0, before z is looked at.
func.func @addcmul_not_broadcastable(%x: tensor<2x3xf32>, %y: tensor<4x1xf32>, %z: tensor<5xf32>) {
  // expected-error @+1 {{'bcast.addcmul' op The size of tensor a (2) must match the size of tensor b (4) at non-singleton dimension 0}}
  %0 = bcast.addcmul %x, %y, %z : (tensor<2x3xf32>, tensor<4x1xf32>, tensor<5xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @lerp_result_shape(%x: tensor<2x1xf32>, %y: tensor<3xf32>, %w: tensor<f32>) {
  // expected-error @+1 {{'bcast.lerp' op result shape [2, 4] is not compatible with the broadcast shape [2, 3]}}
  %0 = bcast.lerp %x, %y, %w : (tensor<2x1xf32>, tensor<3xf32>, tensor<f32>) -> tensor<2x4xf32>
  return
}

// -----

// The in-place rule holds for every other operand.
func.func @clamp_in_place_second(%x: tensor<1x3xf32>, %lo: tensor<2x3xf32>, %hi: tensor<3xf32>) {
  // expected-error @+1 {{'bcast.clamp_' op output with shape [1, 3] doesn't match the broadcast shape [2, 3]}}
  %0 = bcast.clamp_ %x, %lo, %hi : (tensor<1x3xf32>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<1x3xf32>
  return
}

func.func @clamp_in_place(%x: tensor<2x3xf32>, %lo: tensor<1x3xf32>, %hi: tensor<3xf32>) {
  %0 = bcast.clamp_ %x, %lo, %hi : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @addcmul_in_place_third(%x: tensor<1x3xf32>, %y: tensor<3xf32>, %z: tensor<2x3xf32>) {
  // expected-error @+1 {{'bcast.addcmul_' op output with shape [1, 3] doesn't match the broadcast shape [2, 3]: The expanded size of the tensor (1) must match the existing size (2) at non-singleton dimension 0.  Target sizes: [1, 3].  Tensor sizes: [2, 3]}}
  %0 = bcast.addcmul_ %x, %y, %z : (tensor<1x3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<1x3xf32>
  return
}

// -----

func.func @lerp_in_place_rank(%x: tensor<3xf32>, %y: tensor<3xf32>, %w: tensor<2x3xf32>) {
  // expected-error @+1 {{'bcast.lerp_' op output with shape [3] doesn't match the broadcast shape [2, 3]: the number of sizes provided (1) must be greater or equal to the number of dimensions in the tensor (2)}}
  %0 = bcast.lerp_ %x, %y, %w : (tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @addcdiv_in_place_result(%x: tensor<3xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'bcast.addcdiv_' op result type 'tensor<3xf64>' must equal the type of the in-place operand 'tensor<3xf32>'}}
  %0 = bcast.addcdiv_ %x, %y, %y : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf64>
  return
}

// -----

// clamp promotes the three operands; it is not defined on bools.
func.func @clamp_bool(%x: tensor<3xi1>) {
  // expected-error @+1 {{'bcast.clamp' op "clamp_cpu" not implemented for 'Bool'}}
  %0 = bcast.clamp %x, %x, %x : (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return
}

func.func @clamp_bool_with_int(%x: tensor<3xi1>, %hi: tensor<3xi32>) {
  %0 = bcast.clamp %x, %x, %hi : (tensor<3xi1>, tensor<3xi1>, tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

func.func @clamp_int_in_place_float(%x: tensor<3xi32>, %lo: tensor<f32>) {
  // expected-error @+1 {{'bcast.clamp_' op result type Float can't be cast to the desired output type Int}}
  %0 = bcast.clamp_ %x, %lo, %x : (tensor<3xi32>, tensor<f32>, tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

func.func @clamp_promoted_result(%x: tensor<3xi32>, %lo: tensor<3xi64>) {
  // expected-error @+1 {{'bcast.clamp' op result element type 'i32' does not match the promoted element type 'i64'}}
  %0 = bcast.clamp %x, %lo, %x : (tensor<3xi32>, tensor<3xi64>, tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

// lerp needs one float type for its three operands (PyTorch's C++ names).
func.func @lerp_end_double(%x: tensor<3xf32>, %y: tensor<3xf64>) {
  // expected-error @+1 {{'bcast.lerp' op expected dtype float for `end` but got dtype double}}
  %0 = bcast.lerp %x, %y, %y : (tensor<3xf32>, tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return
}

func.func @lerp_bfloat(%x: tensor<3xbf16>, %w: tensor<bf16>) {
  %0 = bcast.lerp %x, %x, %w : (tensor<3xbf16>, tensor<3xbf16>, tensor<bf16>) -> tensor<3xbf16>
  return
}

// -----

func.func @lerp_weight_long(%x: tensor<3xf32>, %w: tensor<i64>) {
  // expected-error @+1 {{expected dtype float for `weight` but got dtype long int}}
  %0 = bcast.lerp %x, %x, %w : (tensor<3xf32>, tensor<3xf32>, tensor<i64>) -> tensor<3xf32>
  return
}

// -----

// A `scalar_weight` is a Python number's carrier: rank 0, f64, i64 or i1.
func.func @lerp_scalar_weight_ranked(%x: tensor<3xbf16>, %w: tensor<3xf64>) {
  // expected-error @+1 {{'bcast.lerp' op `scalar_weight` takes a Python number: `weight` must be tensor<f64>, tensor<i64> or tensor<i1>, not 'tensor<3xf64>'}}
  %0 = bcast.lerp %x, %x, %w {scalar_weight} : (tensor<3xbf16>, tensor<3xbf16>, tensor<3xf64>) -> tensor<3xbf16>
  return
}

// -----

func.func @lerp_scalar_weight_f32(%x: tensor<3xf32>, %w: tensor<f32>) {
  // expected-error @+1 {{'bcast.lerp_' op `scalar_weight` takes a Python number: `weight` must be tensor<f64>, tensor<i64> or tensor<i1>, not 'tensor<f32>'}}
  %0 = bcast.lerp_ %x, %x, %w {scalar_weight} : (tensor<3xf32>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return
}

// -----

// With a number weight, `end` still has `input`'s type, and the kernel that
// lacks integers is lerp.Scalar's.
func.func @lerp_scalar_weight_end_double(%x: tensor<3xf32>, %y: tensor<3xf64>, %w: tensor<f64>) {
  // expected-error @+1 {{'bcast.lerp' op expected dtype float for `end` but got dtype double}}
  %0 = bcast.lerp %x, %y, %w {scalar_weight} : (tensor<3xf32>, tensor<3xf64>, tensor<f64>) -> tensor<3xf64>
  return
}

// -----

func.func @lerp_scalar_weight_long(%x: tensor<3xi64>, %w: tensor<f64>) {
  // expected-error @+1 {{'bcast.lerp' op "lerp_kernel_scalar" not implemented for 'Long'}}
  %0 = bcast.lerp %x, %x, %w {scalar_weight} : (tensor<3xi64>, tensor<3xi64>, tensor<f64>) -> tensor<3xi64>
  return
}

// -----

func.func @lerp_end_half(%x: tensor<3xbf16>, %y: tensor<3xf16>) {
  // expected-error @+1 {{expected dtype c10::BFloat16 for `end` but got dtype c10::Half}}
  %0 = bcast.lerp %x, %y, %x : (tensor<3xbf16>, tensor<3xf16>, tensor<3xbf16>) -> tensor<3xf32>
  return
}

// -----

func.func @lerp_in_place_end_double(%x: tensor<3xf32>, %y: tensor<3xf64>) {
  // expected-error @+1 {{'bcast.lerp_' op expected dtype float for `end` but got dtype double}}
  %0 = bcast.lerp_ %x, %y, %y : (tensor<3xf32>, tensor<3xf64>, tensor<3xf64>) -> tensor<3xf32>
  return
}

// -----

func.func @lerp_int(%x: tensor<3xi32>) {
  // expected-error @+1 {{'bcast.lerp' op "lerp_kernel_tensor" not implemented for 'Int'}}
  %0 = bcast.lerp %x, %x, %x : (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

func.func @lerp_bool_end_char(%x: tensor<3xi1>, %y: tensor<3xi8>, %z: tensor<3xui8>) {
  // expected-error @+1 {{expected dtype bool for `end` but got dtype signed char}}
  %0 = bcast.lerp %x, %y, %z : (tensor<3xi1>, tensor<3xi8>, tensor<3xui8>) -> tensor<3xi16>
  return
}

// -----

func.func @addcmul_bool(%x: tensor<3xi1>) {
  // expected-error @+1 {{'bcast.addcmul' op "addcmul_cpu_out" not implemented for 'Bool'}}
  %0 = bcast.addcmul %x, %x, %x : (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return
}

func.func @addcmul_bool_with_char(%x: tensor<3xi1>, %y: tensor<3xi8>) {
  %0 = bcast.addcmul %x, %x, %y : (tensor<3xi1>, tensor<3xi1>, tensor<3xi8>) -> tensor<3xi8>
  return
}

// -----

// `value` is converted to the compute type, as c10's checked_convert.
func.func @addcmul_value_int_overflow(%x: tensor<3xi32>) {
  // expected-error @+1 {{'bcast.addcmul' op value cannot be converted to type int without overflow}}
  %0 = bcast.addcmul %x, %x, %x {value = 1.0e10 : f64} : (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return
}

func.func @addcmul_value_long(%x: tensor<3xi64>) {
  %0 = bcast.addcmul %x, %x, %x {value = 1.0e10 : f64} : (tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return
}

// -----

func.func @addcmul_value_char(%x: tensor<3xi8>) {
  // expected-error @+1 {{value cannot be converted to type int8_t without overflow}}
  %0 = bcast.addcmul_ %x, %x, %x {value = 128.0 : f64} : (tensor<3xi8>, tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  return
}

func.func @addcmul_value_char_min(%x: tensor<3xi8>) {
  %0 = bcast.addcmul_ %x, %x, %x {value = -128.0 : f64} : (tensor<3xi8>, tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  return
}

// -----

// The range is checked before truncation, as c10 does: 127.5 would truncate
// to 127 but overflows.
func.func @addcmul_value_char_fraction(%x: tensor<3xi8>) {
  // expected-error @+1 {{value cannot be converted to type int8_t without overflow}}
  %0 = bcast.addcmul %x, %x, %x {value = 127.5 : f64} : (tensor<3xi8>, tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  return
}

// Within the range, the value truncates towards zero (to 126).
func.func @addcmul_value_char_truncated(%x: tensor<3xi8>) {
  %0 = bcast.addcmul %x, %x, %x {value = 126.9 : f64} : (tensor<3xi8>, tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  return
}

// -----

func.func @addcmul_value_byte_fraction(%x: tensor<3xui8>) {
  // expected-error @+1 {{value cannot be converted to type uint8_t without overflow}}
  %0 = bcast.addcmul %x, %x, %x {value = -0.5 : f64} : (tensor<3xui8>, tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  return
}

// -----

func.func @addcmul_value_short_nan(%x: tensor<3xi16>) {
  // expected-error @+1 {{value cannot be converted to type int16_t without overflow}}
  %0 = bcast.addcmul %x, %x, %x {value = 0x7FF8000000000000 : f64} : (tensor<3xi16>, tensor<3xi16>, tensor<3xi16>) -> tensor<3xi16>
  return
}

// -----

func.func @addcmul_value_long_inf(%x: tensor<3xi64>) {
  // expected-error @+1 {{value cannot be converted to type int64_t without overflow}}
  %0 = bcast.addcmul %x, %x, %x {value = 0x7FF0000000000000 : f64} : (tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return
}

// -----

func.func @addcmul_value_byte_negative(%x: tensor<3xui8>) {
  // expected-error @+1 {{value cannot be converted to type uint8_t without overflow}}
  %0 = bcast.addcmul %x, %x, %x {value = -1.0 : f64} : (tensor<3xui8>, tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  return
}

// -----

func.func @addcmul_value_float_overflow(%x: tensor<3xf32>) {
  // expected-error @+1 {{value cannot be converted to type float without overflow}}
  %0 = bcast.addcmul %x, %x, %x {value = 1.0e39 : f64} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// Infinities and NaN pass to floats; f64 holds any value.
func.func @addcmul_value_float_inf(%x: tensor<3xf32>, %d: tensor<3xf64>) {
  %0 = bcast.addcmul %x, %x, %x {value = 0x7FF0000000000000 : f64} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = bcast.addcmul %x, %x, %x {value = 0x7FF8000000000000 : f64} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = bcast.addcmul %d, %d, %d {value = 1.0e300 : f64} : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return
}

// -----

// bf16 is computed in f32: the value must fit a float.
func.func @addcmul_value_bfloat_overflow(%x: tensor<3xbf16>) {
  // expected-error @+1 {{value cannot be converted to type float without overflow}}
  %0 = bcast.addcmul %x, %x, %x {value = 1.0e39 : f64} : (tensor<3xbf16>, tensor<3xbf16>, tensor<3xbf16>) -> tensor<3xbf16>
  return
}

// -----

func.func @addcmul_value_not_f64(%x: tensor<3xf32>) {
  // expected-error @+1 {{attribute 'value' failed to satisfy constraint: 64-bit float attribute}}
  %0 = bcast.addcmul %x, %x, %x {value = 2 : i64} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// addcdiv refuses integer (and bool) tensor1 and tensor2 together.
func.func @addcdiv_ints(%x: tensor<3xf32>, %i: tensor<3xi32>, %b: tensor<3xi1>) {
  // expected-error @+1 {{'bcast.addcdiv' op Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all dtypes.}}
  %0 = bcast.addcdiv %x, %i, %b : (tensor<3xf32>, tensor<3xi32>, tensor<3xi1>) -> tensor<3xf32>
  return
}

func.func @addcdiv_int_input(%i: tensor<3xi32>, %y: tensor<3xf64>) {
  %0 = bcast.addcdiv %i, %i, %y : (tensor<3xi32>, tensor<3xi32>, tensor<3xf64>) -> tensor<3xf64>
  return
}

// -----

func.func @addcdiv_int_in_place(%i: tensor<3xi32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'bcast.addcdiv_' op result type Float can't be cast to the desired output type Int}}
  %0 = bcast.addcdiv_ %i, %y, %y : (tensor<3xi32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xi32>
  return
}

// -----

func.func @addcdiv_value_overflow(%x: tensor<3xf32>, %i: tensor<3xi32>) {
  // expected-error @+1 {{'bcast.addcdiv' op value cannot be converted to type float without overflow}}
  %0 = bcast.addcdiv %i, %i, %x {value = -1.0e300 : f64} : (tensor<3xi32>, tensor<3xi32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// PyTorch checks lerp's dtypes and addcdiv's integer operands before the
// common dtype, so before the in-place canCast.
func.func @lerp_in_place_byte_end_float(%x: tensor<3xui8>, %y: tensor<3xf32>, %w: tensor<3xi1>) {
  // expected-error @+1 {{'bcast.lerp_' op expected dtype unsigned char for `end` but got dtype float}}
  %0 = bcast.lerp_ %x, %y, %w : (tensor<3xui8>, tensor<3xf32>, tensor<3xi1>) -> tensor<3xui8>
  return
}

// -----

func.func @addcdiv_in_place_bool_ints(%x: tensor<3xi1>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'bcast.addcdiv_' op Integer division with addcdiv is no longer supported}}
  %0 = bcast.addcdiv_ %x, %i, %i : (tensor<3xi1>, tensor<3xi64>, tensor<3xi64>) -> tensor<3xi1>
  return
}

// -----

// canCast names the type PyTorch computes, Half, though bcast computes it in
// f32.
func.func @atan2_int_in_place_half(%x: tensor<3xi32>, %h: tensor<3xf16>) {
  // expected-error @+1 {{'bcast.atan2_' op result type Half can't be cast to the desired output type Int}}
  %0 = bcast.atan2_ %x, %h : (tensor<3xi32>, tensor<3xf16>) -> tensor<3xi32>
  return
}

// In place into a narrower float: computed in f64, stored in f32 (PyTorch
// 1.13's CPU addcmul_ stops on an internal assertion here).
func.func @addcmul_float_in_place_double(%x: tensor<3xf32>, %d: tensor<3xf64>) {
  %0 = bcast.addcmul_ %x, %d, %d : (tensor<3xf32>, tensor<3xf64>, tensor<3xf64>) -> tensor<3xf32>
  return
}

// -----

// PyTorch 1.13 has no remainder, rounding division or power of bools; each
// is fine once promotion leaves i1 (the valid neighbours below).
func.func @remainder_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{'bcast.remainder' op "remainder_cpu" not implemented for 'Bool'}}
  %0 = bcast.remainder %x, %x : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @div_floor_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{'bcast.div_' op "div_floor_cpu" not implemented for 'Bool'}}
  %0 = bcast.div_ %x, %x {rounding_mode = "floor"} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @div_trunc_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{'bcast.div' op "div_trunc_cpu" not implemented for 'Bool'}}
  %0 = bcast.div %x, %x {rounding_mode = "trunc"} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @pow_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{'bcast.pow' op "pow" not implemented for 'Bool'}}
  %0 = bcast.pow %x, %x : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

// A bool with an integer computes in the integer type: valid.
func.func @bool_with_int(%x: tensor<4xi1>, %y: tensor<4xi8>) {
  %0 = bcast.remainder %x, %y : (tensor<4xi1>, tensor<4xi8>) -> tensor<4xi8>
  %1 = bcast.pow %x, %y : (tensor<4xi1>, tensor<4xi8>) -> tensor<4xi8>
  %2 = bcast.div %x, %y {rounding_mode = "floor"} : (tensor<4xi1>, tensor<4xi8>) -> tensor<4xi8>
  %3 = bcast.div %x, %x : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xf32>
  return
}

// -----

// The checks PyTorch makes before it broadcasts come before the shape rules;
// its kernels' checks come after them.
func.func @order_sub_bool_before_shapes(%x: tensor<3xi1>, %y: tensor<4xf32>) {
  // expected-error @+1 {{Subtraction, the `-` operator, with a bool tensor is not supported.}}
  %0 = bcast.sub %x, %y : (tensor<3xi1>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @order_sub_bool_before_in_place(%x: tensor<3xi1>, %y: tensor<2x3xf32>) {
  // expected-error @+1 {{Subtraction, the `-` operator, with a bool tensor is not supported.}}
  %0 = bcast.sub_ %x, %y : (tensor<3xi1>, tensor<2x3xf32>) -> tensor<3xi1>
  return
}

// -----

func.func @order_lerp_dtype_before_shapes(%x: tensor<3xf32>, %y: tensor<4xf64>, %w: tensor<3xf32>) {
  // expected-error @+1 {{expected dtype float for `end` but got dtype double}}
  %0 = bcast.lerp %x, %y, %w : (tensor<3xf32>, tensor<4xf64>, tensor<3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @order_lerp_kernel_after_shapes(%x: tensor<3xi32>, %y: tensor<4xi32>, %w: tensor<3xi32>) {
  // expected-error @+1 {{The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0}}
  %0 = bcast.lerp %x, %y, %w : (tensor<3xi32>, tensor<4xi32>, tensor<3xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @order_lerp_kernel(%x: tensor<3xi32>) {
  // expected-error @+1 {{"lerp_kernel_tensor" not implemented for 'Int'}}
  %0 = bcast.lerp %x, %x, %x : (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

func.func @order_addcdiv_integers_before_shapes(%x: tensor<3xf32>, %a: tensor<3xi32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{Integer division with addcdiv is no longer supported}}
  %0 = bcast.addcdiv %x, %a, %b : (tensor<3xf32>, tensor<3xi32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @order_rounding_mode_before_shapes(%x: tensor<3xi32>, %y: tensor<4xf32>) {
  // expected-error @+1 {{div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'}}
  %0 = bcast.div %x, %y {rounding_mode = "round"} : (tensor<3xi32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @order_rounding_bools_after_shapes(%x: tensor<3xi1>, %y: tensor<4xi1>) {
  // expected-error @+1 {{The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0}}
  %0 = bcast.div %x, %y {rounding_mode = "floor"} : (tensor<3xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}
