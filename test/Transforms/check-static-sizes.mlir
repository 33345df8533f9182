// bcast-check-static-sizes on IR without bcast ops: every shaped value
// (tensor, memref, vector; op results and block arguments) whose static
// sizes multiply to more than a signed 64-bit integer holds, as elements or
// as bytes, is an error. Values that fit, dynamic sizes and unranked types
// pass. (test/Robustness/size-overflow.mlir runs it inside --bcast-to-llvm.)
// RUN: bcast-opt %s --bcast-check-static-sizes -split-input-file -verify-diagnostics
// RUN: not bcast-opt %s --bcast-check-static-sizes -split-input-file 2>&1 | FileCheck %s
// CHECK-COUNT-5: error: cannot lower a value of type

// An op result: 2^32 x 2^32 elements.
func.func @memref_alloc_elements() {
  // expected-error @+1 {{cannot lower a value of type 'memref<4294967296x4294967296xi8>': the product of its sizes does not fit in a signed 64-bit integer}}
  %m = memref.alloc() : memref<4294967296x4294967296xi8>
  return
}

// -----

// Block arguments: 2^62 i64 elements fit, their 2^65 bytes do not; a
// vector is checked like the others.
// expected-error @+2 {{cannot lower a value of type 'memref<4611686018427387904xi64>': the product of its sizes in bytes does not fit in a signed 64-bit integer}}
// expected-error @+1 {{cannot lower a value of type 'vector<4294967296x4294967296xf32>': the product of its sizes does not fit in a signed 64-bit integer}}
func.func @arguments(%m: memref<4611686018427387904xi64>, %v: vector<4294967296x4294967296xf32>) {
  return
}

// -----

// A complex<f64> element is 16 bytes: 2^60 elements are 2^64 bytes.
func.func @complex_bytes() {
  // expected-error @+1 {{cannot lower a value of type 'tensor<1152921504606846976xcomplex<f64>>': the product of its sizes in bytes does not fit in a signed 64-bit integer}}
  %t = tensor.empty() : tensor<1152921504606846976xcomplex<f64>>
  return
}

// -----

// A size 0 counts as 1: the empty memref's strides are still 2^64.
func.func @empty_but_strides_overflow() {
  // expected-error @+1 {{cannot lower a value of type 'memref<0x4294967296x4294967296xf32>'}}
  %m = memref.alloc() : memref<0x4294967296x4294967296xf32>
  return
}

// -----

// Largest shapes that fit, a dynamic size (only the static ones count),
// unranked and non-shaped values: no diagnostics.
func.func @fits(%a: memref<2305843009213693951xf32>, %b: memref<?x4294967296xf32>, %c: memref<*xf32>, %d: tensor<0x16xf32>, %e: vector<4xf32>, %f: i64) {
  %t = tensor.empty() : tensor<1073741824x2147483647xf32>
  return
}
