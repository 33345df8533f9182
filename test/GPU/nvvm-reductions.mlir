// --bcast-to-nvvm on a written-out softmax and LayerNorm: each is one
// kernel (one gpu.launch_func), whose only device buffers besides the
// result are the [M,1] statistics (and, for LayerNorm, the device copy of
// its epsilon constant): no [M,N] temporary.
// RUN: bcast-opt %s --bcast-to-nvvm=format=isa | FileCheck %s

// CHECK-LABEL: llvm.func @softmax(
// CHECK-NOT:     llvm.func @
// CHECK-COUNT-2: llvm.call @mgpuMemAlloc(%{{.*}}) : (i64, !llvm.ptr, i8) -> !llvm.ptr
// CHECK-NOT:     llvm.func @
// CHECK:         gpu.launch_func {{.*}}@softmax_kernel::@softmax_kernel
// CHECK-NOT:     gpu.launch_func
// CHECK:         llvm.return
func.func @softmax(%x: tensor<512x1000xf32>) -> tensor<512x1000xf32> {
  %m = bcast.amax %x {dims = array<i64: 1>, keepdim = true} : (tensor<512x1000xf32>) -> tensor<512x1xf32>
  %d = bcast.sub %x, %m : (tensor<512x1000xf32>, tensor<512x1xf32>) -> tensor<512x1000xf32>
  %e = bcast.exp %d : (tensor<512x1000xf32>) -> tensor<512x1000xf32>
  %s = bcast.sum %e {dims = array<i64: 1>, keepdim = true} : (tensor<512x1000xf32>) -> tensor<512x1xf32>
  %y = bcast.div %e, %s : (tensor<512x1000xf32>, tensor<512x1xf32>) -> tensor<512x1000xf32>
  return %y : tensor<512x1000xf32>
}

// CHECK-LABEL: llvm.func @layer_norm(
// CHECK-NOT:     llvm.func @
// CHECK:         llvm.call @mgpuMemAlloc
// CHECK:         llvm.call @mgpuMemcpy
// CHECK-COUNT-3: llvm.call @mgpuMemAlloc(%{{.*}}) : (i64, !llvm.ptr, i8) -> !llvm.ptr
// CHECK-NOT:     llvm.func @
// CHECK:         gpu.launch_func {{.*}}@layer_norm_kernel::@layer_norm_kernel
// CHECK-NOT:     gpu.launch_func
// CHECK:         llvm.return
func.func @layer_norm(%x: tensor<512x1000xf32>, %w: tensor<1000xf32>, %b: tensor<1000xf32>) -> tensor<512x1000xf32> {
  %mean = bcast.mean %x {dims = array<i64: -1>, keepdim = true} : (tensor<512x1000xf32>) -> tensor<512x1xf32>
  %c = bcast.sub %x, %mean : (tensor<512x1000xf32>, tensor<512x1xf32>) -> tensor<512x1000xf32>
  %sq = bcast.mul %c, %c : (tensor<512x1000xf32>, tensor<512x1000xf32>) -> tensor<512x1000xf32>
  %var = bcast.mean %sq {dims = array<i64: -1>, keepdim = true} : (tensor<512x1000xf32>) -> tensor<512x1xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<f32>
  %ve = bcast.add %var, %eps : (tensor<512x1xf32>, tensor<f32>) -> tensor<512x1xf32>
  %r = bcast.rsqrt %ve : (tensor<512x1xf32>) -> tensor<512x1xf32>
  %n = bcast.mul %c, %r : (tensor<512x1000xf32>, tensor<512x1xf32>) -> tensor<512x1000xf32>
  %s = bcast.mul %n, %w : (tensor<512x1000xf32>, tensor<1000xf32>) -> tensor<512x1000xf32>
  %y = bcast.add %s, %b : (tensor<512x1000xf32>, tensor<1000xf32>) -> tensor<512x1000xf32>
  return %y : tensor<512x1000xf32>
}
