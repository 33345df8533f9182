// A producer kept for its other uses (returned, read by a reduction) and
// read by its consumer through two operands (`atan2(x, x)`): the fusion that
// keeps the producer's result skips it (differential fuzzer seed 1070 freed
// the producer twice). Found by fuzz/differential.py --seed 1000.
// RUN: bcast-opt %s --bcast-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @kept_producer_read_twice
// CHECK: linalg.generic
// CHECK: math.atan2
// CHECK: return
func.func @kept_producer_read_twice(%x: tensor<1xf16>) -> (tensor<1xi1>, tensor<1xf32>, tensor<1xi1>) {
  %f = bcast.isfinite %x : (tensor<1xf16>) -> tensor<1xi1>
  %a = bcast.atan2 %f, %f : (tensor<1xi1>, tensor<1xi1>) -> tensor<1xf32>
  %y = bcast.any %f {dims = array<i64: 0>, keepdim = true} : (tensor<1xi1>) -> tensor<1xi1>
  return %f, %a, %y : tensor<1xi1>, tensor<1xf32>, tensor<1xi1>
}
