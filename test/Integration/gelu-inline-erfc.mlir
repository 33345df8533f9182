// f32 gelu on the libmvec routes: computed in f32 inline arithmetic
// (bcast-expand-gelu, option inline-gelu), 16 lanes a vector with
// vector-math=libmvec-avx512 and 8 with libmvec, no libmvec call; f64 gelu
// keeps libmvec's erfc. With inline-gelu=false f32 gelu is computed in f64:
// its erfc (marked afn) inline on the AVX-512 route (bcast-expand-erfc), a
// division of f64 vectors, and a call with inline-erfc=false or on the AVX2
// route (whose 4-lane call is faster than the inline f64 form). (The
// numbers: python/test/test_vector_math.py's test_gelu_within_ulps.)
// RUN: bcast-opt %s --bcast-to-llvm=vector-math=libmvec-avx512 | FileCheck %s --check-prefix=AVX512
// RUN: bcast-opt %s --bcast-to-llvm=vector-math=libmvec | FileCheck %s --check-prefix=AVX2
// RUN: bcast-opt %s "--bcast-to-llvm=vector-math=libmvec-avx512 inline-gelu=false" | FileCheck %s --check-prefix=F64
// RUN: bcast-opt %s "--bcast-to-llvm=vector-math=libmvec-avx512 inline-gelu=false inline-erfc=false" | FileCheck %s --check-prefix=CALL
// RUN: bcast-opt %s "--bcast-to-llvm=vector-math=libmvec inline-gelu=false" | FileCheck %s --check-prefix=AVX2CALL

// AVX512-LABEL: llvm.func @gelu32(
// AVX512-NOT: v_erfc
// AVX512-NOT: vector<8xf64>
// AVX512: llvm.fdiv %{{.*}}, %{{.*}} : vector<16xf32>
// AVX512-NOT: v_erfc
// AVX512-LABEL: llvm.func @gelu64(
// AVX512: llvm.call @_ZGVeN8v_erfc(
// AVX2-LABEL: llvm.func @gelu32(
// AVX2-NOT: v_erfc
// AVX2-NOT: vector<4xf64>
// AVX2: llvm.fdiv %{{.*}}, %{{.*}} : vector<8xf32>
// AVX2-NOT: v_erfc
// AVX2-LABEL: llvm.func @gelu64(
// AVX2: llvm.call @_ZGVdN4v_erfc(
// F64-LABEL: llvm.func @gelu32(
// F64-NOT: _ZGVeN8v_erfc
// F64: llvm.fdiv %{{.*}}, %{{.*}} : vector<8xf64>
// F64-NOT: _ZGVeN8v_erfc
// F64-LABEL: llvm.func @gelu64(
// F64: llvm.call @_ZGVeN8v_erfc(
// CALL-LABEL: llvm.func @gelu32(
// CALL-NOT: llvm.fdiv
// CALL: llvm.call @_ZGVeN8v_erfc(
// CALL-LABEL: llvm.func @gelu64(
// CALL: llvm.call @_ZGVeN8v_erfc(
// AVX2CALL-LABEL: llvm.func @gelu32(
// AVX2CALL-NOT: llvm.fdiv
// AVX2CALL: llvm.call @_ZGVdN4v_erfc(
// AVX2CALL-LABEL: llvm.func @gelu64(
// AVX2CALL: llvm.call @_ZGVdN4v_erfc(
func.func @gelu32(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = bcast.gelu %a : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

func.func @gelu64(%a: tensor<?xf64>) -> tensor<?xf64> {
  %0 = bcast.gelu %a : (tensor<?xf64>) -> tensor<?xf64>
  return %0 : tensor<?xf64>
}
