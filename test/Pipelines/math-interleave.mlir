// The pipeline option math-interleave: on the libmvec routes --bcast-to-llvm
// computes a generic with a costly math function per element (here the
// inline f32 gelu) on several vectors per iteration, by default as many as
// hold 256 bytes (4 of 64 bytes with libmvec-avx512, 8 of 32 with libmvec),
// then single vectors; a number sets it, 1 gives one vector per iteration.
// Generics without such math, and the libm route, keep one vector.
// RUN: bcast-opt %s --bcast-to-llvm=vector-math=libmvec-avx512 -mlir-disable-threading -mlir-print-ir-after=bcast-vectorize-elementwise -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX512
// RUN: bcast-opt %s --bcast-to-llvm=vector-math=libmvec -mlir-disable-threading -mlir-print-ir-after=bcast-vectorize-elementwise -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX2
// RUN: bcast-opt %s "--bcast-to-llvm=vector-math=libmvec-avx512 math-interleave=2" -mlir-disable-threading -mlir-print-ir-after=bcast-vectorize-elementwise -o /dev/null 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: bcast-opt %s "--bcast-to-llvm=vector-math=libmvec-avx512 math-interleave=1" -mlir-disable-threading -mlir-print-ir-after=bcast-vectorize-elementwise -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: bcast-opt %s --bcast-to-llvm=vector-math=libm -mlir-disable-threading -mlir-print-ir-after=bcast-vectorize-elementwise -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIBM

// AVX512-LABEL: func.func @gelu
// AVX512: math.fma %{{.*}} : vector<64xf32>
// AVX512: math.fma %{{.*}} : vector<16xf32>
// AVX2-LABEL: func.func @gelu
// AVX2: math.fma %{{.*}} : vector<64xf32>
// AVX2: math.fma %{{.*}} : vector<8xf32>
// TWO-LABEL: func.func @gelu
// TWO: math.fma %{{.*}} : vector<32xf32>
// TWO: math.fma %{{.*}} : vector<16xf32>
// ONE-LABEL: func.func @gelu
// ONE-NOT: vector<64xf32>
// ONE-NOT: vector<32xf32>
// ONE: math.fma %{{.*}} : vector<16xf32>
// LIBM-LABEL: func.func @gelu
// LIBM-NOT: vector<64xf32>
// LIBM-NOT: vector<32xf32>
// LIBM: math.erfc %{{.*}} : vector<4xf64>
func.func @gelu(%a: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %r = bcast.gelu %a : (tensor<64x1000xf32>) -> tensor<64x1000xf32>
  return %r : tensor<64x1000xf32>
}

// AVX512-LABEL: func.func @add
// AVX512-NOT: vector<64xf32>
// AVX512: arith.addf %{{.*}} : vector<16xf32>
// AVX512-NOT: vector<64xf32>
// AVX2-LABEL: func.func @add
// AVX2-NOT: vector<64xf32>
// AVX2: arith.addf %{{.*}} : vector<8xf32>
// AVX2-NOT: vector<64xf32>
func.func @add(%a: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %r = bcast.add %a, %a : (tensor<64x1000xf32>, tensor<64x1000xf32>) -> tensor<64x1000xf32>
  return %r : tensor<64x1000xf32>
}
