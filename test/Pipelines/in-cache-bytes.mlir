// The pipeline option in-cache-bytes (8 MiB by default): with
// vector-math=libmvec-avx512, --bcast-to-llvm gives a generic whose buffers
// hold at most that many bytes 64-byte vectors, the others vector-bytes
// (32); 0 gives none 64-byte vectors. On the other routes it changes
// nothing. @small's buffers hold 3 * 64 * 100 * 4 = 76800 bytes, @large's
// 3 * 1024 * 1024 * 4 = 12 MiB. (Without threads the dumps come in the
// functions' order.)
// RUN: bcast-opt %s --bcast-to-llvm=vector-math=libmvec-avx512 -mlir-disable-threading -mlir-print-ir-after=bcast-vectorize-elementwise -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX512
// RUN: bcast-opt %s "--bcast-to-llvm=vector-math=libmvec-avx512 in-cache-bytes=76800" -mlir-disable-threading -mlir-print-ir-after=bcast-vectorize-elementwise -o /dev/null 2>&1 | FileCheck %s --check-prefix=AVX512
// RUN: bcast-opt %s "--bcast-to-llvm=vector-math=libmvec-avx512 in-cache-bytes=76799" -mlir-disable-threading -mlir-print-ir-after=bcast-vectorize-elementwise -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: bcast-opt %s "--bcast-to-llvm=vector-math=libmvec-avx512 in-cache-bytes=0" -mlir-disable-threading -mlir-print-ir-after=bcast-vectorize-elementwise -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: bcast-opt %s --bcast-to-llvm=vector-math=libmvec -mlir-disable-threading -mlir-print-ir-after=bcast-vectorize-elementwise -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE

// AVX512-LABEL: func.func @small
// AVX512:         arith.addf %{{.*}} : vector<16xf32>
// AVX512-LABEL: func.func @large
// AVX512:         arith.addf %{{.*}} : vector<8xf32>
// NONE-LABEL: func.func @small
// NONE:         arith.addf %{{.*}} : vector<8xf32>
// NONE-LABEL: func.func @large
// NONE:         arith.addf %{{.*}} : vector<8xf32>
func.func @small(%a: tensor<64x100xf32>, %b: tensor<64x100xf32>) -> tensor<64x100xf32> {
  %r = bcast.add %a, %b : (tensor<64x100xf32>, tensor<64x100xf32>) -> tensor<64x100xf32>
  return %r : tensor<64x100xf32>
}

func.func @large(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %r = bcast.add %a, %b : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}
