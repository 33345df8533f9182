// bcast.specify_shape lowers to one run-time check per refined size (PyTensor's
// sentence, dimension 0 first) and a tensor.cast that the checks make valid.
// The same under both policies; under `static` the refined 1 then broadcasts.
// RUN: bcast-opt %s --convert-bcast-to-linalg -cse -mlir-print-local-scope -split-input-file | FileCheck %s --check-prefixes=CHECK,NUMPY
// RUN: bcast-opt %s --convert-bcast-to-linalg=broadcast-policy=static -cse -mlir-print-local-scope -split-input-file | FileCheck %s --check-prefixes=CHECK,STATIC

// CHECK-LABEL: func @specify_trailing_one
// CHECK-SAME: (%[[Y:.*]]: tensor<?x?xf32>)
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[D1:.*]] = tensor.dim %[[Y]], %[[C1]] : tensor<?x?xf32>
// CHECK: %[[BAD:.*]] = arith.cmpi ne, %[[D1]], %[[C1]] : index
// CHECK: bcast.runtime_check %[[BAD]], "SpecifyShape: dim 1 of input has shape %ld, expected 1."(%[[D1]] : index)
// CHECK-NOT: bcast.runtime_check
// CHECK: %[[R:.*]] = tensor.cast %[[Y]] : tensor<?x?xf32> to tensor<?x1xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @specify_trailing_one(%y: tensor<?x?xf32>) -> tensor<?x1xf32> {
  %r = bcast.specify_shape %y : (tensor<?x?xf32>) -> tensor<?x1xf32>
  return %r : tensor<?x1xf32>
}

// -----

// Every refined size is checked, dimension 0 first; static sizes and sizes
// left `?` are not.
// CHECK-LABEL: func @specify_several
// CHECK-SAME: (%[[Y:.*]]: tensor<?x?x4x?xi32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[D0:.*]] = tensor.dim %[[Y]], %[[C0]]
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK: arith.cmpi ne, %[[D0]], %[[C2]]
// CHECK: bcast.runtime_check %{{.*}}, "SpecifyShape: dim 0 of input has shape %ld, expected 2."(%[[D0]] : index)
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[D3:.*]] = tensor.dim %[[Y]], %[[C3]]
// CHECK: arith.cmpi ne, %[[D3]], %[[C0]]
// CHECK: bcast.runtime_check %{{.*}}, "SpecifyShape: dim 3 of input has shape %ld, expected 0."(%[[D3]] : index)
// CHECK-NOT: bcast.runtime_check
// CHECK: tensor.cast %[[Y]] : tensor<?x?x4x?xi32> to tensor<2x?x4x0xi32>
func.func @specify_several(%y: tensor<?x?x4x?xi32>) -> tensor<2x?x4x0xi32> {
  %r = bcast.specify_shape %y : (tensor<?x?x4x?xi32>) -> tensor<2x?x4x0xi32>
  return %r : tensor<2x?x4x0xi32>
}

// -----

// PyTensor's second idiom, x_matrix + specify_shape(y_matrix, (None, 1)):
// the check comes first, then the add reads the cast with a constant-0 map
// in the pinned dimension. Under `static` no check of axis 1 is left (the 1
// is static now); only the sizes of axis 0 must agree.
// CHECK-LABEL: func @seed_specify_shape
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32>, %[[Y:.*]]: tensor<?x?xf32>)
// CHECK: bcast.runtime_check %{{.*}}, "SpecifyShape: dim 1 of input has shape %ld, expected 1."
// CHECK: %[[COL:.*]] = tensor.cast %[[Y]] : tensor<?x?xf32> to tensor<?x1xf32>
// STATIC-NOT: axis 1
// STATIC: bcast.runtime_check %{{.*}}, "Vectorized input 1 has an incompatible shape in axis 0.
// STATIC-NOT: axis 1
// NUMPY: bcast.runtime_check %{{.*}}, "The size of tensor a (%ld) must match the size of tensor b (%ld) at non-singleton dimension 0"
// CHECK-DAG: %[[VX:.*]] = bcast.expand_view %[[X]]
// CHECK-DAG: %[[VCOL:.*]] = bcast.expand_view %[[COL]]
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME: ins(%[[VX]], %[[VCOL]] :
func.func @seed_specify_shape(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %col = bcast.specify_shape %y : (tensor<?x?xf32>) -> tensor<?x1xf32>
  %r = bcast.add %x, %col : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
