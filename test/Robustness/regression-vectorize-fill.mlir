// Regression (found by hand while writing the hostile-input tests, before
// the fuzzer existed): a broadcast of a splat constant lowers to a
// linalg.generic with no inputs whose body yields a value defined outside
// it; bcast-vectorize-elementwise looked that value up in the body's
// mapping, got null, and crashed (SIGSEGV) building the scalar tail loop's
// store. Fixed by looking it up with a default.
// RUN: bcast-opt %s --bcast-to-llvm | %runner | FileCheck %s
// RUN: bcast-opt %s --split-input-file --bcast-vectorize-elementwise="parallel=false" | FileCheck %s --check-prefix=PASS
// CHECK:      [2.5,   2.5,   2.5,   2.5,   2.5],
// CHECK-NEXT: [2.5,   2.5,   2.5,   2.5,   2.5],
// CHECK-NEXT: [2.5,   2.5,   2.5,   2.5,   2.5]]

func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %c = arith.constant dense<2.5> : tensor<1xf32>
  %r = bcast.broadcast_to %c : tensor<1xf32> -> tensor<3x5xf32>
  %m = bufferization.to_buffer %r : tensor<3x5xf32> to memref<3x5xf32>
  %u = memref.cast %m : memref<3x5xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

// -----

// The pass alone on such a generic (rows of 21: a vector loop and a tail):
// the vector loop stores a splat of the constant (linalg::vectorize folds the
// broadcast of a constant into a vector constant), the scalar tail stores
// the constant itself.
// PASS-LABEL: func.func @fill
// PASS-SAME:    %[[OUT:.*]]: memref<3x21xf32>
// PASS:         %[[CST:.*]] = arith.constant 2.5{{.*}} : f32
// PASS:         %[[SPLAT:.*]] = arith.constant dense<2.5{{.*}}> : vector<8xf32>
// PASS:         vector.store %[[SPLAT]], %[[OUT]]
// PASS:         memref.store %[[CST]], %[[OUT]]
// PASS-NOT:     linalg.generic
func.func @fill(%out: memref<3x21xf32>) {
  %cst = arith.constant 2.5 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%out : memref<3x21xf32>) {
  ^bb0(%o: f32):
    linalg.yield %cst : f32
  }
  return
}
