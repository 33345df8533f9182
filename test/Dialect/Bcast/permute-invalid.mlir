// Every diagnostic of bcast.permute, with PyTorch 1.13's sentences (its
// length sentence names sparse_coo for dense tensors too), in its order:
// the length, then each dim in turn, its range before its repetition; and
// the declared result type, which must be the permuted one. The accepted
// neighbours are in permute-ops.mlir.
// RUN: bcast-opt %s -split-input-file -verify-diagnostics

func.func @length_short(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'bcast.permute' op permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = 3 is not equal to len(dims) = 2}}
  %0 = bcast.permute %x {dims = array<i64: 0, 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

// The length comes first: 5 is out of range too.
func.func @length_before_range(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'bcast.permute' op permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = 3 is not equal to len(dims) = 1}}
  %0 = bcast.permute %x {dims = array<i64: 5>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @length_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{'bcast.permute' op permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = 0 is not equal to len(dims) = 1}}
  %0 = bcast.permute %x {dims = array<i64: 0>} : (tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @dim_too_large(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'bcast.permute' op Dimension out of range (expected to be in range of [-3, 2], but got 3)}}
  %0 = bcast.permute %x {dims = array<i64: 0, 1, 3>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @dim_too_negative(%x: tensor<2x?xf32>) {
  // expected-error @+1 {{'bcast.permute' op Dimension out of range (expected to be in range of [-2, 1], but got -3)}}
  %0 = bcast.permute %x {dims = array<i64: -3, 0>} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return
}

// -----

func.func @repeated(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'bcast.permute' op permute(): duplicate dims are not allowed.}}
  %0 = bcast.permute %x {dims = array<i64: 0, 1, 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

// -1 and 2 are one dim.
func.func @repeated_after_wrapping(%x: tensor<2x3x4xi32>) {
  // expected-error @+1 {{'bcast.permute' op permute(): duplicate dims are not allowed.}}
  %0 = bcast.permute %x {dims = array<i64: -1, 2, 0>} : (tensor<2x3x4xi32>) -> tensor<4x4x2xi32>
  return
}

// -----

// Each dim in turn: the repeat at position 1 is found before 5 at position 2.
func.func @repeat_before_later_range(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'bcast.permute' op permute(): duplicate dims are not allowed.}}
  %0 = bcast.permute %x {dims = array<i64: 1, 1, 5>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

// ... and 5 at position 1 before the repeat at position 2.
func.func @range_before_later_repeat(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'bcast.permute' op Dimension out of range (expected to be in range of [-3, 2], but got 5)}}
  %0 = bcast.permute %x {dims = array<i64: 1, 5, 1>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @result_shape_not_permuted(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'bcast.permute' op result type 'tensor<2x3xf32>' must be the permuted type 'tensor<3x2xf32>'}}
  %0 = bcast.permute %x {dims = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// A `?` size moves with its dim; a static size in its place would be an
// unchecked claim.
func.func @result_refines_dynamic(%x: tensor<?x3xf32>) {
  // expected-error @+1 {{'bcast.permute' op result type 'tensor<3x2xf32>' must be the permuted type 'tensor<3x?xf32>'}}
  %0 = bcast.permute %x {dims = array<i64: 1, 0>} : (tensor<?x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @result_element_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'bcast.permute' op result type 'tensor<3x2xf64>' must be the permuted type 'tensor<3x2xf32>'}}
  %0 = bcast.permute %x {dims = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf64>
  return
}

// -----

func.func @dims_missing(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'bcast.permute' op requires attribute 'dims'}}
  %0 = "bcast.permute"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}
