// A complete bcast program: PyTorch's broadcasting-notes shapes, computed and
// printed. Run it with the README's command:
//   build/bin/bcast-opt --bcast-to-llvm examples/broadcast.mlir | \
//     mlir-runner -e main -entry-point-result=void \
//       -shared-libs=/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so,/usr/lib/llvm-22/lib/libmlir_runner_utils.so,/usr/lib/llvm-22/lib/libomp.so

func.func private @printMemrefF32(memref<*xf32>)

// (x + y) * 10 - z: x is a column, y a row, z a scalar; one fused loop nest.
func.func @kernel(%x: tensor<3x1xf32>, %y: tensor<4xf32>, %z: tensor<f32>) -> tensor<3x4xf32> {
  %ten = arith.constant dense<10.0> : tensor<1xf32>
  %s = bcast.add %x, %y : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %p = bcast.mul %s, %ten : (tensor<3x4xf32>, tensor<1xf32>) -> tensor<3x4xf32>
  %r = bcast.sub %p, %z : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

func.func @main() {
  %x = arith.constant dense<[[1.0], [2.0], [3.0]]> : tensor<3x1xf32>
  %y = arith.constant dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf32>
  %z = arith.constant dense<5.0> : tensor<f32>
  %r = call @kernel(%x, %y, %z) : (tensor<3x1xf32>, tensor<4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %m = bufferization.to_buffer %r : tensor<3x4xf32> to memref<3x4xf32>
  %u = memref.cast %m : memref<3x4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
