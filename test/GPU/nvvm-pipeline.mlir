// --bcast-to-nvvm: a fused chain of bcast ops becomes exactly one kernel,
// compiled to PTX for sm_90, with thread x on the contiguous dimension and
// nothing spilled to local memory; the host side calls the mgpu* runtime.
// RUN: bcast-opt %s --bcast-to-nvvm | FileCheck %s
// RUN: bcast-opt %s --bcast-to-nvvm | FileCheck %s --check-prefix=HOST
// RUN: bcast-opt %s --bcast-to-nvvm="chip=sm_80 features=+ptx70" | FileCheck %s --check-prefix=SM80

// One GPU module with one kernel, as PTX text.
// CHECK: gpu.binary @chain_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}assembly = "
// CHECK-SAME: .version 8.0
// CHECK-SAME: .target sm_90
// CHECK-SAME: .entry chain_kernel(
// The element index along the row comes from ctaid.x * ntid + tid.x:
// CHECK-SAME: %ctaid.x
// CHECK-SAME: %tid.x
// CHECK-SAME: ld.global
// CHECK-SAME: add.rn.f32
// CHECK-SAME: mul.rn.f32
// CHECK-SAME: sub.rn.f32
// CHECK-SAME: st.global
// CHECK-NOT: .local
// CHECK-NOT: .entry
// CHECK-NOT: gpu.binary

// HOST-LABEL: llvm.func @chain(
// HOST: gpu.launch_func <%{{.*}} : !llvm.ptr> @chain_kernel::@chain_kernel
// HOST-NOT: gpu.launch_func
// HOST: llvm.call @mgpuStreamSynchronize
// HOST: llvm.call @mgpuStreamDestroy

// SM80: .target sm_80

func.func @chain(%ma: memref<4096x4096xf32>, %mb: memref<4096xf32>, %mc: memref<4096x1xf32>, %md: memref<f32>, %out: memref<4096x4096xf32>) {
  %a = bufferization.to_tensor %ma restrict : memref<4096x4096xf32> to tensor<4096x4096xf32>
  %b = bufferization.to_tensor %mb restrict : memref<4096xf32> to tensor<4096xf32>
  %c = bufferization.to_tensor %mc restrict : memref<4096x1xf32> to tensor<4096x1xf32>
  %d = bufferization.to_tensor %md restrict : memref<f32> to tensor<f32>
  %0 = bcast.add %a, %b : (tensor<4096x4096xf32>, tensor<4096xf32>) -> tensor<4096x4096xf32>
  %1 = bcast.mul %0, %c : (tensor<4096x4096xf32>, tensor<4096x1xf32>) -> tensor<4096x4096xf32>
  %2 = bcast.sub %1, %d : (tensor<4096x4096xf32>, tensor<f32>) -> tensor<4096x4096xf32>
  bufferization.materialize_in_destination %2 in restrict writable %out : (tensor<4096x4096xf32>, memref<4096x4096xf32>) -> ()
  return
}
