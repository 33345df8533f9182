// A fused chain on the GPU, (a + b) * c - d with four operands of different
// shapes (2x3, 3, 2x1 and rank 0), then an in-place update of the result
// with a broadcast row: one kernel for the chain, one for the update.
// Expected values by hand:
//   a + b         = [[11, 22, 33], [14, 25, 36]]
//   (a + b) * c   = [[22, 44, 66], [42, 75, 108]]
//   ... - d       = [[21.5, 43.5, 65.5], [41.5, 74.5, 107.5]]
//   r.mul_(e), e = [1, -1, 0.5]: [[21.5, -43.5, 32.75], [41.5, -74.5, 53.75]]
memref.global "private" constant @a : memref<2x3xf32> = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]>
memref.global "private" constant @b : memref<3xf32> = dense<[10.0, 20.0, 30.0]>
memref.global "private" constant @c : memref<2x1xf32> = dense<[[2.0], [3.0]]>
memref.global "private" constant @d : memref<f32> = dense<0.5>
memref.global "private" constant @e : memref<3xf32> = dense<[1.0, -1.0, 0.5]>

func.func @chain(%a: memref<2x3xf32>, %b: memref<3xf32>, %c: memref<2x1xf32>, %d: memref<f32>, %o: memref<2x3xf32>) {
  %ta = bufferization.to_tensor %a restrict : memref<2x3xf32> to tensor<2x3xf32>
  %tb = bufferization.to_tensor %b restrict : memref<3xf32> to tensor<3xf32>
  %tc = bufferization.to_tensor %c restrict : memref<2x1xf32> to tensor<2x1xf32>
  %td = bufferization.to_tensor %d restrict : memref<f32> to tensor<f32>
  %s = bcast.add %ta, %tb : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %p = bcast.mul %s, %tc : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %r = bcast.sub %p, %td : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  bufferization.materialize_in_destination %r in restrict writable %o : (tensor<2x3xf32>, memref<2x3xf32>) -> ()
  return
}

func.func @update(%x: memref<?x?xf32>, %e: memref<?xf32>) {
  %tx = bufferization.to_tensor %x restrict : memref<?x?xf32> to tensor<?x?xf32>
  %te = bufferization.to_tensor %e restrict : memref<?xf32> to tensor<?xf32>
  %r = bcast.mul_ %tx, %te : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  bufferization.materialize_in_destination %r in restrict writable %x : (tensor<?x?xf32>, memref<?x?xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)

func.func @bcast_test_main() {
  %ha = memref.get_global @a : memref<2x3xf32>
  %hb = memref.get_global @b : memref<3xf32>
  %hc = memref.get_global @c : memref<2x1xf32>
  %hd = memref.get_global @d : memref<f32>
  %he = memref.get_global @e : memref<3xf32>
  %da = gpu.alloc () : memref<2x3xf32>
  %db = gpu.alloc () : memref<3xf32>
  %dc = gpu.alloc () : memref<2x1xf32>
  %dd = gpu.alloc () : memref<f32>
  %de = gpu.alloc () : memref<3xf32>
  %do = gpu.alloc () : memref<2x3xf32>
  gpu.memcpy %da, %ha : memref<2x3xf32>, memref<2x3xf32>
  gpu.memcpy %db, %hb : memref<3xf32>, memref<3xf32>
  gpu.memcpy %dc, %hc : memref<2x1xf32>, memref<2x1xf32>
  gpu.memcpy %dd, %hd : memref<f32>, memref<f32>
  gpu.memcpy %de, %he : memref<3xf32>, memref<3xf32>
  call @chain(%da, %db, %dc, %dd, %do) : (memref<2x3xf32>, memref<3xf32>, memref<2x1xf32>, memref<f32>, memref<2x3xf32>) -> ()
  %h = memref.alloc () : memref<2x3xf32>
  gpu.memcpy %h, %do : memref<2x3xf32>, memref<2x3xf32>
  %u = memref.cast %h : memref<2x3xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  %xo = memref.cast %do : memref<2x3xf32> to memref<?x?xf32>
  %xe = memref.cast %de : memref<3xf32> to memref<?xf32>
  call @update(%xo, %xe) : (memref<?x?xf32>, memref<?xf32>) -> ()
  gpu.memcpy %h, %do : memref<2x3xf32>, memref<2x3xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
