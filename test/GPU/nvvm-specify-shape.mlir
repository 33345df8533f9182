// --bcast-to-nvvm accepts bcast.specify_shape (it shares the conversion with
// --bcast-to-llvm): the check runs on the host, before the launch, and the
// kernel reads the pinned column once per row.
// RUN: bcast-opt %s --bcast-to-nvvm=broadcast-policy=static | FileCheck %s

// CHECK: llvm.mlir.global internal constant @{{.*}}("SpecifyShape: dim 1 of input has shape %ld, expected 1.\0A\00")
// CHECK-LABEL: llvm.func @add_specified(
// CHECK: llvm.call @dprintf
// CHECK: llvm.call @exit
// CHECK: gpu.launch_func <%{{.*}} : !llvm.ptr> @add_specified_kernel::@add_specified_kernel
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.binary @add_specified_kernel
// CHECK-SAME: add.rn.f32
func.func @add_specified(%mx: memref<?x?xf32>, %my: memref<?x?xf32>, %o: memref<?x?xf32>) {
  %x = bufferization.to_tensor %mx restrict : memref<?x?xf32> to tensor<?x?xf32>
  %y = bufferization.to_tensor %my restrict : memref<?x?xf32> to tensor<?x?xf32>
  %col = bcast.specify_shape %y : (tensor<?x?xf32>) -> tensor<?x1xf32>
  %r = bcast.add %x, %col : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  bufferization.materialize_in_destination %r in restrict writable %o : (tensor<?x?xf32>, memref<?x?xf32>) -> ()
  return
}
