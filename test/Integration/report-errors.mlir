// report-errors=true: a failed run-time check calls the embedder's
// bcastReportError and the kernel returns to its caller, which goes on.
// RUN: %host_cc -shared -fPIC %S/Inputs/report_error.c -o %t.so
// RUN: bcast-opt %s --bcast-to-llvm=report-errors=true | mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs,%t.so | FileCheck %s

// CHECK: reported: The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1
// CHECK-NEXT: returned to the caller
// A good call afterwards still works:
// CHECK: [11,   22,   33]

func.func private @printMemrefF32(memref<*xf32>)

func.func @add(%a: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %r = bcast.add %a, %b : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @main() {
  %a = arith.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>
  %ad = tensor.cast %a : tensor<1x3xf32> to tensor<?x?xf32>
  %bad = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %badd = tensor.cast %bad : tensor<2xf32> to tensor<?xf32>
  %0 = call @add(%ad, %badd) : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  vector.print str "returned to the caller\n"
  %good = arith.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %goodd = tensor.cast %good : tensor<3xf32> to tensor<?xf32>
  %1 = call @add(%ad, %goodd) : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %m = bufferization.to_buffer %1 : tensor<?x?xf32> to memref<?x?xf32>
  %u = memref.cast %m : memref<?x?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
