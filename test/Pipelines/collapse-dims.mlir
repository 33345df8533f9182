// The pipeline option collapse-dims (on by default): --bcast-to-llvm runs
// bcast-collapse-dims after bcast-fuse-rows, so that a BatchNorm over
// [1,C,14,14] with [C,1,1] statistics reaches the vectorizer as one generic
// on [1,C,196] and [C]; collapse-dims=false leaves the pass out.
// RUN: bcast-opt %s --bcast-to-llvm -mlir-print-ir-after=bcast-collapse-dims -o /dev/null 2>&1 | FileCheck %s
// RUN: bcast-opt %s --bcast-to-llvm="collapse-dims=false" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: bcast-opt %s --bcast-to-llvm --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=ON
// The vector loop then reads and writes the collapsed views themselves: the
// vectorizer's cleanup folds subviews into the indices, but not these views,
// which would cost an affine.delinearize_index (a division per size) per
// vector (an add of two 2x56x56x96 tensors ran 4x slower than on 602112
// elements).
// RUN: bcast-opt %s --bcast-to-llvm -mlir-print-ir-after=bcast-vectorize-elementwise -o /dev/null 2>&1 | FileCheck %s --check-prefix=VEC

// CHECK-LABEL: IR Dump After BcastCollapseDims
// CHECK:       func.func @batch_norm
// CHECK-DAG:     memref.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : memref<1x8x14x14xf32> into memref<1x8x196xf32>
// CHECK-DAG:     memref.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : memref<8x1x1xf32> into memref<8xf32>
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME:      ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<1x8x196xf32>, memref<8xf32>, memref<8xf32>) outs(%{{.*}} : memref<1x8x196xf32>)

// VEC-LABEL: func.func @add_4d
// VEC-DAG:     %[[A:.*]] = memref.collapse_shape %arg0 {{\[}}[0, 1, 2, 3]] : memref<2x56x56x96xf32> into memref<602112xf32>
// VEC-DAG:     %[[B:.*]] = memref.collapse_shape %arg1 {{\[}}[0, 1, 2, 3]] : memref<2x56x56x96xf32> into memref<602112xf32>
// VEC-DAG:     %[[C:.*]] = memref.collapse_shape %alloc {{\[}}[0, 1, 2, 3]] : memref<2x56x56x96xf32> into memref<602112xf32>
// VEC-NOT:     delinearize
// VEC:         vector.load %[[A]][%{{.*}}] : memref<602112xf32>, vector<{{[0-9]+}}xf32>
// VEC:         vector.load %[[B]][%{{.*}}] : memref<602112xf32>, vector<{{[0-9]+}}xf32>
// VEC:         vector.store %{{.*}}, %[[C]][%{{.*}}] : memref<602112xf32>, vector<{{[0-9]+}}xf32>
// VEC-NOT:     delinearize
// VEC:       return

// OFF-NOT: bcast-collapse-dims
// ON: bcast-fuse-rows
// ON-NEXT: bcast-collapse-dims
// ON-NEXT: bcast-vectorize-elementwise
func.func @batch_norm(%x: tensor<1x8x14x14xf32>, %m: tensor<8x1x1xf32>, %s: tensor<8x1x1xf32>) -> tensor<1x8x14x14xf32> {
  %0 = bcast.sub %x, %m : (tensor<1x8x14x14xf32>, tensor<8x1x1xf32>) -> tensor<1x8x14x14xf32>
  %1 = bcast.mul %0, %s : (tensor<1x8x14x14xf32>, tensor<8x1x1xf32>) -> tensor<1x8x14x14xf32>
  return %1 : tensor<1x8x14x14xf32>
}

func.func @add_4d(%a: tensor<2x56x56x96xf32>, %b: tensor<2x56x56x96xf32>) -> tensor<2x56x56x96xf32> {
  %0 = bcast.add %a, %b : (tensor<2x56x56x96xf32>, tensor<2x56x56x96xf32>) -> tensor<2x56x56x96xf32>
  return %0 : tensor<2x56x56x96xf32>
}
