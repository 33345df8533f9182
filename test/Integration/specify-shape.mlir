// PyTensor's three ways to make a size that is 1 at run time broadcast under
// the `static` policy (docs/Semantics.md, "Pinning static sizes"), run on the
// seed's numbers: X = arange(9).reshape(3, 3) and a column [0, 1, 2], so
// X + column = [[0, 1, 2], [4, 5, 6], [8, 9, 10]] (row i adds i); and the
// seed's zeros, whose sum is zeros.
//
// RUN: bcast-opt %s --bcast-to-llvm=broadcast-policy=static | %runner | FileCheck %s
// 1. The size in the function's argument type (x_matrix + y_col).
// CHECK-LABEL: argument type
// CHECK-NEXT: Unranked Memref {{.*}} sizes = [3, 3]
// CHECK-NEXT: [0,   1,   2]
// CHECK-NEXT: [4,   5,   6]
// CHECK-NEXT: [8,   9,   10]
// 2. specify_shape(y_matrix, (None, 1)), with a 3x1 at run time.
// CHECK-LABEL: specify_shape
// CHECK-NEXT: Unranked Memref {{.*}} sizes = [3, 3]
// CHECK-NEXT: [0,   1,   2]
// CHECK-NEXT: [4,   5,   6]
// CHECK-NEXT: [8,   9,   10]
// CHECK-LABEL: specify_shape zeros
// CHECK-NEXT: Unranked Memref {{.*}} sizes = [3, 3]
// CHECK-NEXT: [0,   0,   0]
// CHECK-NEXT: [0,   0,   0]
// CHECK-NEXT: [0,   0,   0]
// 3. expand_dims(y_vector, 1) as tensor.expand_shape.
// CHECK-LABEL: expand_shape
// CHECK-NEXT: Unranked Memref {{.*}} sizes = [3, 3]
// CHECK-NEXT: [0,   1,   2]
// CHECK-NEXT: [4,   5,   6]
// CHECK-NEXT: [8,   9,   10]
//
// The same under the numpy policy, where the 1 would have broadcast anyway:
// RUN: bcast-opt %s --bcast-to-llvm | %runner | FileCheck %s
//
// A wrong size stops the program with PyTensor's sentence, exit status 1,
// before anything is computed:
// RUN: bcast-opt %s --bcast-to-llvm=broadcast-policy=static | not mlir-runner -e wrong_size -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=WRONG
// WRONG: SpecifyShape: dim 1 of input has shape 3, expected 1.
// WRONG-NOT: Unranked Memref
// RUN: bcast-opt %s --bcast-to-llvm=broadcast-policy=static | mlir-runner -e wrong_size -entry-point-result=void -shared-libs=%runner_libs > /dev/null 2>&1; test $? -eq 1
//
// Under the numpy policy too: specify_shape checks its sizes whatever the
// policy.
// RUN: bcast-opt %s --bcast-to-llvm | not mlir-runner -e wrong_size -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=WRONG
//
// Without specify_shape the static policy refuses the run-time 1 (the
// seed's ValueError):
// RUN: bcast-opt %s --bcast-to-llvm=broadcast-policy=static | not mlir-runner -e unpinned -entry-point-result=void -shared-libs=%runner_libs 2>&1 | FileCheck %s --check-prefix=UNPINNED
// UNPINNED: Incompatible vectorized shapes for input 1 and axis 1. Input 1 has shape 1, but is not statically known to have shape 1, and thus not broadcastable. Input 1 has size 1 and input 0 has size 3.
//
// report-errors=true: the sentence goes to the caller's bcastReportError, the
// kernel returns, and a good call afterwards still works.
// RUN: %host_cc -shared -fPIC %S/Inputs/report_error.c -o %t.so
// RUN: bcast-opt %s --bcast-to-llvm="broadcast-policy=static report-errors=true" | mlir-runner -e reported -entry-point-result=void -shared-libs=%runner_libs,%t.so | FileCheck %s --check-prefix=REPORT
// REPORT: reported: SpecifyShape: dim 1 of input has shape 3, expected 1.
// REPORT-NEXT: returned to the caller
// REPORT-NEXT: Unranked Memref {{.*}} sizes = [3, 3]
// REPORT-NEXT: [0,   1,   2]
// REPORT-NEXT: [4,   5,   6]
// REPORT-NEXT: [8,   9,   10]

func.func private @printMemrefF32(memref<*xf32>)

func.func @print(%t: tensor<?x?xf32>) {
  %m = bufferization.to_buffer %t : tensor<?x?xf32> to memref<?x?xf32>
  %u = memref.cast %m : memref<?x?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

// The kernels: x_matrix + a column, one per idiom, and the unpinned add.
func.func @add_col(%x: tensor<?x?xf32>, %y: tensor<?x1xf32>) -> tensor<?x?xf32> {
  %r = bcast.add %x, %y : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @add_specified(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %col = bcast.specify_shape %y : (tensor<?x?xf32>) -> tensor<?x1xf32>
  %r = bcast.add %x, %col : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @add_expanded(%x: tensor<?x?xf32>, %v: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %v, %c0 : tensor<?xf32>
  %col = tensor.expand_shape %v [[0, 1]] output_shape [%n, 1] : tensor<?xf32> into tensor<?x1xf32>
  %r = bcast.add %x, %col : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @add(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = bcast.add %x, %y : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// The inputs, as the caller would pass them: every size dynamic.
func.func @x_matrix() -> tensor<?x?xf32> {
  %x = arith.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]]> : tensor<3x3xf32>
  %d = tensor.cast %x : tensor<3x3xf32> to tensor<?x?xf32>
  return %d : tensor<?x?xf32>
}

func.func @y_matrix() -> tensor<?x?xf32> {
  %y = arith.constant dense<[[0.0], [1.0], [2.0]]> : tensor<3x1xf32>
  %d = tensor.cast %y : tensor<3x1xf32> to tensor<?x?xf32>
  return %d : tensor<?x?xf32>
}

func.func @main() {
  %x = call @x_matrix() : () -> tensor<?x?xf32>
  %y = call @y_matrix() : () -> tensor<?x?xf32>

  vector.print str "argument type\n"
  %col = arith.constant dense<[[0.0], [1.0], [2.0]]> : tensor<3x1xf32>
  %cold = tensor.cast %col : tensor<3x1xf32> to tensor<?x1xf32>
  %r1 = call @add_col(%x, %cold) : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  call @print(%r1) : (tensor<?x?xf32>) -> ()

  vector.print str "specify_shape\n"
  %r2 = call @add_specified(%x, %y) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  call @print(%r2) : (tensor<?x?xf32>) -> ()

  vector.print str "specify_shape zeros\n"
  %zx = arith.constant dense<0.0> : tensor<3x3xf32>
  %zxd = tensor.cast %zx : tensor<3x3xf32> to tensor<?x?xf32>
  %zy = arith.constant dense<0.0> : tensor<3x1xf32>
  %zyd = tensor.cast %zy : tensor<3x1xf32> to tensor<?x?xf32>
  %r3 = call @add_specified(%zxd, %zyd) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  call @print(%r3) : (tensor<?x?xf32>) -> ()

  vector.print str "expand_shape\n"
  %v = arith.constant dense<[0.0, 1.0, 2.0]> : tensor<3xf32>
  %vd = tensor.cast %v : tensor<3xf32> to tensor<?xf32>
  %r4 = call @add_expanded(%x, %vd) : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  call @print(%r4) : (tensor<?x?xf32>) -> ()
  return
}

// y is 3x3: its trailing size is not the 1 specify_shape promises.
func.func @wrong_size() {
  %x = call @x_matrix() : () -> tensor<?x?xf32>
  %r = call @add_specified(%x, %x) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  call @print(%r) : (tensor<?x?xf32>) -> ()
  return
}

func.func @unpinned() {
  %x = call @x_matrix() : () -> tensor<?x?xf32>
  %y = call @y_matrix() : () -> tensor<?x?xf32>
  %r = call @add(%x, %y) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  call @print(%r) : (tensor<?x?xf32>) -> ()
  return
}

func.func @reported() {
  %x = call @x_matrix() : () -> tensor<?x?xf32>
  %bad = call @add_specified(%x, %x) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  vector.print str "returned to the caller\n"
  %y = call @y_matrix() : () -> tensor<?x?xf32>
  %good = call @add_specified(%x, %y) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  call @print(%good) : (tensor<?x?xf32>) -> ()
  return
}
