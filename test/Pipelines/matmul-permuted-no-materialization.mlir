// q @ k.transpose(-1, -2) through the whole --bcast-to-llvm pipeline: the
// only buffer allocated is the result's (8x12x128x128 = 1572864 f32
// elements), none of k's transposed shape, and the product is one call of
// the BLAS runtime on a transposed view of k's own buffer. On the loops
// route (matmul-blas=false) likewise, without the call.
// RUN: bcast-opt %s --bcast-to-llvm | FileCheck %s
// RUN: bcast-opt %s --bcast-to-llvm=matmul-blas=false | FileCheck %s --check-prefix=LOOPS
// CHECK-LABEL: llvm.func @kernel
// CHECK: llvm.getelementptr %{{.*}}[1572864] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT: llvm.ptrtoint
// CHECK-NEXT: llvm.add
// CHECK-NEXT: llvm.call @malloc
// CHECK-NOT: llvm.call @malloc
// CHECK: llvm.call @bcastMatmulF32
// CHECK-NOT: llvm.call @malloc
// CHECK-NOT: llvm.call @bcastMatmulF32
// LOOPS-LABEL: llvm.func @kernel
// LOOPS: llvm.getelementptr %{{.*}}[1572864] : (!llvm.ptr) -> !llvm.ptr, f32
// LOOPS-NEXT: llvm.ptrtoint
// LOOPS-NEXT: llvm.add
// LOOPS-NEXT: llvm.call @malloc
// LOOPS-NOT: llvm.call @malloc
// LOOPS-NOT: bcastMatmulF32

func.func @kernel(%q: tensor<8x12x128x64xf32>, %k: tensor<8x12x128x64xf32>) -> tensor<8x12x128x128xf32> {
  %kt = bcast.permute %k {dims = array<i64: 0, 1, 3, 2>} : (tensor<8x12x128x64xf32>) -> tensor<8x12x64x128xf32>
  %s = bcast.matmul %q, %kt : (tensor<8x12x128x64xf32>, tensor<8x12x64x128xf32>) -> tensor<8x12x128x128xf32>
  return %s : tensor<8x12x128x128xf32>
}
