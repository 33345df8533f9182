// bcast-math-to-libmvec: math functions on 1-D f32/f64 vectors of a multiple
// of 256 bits become calls of libmvec's AVX2 variants, one per 256 bits;
// other shapes and scalars stay for bcast-math-to-libm and
// convert-math-to-llvm.
// RUN: bcast-opt %s --bcast-math-to-libmvec | FileCheck %s
// With avx512, vectors of a multiple of 512 bits call the AVX-512 variants,
// one per 512 bits; the others keep the AVX2 ones.
// RUN: bcast-opt %s --bcast-math-to-libmvec=avx512=true | FileCheck %s --check-prefix=AVX512

// One private declaration per function, readnone.
// CHECK-DAG: func.func private @_ZGVdN8v_tanhf(vector<8xf32>) -> vector<8xf32> attributes {llvm.readnone}
// CHECK-DAG: func.func private @_ZGVdN4v_exp(vector<4xf64>) -> vector<4xf64> attributes {llvm.readnone}

// CHECK-LABEL: func @one_call
func.func @one_call(%x: vector<8xf32>, %y: vector<4xf64>) -> (vector<8xf32>, vector<4xf64>, vector<8xf32>, vector<8xf32>) {
  // CHECK: %[[T:.*]] = call @_ZGVdN8v_tanhf(%{{.*}}) : (vector<8xf32>) -> vector<8xf32>
  %0 = math.tanh %x : vector<8xf32>
  // CHECK: call @_ZGVdN4v_erfc(%{{.*}}) : (vector<4xf64>) -> vector<4xf64>
  %1 = math.erfc %y : vector<4xf64>
  // Two operands: the vv variant.
  // CHECK: call @_ZGVdN8vv_powf(%{{.*}}, %{{.*}}) : (vector<8xf32>, vector<8xf32>) -> vector<8xf32>
  %2 = math.powf %x, %x : vector<8xf32>
  // CHECK: call @_ZGVdN8v_expm1f
  %3 = math.expm1 %x : vector<8xf32>
  return %0, %1, %2, %3 : vector<8xf32>, vector<4xf64>, vector<8xf32>, vector<8xf32>
}

// 512 bits: two calls on the halves (AVX2), one call (AVX-512).
// CHECK-LABEL: func @split
// AVX512-LABEL: func @split
// AVX512: %[[A:.*]] = call @_ZGVeN8v_exp(%{{.*}}) : (vector<8xf64>) -> vector<8xf64>
// AVX512-NOT: call
// AVX512: return %[[A]]
func.func @split(%x: vector<8xf64>) -> vector<8xf64> {
  // CHECK: %[[LO:.*]] = vector.extract_strided_slice %{{.*}} {offsets = [0], sizes = [4], strides = [1]}
  // CHECK: %[[A:.*]] = call @_ZGVdN4v_exp(%[[LO]])
  // CHECK: %[[R0:.*]] = vector.insert_strided_slice %[[A]], %{{.*}} {offsets = [0], strides = [1]}
  // CHECK: %[[HI:.*]] = vector.extract_strided_slice %{{.*}} {offsets = [4], sizes = [4], strides = [1]}
  // CHECK: %[[B:.*]] = call @_ZGVdN4v_exp(%[[HI]])
  // CHECK: %[[R1:.*]] = vector.insert_strided_slice %[[B]], %[[R0]] {offsets = [4], strides = [1]}
  // CHECK: return %[[R1]]
  %0 = math.exp %x : vector<8xf64>
  return %0 : vector<8xf64>
}

// CHECK-LABEL: func @left_alone
func.func @left_alone(%s: f32, %v: vector<4xf32>, %h: vector<16xf16>, %m: vector<2x8xf32>) -> (f32, vector<4xf32>, vector<16xf16>, vector<2x8xf32>, vector<4xf32>) {
  // CHECK: math.exp %{{.*}} : f32
  %0 = math.exp %s : f32
  // 128 bits.
  // CHECK: math.exp %{{.*}} : vector<4xf32>
  %1 = math.exp %v : vector<4xf32>
  // CHECK: math.exp %{{.*}} : vector<16xf16>
  %2 = math.exp %h : vector<16xf16>
  // CHECK: math.exp %{{.*}} : vector<2x8xf32>
  %3 = math.exp %m : vector<2x8xf32>
  // Not a libmvec function.
  // CHECK: math.sqrt %{{.*}} : vector<4xf32>
  %4 = math.sqrt %v : vector<4xf32>
  return %0, %1, %2, %3, %4 : f32, vector<4xf32>, vector<16xf16>, vector<2x8xf32>, vector<4xf32>
}

// 1024 bits of f32: two AVX-512 calls on the halves; 256 bits (and 768, not
// a multiple of 512) stay AVX2.
// CHECK-LABEL: func @avx512
// CHECK-COUNT-4: call @_ZGVdN8v_expf
// CHECK-COUNT-3: call @_ZGVdN8v_expf
// CHECK: call @_ZGVdN8v_expf
// CHECK-NOT: _ZGVe
// AVX512-LABEL: func @avx512
// AVX512: %[[LO:.*]] = vector.extract_strided_slice %{{.*}} {offsets = [0], sizes = [16], strides = [1]}
// AVX512: call @_ZGVeN16v_expf(%[[LO]]) : (vector<16xf32>) -> vector<16xf32>
// AVX512: %[[HI:.*]] = vector.extract_strided_slice %{{.*}} {offsets = [16], sizes = [16], strides = [1]}
// AVX512: call @_ZGVeN16v_expf(%[[HI]])
// AVX512-COUNT-3: call @_ZGVdN8v_expf
// AVX512: call @_ZGVdN8v_expf(%{{.*}}) : (vector<8xf32>) -> vector<8xf32>
// AVX512: call @_ZGVeN16vv_powf(%{{.*}}, %{{.*}}) : (vector<16xf32>, vector<16xf32>) -> vector<16xf32>
func.func @avx512(%x: vector<32xf32>, %y: vector<24xf32>, %z: vector<8xf32>, %w: vector<16xf32>) -> (vector<32xf32>, vector<24xf32>, vector<8xf32>, vector<16xf32>) {
  %0 = math.exp %x : vector<32xf32>
  %1 = math.exp %y : vector<24xf32>
  %2 = math.exp %z : vector<8xf32>
  %3 = math.powf %w, %w : vector<16xf32>
  return %0, %1, %2, %3 : vector<32xf32>, vector<24xf32>, vector<8xf32>, vector<16xf32>
}
