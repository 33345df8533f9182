// bcast programs compiled by the downstream tool, which registers nothing but
// bcast (registerAllBcastDialectsAndPasses). Expected numbers by hand:
//   r  = x * y with x = [[1], [2], [3]], y = [10, 20]: [[10, 20], [20, 40], [30, 60]]
//   r += 0.5 (in place):                                [[10.5, 20.5], [20.5, 40.5], [30.5, 60.5]]
//   w = where(r > 25, r, 0):                            [[0, 0], [0, 40.5], [30.5, 60.5]]
//   w + w (no broadcast):                               [[0, 0], [0, 81], [61, 121]]

// RUN: downstream-opt %s --bcast-to-llvm | %runner | FileCheck %s
// RUN: downstream-opt %s --bcast-to-llvm=parallel=false | %runner | FileCheck %s
// RUN: downstream-opt %s --bcast-to-llvm="broadcast-policy=static vectorize=false" | %runner | FileCheck %s
// The installed bcast-opt compiles the same program to the same numbers.
// RUN: bcast-opt %s --bcast-to-llvm | %runner | FileCheck %s
// Bytecode written by the downstream tool is read by the installed bcast-opt.
// RUN: downstream-opt %s --emit-bytecode | bcast-opt --bcast-to-llvm | %runner | FileCheck %s
// RUN: downstream-opt %s --bcast-to-linalg | FileCheck %s --check-prefix=LINALG
// RUN: downstream-opt %s --downstream-count-broadcasts -o /dev/null 2>&1 | FileCheck %s --check-prefix=COUNT

// CHECK:      [10.5,   20.5],
// CHECK-NEXT: [20.5,   40.5],
// CHECK-NEXT: [30.5,   60.5]]
// CHECK:      [0,   0],
// CHECK-NEXT: [0,   81],
// CHECK-NEXT: [61,   121]]

// LINALG-LABEL: func.func @outer
// LINALG-NOT:   bcast.mul
// LINALG:       linalg.generic
// LINALG:       arith.mulf
// LINALG-LABEL: func.func @main

// COUNT: remark: 5 bcast element-wise ops, 4 of them broadcasting

func.func private @printMemrefF32(memref<*xf32>)

func.func @outer(%x: tensor<?x1xf32>, %y: tensor<?xf32>) -> tensor<?x?xf32> {
  %r = bcast.mul %x, %y : (tensor<?x1xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @main() {
  %x = arith.constant dense<[[1.0], [2.0], [3.0]]> : tensor<3x1xf32>
  %y = arith.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %half = arith.constant dense<0.5> : tensor<f32>
  %threshold = arith.constant dense<25.0> : tensor<f32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %xd = tensor.cast %x : tensor<3x1xf32> to tensor<?x1xf32>
  %yd = tensor.cast %y : tensor<2xf32> to tensor<?xf32>
  %r = call @outer(%xd, %yd) : (tensor<?x1xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %rs = tensor.cast %r : tensor<?x?xf32> to tensor<3x2xf32>
  %shifted = bcast.add_ %rs, %half : (tensor<3x2xf32>, tensor<f32>) -> tensor<3x2xf32>
  %big = bcast.gt %shifted, %threshold : (tensor<3x2xf32>, tensor<f32>) -> tensor<3x2xi1>
  %w = bcast.where %big, %shifted, %zero : (tensor<3x2xi1>, tensor<3x2xf32>, tensor<f32>) -> tensor<3x2xf32>
  %m1 = bufferization.to_buffer %shifted : tensor<3x2xf32> to memref<3x2xf32>
  %u1 = memref.cast %m1 : memref<3x2xf32> to memref<*xf32>
  call @printMemrefF32(%u1) : (memref<*xf32>) -> ()
  %w2 = bcast.add %w, %w : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %m2 = bufferization.to_buffer %w2 : tensor<3x2xf32> to memref<3x2xf32>
  %u2 = memref.cast %m2 : memref<3x2xf32> to memref<*xf32>
  call @printMemrefF32(%u2) : (memref<*xf32>) -> ()
  return
}
