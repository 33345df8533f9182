// bf16 and f16 through the whole pipeline (math.powf and floor division
// included), values worked out by hand: [1, 2, 3] ** 2, [1, 2, 3] ** [1, 2, 3]
// and floor([1, 2, 3] / 2).
// RUN: bcast-opt --bcast-to-llvm %s | %runner | FileCheck %s
// CHECK: [1,  4,  9]
// CHECK: [1,  4,  27]
// CHECK: [0,  1,  1]

func.func private @printMemrefF32(memref<*xf32>)
func.func @k(%a: tensor<3xbf16>, %b: tensor<bf16>, %c: tensor<3xf16>) -> (tensor<3xbf16>, tensor<3xf16>, tensor<3xbf16>) {
  %r = bcast.pow %a, %b : (tensor<3xbf16>, tensor<bf16>) -> tensor<3xbf16>
  %s = bcast.pow %c, %c : (tensor<3xf16>, tensor<3xf16>) -> tensor<3xf16>
  %t = bcast.div %a, %b {rounding_mode = "floor"} : (tensor<3xbf16>, tensor<bf16>) -> tensor<3xbf16>
  return %r, %s, %t : tensor<3xbf16>, tensor<3xf16>, tensor<3xbf16>
}
func.func @main() {
  %a = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xbf16>
  %b = arith.constant dense<2.0> : tensor<bf16>
  %c = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf16>
  %r:3 = call @k(%a, %b, %c) : (tensor<3xbf16>, tensor<bf16>, tensor<3xf16>) -> (tensor<3xbf16>, tensor<3xf16>, tensor<3xbf16>)
  %e = tensor.empty() : tensor<3xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%r#0 : tensor<3xbf16>) outs(%e : tensor<3xf32>) {
  ^bb0(%i: bf16, %o: f32):
    %f = arith.extf %i : bf16 to f32
    linalg.yield %f : f32
  } -> tensor<3xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%r#1 : tensor<3xf16>) outs(%e : tensor<3xf32>) {
  ^bb0(%i: f16, %o: f32):
    %f = arith.extf %i : f16 to f32
    linalg.yield %f : f32
  } -> tensor<3xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%r#2 : tensor<3xbf16>) outs(%e : tensor<3xf32>) {
  ^bb0(%i: bf16, %o: f32):
    %f = arith.extf %i : bf16 to f32
    linalg.yield %f : f32
  } -> tensor<3xf32>
  %mx = bufferization.to_buffer %x : tensor<3xf32> to memref<3xf32>
  %ux = memref.cast %mx : memref<3xf32> to memref<*xf32>
  call @printMemrefF32(%ux) : (memref<*xf32>) -> ()
  %my = bufferization.to_buffer %y : tensor<3xf32> to memref<3xf32>
  %uy = memref.cast %my : memref<3xf32> to memref<*xf32>
  call @printMemrefF32(%uy) : (memref<*xf32>) -> ()
  %mz = bufferization.to_buffer %z : tensor<3xf32> to memref<3xf32>
  %uz = memref.cast %mz : memref<3xf32> to memref<*xf32>
  call @printMemrefF32(%uz) : (memref<*xf32>) -> ()
  return
}
