// Folding and canonicalization of bcast ops.
// RUN: bcast-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func @fold_add_broadcast
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}[1.100000e+01, 2.200000e+01], [1.300000e+01, 2.400000e+01]]> : tensor<2x2xf32>
// CHECK-NEXT: return %[[C]]
func.func @fold_add_broadcast() -> tensor<2x2xf32> {
  %a = arith.constant dense<[[1.0], [3.0]]> : tensor<2x1xf32>
  %b = arith.constant dense<[10.0, 21.0]> : tensor<2xf32>
  %r = bcast.add %a, %b : (tensor<2x1xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

// Floor division and remainder follow Python/PyTorch signs.
// CHECK-LABEL: func @fold_int_floor_div_remainder
// CHECK-DAG: arith.constant dense<[-4, 3, -4, 3]> : tensor<4xi32>
// CHECK-DAG: arith.constant dense<[-3, 3, -3, 3]> : tensor<4xi32>
// CHECK-DAG: arith.constant dense<[1, 1, -1, -1]> : tensor<4xi32>
func.func @fold_int_floor_div_remainder() -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %a = arith.constant dense<[-7, 7, 7, -7]> : tensor<4xi32>
  %b = arith.constant dense<[2, 2, -2, -2]> : tensor<4xi32>
  %f = bcast.div %a, %b {rounding_mode = "floor"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %t = bcast.div %a, %b {rounding_mode = "trunc"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %r = bcast.remainder %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %f, %t, %r : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// -----

// fmod takes the sign of the dividend (C's fmod, PyTorch's torch.fmod), unlike
// remainder; INT_MIN fmod -1 is 0 (PyTorch's value), integer fmod by zero is
// left unfolded for the run-time ZeroDivisionError.
// CHECK-LABEL: func @fold_fmod
// CHECK-DAG: arith.constant dense<[-1, 1, 1, -1]> : tensor<4xi32>
// CHECK-DAG: arith.constant dense<[-1.500000e+00, 1.500000e+00, 0x7FC00000, -0.000000e+00]> : tensor<4xf32>
// CHECK-DAG: arith.constant dense<[-5.000000e-01, 5.000000e-01]> : tensor<2xf16>
// CHECK-DAG: arith.constant dense<0> : tensor<i8>
// CHECK: bcast.fmod
// CHECK-NOT: bcast.fmod
func.func @fold_fmod() -> (tensor<4xi32>, tensor<4xf32>, tensor<2xf16>, tensor<4xi32>, tensor<i8>) {
  %a = arith.constant dense<[-7, 7, 7, -7]> : tensor<4xi32>
  %b = arith.constant dense<[2, 2, -2, -2]> : tensor<4xi32>
  %i = bcast.fmod %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %x = arith.constant dense<[-7.5, 7.5, 1.0, -4.0]> : tensor<4xf32>
  %y = arith.constant dense<[2.0, -2.0, 0.0, 2.0]> : tensor<4xf32>
  %f = bcast.fmod %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %h = arith.constant dense<[-2.5, 2.5]> : tensor<2xf16>
  %k = arith.constant dense<1.0> : tensor<f16>
  %g = bcast.fmod %h, %k : (tensor<2xf16>, tensor<f16>) -> tensor<2xf16>
  %z = arith.constant dense<0> : tensor<i32>
  %u = bcast.fmod %a, %z : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
  %min = arith.constant dense<-128> : tensor<i8>
  %m1 = arith.constant dense<-1> : tensor<i8>
  %v = bcast.fmod %min, %m1 : (tensor<i8>, tensor<i8>) -> tensor<i8>
  return %i, %f, %g, %u, %v : tensor<4xi32>, tensor<4xf32>, tensor<2xf16>, tensor<4xi32>, tensor<i8>
}

// -----

// 0 ** -1 is 0 and (-1) ** -3 is -1 for integers, as in PyTorch.
// CHECK-LABEL: func @fold_int_pow
// CHECK: arith.constant dense<[1024, 0, -1, 1, 1, 0]> : tensor<6xi32>
func.func @fold_int_pow() -> tensor<6xi32> {
  %a = arith.constant dense<[2, 0, -1, 1, 5, 2]> : tensor<6xi32>
  %b = arith.constant dense<[10, -1, -3, -7, 0, -1]> : tensor<6xi32>
  %r = bcast.pow %a, %b : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
  return %r : tensor<6xi32>
}

// -----

// CHECK-LABEL: func @fold_float_floor_div_remainder
// CHECK-DAG: arith.constant dense<[-4.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK-DAG: arith.constant dense<[1.000000e+00, -1.000000e+00]> : tensor<2xf32>
func.func @fold_float_floor_div_remainder() -> (tensor<2xf32>, tensor<2xf32>) {
  %a = arith.constant dense<[-7.0, -7.0]> : tensor<2xf32>
  %b = arith.constant dense<[2.0, -2.0]> : tensor<2xf32>
  %f = bcast.div %a, %b {rounding_mode = "floor"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %r = bcast.remainder %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %f, %r : tensor<2xf32>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func @fold_compare_and_where
// CHECK-DAG: arith.constant dense<[true, false, false]> : tensor<3xi1>
// CHECK-DAG: arith.constant dense<[1.000000e+00, 5.000000e+00, 5.000000e+00]> : tensor<3xf32>
func.func @fold_compare_and_where() -> (tensor<3xi1>, tensor<3xf32>) {
  %a = arith.constant dense<[1.0, 2.0, 0x7FC00000]> : tensor<3xf32>
  %b = arith.constant dense<2.0> : tensor<f32>
  %c = bcast.lt %a, %b : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  %five = arith.constant dense<5.0> : tensor<f32>
  %w = bcast.where %c, %a, %five : (tensor<3xi1>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %c, %w : tensor<3xi1>, tensor<3xf32>
}

// -----

// maximum propagates NaN; i1 add is logical or.
// CHECK-LABEL: func @fold_nan_and_bool
// CHECK-DAG: arith.constant dense<[0x7FC00000, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: arith.constant dense<[false, true, true, true]> : tensor<4xi1>
func.func @fold_nan_and_bool() -> (tensor<2xf32>, tensor<4xi1>) {
  %a = arith.constant dense<[0x7FC00000, 1.0]> : tensor<2xf32>
  %b = arith.constant dense<2.0> : tensor<f32>
  %m = bcast.maximum %a, %b : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %p = arith.constant dense<[false, true, false, true]> : tensor<4xi1>
  %q = arith.constant dense<[false, false, true, true]> : tensor<4xi1>
  %s = bcast.add %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %m, %s : tensor<2xf32>, tensor<4xi1>
}

// -----

// Division by zero is never evaluated (the run-time check raises PyTorch's
// ZeroDivisionError); INT_MIN // -1 wraps to INT_MIN and INT_MIN % -1 is 0,
// PyTorch's values.
// CHECK-LABEL: func @no_fold_undefined_division
// CHECK-DAG: arith.constant dense<-128> : tensor<i8>
// CHECK-DAG: arith.constant dense<0> : tensor<i8>
// CHECK: bcast.div
// CHECK-NOT: bcast.div
// CHECK: bcast.remainder
// CHECK-NOT: bcast.remainder
func.func @no_fold_undefined_division() -> (tensor<2xi32>, tensor<i8>, tensor<2xi32>, tensor<i8>) {
  %a = arith.constant dense<[1, 2]> : tensor<2xi32>
  %z = arith.constant dense<0> : tensor<i32>
  %d = bcast.div %a, %z {rounding_mode = "trunc"} : (tensor<2xi32>, tensor<i32>) -> tensor<2xi32>
  %min = arith.constant dense<-128> : tensor<i8>
  %m1 = arith.constant dense<-1> : tensor<i8>
  %o = bcast.div %min, %m1 {rounding_mode = "floor"} : (tensor<i8>, tensor<i8>) -> tensor<i8>
  %r = bcast.remainder %a, %z : (tensor<2xi32>, tensor<i32>) -> tensor<2xi32>
  %s = bcast.remainder %min, %m1 : (tensor<i8>, tensor<i8>) -> tensor<i8>
  return %d, %o, %r, %s : tensor<2xi32>, tensor<i8>, tensor<2xi32>, tensor<i8>
}

// -----

// Results of more than 1024 elements stay unfolded.
// CHECK-LABEL: func @no_fold_large
// CHECK: bcast.add
func.func @no_fold_large() -> tensor<1025xf32> {
  %a = arith.constant dense<1.0> : tensor<1025xf32>
  %b = arith.constant dense<2.0> : tensor<f32>
  %r = bcast.add %a, %b : (tensor<1025xf32>, tensor<f32>) -> tensor<1025xf32>
  return %r : tensor<1025xf32>
}

// -----

// CHECK-LABEL: func @fold_at_bound
// CHECK-NOT: bcast.add
// CHECK: arith.constant dense<3.000000e+00> : tensor<1024xf32>
func.func @fold_at_bound() -> tensor<1024xf32> {
  %a = arith.constant dense<1.0> : tensor<1024xf32>
  %b = arith.constant dense<2.0> : tensor<f32>
  %r = bcast.add %a, %b : (tensor<1024xf32>, tensor<f32>) -> tensor<1024xf32>
  return %r : tensor<1024xf32>
}

// -----

// In-place ops are value-semantic and fold like the others.
// CHECK-LABEL: func @fold_in_place
// CHECK: arith.constant dense<[3, 4]> : tensor<2xi64>
func.func @fold_in_place() -> tensor<2xi64> {
  %a = arith.constant dense<[1, 2]> : tensor<2xi64>
  %b = arith.constant dense<2> : tensor<i64>
  %r = bcast.add_ %a, %b : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}

// -----

// CHECK-LABEL: func @broadcast_to_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<3x?xf32>)
// CHECK-NEXT: return %[[X]]
func.func @broadcast_to_same_type(%x: tensor<3x?xf32>) -> tensor<3x?xf32> {
  %r = bcast.broadcast_to %x : tensor<3x?xf32> -> tensor<3x?xf32>
  return %r : tensor<3x?xf32>
}

// -----

// CHECK-LABEL: func @broadcast_to_constant
// CHECK-DAG: arith.constant dense<7> : tensor<4x3xi32>
// CHECK-DAG: arith.constant dense<{{\[}}[1, 2], [1, 2]]> : tensor<2x2xi32>
func.func @broadcast_to_constant() -> (tensor<4x3xi32>, tensor<2x2xi32>) {
  %s = arith.constant dense<7> : tensor<1xi32>
  %r = bcast.broadcast_to %s : tensor<1xi32> -> tensor<4x3xi32>
  %v = arith.constant dense<[1, 2]> : tensor<2xi32>
  %w = bcast.broadcast_to %v : tensor<2xi32> -> tensor<2x2xi32>
  return %r, %w : tensor<4x3xi32>, tensor<2x2xi32>
}

// -----

// A `?` in the result that the broadcast rule fixes is refined, with a cast
// back for the users.
// CHECK-LABEL: func @refine_result
// CHECK: %[[R:.*]] = bcast.add %{{.*}}, %{{.*}} : (tensor<?x3xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
// CHECK: %[[C:.*]] = tensor.cast %[[R]] : tensor<4x3xf32> to tensor<?x?xf32>
// CHECK: return %[[C]]
func.func @refine_result(%a: tensor<?x3xf32>, %b: tensor<4x1xf32>) -> tensor<?x?xf32> {
  %r = bcast.add %a, %b : (tensor<?x3xf32>, tensor<4x1xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Dimensions that stay dynamic are not touched.
// CHECK-LABEL: func @refine_nothing
// CHECK: bcast.mul %{{.*}}, %{{.*}} : (tensor<?x1xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
// CHECK-NOT: tensor.cast
func.func @refine_nothing(%a: tensor<?x1xf32>, %b: tensor<1x?xf32>) -> tensor<?x?xf32> {
  %r = bcast.mul %a, %b : (tensor<?x1xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// Mixed element types fold in the promoted type: i32 + f64 is computed in
// f64; f32.add_(f64) in f64 and stored as f32; true division of integers in
// f32.
// CHECK-LABEL: func @fold_promotion
// CHECK-DAG: arith.constant dense<[1.500000e+00, 2.500000e+00]> : tensor<2xf64>
// CHECK-DAG: arith.constant dense<[1.000000e+00, 0x7F800000]> : tensor<2xf32>
// CHECK-DAG: arith.constant dense<[3.500000e+00, -2.500000e+00]> : tensor<2xf32>
func.func @fold_promotion() -> (tensor<2xf64>, tensor<2xf32>, tensor<2xf32>) {
  %i = arith.constant dense<[1, 2]> : tensor<2xi32>
  %h = arith.constant dense<0.5> : tensor<f64>
  %a = bcast.add %i, %h : (tensor<2xi32>, tensor<f64>) -> tensor<2xf64>
  %f = arith.constant dense<[1.0, 3.0e38]> : tensor<2xf32>
  %g = arith.constant dense<[1.0e-300, 3.0e38]> : tensor<2xf64>
  %b = bcast.add_ %f, %g : (tensor<2xf32>, tensor<2xf64>) -> tensor<2xf32>
  %n = arith.constant dense<[7, -5]> : tensor<2xi32>
  %m = arith.constant dense<2> : tensor<i8>
  %c = bcast.div %n, %m : (tensor<2xi32>, tensor<i8>) -> tensor<2xf32>
  return %a, %b, %c : tensor<2xf64>, tensor<2xf32>, tensor<2xf32>
}

// -----

// Casts fold on constants with PyTorch's CPU conversions, NaN to an integer
// included (INT_MIN of the i32 or i64 it goes through).
// CHECK-LABEL: func @fold_cast
// CHECK-DAG: arith.constant dense<[44, -1, 127, -128]> : tensor<4xi8>
// CHECK-DAG: arith.constant dense<[true, true, false, true]> : tensor<4xi1>
// CHECK-DAG: arith.constant dense<[-2, 2, 0, 300]> : tensor<4xi32>
// CHECK-DAG: arith.constant dense<[-2147483648, 1]> : tensor<2xi32>
// CHECK-NOT: bcast.cast
func.func @fold_cast() -> (tensor<4xi8>, tensor<4xi1>, tensor<4xi32>, tensor<2xi32>, tensor<4xf32>) {
  %w = arith.constant dense<[300, -1, 127, 128]> : tensor<4xi32>
  %n = bcast.cast %w : (tensor<4xi32>) -> tensor<4xi8>
  %x = arith.constant dense<[-2.7, 0x7FC00000, 0.0, 300.5]> : tensor<4xf32>
  %b = bcast.cast %x : (tensor<4xf32>) -> tensor<4xi1>
  %y = arith.constant dense<[-2.7, 2.7, -0.0, 300.5]> : tensor<4xf32>
  %t = bcast.cast %y : (tensor<4xf32>) -> tensor<4xi32>
  %nan = arith.constant dense<[0x7FC00000, 1.0]> : tensor<2xf32>
  %u = bcast.cast %nan : (tensor<2xf32>) -> tensor<2xi32>
  %same = bcast.cast %y : (tensor<4xf32>) -> tensor<4xf32>
  return %n, %b, %t, %u, %same : tensor<4xi8>, tensor<4xi1>, tensor<4xi32>, tensor<2xi32>, tensor<4xf32>
}

// -----

// specify_shape that refines nothing folds to its input.
// CHECK-LABEL: func @specify_shape_nothing_refined
// CHECK-NOT: bcast.specify_shape
// CHECK: return %arg0
func.func @specify_shape_nothing_refined(%y: tensor<?x1xf32>) -> tensor<?x1xf32> {
  %r = bcast.specify_shape %y : (tensor<?x1xf32>) -> tensor<?x1xf32>
  return %r : tensor<?x1xf32>
}

// -----

// A refined `?` keeps its check: it never becomes a tensor.cast, whose wrong
// size would be undefined behaviour.
// CHECK-LABEL: func @specify_shape_keeps_check
// CHECK: %[[R:.*]] = bcast.specify_shape %arg0 : (tensor<?x?xf32>) -> tensor<?x1xf32>
// CHECK-NOT: tensor.cast
// CHECK: return %[[R]]
func.func @specify_shape_keeps_check(%y: tensor<?x?xf32>) -> tensor<?x1xf32> {
  %r = bcast.specify_shape %y : (tensor<?x?xf32>) -> tensor<?x1xf32>
  return %r : tensor<?x1xf32>
}

// -----

// The input is a cast that only made sizes dynamic: its source has the
// refined size statically, so nothing is left to check.
// CHECK-LABEL: func @specify_shape_of_cast_known
// CHECK-NOT: bcast.specify_shape
// CHECK: %[[C:.*]] = tensor.cast %arg0 : tensor<3x1xf32> to tensor<?x1xf32>
// CHECK: return %[[C]]
func.func @specify_shape_of_cast_known(%s: tensor<3x1xf32>) -> tensor<?x1xf32> {
  %d = tensor.cast %s : tensor<3x1xf32> to tensor<?x?xf32>
  %r = bcast.specify_shape %d : (tensor<?x?xf32>) -> tensor<?x1xf32>
  return %r : tensor<?x1xf32>
}

// -----

// Only the sizes the cast's source does not know are still checked.
// CHECK-LABEL: func @specify_shape_of_cast_partly_known
// CHECK: %[[S:.*]] = bcast.specify_shape %arg0 : (tensor<?x?x5xf32>) -> tensor<?x1x5xf32>
// CHECK: %[[C:.*]] = tensor.cast %[[S]] : tensor<?x1x5xf32> to tensor<?x1x?xf32>
// CHECK: return %[[C]]
func.func @specify_shape_of_cast_partly_known(%s: tensor<?x?x5xf32>) -> tensor<?x1x?xf32> {
  %d = tensor.cast %s : tensor<?x?x5xf32> to tensor<?x?x?xf32>
  %r = bcast.specify_shape %d : (tensor<?x?x?xf32>) -> tensor<?x1x?xf32>
  return %r : tensor<?x1x?xf32>
}

// -----

// A source size that contradicts the refined one: the check fails on every
// run, and stays to say so.
// CHECK-LABEL: func @specify_shape_of_cast_contradicted
// CHECK: %[[D:.*]] = tensor.cast %arg0 : tensor<3x3xf32> to tensor<?x?xf32>
// CHECK: bcast.specify_shape %[[D]] : (tensor<?x?xf32>) -> tensor<?x1xf32>
func.func @specify_shape_of_cast_contradicted(%s: tensor<3x3xf32>) -> tensor<?x1xf32> {
  %d = tensor.cast %s : tensor<3x3xf32> to tensor<?x?xf32>
  %r = bcast.specify_shape %d : (tensor<?x?xf32>) -> tensor<?x1xf32>
  return %r : tensor<?x1xf32>
}

// -----

// The input comes from an op whose result sizes the broadcast rule fixes:
// the result type is refined with a cast back (above), and the check on
// that cast's source folds away.
// CHECK-LABEL: func @specify_shape_of_refined_result
// CHECK: %[[A:.*]] = bcast.add %arg0, %arg1 : (tensor<?x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
// CHECK-NOT: bcast.specify_shape
// CHECK: %[[C:.*]] = tensor.cast %[[A]] : tensor<4x1xf32> to tensor<?x1xf32>
// CHECK: return %[[C]]
func.func @specify_shape_of_refined_result(%a: tensor<?x1xf32>, %b: tensor<4x1xf32>) -> tensor<?x1xf32> {
  %s = bcast.add %a, %b : (tensor<?x1xf32>, tensor<4x1xf32>) -> tensor<?x?xf32>
  %r = bcast.specify_shape %s : (tensor<?x?xf32>) -> tensor<?x1xf32>
  return %r : tensor<?x1xf32>
}

// -----

// Unsigned integers wrap as signless ones in add, sub and mul: ui8 255 + 1 is
// 0 and 0 - 1 is 255.
// CHECK-LABEL: func @fold_unsigned_wrap
// CHECK-DAG: arith.constant dense<[0, 1, 32]> : tensor<3xui8>
// CHECK-DAG: arith.constant dense<[254, 255, 0]> : tensor<3xui8>
// CHECK-DAG: arith.constant dense<[1, 0, 0]> : tensor<3xui8>
func.func @fold_unsigned_wrap() -> (tensor<3xui8>, tensor<3xui8>, tensor<3xui8>) {
  %a = arith.constant dense<[255, 0, 16]> : tensor<3xui8>
  %b = arith.constant dense<[1, 1, 16]> : tensor<3xui8>
  %add = bcast.add %a, %b : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  %sub = bcast.sub %a, %b : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  %mul = bcast.mul %a, %a : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  return %add, %sub, %mul : tensor<3xui8>, tensor<3xui8>, tensor<3xui8>
}

// -----

// ui32 above 2^31 divides, takes remainders and orders as unsigned: both
// rounding modes are unsigned division, and 128 / 255 on ui8 (INT_MIN / -1
// were it signed) is defined and folds.
// CHECK-LABEL: func @fold_unsigned_division
// CHECK-DAG: arith.constant dense<[2147483647, 1431655765, 0]> : tensor<3xui32>
// CHECK-DAG: arith.constant dense<[1, 0, 7]> : tensor<3xui32>
// CHECK-DAG: arith.constant dense<0> : tensor<ui8>
// CHECK-DAG: arith.constant dense<128> : tensor<ui8>
// CHECK-NOT: bcast.
func.func @fold_unsigned_division() -> (tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<ui8>, tensor<ui8>) {
  %a = arith.constant dense<[4294967295, 4294967295, 7]> : tensor<3xui32>
  %b = arith.constant dense<[2, 3, 4000000000]> : tensor<3xui32>
  %floor = bcast.div %a, %b {rounding_mode = "floor"} : (tensor<3xui32>, tensor<3xui32>) -> tensor<3xui32>
  %trunc = bcast.div %a, %b {rounding_mode = "trunc"} : (tensor<3xui32>, tensor<3xui32>) -> tensor<3xui32>
  %rem = bcast.remainder %a, %b : (tensor<3xui32>, tensor<3xui32>) -> tensor<3xui32>
  %fmod = bcast.fmod %a, %b : (tensor<3xui32>, tensor<3xui32>) -> tensor<3xui32>
  %min = arith.constant dense<128> : tensor<ui8>
  %max = arith.constant dense<255> : tensor<ui8>
  %q = bcast.div %min, %max {rounding_mode = "trunc"} : (tensor<ui8>, tensor<ui8>) -> tensor<ui8>
  %r = bcast.remainder %min, %max : (tensor<ui8>, tensor<ui8>) -> tensor<ui8>
  return %floor, %trunc, %rem, %fmod, %q, %r : tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>, tensor<ui8>, tensor<ui8>
}

// -----

// Unsigned division by zero is undefined at run time: not folded.
// CHECK-LABEL: func @no_fold_unsigned_division_by_zero
// CHECK: bcast.div
// CHECK: bcast.remainder
// CHECK: bcast.fmod
func.func @no_fold_unsigned_division_by_zero() -> (tensor<2xui16>, tensor<2xui16>, tensor<2xui16>) {
  %a = arith.constant dense<[65535, 1]> : tensor<2xui16>
  %b = arith.constant dense<[1, 0]> : tensor<2xui16>
  %q = bcast.div %a, %b {rounding_mode = "floor"} : (tensor<2xui16>, tensor<2xui16>) -> tensor<2xui16>
  %r = bcast.remainder %a, %b : (tensor<2xui16>, tensor<2xui16>) -> tensor<2xui16>
  %f = bcast.fmod %a, %b : (tensor<2xui16>, tensor<2xui16>) -> tensor<2xui16>
  return %q, %r, %f : tensor<2xui16>, tensor<2xui16>, tensor<2xui16>
}

// -----

// ui64 above 2^63 compares, and takes maxima and minima, as unsigned.
// CHECK-LABEL: func @fold_unsigned_order
// CHECK-DAG: arith.constant dense<[18446744073709551615, 9223372036854775809]> : tensor<2xui64>
// CHECK-DAG: arith.constant dense<[1, 9223372036854775808]> : tensor<2xui64>
// CHECK-DAG: arith.constant dense<[false, true]> : tensor<2xi1>
// CHECK-DAG: arith.constant dense<[true, false]> : tensor<2xi1>
// CHECK-DAG: arith.constant dense<true> : tensor<2xi1>
// CHECK-DAG: arith.constant dense<false> : tensor<2xi1>
// CHECK-NOT: bcast.
func.func @fold_unsigned_order() -> (tensor<2xui64>, tensor<2xui64>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>) {
  %a = arith.constant dense<[18446744073709551615, 9223372036854775808]> : tensor<2xui64>
  %b = arith.constant dense<[1, 9223372036854775809]> : tensor<2xui64>
  %max = bcast.maximum %a, %b : (tensor<2xui64>, tensor<2xui64>) -> tensor<2xui64>
  %min = bcast.minimum %a, %b : (tensor<2xui64>, tensor<2xui64>) -> tensor<2xui64>
  %lt = bcast.lt %a, %b : (tensor<2xui64>, tensor<2xui64>) -> tensor<2xi1>
  %gt = bcast.gt %a, %b : (tensor<2xui64>, tensor<2xui64>) -> tensor<2xi1>
  %ne = bcast.ne %a, %b : (tensor<2xui64>, tensor<2xui64>) -> tensor<2xi1>
  %eq = bcast.eq %a, %b : (tensor<2xui64>, tensor<2xui64>) -> tensor<2xi1>
  return %max, %min, %lt, %gt, %ne, %eq : tensor<2xui64>, tensor<2xui64>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>
}

// -----

// ui32 comparisons above 2^31, broadcast against a scalar.
// CHECK-LABEL: func @fold_unsigned_compare_broadcast
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}[false, true, true], [false, false, true]]> : tensor<2x3xi1>
// CHECK: return %[[C]]
func.func @fold_unsigned_compare_broadcast() -> tensor<2x3xi1> {
  %a = arith.constant dense<[1, 2147483648, 4294967295]> : tensor<3xui32>
  %b = arith.constant dense<[[1], [2147483648]]> : tensor<2x1xui32>
  %r = bcast.gt %a, %b : (tensor<3xui32>, tensor<2x1xui32>) -> tensor<2x3xi1>
  return %r : tensor<2x3xi1>
}

// -----

// Unsigned powers wrap; the exponent is unsigned (never negative).
// CHECK-LABEL: func @fold_unsigned_pow
// CHECK: arith.constant dense<[0, 1, 171]> : tensor<3xui8>
func.func @fold_unsigned_pow() -> tensor<3xui8> {
  %a = arith.constant dense<[2, 255, 3]> : tensor<3xui8>
  %b = arith.constant dense<[9, 254, 255]> : tensor<3xui8>
  %r = bcast.pow %a, %b : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  return %r : tensor<3xui8>
}

// -----

// Mixed operands: ui8 zero-extends into i16 and converts to f32 as unsigned
// (uitofp), and true division of ui32 is f32 division of the unsigned values.
// CHECK-LABEL: func @fold_unsigned_mixed
// CHECK-DAG: arith.constant dense<[256, -1]> : tensor<2xi16>
// CHECK-DAG: arith.constant dense<[2.555000e+02, 5.000000e-01]> : tensor<2xf32>
// CHECK-DAG: arith.constant dense<[255, 1]> : tensor<2xui8>
// CHECK-DAG: arith.constant dense<[2.14748365E+9, 0.000000e+00]> : tensor<2xf32>
func.func @fold_unsigned_mixed() -> (tensor<2xi16>, tensor<2xf32>, tensor<2xui8>, tensor<2xf32>) {
  %u = arith.constant dense<[255, 0]> : tensor<2xui8>
  %s = arith.constant dense<[1, -1]> : tensor<2xi16>
  %f = arith.constant dense<0.5> : tensor<f32>
  %t = arith.constant dense<[false, true]> : tensor<2xi1>
  %w = arith.constant dense<[4294967295, 0]> : tensor<2xui32>
  %two = arith.constant dense<2> : tensor<ui32>
  %0 = bcast.add %u, %s : (tensor<2xui8>, tensor<2xi16>) -> tensor<2xi16>
  %1 = bcast.add %u, %f : (tensor<2xui8>, tensor<f32>) -> tensor<2xf32>
  %2 = bcast.add %u, %t : (tensor<2xui8>, tensor<2xi1>) -> tensor<2xui8>
  %3 = bcast.div %w, %two : (tensor<2xui32>, tensor<ui32>) -> tensor<2xf32>
  return %0, %1, %2, %3 : tensor<2xi16>, tensor<2xf32>, tensor<2xui8>, tensor<2xf32>
}

// -----

// In place into ui8: computed in the promoted type, stored with wrap-around.
// CHECK-LABEL: func @fold_unsigned_in_place
// CHECK: arith.constant dense<[44, 255]> : tensor<2xui8>
func.func @fold_unsigned_in_place() -> tensor<2xui8> {
  %u = arith.constant dense<[200, 254]> : tensor<2xui8>
  %v = arith.constant dense<[100, 1]> : tensor<2xui8>
  %r = bcast.add_ %u, %v : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  return %r : tensor<2xui8>
}

// -----

// bcast.cast to and from unsigned types: zero extension, uitofp above 2^63,
// floats through i64 (ui64 also exact in [2^63, 2^64)), wrap-around from
// signed: -1.0 is 65535 in ui16, as -1 is.
// CHECK-LABEL: func @fold_unsigned_cast
// CHECK-DAG: arith.constant dense<[255, 0]> : tensor<2xi32>
// CHECK-DAG: arith.constant dense<[1.8446744073709552E+19, 0.000000e+00]> : tensor<2xf64>
// CHECK-DAG: arith.constant dense<[200, 3]> : tensor<2xui8>
// CHECK-DAG: arith.constant dense<[255, 128]> : tensor<2xui8>
// CHECK-DAG: arith.constant dense<[9223372036854777856, 1]> : tensor<2xui64>
// CHECK-DAG: arith.constant dense<[true, false]> : tensor<2xi1>
// CHECK-DAG: arith.constant dense<[65535, 1]> : tensor<2xui16>
// CHECK-NOT: bcast.cast
func.func @fold_unsigned_cast() -> (tensor<2xi32>, tensor<2xf64>, tensor<2xui8>, tensor<2xui8>, tensor<2xui64>, tensor<2xi1>, tensor<2xui16>) {
  %u8 = arith.constant dense<[255, 0]> : tensor<2xui8>
  %u64 = arith.constant dense<[18446744073709551615, 0]> : tensor<2xui64>
  %f = arith.constant dense<[200.75, 3.5]> : tensor<2xf32>
  %s = arith.constant dense<[-1, -128]> : tensor<2xi8>
  %d = arith.constant dense<[9223372036854777856.0, 1.0]> : tensor<2xf64>
  %neg = arith.constant dense<[-1.0, 1.0]> : tensor<2xf32>
  %0 = bcast.cast %u8 : (tensor<2xui8>) -> tensor<2xi32>
  %1 = bcast.cast %u64 : (tensor<2xui64>) -> tensor<2xf64>
  %2 = bcast.cast %f : (tensor<2xf32>) -> tensor<2xui8>
  %3 = bcast.cast %s : (tensor<2xi8>) -> tensor<2xui8>
  %4 = bcast.cast %d : (tensor<2xf64>) -> tensor<2xui64>
  %5 = bcast.cast %u64 : (tensor<2xui64>) -> tensor<2xi1>
  %6 = bcast.cast %neg : (tensor<2xf32>) -> tensor<2xui16>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<2xi32>, tensor<2xf64>, tensor<2xui8>, tensor<2xui8>, tensor<2xui64>, tensor<2xi1>, tensor<2xui16>
}

// -----

// The binary additions and three-operand ops of issue 13 on constants: exact
// ops fold to the run-time value, atan2 and hypot through the C library in
// the compute precision. Values checked against PyTorch 1.13 and NumPy when
// written.

// atan2 folds through the C library in the compute precision, with C's
// signed zeros and quadrants.
// CHECK-LABEL: func @fold_atan2_f32
// CHECK-DAG: arith.constant dense<[0.000000e+00, -0.000000e+00, 3.14159274, -3.14159274, 0.000000e+00, 2.3561945, 0x7FC00000]> : tensor<7xf32>
// CHECK-NOT: bcast.
func.func @fold_atan2_f32() -> tensor<7xf32> {
  %y = arith.constant dense<[0.0, -0.0, 0.0, -0.0, 1.0, 1.0, 0x7FC00000]> : tensor<7xf32>
  %x = arith.constant dense<[0.0, 0.0, -0.0, -0.0, 0x7F800000, -1.0, 1.0]> : tensor<7xf32>
  %r = bcast.atan2 %y, %x : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xf32>
  return %r : tensor<7xf32>
}

// -----

// Integers give f32; f16 is computed in f32 and rounded once.
// CHECK-LABEL: func @fold_atan2_int_half
// CHECK-DAG: arith.constant dense<[0.463647604, -0.982793748]> : tensor<2xf32>
// CHECK-DAG: arith.constant dense<[4.636230e-01, -9.829100e-01]> : tensor<2xf16>
// CHECK-NOT: bcast.
func.func @fold_atan2_int_half() -> (tensor<2xf32>, tensor<2xf16>) {
  %i = arith.constant dense<[1, -3]> : tensor<2xi32>
  %j = arith.constant dense<2> : tensor<i8>
  %r = bcast.atan2 %i, %j : (tensor<2xi32>, tensor<i8>) -> tensor<2xf32>
  %h = arith.constant dense<[1.0, -3.0]> : tensor<2xf16>
  %k = arith.constant dense<2.0> : tensor<f16>
  %s = bcast.atan2 %h, %k : (tensor<2xf16>, tensor<f16>) -> tensor<2xf16>
  return %r, %s : tensor<2xf32>, tensor<2xf16>
}

// -----

// copysign is exact: the sign bit of -0 and of a negative NaN counts;
// integers give f32, bf16 stays.
// CHECK-LABEL: func @fold_copysign
// CHECK-DAG: arith.constant dense<[-1.000000e+00, -2.000000e+00, 3.000000e+00, 0xFFC00000]> : tensor<4xf32>
// CHECK-DAG: arith.constant dense<[-5.000000e+00, 7.000000e+00]> : tensor<2xf32>
// CHECK-DAG: arith.constant dense<[-1.500000e+00, 2.500000e+00]> : tensor<2xbf16>
// CHECK-NOT: bcast.
func.func @fold_copysign() -> (tensor<4xf32>, tensor<2xf32>, tensor<2xbf16>) {
  %a = arith.constant dense<[1.0, 2.0, -3.0, 0x7FC00000]> : tensor<4xf32>
  %b = arith.constant dense<[-0.0, 0xFFC00000, 0.0, -1.0]> : tensor<4xf32>
  %r = bcast.copysign %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %i = arith.constant dense<[5, -7]> : tensor<2xi32>
  %j = arith.constant dense<[-1, 1]> : tensor<2xi64>
  %s = bcast.copysign %i, %j : (tensor<2xi32>, tensor<2xi64>) -> tensor<2xf32>
  %h = arith.constant dense<[1.5, -2.5]> : tensor<2xbf16>
  %t = bcast.copysign %h, %j : (tensor<2xbf16>, tensor<2xi64>) -> tensor<2xbf16>
  return %r, %s, %t : tensor<4xf32>, tensor<2xf32>, tensor<2xbf16>
}

// -----

// hypot: +inf with a NaN beside an infinity; no overflow or underflow.
// CHECK-LABEL: func @fold_hypot
// CHECK-DAG: arith.constant dense<[5.000000e+00, 0x7F800000, 0x7F800000, 1.41421351E+30, 1.41421356E-30]> : tensor<5xf32>
// CHECK-DAG: arith.constant dense<[5.000000e+300, 1.414213562373095E-300, 1.000000e+00, 0.000000e+00]> : tensor<4xf64>
// CHECK-DAG: arith.constant dense<[4.250000e+00, 1.414060e+00]> : tensor<2xbf16>
// CHECK-NOT: bcast.
func.func @fold_hypot() -> (tensor<5xf32>, tensor<4xf64>, tensor<2xbf16>) {
  %a = arith.constant dense<[3.0, 0x7F800000, 0x7FC00000, 1.0e30, 1.0e-30]> : tensor<5xf32>
  %b = arith.constant dense<[4.0, 0x7FC00000, 0xFF800000, 1.0e30, 1.0e-30]> : tensor<5xf32>
  %r = bcast.hypot %a, %b : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  %c = arith.constant dense<[3.0e300, 1.0e-300, 1.0, -0.0]> : tensor<4xf64>
  %d = arith.constant dense<[4.0e300, 1.0e-300, 1.0e-20, 0.0]> : tensor<4xf64>
  %s = bcast.hypot %c, %d : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %h = arith.constant dense<[3.0, 1.0]> : tensor<2xbf16>
  %t = bcast.hypot %h, %h : (tensor<2xbf16>, tensor<2xbf16>) -> tensor<2xbf16>
  return %r, %s, %t : tensor<5xf32>, tensor<4xf64>, tensor<2xbf16>
}

// -----

// Shift amounts outside [0, 8) give 0, or the sign fill to the right
// (NumPy's rule); bools shift as the promoted i32.
// CHECK-LABEL: func @fold_shifts
// CHECK-DAG: arith.constant dense<[0, 0, 0, 0, 12, 0]> : tensor<6xi8>
// CHECK-DAG: arith.constant dense<[0, -1, 0, -1, 0, -64]> : tensor<6xi8>
// CHECK-DAG: arith.constant dense<[-2147483648, 0]> : tensor<2xi32>
// CHECK-NOT: bcast.
func.func @fold_shifts() -> (tensor<6xi8>, tensor<6xi8>, tensor<2xi32>) {
  %x = arith.constant dense<[1, -8, 5, -1, 3, -128]> : tensor<6xi8>
  %n = arith.constant dense<[8, 7, -1, 100, 2, 1]> : tensor<6xi8>
  %l = bcast.bitwise_left_shift %x, %n : (tensor<6xi8>, tensor<6xi8>) -> tensor<6xi8>
  %r = bcast.bitwise_right_shift %x, %n : (tensor<6xi8>, tensor<6xi8>) -> tensor<6xi8>
  %y = arith.constant dense<[-1, 1]> : tensor<2xi1>
  %m = arith.constant dense<[31, 32]> : tensor<2xi32>
  %s = bcast.bitwise_left_shift %y, %m : (tensor<2xi1>, tensor<2xi32>) -> tensor<2xi32>
  return %l, %r, %s : tensor<6xi8>, tensor<6xi8>, tensor<2xi32>
}

// -----

// NaN is nonzero; the in-place twin stores 0 or 1 in f32.
// CHECK-LABEL: func @fold_logical
// CHECK-DAG: arith.constant dense<{{\[}}[false, true], [false, false], [false, false], [false, true]]> : tensor<4x2xi1>
// CHECK-DAG: arith.constant dense<{{\[}}[true, true], [false, true], [false, true], [true, true]]> : tensor<4x2xi1>
// CHECK-DAG: arith.constant dense<{{\[}}[true, false], [false, true], [false, true], [true, false]]> : tensor<4x2xi1>
// CHECK-DAG: arith.constant dense<{{\[}}[1.000000e+00, 1.000000e+00], [0.000000e+00, 1.000000e+00], [1.000000e+00, 0.000000e+00], [1.000000e+00, 1.000000e+00]]> : tensor<4x2xf32>
// CHECK-NOT: bcast.
func.func @fold_logical() -> (tensor<4x2xi1>, tensor<4x2xi1>, tensor<4x2xi1>, tensor<4x2xf32>) {
  %a = arith.constant dense<[[0x7FC00000], [0.0], [-0.0], [2.0]]> : tensor<4x1xf32>
  %b = arith.constant dense<[0, 5]> : tensor<2xi32>
  %0 = bcast.logical_and %a, %b : (tensor<4x1xf32>, tensor<2xi32>) -> tensor<4x2xi1>
  %1 = bcast.logical_or %a, %b : (tensor<4x1xf32>, tensor<2xi32>) -> tensor<4x2xi1>
  %2 = bcast.logical_xor %a, %b : (tensor<4x1xf32>, tensor<2xi32>) -> tensor<4x2xi1>
  %f = arith.constant dense<[[1.5, 0.0], [0.0, 0.0], [-1.0, 3.0], [0x7FC00000, 0.0]]> : tensor<4x2xf32>
  %3 = bcast.logical_xor_ %f, %b : (tensor<4x2xf32>, tensor<2xi32>) -> tensor<4x2xf32>
  return %0, %1, %2, %3 : tensor<4x2xi1>, tensor<4x2xi1>, tensor<4x2xi1>, tensor<4x2xf32>
}

// -----

// NaN in any operand gives NaN; min > max gives max; the in-place twin
// keeps its i64 type.
// CHECK-LABEL: func @fold_clamp
// CHECK-DAG: arith.constant dense<[0x7FC00000, 0x7FC00000, 0x7FC00000, 0.000000e+00, 1.000000e+00, 2.000000e+00]> : tensor<6xf32>
// CHECK-DAG: arith.constant dense<[-2, 0, 5, -10]> : tensor<4xi32>
// CHECK-DAG: arith.constant dense<{{\[}}[0, 0, 9], [2, 2, 3]]> : tensor<2x3xi64>
// CHECK-NOT: bcast.
func.func @fold_clamp() -> (tensor<6xf32>, tensor<4xi32>, tensor<2x3xi64>) {
  %x = arith.constant dense<[0x7FC00000, 1.0, 5.0, -5.0, 0.5, 10.0]> : tensor<6xf32>
  %lo = arith.constant dense<[0.0, 0x7FC00000, 0.0, 0.0, 3.0, 0.0]> : tensor<6xf32>
  %hi = arith.constant dense<[1.0, 1.0, 0x7FC00000, 2.0, 1.0, 2.0]> : tensor<6xf32>
  %r = bcast.clamp %x, %lo, %hi : (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  %i = arith.constant dense<[-7, 0, 7, 100]> : tensor<4xi32>
  %ilo = arith.constant dense<-2> : tensor<i32>
  %ihi = arith.constant dense<[5, 5, 5, -10]> : tensor<4xi32>
  %s = bcast.clamp %i, %ilo, %ihi : (tensor<4xi32>, tensor<i32>, tensor<4xi32>) -> tensor<4xi32>
  %j = arith.constant dense<[[-9, 0, 9], [1, 2, 3]]> : tensor<2x3xi64>
  %jlo = arith.constant dense<[[0], [2]]> : tensor<2x1xi8>
  %jhi = arith.constant dense<[5, 2, 9]> : tensor<3xi16>
  %t = bcast.clamp_ %j, %jlo, %jhi : (tensor<2x3xi64>, tensor<2x1xi8>, tensor<3xi16>) -> tensor<2x3xi64>
  return %r, %s, %t : tensor<6xf32>, tensor<4xi32>, tensor<2x3xi64>
}

// -----

// PyTorch 1.13's two formulas (weight 1 gives end exactly; a weight below
// -0.5 takes the first: 1 + -1.5 * -inf is +inf, not NaN); bf16 is computed
// in f32 and rounded once.
// CHECK-LABEL: func @fold_lerp
// CHECK-DAG: arith.constant dense<[1.250000e+00, 1.750000e+00, 3.000000e+00, 2.800000e-01, 0x7FC00000, 0x7F800000]> : tensor<6xf32>
// CHECK-DAG: arith.constant dense<[1.148440e+00, 5.093750e+00]> : tensor<2xbf16>
// CHECK-NOT: bcast.
func.func @fold_lerp() -> (tensor<6xf32>, tensor<2xbf16>) {
  %a = arith.constant dense<[1.0, 1.0, 1.0, 0.1, 0x7F800000, 1.0]> : tensor<6xf32>
  %b = arith.constant dense<[2.0, 2.0, 3.0, 0.7, 0x7F800000, 0xFF800000]> : tensor<6xf32>
  %w = arith.constant dense<[0.25, 0.75, 1.0, 0.3, 0.5, -1.5]> : tensor<6xf32>
  %r = bcast.lerp %a, %b, %w : (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  %h = arith.constant dense<[1.0, 3.0]> : tensor<2xbf16>
  %k = arith.constant dense<[1.5, 10.0]> : tensor<2xbf16>
  %v = arith.constant dense<0.3> : tensor<bf16>
  %s = bcast.lerp %h, %k, %v : (tensor<2xbf16>, tensor<2xbf16>, tensor<bf16>) -> tensor<2xbf16>
  return %r, %s : tensor<6xf32>, tensor<2xbf16>
}

// -----

// A `scalar_weight` enters the f32 computation of bf16 tensors as 0.4f
// (PyTorch's lerp.Scalar: -0.32421875); the same 0.4 as a bf16 tensor is
// 0.400390625 first (-0.330078125). An i1 weight `true` is 1 (gives `end`).
// CHECK-LABEL: func @fold_lerp_scalar_weight
// CHECK-DAG: arith.constant dense<[-3.242190e-01, 1.398440e+00]> : tensor<2xbf16>
// CHECK-DAG: arith.constant dense<[-3.300780e-01, 1.398440e+00]> : tensor<2xbf16>
// CHECK-DAG: arith.constant dense<-7.375000e+00> : tensor<bf16>
// CHECK-NOT: bcast.
func.func @fold_lerp_scalar_weight() -> (tensor<2xbf16>, tensor<2xbf16>, tensor<bf16>) {
  %a = arith.constant dense<[4.375, 1.0]> : tensor<2xbf16>
  %b = arith.constant dense<[-7.375, 2.0]> : tensor<2xbf16>
  %w = arith.constant dense<0.4> : tensor<f64>
  %r = bcast.lerp %a, %b, %w {scalar_weight} : (tensor<2xbf16>, tensor<2xbf16>, tensor<f64>) -> tensor<2xbf16>
  %v = arith.constant dense<0.4> : tensor<bf16>
  %s = bcast.lerp %a, %b, %v : (tensor<2xbf16>, tensor<2xbf16>, tensor<bf16>) -> tensor<2xbf16>
  %h = arith.constant dense<4.375> : tensor<bf16>
  %k = arith.constant dense<-7.375> : tensor<bf16>
  %one = arith.constant dense<true> : tensor<i1>
  %t = bcast.lerp %h, %k, %one {scalar_weight} : (tensor<bf16>, tensor<bf16>, tensor<i1>) -> tensor<bf16>
  return %r, %s, %t : tensor<2xbf16>, tensor<2xbf16>, tensor<bf16>
}

// -----

// value rounds to f32, or truncates towards zero for integers (2.7 is 2,
// -2.7 is -2); i8 wraps; bf16 is rounded once.
// CHECK-LABEL: func @fold_addcmul
// CHECK-DAG: arith.constant dense<[4.000000e+00, 1.150000e-01, 0x7FC00000]> : tensor<3xf32>
// CHECK-DAG: arith.constant dense<[19, 44, 100]> : tensor<3xi8>
// CHECK-DAG: arith.constant dense<[1.000000e+00, 2.560000e+02]> : tensor<2xbf16>
// CHECK-DAG: arith.constant dense<[-1, -6, -15]> : tensor<3xi32>
// CHECK-NOT: bcast.
func.func @fold_addcmul() -> (tensor<3xf32>, tensor<3xi8>, tensor<2xbf16>, tensor<3xi32>) {
  %a = arith.constant dense<[1.0, 0.1, -2.0]> : tensor<3xf32>
  %b = arith.constant dense<[3.0, 0.1, 0x7F800000]> : tensor<3xf32>
  %c = arith.constant dense<[2.0, 0.3, 0.0]> : tensor<3xf32>
  %r = bcast.addcmul %a, %b, %c {value = 0.5 : f64} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %i = arith.constant dense<[1, 100, -100]> : tensor<3xi8>
  %j = arith.constant dense<[3, 10, 10]> : tensor<3xi8>
  %s = bcast.addcmul %i, %j, %j {value = 2.7 : f64} : (tensor<3xi8>, tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  %h = arith.constant dense<[1.0, 256.0]> : tensor<2xbf16>
  %k = arith.constant dense<[1.0, 1.0]> : tensor<2xbf16>
  %g = arith.constant dense<[0.00390625, 1.0]> : tensor<2xbf16>
  %t = bcast.addcmul %h, %k, %g : (tensor<2xbf16>, tensor<2xbf16>, tensor<2xbf16>) -> tensor<2xbf16>
  %n = arith.constant dense<[1, 2, 3]> : tensor<3xi32>
  %u = bcast.addcmul %n, %n, %n {value = -2.7 : f64} : (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return %r, %s, %t, %u : tensor<3xf32>, tensor<3xi8>, tensor<2xbf16>, tensor<3xi32>
}

// -----

// (value * tensor1) / tensor2 + input; integer input with an f64 tensor2
// computes in f64.
// CHECK-LABEL: func @fold_addcdiv
// CHECK-DAG: arith.constant dense<[1.55500007, 0.223333329, 0x7F800000]> : tensor<3xf32>
// CHECK-DAG: arith.constant dense<[1.3333333333333333, 0xFFF0000000000000, 3.300000e+01]> : tensor<3xf64>
// CHECK-DAG: arith.constant dense<[2.500000e+00, 0.433333308, 0x7F800000]> : tensor<3xf32>
// CHECK-NOT: bcast.
func.func @fold_addcdiv() -> (tensor<3xf32>, tensor<3xf64>, tensor<3xf32>) {
  %a = arith.constant dense<[1.0, 0.1, -2.0]> : tensor<3xf32>
  %b = arith.constant dense<[3.0, 0.1, 1.0]> : tensor<3xf32>
  %c = arith.constant dense<[2.0, 0.3, 0.0]> : tensor<3xf32>
  %r = bcast.addcdiv %a, %b, %c {value = 0.37 : f64} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %i = arith.constant dense<[1, 2, 3]> : tensor<3xi32>
  %d = arith.constant dense<[3.0, -0.0, 0.1]> : tensor<3xf64>
  %s = bcast.addcdiv %i, %i, %d : (tensor<3xi32>, tensor<3xi32>, tensor<3xf64>) -> tensor<3xf64>
  %t = bcast.addcdiv_ %a, %b, %c : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %r, %s, %t : tensor<3xf32>, tensor<3xf64>, tensor<3xf32>
}

// -----

// Unsigned compute types: logical shifts, an unsigned clamp above 2^31, and
// addcmul wrapping in ui8 (250 + 3 * 250 * 250 is 102 mod 256). Checked
// against NumPy.
// CHECK-LABEL: func @fold_unsigned_issue13
// CHECK-DAG: arith.constant dense<[254, 0, 0, 0, 200]> : tensor<5xui8>
// CHECK-DAG: arith.constant dense<[127, 1, 0, 0, 200]> : tensor<5xui8>
// CHECK-DAG: arith.constant dense<[3900000000, 3500000000, 1]> : tensor<3xui32>
// CHECK-DAG: arith.constant dense<[102, 4, 14]> : tensor<3xui8>
// CHECK-DAG: arith.constant dense<[false, true]> : tensor<2xi1>
// CHECK-NOT: bcast.
func.func @fold_unsigned_issue13() -> (tensor<5xui8>, tensor<5xui8>, tensor<3xui32>, tensor<3xui8>, tensor<2xi1>) {
  %x = arith.constant dense<[255, 128, 3, 1, 200]> : tensor<5xui8>
  %n = arith.constant dense<[1, 7, 8, 200, 0]> : tensor<5xui8>
  %l = bcast.bitwise_left_shift %x, %n : (tensor<5xui8>, tensor<5xui8>) -> tensor<5xui8>
  %r = bcast.bitwise_right_shift %x, %n : (tensor<5xui8>, tensor<5xui8>) -> tensor<5xui8>
  %a = arith.constant dense<[4000000000, 5, 3000000000]> : tensor<3xui32>
  %lo = arith.constant dense<3500000000> : tensor<ui32>
  %hi = arith.constant dense<[3900000000, 3900000000, 1]> : tensor<3xui32>
  %c = bcast.clamp %a, %lo, %hi : (tensor<3xui32>, tensor<ui32>, tensor<3xui32>) -> tensor<3xui32>
  %b = arith.constant dense<[250, 1, 2]> : tensor<3xui8>
  %m = bcast.addcmul %b, %b, %b {value = 3.0 : f64} : (tensor<3xui8>, tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  %p = arith.constant dense<[0, 18446744073709551615]> : tensor<2xui64>
  %z = arith.constant dense<0> : tensor<ui64>
  %q = bcast.logical_xor %p, %z : (tensor<2xui64>, tensor<ui64>) -> tensor<2xi1>
  return %l, %r, %c, %m, %q : tensor<5xui8>, tensor<5xui8>, tensor<3xui32>, tensor<3xui8>, tensor<2xi1>
}
