// --bcast-to-nvvm: integer division never traps on a GPU either and is not
// checked for zeros (PyTorch's CUDA kernels do not check; the host reads no
// divisor): the kernel divides by 1 where the divisor is 0 or -1 and
// negates for -1, so INT_MIN // -1 wraps as on the CPU.
// RUN: bcast-opt %s --bcast-to-nvvm | FileCheck %s

// CHECK-NOT: ZeroDivisionError
// CHECK: gpu.binary @floor_div_kernel
// CHECK-SAME: setp.eq.b32
// CHECK-SAME: selp.b32
// CHECK-SAME: div.s32
// CHECK-SAME: sub.s32
// CHECK-SAME: selp.b32
// CHECK: gpu.binary @fmod_kernel
// CHECK-SAME: selp.b16
// CHECK-SAME: rem.s16
// CHECK-NOT: ZeroDivisionError
func.func @floor_div(%a: tensor<4x3xi32>, %b: tensor<3xi32>) -> tensor<4x3xi32> {
  %r = bcast.div %a, %b {rounding_mode = "floor"} : (tensor<4x3xi32>, tensor<3xi32>) -> tensor<4x3xi32>
  return %r : tensor<4x3xi32>
}

func.func @fmod(%a: tensor<?xi16>, %b: tensor<i16>) -> tensor<?xi16> {
  %r = bcast.fmod %a, %b : (tensor<?xi16>, tensor<i16>) -> tensor<?xi16>
  return %r : tensor<?xi16>
}
