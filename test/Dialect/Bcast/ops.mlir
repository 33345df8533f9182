// Round trip of every bcast op in the custom form, and again through the
// generic form: the printed IR must parse back to the same ops.
// RUN: bcast-opt %s | bcast-opt | FileCheck %s
// RUN: bcast-opt %s --mlir-print-op-generic | bcast-opt | FileCheck %s

// CHECK-LABEL: func @arith
func.func @arith(%a: tensor<5x1x4x1xf32>, %b: tensor<3x1x1xf32>) {
  // CHECK: bcast.add %{{.*}}, %{{.*}} : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  %0 = bcast.add %a, %b : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // CHECK: bcast.sub %{{.*}}, %{{.*}} : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  %1 = bcast.sub %a, %b : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // CHECK: bcast.mul %{{.*}}, %{{.*}} : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  %2 = bcast.mul %a, %b : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // CHECK: bcast.div %{{.*}}, %{{.*}} : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  %3 = bcast.div %a, %b : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // CHECK: bcast.div %{{.*}}, %{{.*}} {rounding_mode = "floor"} : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  %4 = bcast.div %a, %b {rounding_mode = "floor"} : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // CHECK: bcast.div %{{.*}}, %{{.*}} {rounding_mode = "trunc"} : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  %5 = bcast.div %a, %b {rounding_mode = "trunc"} : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // CHECK: bcast.remainder %{{.*}}, %{{.*}} : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  %6 = bcast.remainder %a, %b : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // CHECK: bcast.pow %{{.*}}, %{{.*}} : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  %7 = bcast.pow %a, %b : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // CHECK: bcast.maximum %{{.*}}, %{{.*}} : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  %8 = bcast.maximum %a, %b : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // CHECK: bcast.minimum %{{.*}}, %{{.*}} : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  %9 = bcast.minimum %a, %b : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // CHECK: bcast.fmod %{{.*}}, %{{.*}} : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  %10 = bcast.fmod %a, %b : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  return
}

// CHECK-LABEL: func @bitwise
func.func @bitwise(%a: tensor<4x1xi32>, %b: tensor<3xi32>, %p: tensor<2xi1>, %q: tensor<i1>) {
  // CHECK: bcast.and %{{.*}}, %{{.*}} : (tensor<4x1xi32>, tensor<3xi32>) -> tensor<4x3xi32>
  %0 = bcast.and %a, %b : (tensor<4x1xi32>, tensor<3xi32>) -> tensor<4x3xi32>
  // CHECK: bcast.or %{{.*}}, %{{.*}} : (tensor<4x1xi32>, tensor<3xi32>) -> tensor<4x3xi32>
  %1 = bcast.or %a, %b : (tensor<4x1xi32>, tensor<3xi32>) -> tensor<4x3xi32>
  // CHECK: bcast.xor %{{.*}}, %{{.*}} : (tensor<2xi1>, tensor<i1>) -> tensor<2xi1>
  %2 = bcast.xor %p, %q : (tensor<2xi1>, tensor<i1>) -> tensor<2xi1>
  // CHECK: bcast.div %{{.*}}, %{{.*}} {rounding_mode = "trunc"} : (tensor<4x1xi32>, tensor<3xi32>) -> tensor<4x3xi32>
  %3 = bcast.div %a, %b {rounding_mode = "trunc"} : (tensor<4x1xi32>, tensor<3xi32>) -> tensor<4x3xi32>
  return
}

// CHECK-LABEL: func @compare
func.func @compare(%a: tensor<4x1xf32>, %b: tensor<3xf32>) {
  // CHECK: bcast.eq %{{.*}}, %{{.*}} : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  %0 = bcast.eq %a, %b : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  // CHECK: bcast.ne %{{.*}}, %{{.*}} : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  %1 = bcast.ne %a, %b : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  // CHECK: bcast.lt %{{.*}}, %{{.*}} : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  %2 = bcast.lt %a, %b : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  // CHECK: bcast.le %{{.*}}, %{{.*}} : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  %3 = bcast.le %a, %b : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  // CHECK: bcast.gt %{{.*}}, %{{.*}} : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  %4 = bcast.gt %a, %b : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  // CHECK: bcast.ge %{{.*}}, %{{.*}} : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  %5 = bcast.ge %a, %b : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xi1>
  return
}

// CHECK-LABEL: func @where_and_broadcast_to
func.func @where_and_broadcast_to(%c: tensor<4x1xi1>, %x: tensor<3xf32>, %y: tensor<f32>, %z: tensor<3x1xf32>) {
  // CHECK: bcast.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x1xi1>, tensor<3xf32>, tensor<f32>) -> tensor<4x3xf32>
  %0 = bcast.where %c, %x, %y : (tensor<4x1xi1>, tensor<3xf32>, tensor<f32>) -> tensor<4x3xf32>
  // CHECK: bcast.broadcast_to %{{.*}} : tensor<3x1xf32> -> tensor<4x3x5xf32>
  %1 = bcast.broadcast_to %z : tensor<3x1xf32> -> tensor<4x3x5xf32>
  return
}

// CHECK-LABEL: func @specify_shape
func.func @specify_shape(%y: tensor<?x?xf32>, %z: tensor<2x?x?xi32>, %s: tensor<f16>) {
  // CHECK: bcast.specify_shape %{{.*}} : (tensor<?x?xf32>) -> tensor<?x1xf32>
  %0 = bcast.specify_shape %y : (tensor<?x?xf32>) -> tensor<?x1xf32>
  // Static sizes stay, `?` sizes may stay or become static (0 included).
  // CHECK: bcast.specify_shape %{{.*}} : (tensor<2x?x?xi32>) -> tensor<2x?x0xi32>
  %1 = bcast.specify_shape %z : (tensor<2x?x?xi32>) -> tensor<2x?x0xi32>
  // Nothing refined: valid, and folded away by canonicalization.
  // CHECK: bcast.specify_shape %{{.*}} : (tensor<f16>) -> tensor<f16>
  %2 = bcast.specify_shape %s : (tensor<f16>) -> tensor<f16>
  return
}

// CHECK-LABEL: func @in_place
func.func @in_place(%x: tensor<5x3x4x1xf32>, %y: tensor<3x1x1xf32>, %i: tensor<4x3xi32>, %j: tensor<3xi32>) {
  // CHECK: bcast.add_ %{{.*}}, %{{.*}} : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  %0 = bcast.add_ %x, %y : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // CHECK: bcast.sub_ %{{.*}}, %{{.*}} : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  %1 = bcast.sub_ %x, %y : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // CHECK: bcast.mul_ %{{.*}}, %{{.*}} : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  %2 = bcast.mul_ %x, %y : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // CHECK: bcast.div_ %{{.*}}, %{{.*}} {rounding_mode = "floor"} : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  %3 = bcast.div_ %x, %y {rounding_mode = "floor"} : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // CHECK: bcast.remainder_ %{{.*}}, %{{.*}} : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  %4 = bcast.remainder_ %x, %y : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // CHECK: bcast.pow_ %{{.*}}, %{{.*}} : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  %5 = bcast.pow_ %x, %y : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // CHECK: bcast.maximum_ %{{.*}}, %{{.*}} : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  %6 = bcast.maximum_ %x, %y : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // CHECK: bcast.minimum_ %{{.*}}, %{{.*}} : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  %7 = bcast.minimum_ %x, %y : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // CHECK: bcast.and_ %{{.*}}, %{{.*}} : (tensor<4x3xi32>, tensor<3xi32>) -> tensor<4x3xi32>
  %8 = bcast.and_ %i, %j : (tensor<4x3xi32>, tensor<3xi32>) -> tensor<4x3xi32>
  // CHECK: bcast.or_ %{{.*}}, %{{.*}} : (tensor<4x3xi32>, tensor<3xi32>) -> tensor<4x3xi32>
  %9 = bcast.or_ %i, %j : (tensor<4x3xi32>, tensor<3xi32>) -> tensor<4x3xi32>
  // CHECK: bcast.xor_ %{{.*}}, %{{.*}} : (tensor<4x3xi32>, tensor<3xi32>) -> tensor<4x3xi32>
  %10 = bcast.xor_ %i, %j : (tensor<4x3xi32>, tensor<3xi32>) -> tensor<4x3xi32>
  // CHECK: bcast.fmod_ %{{.*}}, %{{.*}} : (tensor<4x3xi32>, tensor<3xi32>) -> tensor<4x3xi32>
  %11 = bcast.fmod_ %i, %j : (tensor<4x3xi32>, tensor<3xi32>) -> tensor<4x3xi32>
  return
}

// Issue 28: the in-place comparisons (stored in the in-place type),
// clamp_min/clamp_max and their twins, add/sub with alpha.
// CHECK-LABEL: func @issue28_ops
func.func @issue28_ops(%i: tensor<4x3xi32>, %f: tensor<3xf32>, %x: tensor<4x3xf32>, %b: tensor<4x3xi1>) {
  // CHECK: bcast.eq_ %{{.*}}, %{{.*}} : (tensor<4x3xi32>, tensor<3xf32>) -> tensor<4x3xi32>
  %0 = bcast.eq_ %i, %f : (tensor<4x3xi32>, tensor<3xf32>) -> tensor<4x3xi32>
  // CHECK: bcast.ne_
  %1 = bcast.ne_ %x, %f : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  // CHECK: bcast.lt_
  %2 = bcast.lt_ %b, %f : (tensor<4x3xi1>, tensor<3xf32>) -> tensor<4x3xi1>
  // CHECK: bcast.le_
  %3 = bcast.le_ %i, %i : (tensor<4x3xi32>, tensor<4x3xi32>) -> tensor<4x3xi32>
  // CHECK: bcast.gt_
  %4 = bcast.gt_ %x, %i : (tensor<4x3xf32>, tensor<4x3xi32>) -> tensor<4x3xf32>
  // CHECK: bcast.ge_
  %5 = bcast.ge_ %i, %f : (tensor<4x3xi32>, tensor<3xf32>) -> tensor<4x3xi32>
  // CHECK: bcast.clamp_min %{{.*}}, %{{.*}} : (tensor<4x3xi32>, tensor<3xf32>) -> tensor<4x3xf32>
  %6 = bcast.clamp_min %i, %f : (tensor<4x3xi32>, tensor<3xf32>) -> tensor<4x3xf32>
  // CHECK: bcast.clamp_max
  %7 = bcast.clamp_max %x, %f : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  // CHECK: bcast.clamp_min_
  %8 = bcast.clamp_min_ %x, %i : (tensor<4x3xf32>, tensor<4x3xi32>) -> tensor<4x3xf32>
  // CHECK: bcast.clamp_max_
  %9 = bcast.clamp_max_ %i, %i : (tensor<4x3xi32>, tensor<4x3xi32>) -> tensor<4x3xi32>
  // CHECK: bcast.add %{{.*}}, %{{.*}} {alpha = 3 : i64} : (tensor<4x3xi32>, tensor<4x3xi32>) -> tensor<4x3xi32>
  %10 = bcast.add %i, %i {alpha = 3 : i64} : (tensor<4x3xi32>, tensor<4x3xi32>) -> tensor<4x3xi32>
  // CHECK: bcast.sub_ %{{.*}}, %{{.*}} {alpha = 2.500000e+00 : f64}
  %11 = bcast.sub_ %x, %f {alpha = 2.5 : f64} : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  // CHECK: bcast.add_ %{{.*}}, %{{.*}} {alpha = true}
  %12 = bcast.add_ %b, %b {alpha = true} : (tensor<4x3xi1>, tensor<4x3xi1>) -> tensor<4x3xi1>
  return
}

// PyTorch's notes: the shapes that broadcast.
// CHECK-LABEL: func @notes_examples
func.func @notes_examples(%a: tensor<5x7x3xf32>, %b: tensor<5x3x4x1xf32>, %c: tensor<3x1x1xf32>, %d: tensor<1xf32>, %e: tensor<3x1x7xf32>) {
  // CHECK: -> tensor<5x7x3xf32>
  %0 = bcast.add %a, %a : (tensor<5x7x3xf32>, tensor<5x7x3xf32>) -> tensor<5x7x3xf32>
  // CHECK: -> tensor<5x3x4x1xf32>
  %1 = bcast.add %b, %c : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // CHECK: -> tensor<3x1x7xf32>
  %2 = bcast.add %d, %e : (tensor<1xf32>, tensor<3x1x7xf32>) -> tensor<3x1x7xf32>
  return
}

// CHECK-LABEL: func @rank0_size0_dynamic
func.func @rank0_size0_dynamic(%s: tensor<f32>, %z: tensor<0xf32>, %one: tensor<1xf32>, %d: tensor<?x3xf32>, %n: tensor<4x1xf32>) {
  // CHECK: (tensor<f32>, tensor<f32>) -> tensor<f32>
  %0 = bcast.mul %s, %s : (tensor<f32>, tensor<f32>) -> tensor<f32>
  // CHECK: (tensor<0xf32>, tensor<1xf32>) -> tensor<0xf32>
  %1 = bcast.add %z, %one : (tensor<0xf32>, tensor<1xf32>) -> tensor<0xf32>
  // CHECK: (tensor<f32>, tensor<0xf32>) -> tensor<0xf32>
  %2 = bcast.add %s, %z : (tensor<f32>, tensor<0xf32>) -> tensor<0xf32>
  // CHECK: (tensor<?x3xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
  %3 = bcast.add %d, %n : (tensor<?x3xf32>, tensor<4x1xf32>) -> tensor<4x3xf32>
  // A `?` result where the size is static is a valid (less precise) type.
  // CHECK: (tensor<?x3xf32>, tensor<4x1xf32>) -> tensor<?x?xf32>
  %4 = bcast.add %d, %n : (tensor<?x3xf32>, tensor<4x1xf32>) -> tensor<?x?xf32>
  // In place with a `?`: valid when some size makes the shapes agree.
  // CHECK: bcast.add_ %{{.*}}, %{{.*}} : (tensor<?x3xf32>, tensor<4x1xf32>) -> tensor<?x3xf32>
  %5 = bcast.add_ %d, %n : (tensor<?x3xf32>, tensor<4x1xf32>) -> tensor<?x3xf32>
  return
}

// CHECK-LABEL: func @element_types
func.func @element_types(%a: tensor<2xf16>, %b: tensor<2xbf16>, %c: tensor<2xf64>, %d: tensor<2xi8>, %e: tensor<2xi16>, %f: tensor<2xi64>) {
  // CHECK: tensor<2xf16>
  %0 = bcast.add %a, %a : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xf16>
  // CHECK: tensor<2xbf16>
  %1 = bcast.add %b, %b : (tensor<2xbf16>, tensor<2xbf16>) -> tensor<2xbf16>
  // CHECK: tensor<2xf64>
  %2 = bcast.add %c, %c : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  // CHECK: tensor<2xi8>
  %3 = bcast.add %d, %d : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>
  // CHECK: tensor<2xi16>
  %4 = bcast.add %e, %e : (tensor<2xi16>, tensor<2xi16>) -> tensor<2xi16>
  // CHECK: tensor<2xi64>
  %5 = bcast.add %f, %f : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return
}

// Mixed element types (PyTorch's promotion) and unsigned types.
// CHECK-LABEL: func @promotion
func.func @promotion(%i: tensor<3xi32>, %d: tensor<f64>, %h: tensor<3xf16>, %u: tensor<3xui8>, %s: tensor<3xi8>, %w: tensor<2x1xui32>, %b: tensor<i1>) {
  // CHECK: bcast.add %{{.*}}, %{{.*}} : (tensor<3xi32>, tensor<f64>) -> tensor<3xf64>
  %0 = bcast.add %i, %d : (tensor<3xi32>, tensor<f64>) -> tensor<3xf64>
  // CHECK: bcast.mul %{{.*}}, %{{.*}} : (tensor<3xf16>, tensor<f64>) -> tensor<3xf16>
  %1 = bcast.mul %h, %d : (tensor<3xf16>, tensor<f64>) -> tensor<3xf16>
  // CHECK: bcast.add %{{.*}}, %{{.*}} : (tensor<3xui8>, tensor<3xi8>) -> tensor<3xi16>
  %2 = bcast.add %u, %s : (tensor<3xui8>, tensor<3xi8>) -> tensor<3xi16>
  // CHECK: bcast.maximum %{{.*}}, %{{.*}} : (tensor<2x1xui32>, tensor<i1>) -> tensor<2x1xui32>
  %3 = bcast.maximum %w, %b : (tensor<2x1xui32>, tensor<i1>) -> tensor<2x1xui32>
  // CHECK: bcast.div %{{.*}}, %{{.*}} : (tensor<3xi32>, tensor<3xi8>) -> tensor<3xf32>
  %4 = bcast.div %i, %s : (tensor<3xi32>, tensor<3xi8>) -> tensor<3xf32>
  // CHECK: bcast.lt %{{.*}}, %{{.*}} : (tensor<3xi32>, tensor<f64>) -> tensor<3xi1>
  %5 = bcast.lt %i, %d : (tensor<3xi32>, tensor<f64>) -> tensor<3xi1>
  // CHECK: bcast.add_ %{{.*}}, %{{.*}} : (tensor<3xf16>, tensor<f64>) -> tensor<3xf16>
  %6 = bcast.add_ %h, %d : (tensor<3xf16>, tensor<f64>) -> tensor<3xf16>
  return
}

// CHECK-LABEL: func @cast
func.func @cast(%x: tensor<4x?xf32>, %u: tensor<3xui16>) {
  // CHECK: bcast.cast %{{.*}} : (tensor<4x?xf32>) -> tensor<4x?xi32>
  %0 = bcast.cast %x : (tensor<4x?xf32>) -> tensor<4x?xi32>
  // CHECK: bcast.cast %{{.*}} : (tensor<3xui16>) -> tensor<3xbf16>
  %1 = bcast.cast %u : (tensor<3xui16>) -> tensor<3xbf16>
  return
}

// The binary additions of issue 13 and their in-place twins; float
// functions of integers give f32, shifts keep the promoted integer type.
// CHECK-LABEL: func @binary_functions
func.func @binary_functions(%a: tensor<5x1x4x1xf32>, %b: tensor<3x1x1xf32>, %i: tensor<4x1xi32>, %j: tensor<3xi8>, %h: tensor<3xbf16>, %f: tensor<5x3x4x1xf32>) {
  // CHECK: bcast.atan2 %{{.*}}, %{{.*}} : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  %0 = bcast.atan2 %a, %b : (tensor<5x1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // CHECK: bcast.atan2 %{{.*}}, %{{.*}} : (tensor<4x1xi32>, tensor<3xi8>) -> tensor<4x3xf32>
  %1 = bcast.atan2 %i, %j : (tensor<4x1xi32>, tensor<3xi8>) -> tensor<4x3xf32>
  // CHECK: bcast.copysign %{{.*}}, %{{.*}} : (tensor<4x1xi32>, tensor<3xbf16>) -> tensor<4x3xbf16>
  %2 = bcast.copysign %i, %h : (tensor<4x1xi32>, tensor<3xbf16>) -> tensor<4x3xbf16>
  // CHECK: bcast.hypot %{{.*}}, %{{.*}} : (tensor<3xbf16>, tensor<3xbf16>) -> tensor<3xbf16>
  %3 = bcast.hypot %h, %h : (tensor<3xbf16>, tensor<3xbf16>) -> tensor<3xbf16>
  // CHECK: bcast.bitwise_left_shift %{{.*}}, %{{.*}} : (tensor<4x1xi32>, tensor<3xi8>) -> tensor<4x3xi32>
  %4 = bcast.bitwise_left_shift %i, %j : (tensor<4x1xi32>, tensor<3xi8>) -> tensor<4x3xi32>
  // CHECK: bcast.bitwise_right_shift %{{.*}}, %{{.*}} : (tensor<3xi8>, tensor<4x1xi32>) -> tensor<4x3xi32>
  %5 = bcast.bitwise_right_shift %j, %i : (tensor<3xi8>, tensor<4x1xi32>) -> tensor<4x3xi32>
  // CHECK: bcast.atan2_ %{{.*}}, %{{.*}} : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  %6 = bcast.atan2_ %f, %b : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // CHECK: bcast.copysign_ %{{.*}}, %{{.*}} : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  %7 = bcast.copysign_ %f, %b : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // CHECK: bcast.hypot_ %{{.*}}, %{{.*}} : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  %8 = bcast.hypot_ %f, %b : (tensor<5x3x4x1xf32>, tensor<3x1x1xf32>) -> tensor<5x3x4x1xf32>
  // CHECK: bcast.bitwise_left_shift_ %{{.*}}, %{{.*}} : (tensor<4x1xi32>, tensor<1xi8>) -> tensor<4x1xi32>
  %s = tensor.extract_slice %j[0] [1] [1] : tensor<3xi8> to tensor<1xi8>
  %9 = bcast.bitwise_left_shift_ %i, %s : (tensor<4x1xi32>, tensor<1xi8>) -> tensor<4x1xi32>
  // CHECK: bcast.bitwise_right_shift_ %{{.*}}, %{{.*}} : (tensor<4x1xi32>, tensor<1xi8>) -> tensor<4x1xi32>
  %10 = bcast.bitwise_right_shift_ %i, %s : (tensor<4x1xi32>, tensor<1xi8>) -> tensor<4x1xi32>
  return
}

// logical_and, logical_or and logical_xor take any element types and give
// i1; in place they store 0 or 1 in the first operand's type.
// CHECK-LABEL: func @logical
func.func @logical(%a: tensor<4x1xf32>, %i: tensor<3xi32>, %p: tensor<i1>, %f: tensor<4x3xf32>) {
  // CHECK: bcast.logical_and %{{.*}}, %{{.*}} : (tensor<4x1xf32>, tensor<3xi32>) -> tensor<4x3xi1>
  %0 = bcast.logical_and %a, %i : (tensor<4x1xf32>, tensor<3xi32>) -> tensor<4x3xi1>
  // CHECK: bcast.logical_or %{{.*}}, %{{.*}} : (tensor<3xi32>, tensor<i1>) -> tensor<3xi1>
  %1 = bcast.logical_or %i, %p : (tensor<3xi32>, tensor<i1>) -> tensor<3xi1>
  // CHECK: bcast.logical_xor %{{.*}}, %{{.*}} : (tensor<i1>, tensor<i1>) -> tensor<i1>
  %2 = bcast.logical_xor %p, %p : (tensor<i1>, tensor<i1>) -> tensor<i1>
  // CHECK: bcast.logical_and_ %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<3xi32>) -> tensor<4x3xf32>
  %3 = bcast.logical_and_ %f, %i : (tensor<4x3xf32>, tensor<3xi32>) -> tensor<4x3xf32>
  // CHECK: bcast.logical_or_ %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<3xi32>) -> tensor<4x3xf32>
  %4 = bcast.logical_or_ %f, %i : (tensor<4x3xf32>, tensor<3xi32>) -> tensor<4x3xf32>
  // CHECK: bcast.logical_xor_ %{{.*}}, %{{.*}} : (tensor<3xi32>, tensor<i1>) -> tensor<3xi32>
  %5 = bcast.logical_xor_ %i, %p : (tensor<3xi32>, tensor<i1>) -> tensor<3xi32>
  return
}

// The three-operand ops: all three operands broadcast together (here each
// contributes a dimension) and promote together; `value` is an optional f64.
// CHECK-LABEL: func @ternary
func.func @ternary(%x: tensor<2x1x1xf32>, %y: tensor<3x1xf32>, %z: tensor<4xf32>, %i: tensor<3x1xi32>, %h: tensor<4xbf16>, %w: tensor<f32>) {
  // CHECK: bcast.clamp %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x1x1xf32>, tensor<3x1xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %0 = bcast.clamp %x, %y, %z : (tensor<2x1x1xf32>, tensor<3x1xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  // CHECK: bcast.clamp %{{.*}}, %{{.*}}, %{{.*}} : (tensor<3x1xi32>, tensor<3x1xi32>, tensor<4xbf16>) -> tensor<3x4xbf16>
  %1 = bcast.clamp %i, %i, %h : (tensor<3x1xi32>, tensor<3x1xi32>, tensor<4xbf16>) -> tensor<3x4xbf16>
  // CHECK: bcast.lerp %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x1x1xf32>, tensor<3x1xf32>, tensor<f32>) -> tensor<2x3x1xf32>
  %2 = bcast.lerp %x, %y, %w : (tensor<2x1x1xf32>, tensor<3x1xf32>, tensor<f32>) -> tensor<2x3x1xf32>
  // CHECK: bcast.addcmul %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x1x1xf32>, tensor<3x1xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %3 = bcast.addcmul %x, %y, %z : (tensor<2x1x1xf32>, tensor<3x1xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  // CHECK: bcast.addcmul %{{.*}}, %{{.*}}, %{{.*}} {value = 5.000000e-01 : f64} : (tensor<3x1xi32>, tensor<3x1xi32>, tensor<3x1xi32>) -> tensor<3x1xi32>
  %4 = bcast.addcmul %i, %i, %i {value = 5.000000e-01 : f64} : (tensor<3x1xi32>, tensor<3x1xi32>, tensor<3x1xi32>) -> tensor<3x1xi32>
  // CHECK: bcast.addcdiv %{{.*}}, %{{.*}}, %{{.*}} {value = -2.000000e+00 : f64} : (tensor<3x1xi32>, tensor<3x1xi32>, tensor<4xbf16>) -> tensor<3x4xbf16>
  %5 = bcast.addcdiv %i, %i, %h {value = -2.0 : f64} : (tensor<3x1xi32>, tensor<3x1xi32>, tensor<4xbf16>) -> tensor<3x4xbf16>
  return
}

// lerp's `scalar_weight`: a Python number's carrier (f64, i64 or i1) that
// takes no part in the promotion (rank-0 bf16 tensors stay bf16).
// CHECK-LABEL: func @lerp_scalar_weight
func.func @lerp_scalar_weight(%x: tensor<2x3xbf16>, %s: tensor<bf16>, %f: tensor<f64>, %n: tensor<i64>, %b: tensor<i1>) {
  // CHECK: bcast.lerp %{{.*}}, %{{.*}}, %{{.*}} {scalar_weight} : (tensor<2x3xbf16>, tensor<bf16>, tensor<f64>) -> tensor<2x3xbf16>
  %0 = bcast.lerp %x, %s, %f {scalar_weight} : (tensor<2x3xbf16>, tensor<bf16>, tensor<f64>) -> tensor<2x3xbf16>
  // CHECK: bcast.lerp %{{.*}}, %{{.*}}, %{{.*}} {scalar_weight} : (tensor<bf16>, tensor<bf16>, tensor<i64>) -> tensor<bf16>
  %1 = bcast.lerp %s, %s, %n {scalar_weight} : (tensor<bf16>, tensor<bf16>, tensor<i64>) -> tensor<bf16>
  // CHECK: bcast.lerp_ %{{.*}}, %{{.*}}, %{{.*}} {scalar_weight} : (tensor<2x3xbf16>, tensor<bf16>, tensor<i1>) -> tensor<2x3xbf16>
  %2 = bcast.lerp_ %x, %s, %b {scalar_weight} : (tensor<2x3xbf16>, tensor<bf16>, tensor<i1>) -> tensor<2x3xbf16>
  return
}

// CHECK-LABEL: func @ternary_in_place
func.func @ternary_in_place(%x: tensor<2x3x4xf32>, %y: tensor<3x1xf32>, %z: tensor<4xf32>, %i: tensor<3x4xi64>, %j: tensor<4xi8>) {
  // CHECK: bcast.clamp_ %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<3x1xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %0 = bcast.clamp_ %x, %y, %z : (tensor<2x3x4xf32>, tensor<3x1xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  // CHECK: bcast.clamp_ %{{.*}}, %{{.*}}, %{{.*}} : (tensor<3x4xi64>, tensor<4xi8>, tensor<3x4xi64>) -> tensor<3x4xi64>
  %1 = bcast.clamp_ %i, %j, %i : (tensor<3x4xi64>, tensor<4xi8>, tensor<3x4xi64>) -> tensor<3x4xi64>
  // CHECK: bcast.lerp_ %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<3x1xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %2 = bcast.lerp_ %x, %y, %z : (tensor<2x3x4xf32>, tensor<3x1xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  // CHECK: bcast.addcmul_ %{{.*}}, %{{.*}}, %{{.*}} {value = 2.500000e-01 : f64} : (tensor<2x3x4xf32>, tensor<3x4xi64>, tensor<4xi8>) -> tensor<2x3x4xf32>
  %3 = bcast.addcmul_ %x, %i, %j {value = 2.500000e-01 : f64} : (tensor<2x3x4xf32>, tensor<3x4xi64>, tensor<4xi8>) -> tensor<2x3x4xf32>
  // CHECK: bcast.addcdiv_ %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<3x1xf32>, tensor<4xi8>) -> tensor<2x3x4xf32>
  %4 = bcast.addcdiv_ %x, %y, %j : (tensor<2x3x4xf32>, tensor<3x1xf32>, tensor<4xi8>) -> tensor<2x3x4xf32>
  return
}
