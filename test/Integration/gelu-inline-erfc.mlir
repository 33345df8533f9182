// f32 gelu's erfc (computed in f64, marked afn) is computed inline with
// vector-math=libmvec-avx512 (bcast-expand-erfc): no libmvec call and a
// division of f64 vectors in its place; f64 gelu keeps libmvec's erfc. With
// inline-erfc=false, and on the AVX2 route (whose 4-lane call is faster than
// the inline form), both call libmvec. (The numbers: python/test/
// test_vector_math.py's test_gelu_within_one_ulp.)
// RUN: bcast-opt %s --bcast-to-llvm=vector-math=libmvec-avx512 | FileCheck %s --check-prefix=AVX512
// RUN: bcast-opt %s --bcast-to-llvm=vector-math=libmvec | FileCheck %s --check-prefix=AVX2
// RUN: bcast-opt %s "--bcast-to-llvm=vector-math=libmvec-avx512 inline-erfc=false" | FileCheck %s --check-prefix=CALL

// AVX512-LABEL: llvm.func @gelu32(
// AVX512-NOT: _ZGVeN8v_erfc
// AVX512: llvm.fdiv %{{.*}}, %{{.*}} : vector<8xf64>
// AVX512-NOT: _ZGVeN8v_erfc
// AVX512-LABEL: llvm.func @gelu64(
// AVX512: llvm.call @_ZGVeN8v_erfc(
// AVX2-LABEL: llvm.func @gelu32(
// AVX2-NOT: llvm.fdiv
// AVX2: llvm.call @_ZGVdN4v_erfc(
// AVX2-LABEL: llvm.func @gelu64(
// AVX2: llvm.call @_ZGVdN4v_erfc(
// CALL-LABEL: llvm.func @gelu32(
// CALL-NOT: llvm.fdiv
// CALL: llvm.call @_ZGVeN8v_erfc(
// CALL-LABEL: llvm.func @gelu64(
// CALL: llvm.call @_ZGVeN8v_erfc(
func.func @gelu32(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = bcast.gelu %a : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

func.func @gelu64(%a: tensor<?xf64>) -> tensor<?xf64> {
  %0 = bcast.gelu %a : (tensor<?xf64>) -> tensor<?xf64>
  return %0 : tensor<?xf64>
}
