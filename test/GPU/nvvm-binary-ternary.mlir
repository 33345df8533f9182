// --bcast-to-nvvm on atan2 (a libdevice function) feeding lerp (a
// three-operand op): both fuse into one kernel whose PTX for sm_90 calls
// nothing, since libdevice's __nv_atan2f is linked and inlined; no GPU is
// needed. The lerp is PyTorch's two formulas with a select, each operation
// rounded on its own (.rn, no contraction). libdevice comes with the CUDA
// toolkit, which the `ptxas` feature stands for.
// REQUIRES: ptxas
// RUN: bcast-opt %s --bcast-to-nvvm | FileCheck %s
// RUN: bcast-opt %s --bcast-to-nvvm | FileCheck %s --check-prefix=LINKED

// CHECK: gpu.binary @atan2_lerp_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}assembly = "
// CHECK-SAME: .target sm_90
// CHECK-SAME: .entry atan2_lerp_kernel(
// libdevice's atan2f, recognisable by its quadrant constants 3*pi/4 and pi:
// CHECK-SAME: 0f4016CBE4
// lerp: weight < 0.5 picks start + weight * (end - start) or
// end - (end - start) * (1 - weight).
// CHECK-SAME: setp.lt.f32
// CHECK-SAME: mul.rn.f32
// CHECK-SAME: add.rn.f32
// CHECK-SAME: sub.rn.f32
// CHECK-SAME: mul.rn.f32
// CHECK-SAME: sub.rn.f32
// CHECK-SAME: selp.f32
// CHECK-SAME: st.global
// CHECK-SAME: 0f40490FDB
// CHECK-NOT: gpu.binary

// Nothing is left for the driver to resolve.
// LINKED-NOT: .extern
// LINKED-NOT: __nv_

func.func @atan2_lerp(%ma: memref<1024x1024xf32>, %mb: memref<1024xf32>, %mc: memref<1024x1xf32>, %out: memref<1024x1024xf32>) {
  %a = bufferization.to_tensor %ma restrict : memref<1024x1024xf32> to tensor<1024x1024xf32>
  %b = bufferization.to_tensor %mb restrict : memref<1024xf32> to tensor<1024xf32>
  %c = bufferization.to_tensor %mc restrict : memref<1024x1xf32> to tensor<1024x1xf32>
  %0 = bcast.atan2 %a, %b : (tensor<1024x1024xf32>, tensor<1024xf32>) -> tensor<1024x1024xf32>
  %1 = bcast.lerp %0, %b, %c : (tensor<1024x1024xf32>, tensor<1024xf32>, tensor<1024x1xf32>) -> tensor<1024x1024xf32>
  bufferization.materialize_in_destination %1 in restrict writable %out : (tensor<1024x1024xf32>, memref<1024x1024xf32>) -> ()
  return
}
