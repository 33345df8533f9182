// The reductions', softmax's and sum_to_size's diagnostics, with their exact
// text (PyTorch 1.13's sentences). The valid neighbours of each are in
// reduction-ops.mlir.
// RUN: bcast-opt %s -split-input-file -verify-diagnostics

func.func @dim_out_of_range(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'bcast.sum' op Dimension out of range (expected to be in range of [-2, 1], but got 2)}}
  %0 = bcast.sum %x {dims = array<i64: 2>} : (tensor<4x3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @dim_out_of_range_negative(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{Dimension out of range (expected to be in range of [-2, 1], but got -3)}}
  %0 = bcast.amax %x {dims = array<i64: -3>} : (tensor<4x3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @dim_out_of_range_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{Dimension out of range (expected to be in range of [-1, 0], but got 1)}}
  %0 = bcast.sum %x {dims = array<i64: 1>} : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @dim_repeated(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'bcast.sum' op dim 1 appears multiple times in the list of dims}}
  %0 = bcast.sum %x {dims = array<i64: 1, -1>} : (tensor<4x3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @dim_repeated_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{dim 0 appears multiple times in the list of dims}}
  %0 = bcast.mean %x {dims = array<i64: 0, -1>} : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @dims_empty(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{`dims` is empty: omit it to reduce every dimension (PyTorch and NumPy disagree on what an empty list means)}}
  %0 = bcast.sum %x {dims = array<i64>} : (tensor<4x3xf32>) -> tensor<f32>
  return
}

// -----

func.func @mean_int(%x: tensor<4x3xi64>) {
  // expected-error @+1 {{'bcast.mean' op mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Long}}
  %0 = bcast.mean %x {dims = array<i64: 1>} : (tensor<4x3xi64>) -> tensor<4xi64>
  return
}

// -----

func.func @mean_bool(%x: tensor<4x3xi1>) {
  // expected-error @+1 {{mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Bool}}
  %0 = bcast.mean %x : (tensor<4x3xi1>) -> tensor<i1>
  return
}

// -----

func.func @var_int(%x: tensor<4x3xi32>) {
  // expected-error @+1 {{'bcast.var' op std and var only support floating point and complex dtypes}}
  %0 = bcast.var %x : (tensor<4x3xi32>) -> tensor<i32>
  return
}

// -----

func.func @std_bool(%x: tensor<4x3xi1>) {
  // expected-error @+1 {{'bcast.std' op std and var only support floating point and complex dtypes}}
  %0 = bcast.std %x : (tensor<4x3xi1>) -> tensor<i1>
  return
}

// -----

func.func @amax_empty_dim(%x: tensor<0x3xf32>) {
  // expected-error @+1 {{'bcast.amax' op amax(): Expected reduction dim 0 to have non-zero size.}}
  %0 = bcast.amax %x {dims = array<i64: 0>} : (tensor<0x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @amin_empty_dim(%x: tensor<3x0xi32>) {
  // expected-error @+1 {{'bcast.amin' op amin(): Expected reduction dim 1 to have non-zero size.}}
  %0 = bcast.amin %x {dims = array<i64: -1>, keepdim = true} : (tensor<3x0xi32>) -> tensor<3x1xi32>
  return
}

// -----

func.func @amax_empty_all(%x: tensor<0x3xf32>) {
  // expected-error @+1 {{'bcast.amax' op amax(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.}}
  %0 = bcast.amax %x : (tensor<0x3xf32>) -> tensor<f32>
  return
}

// -----

func.func @argmax_empty_dim(%x: tensor<0x3xf32>) {
  // expected-error @+1 {{'bcast.argmax' op argmax(): Expected reduction dim 0 to have non-zero size.}}
  %0 = bcast.argmax %x {dim = 0 : i64} : (tensor<0x3xf32>) -> tensor<3xi64>
  return
}

// -----

func.func @argmin_empty_all(%x: tensor<0x3xf32>) {
  // expected-error @+1 {{'bcast.argmin' op argmin(): Expected reduction dim to be specified for input.numel() == 0.}}
  %0 = bcast.argmin %x : (tensor<0x3xf32>) -> tensor<i64>
  return
}

// -----

func.func @argmax_bool(%x: tensor<4x3xi1>) {
  // expected-error @+1 {{'bcast.argmax' op "argmax_cpu" not implemented for 'Bool'}}
  %0 = bcast.argmax %x {dim = 1 : i64} : (tensor<4x3xi1>) -> tensor<4xi64>
  return
}

// -----

func.func @argmin_bool(%x: tensor<4x3xi1>) {
  // expected-error @+1 {{"argmin_cpu" not implemented for 'Bool'}}
  %0 = bcast.argmin %x : (tensor<4x3xi1>) -> tensor<i64>
  return
}

// -----

func.func @argmax_dim_out_of_range(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{Dimension out of range (expected to be in range of [-2, 1], but got 5)}}
  %0 = bcast.argmax %x {dim = 5 : i64} : (tensor<4x3xf32>) -> tensor<4xi64>
  return
}

// -----

func.func @reduced_shape(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'bcast.sum' op result shape [4, 3] is not compatible with the reduced shape [4, 1]}}
  %0 = bcast.sum %x {dims = array<i64: 1>, keepdim = true} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @reduced_rank(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{result shape [4, 1] is not compatible with the reduced shape [4]}}
  %0 = bcast.sum %x {dims = array<i64: 1>} : (tensor<4x3xf32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @argmax_keepdim_shape(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{result shape [] is not compatible with the reduced shape [1, 1]}}
  %0 = bcast.argmax %x {keepdim = true} : (tensor<4x3xf32>) -> tensor<i64>
  return
}

// -----

func.func @sum_int_result_type(%x: tensor<4x3xi32>) {
  // expected-error @+1 {{'bcast.sum' op result element type 'i32' does not match the sum element type 'i64'}}
  %0 = bcast.sum %x : (tensor<4x3xi32>) -> tensor<i32>
  return
}

// -----

func.func @any_result_type(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{result element type 'f32' does not match the any element type 'i1'}}
  %0 = bcast.any %x : (tensor<4x3xf32>) -> tensor<f32>
  return
}

// -----

func.func @logsumexp_int_result_type(%x: tensor<4xi32>) {
  // expected-error @+1 {{result element type 'i32' does not match the logsumexp element type 'f32'}}
  %0 = bcast.logsumexp %x : (tensor<4xi32>) -> tensor<i32>
  return
}

// -----

func.func @softmax_int_lastdim(%x: tensor<4x3xi32>) {
  // expected-error @+1 {{'bcast.softmax' op "softmax_lastdim_kernel_impl" not implemented for 'Int'}}
  %0 = bcast.softmax %x {dim = -1 : i64} : (tensor<4x3xi32>) -> tensor<4x3xi32>
  return
}

// -----

func.func @softmax_int_dim0(%x: tensor<4x3xi64>) {
  // expected-error @+1 {{"softmax_kernel_impl" not implemented for 'Long'}}
  %0 = bcast.softmax %x {dim = 0 : i64} : (tensor<4x3xi64>) -> tensor<4x3xi64>
  return
}

// -----

func.func @log_softmax_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{'bcast.log_softmax' op "log_softmax_lastdim_kernel_impl" not implemented for 'Bool'}}
  %0 = bcast.log_softmax %x {dim = 0 : i64} : (tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @softmax_dim(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{Dimension out of range (expected to be in range of [-2, 1], but got 2)}}
  %0 = bcast.softmax %x {dim = 2 : i64} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @sum_to_size_not_expandable(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'bcast.sum_to_size' op size {[2, 3]} is not expandable to size {[4, 3]}.}}
  %0 = bcast.sum_to_size %x : (tensor<4x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @sum_to_size_more_dims(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{size {[2, 1, 3]} is not expandable to size {[2, 3]}.}}
  %0 = bcast.sum_to_size %x : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
  return
}

// -----

// Summing something, sum_to_size is a sum: i32 gives i64 (PyTorch's
// `sum_to_size` of an int32 tensor is int64 where it sums).
func.func @sum_to_size_summing_keeps_type(%x: tensor<2x3xi32>) {
  // expected-error @+1 {{'bcast.sum_to_size' op result element type 'i32' must be 'i64', the sum's element type (sum_to_size sums here)}}
  %0 = bcast.sum_to_size %x : (tensor<2x3xi32>) -> tensor<3xi32>
  return
}

// -----

func.func @sum_to_size_bool_summed(%x: tensor<2x3xi1>) {
  // expected-error @+1 {{result element type 'i1' must be 'i64', the sum's element type (sum_to_size sums here)}}
  %0 = bcast.sum_to_size %x : (tensor<2x3xi1>) -> tensor<1x3xi1>
  return
}

// -----

// A rank-0 target is always summed (PyTorch's sum_to), even from rank 0.
func.func @sum_to_size_rank0_bool(%x: tensor<i1>) {
  // expected-error @+1 {{result element type 'i1' must be 'i64', the sum's element type (sum_to_size sums here)}}
  %0 = bcast.sum_to_size %x : (tensor<i1>) -> tensor<i1>
  return
}

// -----

// Summing nothing keeps the element type.
func.func @sum_to_size_nothing_summed(%x: tensor<2x3xi1>) {
  // expected-error @+1 {{result element type 'i64' must equal the input's element type 'i1' (sum_to_size sums nothing here)}}
  %0 = bcast.sum_to_size %x : (tensor<2x3xi1>) -> tensor<2x3xi64>
  return
}

// -----

func.func @sum_to_size_ones_kept(%x: tensor<1x3xi8>) {
  // expected-error @+1 {{result element type 'i64' must equal the input's element type 'i8' (sum_to_size sums nothing here)}}
  %0 = bcast.sum_to_size %x : (tensor<1x3xi8>) -> tensor<1x3xi64>
  return
}

// -----

// A target 1 over a dynamic size: either type, and no other.
func.func @sum_to_size_dynamic(%x: tensor<?x3xi8>) {
  // expected-error @+1 {{result element type 'i32' must be 'i8' or 'i64', the input's or the sum's element type (whether sum_to_size sums here depends on a dynamic size)}}
  %0 = bcast.sum_to_size %x : (tensor<?x3xi8>) -> tensor<1x3xi32>
  return
}

// -----

func.func @mean_int_dtype(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'bcast.mean' op mean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. Got: Int}}
  %0 = bcast.mean %x {dtype = i32} : (tensor<4x3xf32>) -> tensor<i32>
  return
}

// -----

func.func @mean_uint8_dtype(%x: tensor<4x3xi8>) {
  // expected-error @+1 {{mean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. Got: Byte}}
  %0 = bcast.mean %x {dtype = ui8} : (tensor<4x3xi8>) -> tensor<ui8>
  return
}

// -----

func.func @sum_dtype_result(%x: tensor<4x3xi8>) {
  // expected-error @+1 {{'bcast.sum' op result element type 'i64' does not match the sum element type 'f16'}}
  %0 = bcast.sum %x {dtype = f16} : (tensor<4x3xi8>) -> tensor<i64>
  return
}

// -----

func.func @prod_dtype_not_an_element(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'bcast.prod' op attribute 'dtype' failed to satisfy constraint}}
  %0 = bcast.prod %x {dtype = index} : (tensor<4x3xf32>) -> tensor<index>
  return
}

// -----

func.func @softmax_int_dtype(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'bcast.softmax' op "softmax_lastdim_kernel_impl" not implemented for 'Int'}}
  %0 = bcast.softmax %x {dim = 1 : i64, dtype = i32} : (tensor<4x3xf32>) -> tensor<4x3xi32>
  return
}

// -----

// log_softmax over another dim than the last names softmax's kernel, as
// PyTorch 1.13 does.
func.func @log_softmax_bool_dtype_dim0(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'bcast.log_softmax' op "softmax_kernel_impl" not implemented for 'Bool'}}
  %0 = bcast.log_softmax %x {dim = 0 : i64, dtype = i1} : (tensor<4x3xf32>) -> tensor<4x3xi1>
  return
}

// -----

func.func @softmax_dtype_result(%x: tensor<4x3xf16>) {
  // expected-error @+1 {{'bcast.softmax' op result type 'tensor<4x3xf16>' does not match the softmax result type 'tensor<4x3xf64>'}}
  %0 = bcast.softmax %x {dim = 1 : i64, dtype = f64} : (tensor<4x3xf16>) -> tensor<4x3xf16>
  return
}

// -----

func.func @log_softmax_result(%x: tensor<4x3xf32>) {
  // expected-error @+1 {{'bcast.log_softmax' op result type 'tensor<4x3xf64>' does not match the log_softmax result type 'tensor<4x3xf32>'}}
  %0 = bcast.log_softmax %x {dim = 1 : i64} : (tensor<4x3xf32>) -> tensor<4x3xf64>
  return
}

// -----

func.func @any_uint8_result(%x: tensor<4x3xui8>) {
  // expected-error @+1 {{'bcast.any' op result element type 'i1' does not match the any element type 'ui8'}}
  %0 = bcast.any %x : (tensor<4x3xui8>) -> tensor<i1>
  return
}

// -----

func.func @all_int8_result(%x: tensor<4x3xi8>) {
  // expected-error @+1 {{'bcast.all' op result element type 'i8' does not match the all element type 'i1'}}
  %0 = bcast.all %x : (tensor<4x3xi8>) -> tensor<i8>
  return
}
