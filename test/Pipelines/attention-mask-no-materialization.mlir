// The written-out attention softmax(q @ k.transpose(-1, -2) * s + mask) @ v
// (B, H, L, S, D = 2, 3, 4, 5, 8) with a padding mask [B,1,1,S] and a
// causal-style mask [1,1,L,S]: the mask's broadcast is never materialized.
// After --bcast-to-linalg the mask is read only through its broadcast map,
// by the fused scale-add-softmax loops, and no generic copies it; k is read
// through the permutation by the first product. Through the whole pipeline
// the only buffers are the scores (B*H*L*S = 120 f32, written by the BLAS
// and normalized in place), the two per-row reductions (24 each) and the
// result (192): none for the mask or k at the scores' or k^T's shape, and
// two BLAS calls.
// RUN: bcast-opt %s --bcast-to-linalg -mlir-print-local-scope | FileCheck %s
// RUN: bcast-opt %s --bcast-to-llvm | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @padding_mask
// CHECK-SAME: %[[K:[^:]*]]: tensor<2x3x5x8xf32>, %{{[^:]*}}: tensor<2x3x5x8xf32>, %[[M:[^:]*]]: tensor<2x1x1x5xf32>
// CHECK: ins(%{{.*}}, %[[K]] : tensor<2x3x4x8xf32>, tensor<2x3x5x8xf32>)
// CHECK-SAME: bcast.matmul
// CHECK: affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>
// CHECK-SAME: ins(%{{.*}}, %{{.*}}, %[[M]] :
// CHECK-NOT: ins(%[[M]] :
// CHECK-NOT: tensor<2x3x8x5xf32>
// CHECK-LABEL: func.func @causal_mask
// CHECK-SAME: %[[M2:[^:]*]]: tensor<1x1x4x5xf32>
// CHECK: affine_map<(d0, d1, d2, d3) -> (0, 0, d2, d3)>
// CHECK-SAME: ins(%{{.*}}, %{{.*}}, %[[M2]] :
// CHECK-NOT: ins(%[[M2]] :
// CHECK-NOT: tensor<2x3x8x5xf32>

// LLVM-LABEL: llvm.func @padding_mask
// LLVM-NOT: llvm.call @malloc
// LLVM: llvm.getelementptr %{{.*}}[120] : (!llvm.ptr) -> !llvm.ptr, f32
// LLVM-NEXT: llvm.ptrtoint
// LLVM-NEXT: llvm.add
// LLVM-NEXT: llvm.call @malloc
// LLVM-NOT: llvm.call @malloc
// LLVM: llvm.call @bcastMatmulF32
// LLVM: llvm.getelementptr %{{.*}}[24] : (!llvm.ptr) -> !llvm.ptr, f32
// LLVM-NEXT: llvm.ptrtoint
// LLVM-NEXT: llvm.add
// LLVM-NEXT: llvm.call @malloc
// LLVM: llvm.getelementptr %{{.*}}[24] : (!llvm.ptr) -> !llvm.ptr, f32
// LLVM-NEXT: llvm.ptrtoint
// LLVM-NEXT: llvm.add
// LLVM-NEXT: llvm.call @malloc
// LLVM: llvm.getelementptr %{{.*}}[192] : (!llvm.ptr) -> !llvm.ptr, f32
// LLVM-NEXT: llvm.ptrtoint
// LLVM-NEXT: llvm.add
// LLVM-NEXT: llvm.call @malloc
// LLVM-NOT: llvm.call @malloc
// LLVM: llvm.call @bcastMatmulF32
// LLVM-NOT: llvm.call @malloc
// LLVM-LABEL: llvm.func @causal_mask
// LLVM-NOT: llvm.call @malloc
// LLVM: llvm.getelementptr %{{.*}}[120] : (!llvm.ptr) -> !llvm.ptr, f32
// LLVM-NEXT: llvm.ptrtoint
// LLVM-NEXT: llvm.add
// LLVM-NEXT: llvm.call @malloc
// LLVM-NOT: llvm.call @malloc
// LLVM: llvm.call @bcastMatmulF32
// LLVM: llvm.getelementptr %{{.*}}[24] : (!llvm.ptr) -> !llvm.ptr, f32
// LLVM-NEXT: llvm.ptrtoint
// LLVM-NEXT: llvm.add
// LLVM-NEXT: llvm.call @malloc
// LLVM: llvm.getelementptr %{{.*}}[24] : (!llvm.ptr) -> !llvm.ptr, f32
// LLVM-NEXT: llvm.ptrtoint
// LLVM-NEXT: llvm.add
// LLVM-NEXT: llvm.call @malloc
// LLVM: llvm.getelementptr %{{.*}}[192] : (!llvm.ptr) -> !llvm.ptr, f32
// LLVM-NEXT: llvm.ptrtoint
// LLVM-NEXT: llvm.add
// LLVM-NEXT: llvm.call @malloc
// LLVM-NOT: llvm.call @malloc
// LLVM: llvm.call @bcastMatmulF32
// LLVM-NOT: llvm.call @malloc

func.func @padding_mask(%q: tensor<2x3x4x8xf32>, %k: tensor<2x3x5x8xf32>, %v: tensor<2x3x5x8xf32>, %mask: tensor<2x1x1x5xf32>) -> tensor<2x3x4x8xf32> {
  %kt = bcast.permute %k {dims = array<i64: 0, 1, 3, 2>} : (tensor<2x3x5x8xf32>) -> tensor<2x3x8x5xf32>
  %s = bcast.matmul %q, %kt : (tensor<2x3x4x8xf32>, tensor<2x3x8x5xf32>) -> tensor<2x3x4x5xf32>
  %c = arith.constant dense<0.35355339059327373> : tensor<f32>
  %s1 = bcast.mul %s, %c : (tensor<2x3x4x5xf32>, tensor<f32>) -> tensor<2x3x4x5xf32>
  %s2 = bcast.add %s1, %mask : (tensor<2x3x4x5xf32>, tensor<2x1x1x5xf32>) -> tensor<2x3x4x5xf32>
  %p = bcast.softmax %s2 {dim = -1 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  %r = bcast.matmul %p, %v : (tensor<2x3x4x5xf32>, tensor<2x3x5x8xf32>) -> tensor<2x3x4x8xf32>
  return %r : tensor<2x3x4x8xf32>
}

func.func @causal_mask(%q: tensor<2x3x4x8xf32>, %k: tensor<2x3x5x8xf32>, %v: tensor<2x3x5x8xf32>, %mask: tensor<1x1x4x5xf32>) -> tensor<2x3x4x8xf32> {
  %kt = bcast.permute %k {dims = array<i64: 0, 1, 3, 2>} : (tensor<2x3x5x8xf32>) -> tensor<2x3x8x5xf32>
  %s = bcast.matmul %q, %kt : (tensor<2x3x4x8xf32>, tensor<2x3x8x5xf32>) -> tensor<2x3x4x5xf32>
  %c = arith.constant dense<0.35355339059327373> : tensor<f32>
  %s1 = bcast.mul %s, %c : (tensor<2x3x4x5xf32>, tensor<f32>) -> tensor<2x3x4x5xf32>
  %s2 = bcast.add %s1, %mask : (tensor<2x3x4x5xf32>, tensor<1x1x4x5xf32>) -> tensor<2x3x4x5xf32>
  %p = bcast.softmax %s2 {dim = -1 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  %r = bcast.matmul %p, %v : (tensor<2x3x4x5xf32>, tensor<2x3x5x8xf32>) -> tensor<2x3x4x8xf32>
  return %r : tensor<2x3x4x8xf32>
}
