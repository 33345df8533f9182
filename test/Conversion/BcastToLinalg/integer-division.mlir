// Integer division never traps and raises PyTorch's ZeroDivisionError: a
// reduction over the divisor finds a zero before the generic (a result with
// no elements raises nothing; a constant divisor without zeros needs no
// check), and the body divides by 1 where the divisor is 0 or -1, negating
// for -1 so that INT_MIN // -1 wraps. check-division=false (the NVVM
// pipeline's choice: PyTorch's CUDA kernels do not check) keeps the body and
// drops the check.
// RUN: bcast-opt %s --convert-bcast-to-linalg -mlir-print-local-scope | FileCheck %s
// RUN: bcast-opt %s --convert-bcast-to-linalg=check-division=false | FileCheck %s --check-prefix=NOCHECK

// CHECK-LABEL: func @div_floor_checks_divisor
// CHECK-SAME: (%[[A:.*]]: tensor<4x3xi32>, %[[B:.*]]: tensor<3xi32>)
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[FALSE]] : i1)
// CHECK: %[[ANY:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%[[B]] : tensor<3xi32>) outs(%[[INIT]] : tensor<i1>)
// CHECK: ^bb0(%[[X:.*]]: i32, %[[ACC:.*]]: i1):
// CHECK: %[[Z:.*]] = arith.cmpi eq, %[[X]], %{{.*}} : i32
// CHECK: %[[OR:.*]] = arith.ori %[[ACC]], %[[Z]] : i1
// CHECK: linalg.yield %[[OR]] : i1
// CHECK: %[[FOUND:.*]] = tensor.extract %[[ANY]][] : tensor<i1>
// CHECK: bcast.runtime_check %[[FOUND]], "ZeroDivisionError"
// CHECK: linalg.generic
// CHECK: ^bb0(%[[N:.*]]: i32, %[[D:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[ZERO:.*]] = arith.cmpi eq, %[[D]], %{{.*}} : i32
// CHECK: %[[MINUS1:.*]] = arith.cmpi eq, %[[D]], %{{.*}} : i32
// CHECK: %[[UNSAFE:.*]] = arith.ori %[[ZERO]], %[[MINUS1]] : i1
// CHECK: %[[SAFE:.*]] = arith.select %[[UNSAFE]], %{{.*}}, %[[D]] : i32
// CHECK: %[[Q:.*]] = arith.floordivsi %[[N]], %[[SAFE]] : i32
// CHECK: %[[NEG:.*]] = arith.subi %{{.*}}, %[[N]] : i32
// CHECK: %[[R:.*]] = arith.select %[[MINUS1]], %[[NEG]], %[[Q]] : i32
// CHECK: linalg.yield %[[R]] : i32
// NOCHECK-LABEL: func @div_floor_checks_divisor
// NOCHECK-NOT: runtime_check
// NOCHECK: arith.floordivsi
func.func @div_floor_checks_divisor(%a: tensor<4x3xi32>, %b: tensor<3xi32>) -> tensor<4x3xi32> {
  %r = bcast.div %a, %b {rounding_mode = "floor"} : (tensor<4x3xi32>, tensor<3xi32>) -> tensor<4x3xi32>
  return %r : tensor<4x3xi32>
}

// CHECK-LABEL: func @constant_divisor_needs_no_check
// CHECK-NOT: runtime_check
// CHECK: arith.remsi
func.func @constant_divisor_needs_no_check(%a: tensor<4xi8>) -> tensor<4xi8> {
  %b = arith.constant dense<[1, -1, 3, 127]> : tensor<4xi8>
  %r = bcast.remainder %a, %b : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// A constant divisor with a zero is checked like any other.
// CHECK-LABEL: func @constant_zero_divisor
// CHECK: bcast.runtime_check %{{.*}}, "ZeroDivisionError"
func.func @constant_zero_divisor(%a: tensor<4xi8>) -> tensor<4xi8> {
  %b = arith.constant dense<[1, 0, 3, 127]> : tensor<4xi8>
  %r = bcast.fmod %a, %b : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// A divisor wider than the type the op divides in is truncated to it first,
// as the division converts it: an i16 256 divides a ui8 tensor as 0.
// CHECK-LABEL: func @wide_divisor_truncated
// CHECK: ^bb0(%[[X:.*]]: i16, %[[ACC:.*]]: i1):
// CHECK: %[[T:.*]] = arith.trunci %[[X]] : i16 to i8
// CHECK: arith.cmpi eq, %[[T]], %{{.*}} : i8
// CHECK: bcast.runtime_check %{{.*}}, "ZeroDivisionError"
func.func @wide_divisor_truncated(%a: tensor<4xui8>, %b: tensor<i16>) -> tensor<4xui8> {
  %r = bcast.remainder %a, %b : (tensor<4xui8>, tensor<i16>) -> tensor<4xui8>
  return %r : tensor<4xui8>
}

// A constant divisor without a zero of its own, but with one in the op's
// type, is checked; one with none in either is not.
// CHECK-LABEL: func @constant_divisor_zero_when_converted
// CHECK: bcast.runtime_check %{{.*}}, "ZeroDivisionError"
func.func @constant_divisor_zero_when_converted(%a: tensor<4xi8>) -> tensor<4xi8> {
  %b = arith.constant dense<256> : tensor<i32>
  %r = bcast.div %a, %b {rounding_mode = "trunc"} : (tensor<4xi8>, tensor<i32>) -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// CHECK-LABEL: func @constant_wide_divisor_needs_no_check
// CHECK-NOT: runtime_check
// CHECK: return
func.func @constant_wide_divisor_needs_no_check(%a: tensor<4xi8>) -> tensor<4xi8> {
  %b = arith.constant dense<257> : tensor<i32>
  %r = bcast.remainder %a, %b : (tensor<4xi8>, tensor<i32>) -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// The check fails only where the result has elements.
// CHECK-LABEL: func @dynamic_result_checks_emptiness
// CHECK: %[[DIM:.*]] = tensor.dim
// CHECK: %[[NONEMPTY:.*]] = arith.cmpi ne, %[[DIM]], %{{.*}} : index
// CHECK: %[[FOUND:.*]] = tensor.extract
// CHECK: %[[FAILED:.*]] = arith.andi %[[FOUND]], %[[NONEMPTY]] : i1
// CHECK: bcast.runtime_check %[[FAILED]], "ZeroDivisionError"
func.func @dynamic_result_checks_emptiness(%a: tensor<?xi16>, %b: tensor<i16>) -> tensor<?xi16> {
  %r = bcast.fmod %a, %b : (tensor<?xi16>, tensor<i16>) -> tensor<?xi16>
  return %r : tensor<?xi16>
}

// CHECK-LABEL: func @empty_result_needs_no_check
// CHECK-NOT: runtime_check
// CHECK: return
func.func @empty_result_needs_no_check(%a: tensor<0x3xi16>, %b: tensor<3xi16>) -> tensor<0x3xi16> {
  %r = bcast.div %a, %b {rounding_mode = "trunc"} : (tensor<0x3xi16>, tensor<3xi16>) -> tensor<0x3xi16>
  return %r : tensor<0x3xi16>
}

// Floats divide by zero as IEEE says: no check.
// CHECK-LABEL: func @float_division_has_no_check
// CHECK-NOT: runtime_check
// CHECK: return
func.func @float_division_has_no_check(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = bcast.div %a, %b {rounding_mode = "trunc"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// Integers promoted to a float compute type (true division) are not checked.
// CHECK-LABEL: func @true_division_of_integers_has_no_check
// CHECK-NOT: runtime_check
// CHECK: return
func.func @true_division_of_integers_has_no_check(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xf32> {
  %r = bcast.div %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
