// A run-time shape error on the GPU: the check runs on the host before the
// launch, prints PyTorch's sentence and exits with status 1.
func.func @add(%a: memref<?x?xf32>, %b: memref<?xf32>, %o: memref<?x?xf32>) {
  %ta = bufferization.to_tensor %a restrict : memref<?x?xf32> to tensor<?x?xf32>
  %tb = bufferization.to_tensor %b restrict : memref<?xf32> to tensor<?xf32>
  %r = bcast.add %ta, %tb : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  bufferization.materialize_in_destination %r in restrict writable %o : (tensor<?x?xf32>, memref<?x?xf32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>)
func.func @bcast_test_main() {
  %a = gpu.alloc () : memref<2x3xf32>
  %b = gpu.alloc () : memref<2xf32>
  %o = gpu.alloc () : memref<2x3xf32>
  %ad = memref.cast %a : memref<2x3xf32> to memref<?x?xf32>
  %bd = memref.cast %b : memref<2xf32> to memref<?xf32>
  %od = memref.cast %o : memref<2x3xf32> to memref<?x?xf32>
  call @add(%ad, %bd, %od) : (memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) -> ()
  %h = memref.alloc () : memref<2x3xf32>
  gpu.memcpy %h, %o : memref<2x3xf32>, memref<2x3xf32>
  %u = memref.cast %h : memref<2x3xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
