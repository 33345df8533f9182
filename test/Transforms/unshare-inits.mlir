// bcast-unshare-inits: a tensor linalg.fill that several destination-style
// ops write into becomes one fill per op (with its own tensor.empty when it
// fills one); uses as inputs, single uses and fills of other tensors keep
// what they share.
// RUN: bcast-opt %s --bcast-unshare-inits -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @two_reductions(
// CHECK-SAME:    %[[X:.*]]: tensor<4x5xf32>)
// CHECK-DAG:     %[[E0:.*]] = tensor.empty() : tensor<5xf32>
// CHECK-DAG:     %[[F0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E0]] : tensor<5xf32>)
// CHECK-DAG:     %[[E1:.*]] = tensor.empty() : tensor<5xf32>
// CHECK-DAG:     %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<5xf32>)
// CHECK:         linalg.generic {{.*}} outs(%[[F0]] : tensor<5xf32>)
// CHECK:         linalg.generic {{.*}} outs(%[[F1]] : tensor<5xf32>)
// CHECK-NOT:     linalg.fill
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @two_reductions(%x: tensor<4x5xf32>) -> (tensor<5xf32>, tensor<5xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  %s = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<4x5xf32>) outs(%f : tensor<5xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  } -> tensor<5xf32>
  %p = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<4x5xf32>) outs(%f : tensor<5xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.mulf %acc, %in : f32
    linalg.yield %0 : f32
  } -> tensor<5xf32>
  return %s, %p : tensor<5xf32>, tensor<5xf32>
}

// -----

// Dynamic sizes: the clone of the tensor.empty takes the same size operand.
// One use as an input stays on the original fill.
// CHECK-LABEL: func.func @dynamic_and_input(
// CHECK-SAME:    %[[X:.*]]: tensor<?x5xf32>, %[[N:.*]]: index)
// CHECK-DAG:     %[[E0:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-DAG:     %[[F0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E0]] : tensor<?xf32>)
// CHECK-DAG:     %[[E1:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK-DAG:     %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<?xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[X]] : tensor<?x5xf32>) outs(%[[F0]] : tensor<?xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %[[F0]] : tensor<?x5xf32>, tensor<?xf32>) outs(%[[F1]] : tensor<?xf32>)
// CHECK-NOT:     linalg.fill
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @dynamic_and_input(%x: tensor<?x5xf32>, %n: index) -> (tensor<?xf32>, tensor<?xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x5xf32>) outs(%f : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  } -> tensor<?xf32>
  %t = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %f : tensor<?x5xf32>, tensor<?xf32>) outs(%f : tensor<?xf32>) {
  ^bb0(%in: f32, %z: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    %1 = arith.addf %0, %z : f32
    linalg.yield %1 : f32
  } -> tensor<?xf32>
  return %s, %t : tensor<?xf32>, tensor<?xf32>
}

// -----

// A fill of a tensor that is not a tensor.empty keeps its destination in
// each clone; a fill with one destination-style use is left alone.
// CHECK-LABEL: func.func @fill_of_argument(
// CHECK-SAME:    %[[X:.*]]: tensor<4x5xf32>, %[[D:.*]]: tensor<5xf32>)
// CHECK:         %[[F0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[D]] : tensor<5xf32>)
// CHECK-NEXT:    %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[D]] : tensor<5xf32>)
// CHECK:         linalg.generic {{.*}} outs(%[[F0]] : tensor<5xf32>)
// CHECK:         linalg.generic {{.*}} outs(%[[F1]] : tensor<5xf32>)
// CHECK:         %[[G:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<5xf32>)
// CHECK:         linalg.generic {{.*}} outs(%[[G]] : tensor<5xf32>)
// CHECK-NOT:     linalg.fill
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @fill_of_argument(%x: tensor<4x5xf32>, %d: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) {
  %one = arith.constant 1.0 : f32
  %f = linalg.fill ins(%one : f32) outs(%d : tensor<5xf32>) -> tensor<5xf32>
  %s = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<4x5xf32>) outs(%f : tensor<5xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %acc, %in : f32
    linalg.yield %0 : f32
  } -> tensor<5xf32>
  %p = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<4x5xf32>) outs(%f : tensor<5xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.mulf %acc, %in : f32
    linalg.yield %0 : f32
  } -> tensor<5xf32>
  %e = tensor.empty() : tensor<5xf32>
  %g = linalg.fill ins(%one : f32) outs(%e : tensor<5xf32>) -> tensor<5xf32>
  %q = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<4x5xf32>) outs(%g : tensor<5xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %acc, %in : f32
    linalg.yield %0 : f32
  } -> tensor<5xf32>
  return %s, %p, %q : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
}
