// bcast.matmul's run-time checks of `?` sizes: a mismatch stops the program
// with exit status 1 and the sentence the verifier would give, with the
// real sizes (batch dims first, trailing-most first, then the contracted
// sizes); under report-errors the caller gets the message and goes on.
// RUN: bcast-opt %s --bcast-to-llvm | not mlir-runner -e batch_mismatch -entry-point-result=void -shared-libs=%matmul_libs 2>&1 | FileCheck %s --check-prefix=BATCH
// BATCH: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0
// BATCH-NOT: [
//
// The batch dims are checked before the contracted sizes, as PyTorch does:
// RUN: bcast-opt %s --bcast-to-llvm | not mlir-runner -e batch_and_contraction -entry-point-result=void -shared-libs=%matmul_libs 2>&1 | FileCheck %s --check-prefix=BATCH
//
// RUN: bcast-opt %s --bcast-to-llvm | not mlir-runner -e contraction_mismatch -entry-point-result=void -shared-libs=%matmul_libs 2>&1 | FileCheck %s --check-prefix=CONTRACT
// CONTRACT: mat1 and mat2 shapes cannot be multiplied (5x2x3 and 4)
//
// RUN: bcast-opt %s --bcast-to-llvm | not mlir-runner -e result_mismatch -entry-point-result=void -shared-libs=%matmul_libs 2>&1 | FileCheck %s --check-prefix=RESULT
// RESULT: output with shape [3, 5] doesn't match the broadcast shape [2, 5]
//
// The exit status is exactly 1:
// RUN: bcast-opt %s --bcast-to-llvm | mlir-runner -e contraction_mismatch -entry-point-result=void -shared-libs=%matmul_libs > /dev/null 2>&1; test $? -eq 1
//
// The static policy: a `?` batch size 1 at run time does not broadcast
// (PyTensor's sentence); under numpy it does.
// RUN: bcast-opt %s --bcast-to-llvm=broadcast-policy=static | not mlir-runner -e runtime_one -entry-point-result=void -shared-libs=%matmul_libs 2>&1 | FileCheck %s --check-prefix=STATIC
// STATIC: Incompatible vectorized shapes for input 0 and axis 0. Input 0 has shape 1, but is not statically known to have shape 1, and thus not broadcastable. Input 0 has size 1 and input 1 has size 2.
// RUN: bcast-opt %s --bcast-to-llvm | mlir-runner -e runtime_one -entry-point-result=void -shared-libs=%matmul_libs | FileCheck %s --check-prefix=NUMPY
// NUMPY: {{\[}}[3]],
// NUMPY-NEXT: {{\[}}[7]]]
//
// report-errors: the embedder's bcastReportError gets the sentence, the
// kernel returns, and the caller goes on.
// RUN: %host_cc -shared -fPIC %S/Inputs/report_error.c -o %t.so
// RUN: bcast-opt %s --bcast-to-llvm=report-errors=true | mlir-runner -e report -entry-point-result=void -shared-libs=%matmul_libs,%t.so | FileCheck %s --check-prefix=REPORT
// REPORT: reported: mat1 and mat2 shapes cannot be multiplied (1x2x3 and 1x4x2)
// REPORT-NEXT: returned to the caller

func.func private @printMemrefF32(memref<*xf32>)

func.func @mm(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %r = bcast.matmul %a, %b : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

func.func @mv(%a: tensor<?x?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %r = bcast.matmul %a, %b : (tensor<?x?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @batch_mismatch() {
  %a = arith.constant dense<1.0> : tensor<3x2x4xf32>
  %b = arith.constant dense<1.0> : tensor<4x4x2xf32>
  %ad = tensor.cast %a : tensor<3x2x4xf32> to tensor<?x?x?xf32>
  %bd = tensor.cast %b : tensor<4x4x2xf32> to tensor<?x?x?xf32>
  %r = call @mm(%ad, %bd) : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %m = bufferization.to_buffer %r : tensor<?x?x?xf32> to memref<?x?x?xf32>
  %u = memref.cast %m : memref<?x?x?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @batch_and_contraction() {
  %a = arith.constant dense<1.0> : tensor<3x2x5xf32>
  %b = arith.constant dense<1.0> : tensor<4x4x2xf32>
  %ad = tensor.cast %a : tensor<3x2x5xf32> to tensor<?x?x?xf32>
  %bd = tensor.cast %b : tensor<4x4x2xf32> to tensor<?x?x?xf32>
  %r = call @mm(%ad, %bd) : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return
}

func.func @contraction_mismatch() {
  %a = arith.constant dense<1.0> : tensor<5x2x3xf32>
  %b = arith.constant dense<1.0> : tensor<4xf32>
  %ad = tensor.cast %a : tensor<5x2x3xf32> to tensor<?x?x?xf32>
  %bd = tensor.cast %b : tensor<4xf32> to tensor<?xf32>
  %r = call @mv(%ad, %bd) : (tensor<?x?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return
}

func.func @result_mismatch() {
  %a = arith.constant dense<1.0> : tensor<2x4xf32>
  %b = arith.constant dense<1.0> : tensor<4x5xf32>
  %ad = tensor.cast %a : tensor<2x4xf32> to tensor<?x4xf32>
  %r = bcast.matmul %ad, %b : (tensor<?x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %m = bufferization.to_buffer %r : tensor<3x5xf32> to memref<3x5xf32>
  %u = memref.cast %m : memref<3x5xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

// lhs [1, 1, 2] (`?` batch size 1 at run time) with rhs [2, 2, 1]: the
// row [1, 2] times the columns [1, 1] and [3, 2].
func.func @runtime_one() {
  %a = arith.constant dense<[[[1.0, 2.0]]]> : tensor<1x1x2xf32>
  %b = arith.constant dense<[[[1.0], [1.0]], [[3.0], [2.0]]]> : tensor<2x2x1xf32>
  %ad = tensor.cast %a : tensor<1x1x2xf32> to tensor<?x?x?xf32>
  %bd = tensor.cast %b : tensor<2x2x1xf32> to tensor<?x?x?xf32>
  %r = call @mm(%ad, %bd) : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %m = bufferization.to_buffer %r : tensor<?x?x?xf32> to memref<?x?x?xf32>
  %u = memref.cast %m : memref<?x?x?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @report() {
  %a = arith.constant dense<1.0> : tensor<1x2x3xf32>
  %b = arith.constant dense<1.0> : tensor<1x4x2xf32>
  %ad = tensor.cast %a : tensor<1x2x3xf32> to tensor<?x?x?xf32>
  %bd = tensor.cast %b : tensor<1x4x2xf32> to tensor<?x?x?xf32>
  %r = call @mm(%ad, %bd) : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  vector.print str "returned to the caller\n"
  return
}
