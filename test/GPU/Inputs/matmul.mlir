// bcast.matmul on the GPU: a broadcast batch ([2,1,3,4] @ [5,4,2] ->
// [2,5,3,2], the first operand's size-1 batch dim read with stride 0), then
// the same product with a bias row and a ReLU fused after it. Small
// integers in f32, so every product is exact; the expected values are
// NumPy's (numpy.matmul) in test/GPU/Execution/matmul.test.
memref.global "private" constant @a : memref<2x1x3x4xf32> = dense<[[[[-3., -2., -1.,  0.],   [ 1.,  2.,  3., -3.],   [-2., -1.,  0.,  1.]]], [[[ 2.,  3., -3., -2.],   [-1.,  0.,  1.,  2.],   [ 3., -3., -2., -1.]]]]>
memref.global "private" constant @b : memref<5x4x2xf32> = dense<[[[-2., -1.],  [ 0.,  1.],  [ 2., -2.],  [-1.,  0.]], [[ 1.,  2.],  [-2., -1.],  [ 0.,  1.],  [ 2., -2.]], [[-1.,  0.],  [ 1.,  2.],  [-2., -1.],  [ 0.,  1.]], [[ 2., -2.],  [-1.,  0.],  [ 1.,  2.],  [-2., -1.]], [[ 0.,  1.],  [ 2., -2.],  [-1.,  0.],  [ 1.,  2.]]]>
memref.global "private" constant @bias : memref<2xf32> = dense<[ 0.5, -1. ]>

func.func @product(%a: memref<2x1x3x4xf32>, %b: memref<5x4x2xf32>, %o: memref<2x5x3x2xf32>) {
  %ta = bufferization.to_tensor %a restrict : memref<2x1x3x4xf32> to tensor<2x1x3x4xf32>
  %tb = bufferization.to_tensor %b restrict : memref<5x4x2xf32> to tensor<5x4x2xf32>
  %r = bcast.matmul %ta, %tb : (tensor<2x1x3x4xf32>, tensor<5x4x2xf32>) -> tensor<2x5x3x2xf32>
  bufferization.materialize_in_destination %r in restrict writable %o : (tensor<2x5x3x2xf32>, memref<2x5x3x2xf32>) -> ()
  return
}

func.func @epilogue(%a: memref<2x1x3x4xf32>, %b: memref<5x4x2xf32>, %c: memref<2xf32>, %o: memref<2x5x3x2xf32>) {
  %ta = bufferization.to_tensor %a restrict : memref<2x1x3x4xf32> to tensor<2x1x3x4xf32>
  %tb = bufferization.to_tensor %b restrict : memref<5x4x2xf32> to tensor<5x4x2xf32>
  %tc = bufferization.to_tensor %c restrict : memref<2xf32> to tensor<2xf32>
  %r = bcast.matmul %ta, %tb : (tensor<2x1x3x4xf32>, tensor<5x4x2xf32>) -> tensor<2x5x3x2xf32>
  %s = bcast.add %r, %tc : (tensor<2x5x3x2xf32>, tensor<2xf32>) -> tensor<2x5x3x2xf32>
  %y = bcast.relu %s : (tensor<2x5x3x2xf32>) -> tensor<2x5x3x2xf32>
  bufferization.materialize_in_destination %y in restrict writable %o : (tensor<2x5x3x2xf32>, memref<2x5x3x2xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)

func.func @bcast_test_main() {
  %ha = memref.get_global @a : memref<2x1x3x4xf32>
  %hb = memref.get_global @b : memref<5x4x2xf32>
  %hc = memref.get_global @bias : memref<2xf32>
  %da = gpu.alloc () : memref<2x1x3x4xf32>
  %db = gpu.alloc () : memref<5x4x2xf32>
  %dc = gpu.alloc () : memref<2xf32>
  %do = gpu.alloc () : memref<2x5x3x2xf32>
  gpu.memcpy %da, %ha : memref<2x1x3x4xf32>, memref<2x1x3x4xf32>
  gpu.memcpy %db, %hb : memref<5x4x2xf32>, memref<5x4x2xf32>
  gpu.memcpy %dc, %hc : memref<2xf32>, memref<2xf32>
  %h = memref.alloc () : memref<2x5x3x2xf32>
  %u = memref.cast %h : memref<2x5x3x2xf32> to memref<*xf32>
  call @product(%da, %db, %do) : (memref<2x1x3x4xf32>, memref<5x4x2xf32>, memref<2x5x3x2xf32>) -> ()
  gpu.memcpy %h, %do : memref<2x5x3x2xf32>, memref<2x5x3x2xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  call @epilogue(%da, %db, %dc, %do) : (memref<2x1x3x4xf32>, memref<5x4x2xf32>, memref<2xf32>, memref<2x5x3x2xf32>) -> ()
  gpu.memcpy %h, %do : memref<2x5x3x2xf32>, memref<2x5x3x2xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
