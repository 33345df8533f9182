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
  // expected-error @+1 {{The size of tensor a (2) must match the size of tensor c (3) at non-singleton dimension 0}}
  %0 = bcast.where %c, %x, %y : (tensor<2x1xi1>, tensor<1xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @where_x_vs_y(%c: tensor<i1>, %x: tensor<5xf32>, %y: tensor<4x2xf32>) {
  // expected-error @+1 {{The size of tensor b (5) must match the size of tensor c (2) at non-singleton dimension 1}}
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

func.func @bitwise_on_float(%x: tensor<4xf32>) {
  // expected-error @+1 {{'bcast.and' op operand #0 must be ranked tensor without encoding of signless integer (i1 to i64) or 8-bit unsigned integer or 16-bit unsigned integer or 32-bit unsigned integer or 64-bit unsigned integer values, but got 'tensor<4xf32>'}}
  %0 = bcast.and %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
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
