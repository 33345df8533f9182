// A broadcast operand is never materialized: through the whole
// --bcast-to-llvm pipeline the only buffer allocated is the result's
// (512x512x32x8 = 67108864 f32 elements), none of either operand's expanded
// shape (512x512x32x16 = 134217728 elements, or 512x512x16x8), and the
// product is one call of the BLAS runtime on the operands themselves. On
// the loops route (matmul-blas=false) likewise.
// RUN: bcast-opt %s --bcast-to-llvm | FileCheck %s
// RUN: bcast-opt %s --bcast-to-llvm=matmul-blas=false | FileCheck %s --check-prefix=LOOPS
// CHECK-LABEL: llvm.func @kernel
// CHECK: llvm.getelementptr %{{.*}}[67108864] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK-NEXT: llvm.ptrtoint
// CHECK-NEXT: llvm.add
// CHECK-NEXT: llvm.call @malloc
// CHECK-NOT: llvm.call @malloc
// CHECK: llvm.call @bcastMatmulF32
// CHECK-NOT: llvm.call @malloc
// LOOPS-LABEL: llvm.func @kernel
// LOOPS: llvm.getelementptr %{{.*}}[67108864] : (!llvm.ptr) -> !llvm.ptr, f32
// LOOPS-NEXT: llvm.ptrtoint
// LOOPS-NEXT: llvm.add
// LOOPS-NEXT: llvm.call @malloc
// LOOPS-NOT: llvm.call @malloc
// LOOPS-NOT: bcastMatmulF32

func.func @kernel(%a: tensor<512x1x32x16xf32>, %b: tensor<1x512x16x8xf32>) -> tensor<512x512x32x8xf32> {
  %r = bcast.matmul %a, %b : (tensor<512x1x32x16xf32>, tensor<1x512x16x8xf32>) -> tensor<512x512x32x8xf32>
  return %r : tensor<512x512x32x8xf32>
}
