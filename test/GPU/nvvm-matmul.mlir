// --bcast-to-nvvm on bcast.matmul: each product with a matrix on each side
// is one tiled kernel (bcast-map-matmul-to-gpu) after the zero fill's
// element-wise kernel, with two 16x16 tiles in shared memory and the
// block's barriers; no device buffer of a broadcast operand's expanded
// shape (only the operands' and the result's own). ptxas.test assembles
// these kernels for sm_90.
// RUN: bcast-opt %s --bcast-to-nvvm=format=isa | FileCheck %s

// CHECK-LABEL: llvm.func @batched(
// CHECK:         llvm.call @mgpuMemAlloc
// CHECK-NOT:     llvm.call @mgpuMemAlloc
// CHECK:         gpu.launch_func {{.*}}@batched_kernel::@batched_kernel
// CHECK:         gpu.launch_func {{.*}}@batched_kernel_0::@batched_kernel blocks in
// CHECK-NOT:     gpu.launch_func
// CHECK:         llvm.return
// CHECK:         gpu.binary @batched_kernel_0
// CHECK-SAME:    .maxntid 256, 1, 1
// CHECK-SAME:    .shared .align 4 .b8 __wg_batched_kernel_0[1024]
// CHECK-SAME:    .shared .align 4 .b8 __wg_batched_kernel_1[1024]
// CHECK-SAME:    st.shared.b32
// CHECK-SAME:    bar.sync
// CHECK-SAME:    ld.shared.b32
// CHECK-SAME:    ld.shared.b32
// CHECK-SAME:    mul.rn.f32
// CHECK-SAME:    add.rn.f32
func.func @batched(%a: tensor<512x1x32x16xf32>, %b: tensor<1x512x16x8xf32>) -> tensor<512x512x32x8xf32> {
  %r = bcast.matmul %a, %b : (tensor<512x1x32x16xf32>, tensor<1x512x16x8xf32>) -> tensor<512x512x32x8xf32>
  return %r : tensor<512x512x32x8xf32>
}

// An f64 product with `?` sizes and a wrapping i32 one: a fill and a tiled
// kernel each.
// CHECK-LABEL: llvm.func @types(
// CHECK-COUNT-4: gpu.launch_func
// CHECK-NOT:     gpu.launch_func
// CHECK:         llvm.return
func.func @types(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>, %c: tensor<9x7xi32>, %d: tensor<7x5xi32>) -> (tensor<?x?xf64>, tensor<9x5xi32>) {
  %r = bcast.matmul %a, %b : (tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>
  %s = bcast.matmul %c, %d : (tensor<9x7xi32>, tensor<7x5xi32>) -> tensor<9x5xi32>
  return %r, %s : tensor<?x?xf64>, tensor<9x5xi32>
}
