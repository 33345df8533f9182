// Static shapes whose size does not fit the lowering's 64-bit arithmetic:
// --bcast-to-llvm stops with a diagnostic (exit status 1) before any buffer
// is computed, instead of wrapping sizes around or crashing an upstream
// pass (the splat case once crashed bcast-vectorize-elementwise). On tensors
// (--bcast-to-linalg) nothing is allocated and such shapes are fine.
// RUN: bcast-opt %s --split-input-file --bcast-to-llvm -verify-diagnostics
// RUN: not bcast-opt %s --split-input-file --bcast-to-llvm 2>&1 | FileCheck %s
// RUN: bcast-opt %s --split-input-file --bcast-to-linalg | FileCheck %s --check-prefix=LINALG
// CHECK-COUNT-7: error: cannot lower a value of type
// LINALG: linalg.generic

// 2^32 x 2^32 elements.
func.func @elements_overflow(%a: tensor<4294967296x1xf32>, %b: tensor<4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  // expected-error @+1 {{cannot lower a value of type 'tensor<4294967296x4294967296xf32>': the product of its sizes does not fit in a signed 64-bit integer}}
  %r = bcast.add %a, %b : (tensor<4294967296x1xf32>, tensor<4294967296xf32>) -> tensor<4294967296x4294967296xf32>
  return %r : tensor<4294967296x4294967296xf32>
}

// -----

// 2^61 f32 elements fit in int64, their 2^63 bytes do not.
func.func @bytes_overflow(%x: tensor<1xf32>) -> tensor<2305843009213693952xf32> {
  // expected-error @+1 {{cannot lower a value of type 'tensor<2305843009213693952xf32>': the product of its sizes in bytes does not fit in a signed 64-bit integer}}
  %r = bcast.broadcast_to %x : tensor<1xf32> -> tensor<2305843009213693952xf32>
  return %r : tensor<2305843009213693952xf32>
}

// -----

// A splat constant expanded to an overflowing shape.
func.func @splat_overflow() -> tensor<4294967296x4294967296xf32> {
  %c = arith.constant dense<1.0> : tensor<1xf32>
  // expected-error @+1 {{cannot lower a value of type 'tensor<4294967296x4294967296xf32>'}}
  %r = bcast.broadcast_to %c : tensor<1xf32> -> tensor<4294967296x4294967296xf32>
  return %r : tensor<4294967296x4294967296xf32>
}

// -----

// Rank 64 of size 2: 2^64 elements.
// expected-error @+1 {{the product of its sizes does not fit in a signed 64-bit integer}}
func.func @rank64_overflow(%a: tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2xi8>) {
  // expected-error @+1 {{the product of its sizes does not fit in a signed 64-bit integer}}
  %r = bcast.add %a, %a : (tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2xi8>, tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2xi8>) -> tensor<2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2xi8>
  return
}

// -----

// The static part of a partly dynamic shape already overflows; so does an
// empty tensor's stride (a size 0 counts as 1). Function arguments are
// checked too.
// expected-error @+2 {{cannot lower a value of type 'tensor<?x4294967296x4294967296xf32>'}}
// expected-error @+1 {{cannot lower a value of type 'tensor<0x4294967296x4294967296xf32>'}}
func.func @dynamic_and_empty(%a: tensor<?x4294967296x4294967296xf32>, %b: tensor<0x4294967296x4294967296xf32>) {
  return
}
