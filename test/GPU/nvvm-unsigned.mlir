// --bcast-to-nvvm lowers unsigned element types (it shares the conversion and
// bcast-signless-boundary with --bcast-to-llvm): the host functions take
// signless memrefs (a ui32 argument is an i32 memref), the static ui32 chain
// is one kernel, and the kernels divide, compare, take maxima and
// remainders as unsigned.
// RUN: bcast-opt %s --bcast-to-nvvm | FileCheck %s
// RUN: bcast-opt %s --bcast-to-nvvm | FileCheck %s --check-prefix=HOST
// RUN: bcast-opt %s --bcast-to-nvvm | FileCheck %s --check-prefix=SIGNLESS

// CHECK: gpu.binary @unsigned_chain_kernel
// CHECK-SAME: .entry unsigned_chain_kernel(
// CHECK-SAME: div.u32
// CHECK-SAME: max.u32
// CHECK-SAME: setp.gt.u32
// CHECK-NOT: gpu.binary
// CHECK: llvm.func @bytes(
// CHECK: gpu.binary @bytes_kernel
// CHECK: rem.u16

// HOST-LABEL: llvm.func @unsigned_chain(
// HOST: gpu.launch_func <%{{.*}} : !llvm.ptr> @unsigned_chain_kernel::@unsigned_chain_kernel
// HOST-NOT: gpu.launch_func
// HOST-LABEL: llvm.func @bytes(
// HOST: gpu.launch_func <%{{.*}} : !llvm.ptr> @bytes_kernel

// Nothing unsigned is left on either side.
// SIGNLESS-NOT: {{xui[0-9]+}}
func.func @unsigned_chain(%ma: memref<4x8xui32>, %mb: memref<8xui32>, %mc: memref<ui32>, %mo: memref<4x8xi1>) {
  %a = bufferization.to_tensor %ma restrict : memref<4x8xui32> to tensor<4x8xui32>
  %b = bufferization.to_tensor %mb restrict : memref<8xui32> to tensor<8xui32>
  %c = bufferization.to_tensor %mc restrict : memref<ui32> to tensor<ui32>
  %q = bcast.div %a, %b {rounding_mode = "floor"} : (tensor<4x8xui32>, tensor<8xui32>) -> tensor<4x8xui32>
  %m = bcast.maximum %q, %c : (tensor<4x8xui32>, tensor<ui32>) -> tensor<4x8xui32>
  %r = bcast.gt %m, %b : (tensor<4x8xui32>, tensor<8xui32>) -> tensor<4x8xi1>
  bufferization.materialize_in_destination %r in restrict writable %mo : (tensor<4x8xi1>, memref<4x8xi1>) -> ()
  return
}

// ui8, in place: wrapping add, then an unsigned remainder.
func.func @bytes(%mx: memref<4x8xui8>, %my: memref<8xui8>) {
  %x = bufferization.to_tensor %mx restrict writable : memref<4x8xui8> to tensor<4x8xui8>
  %y = bufferization.to_tensor %my restrict : memref<8xui8> to tensor<8xui8>
  %s = bcast.add_ %x, %y : (tensor<4x8xui8>, tensor<8xui8>) -> tensor<4x8xui8>
  %r = bcast.remainder_ %s, %y : (tensor<4x8xui8>, tensor<8xui8>) -> tensor<4x8xui8>
  bufferization.materialize_in_destination %r in restrict writable %mx : (tensor<4x8xui8>, memref<4x8xui8>) -> ()
  return
}
