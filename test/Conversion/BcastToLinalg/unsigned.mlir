// Unsigned element types (ui8..ui64) at the linalg boundary: every
// linalg.generic is built on signless tensors, joined to the unsigned values
// around it by unrealized casts (bcast-signless-boundary folds them away,
// signless-boundary.mlir), and its body has unsigned semantics. The numbers
// are checked in test/Integration/numeric-unsigned.test.
// RUN: bcast-opt %s --convert-bcast-to-linalg -mlir-print-local-scope | FileCheck %s

// An unsigned operand is cast to its signless twin, the generic computes on
// signless tensors, and its result is cast back.
// CHECK-LABEL: func @boundary_casts
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xui8>, %[[B:.*]]: tensor<3xui8>)
// CHECK-DAG: %[[SA:.*]] = builtin.unrealized_conversion_cast %[[A]] : tensor<2x3xui8> to tensor<2x3xi8>
// CHECK-DAG: %[[SB:.*]] = builtin.unrealized_conversion_cast %[[B]] : tensor<3xui8> to tensor<3xi8>
// CHECK-DAG: %[[E:.*]] = tensor.empty() : tensor<2x3xi8>
// CHECK: %[[G:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME: ins(%[[SA]], %[[SB]] : tensor<2x3xi8>, tensor<3xi8>) outs(%[[E]] : tensor<2x3xi8>)
// CHECK: ^bb0(%[[X:.*]]: i8, %[[Y:.*]]: i8, %{{.*}}: i8):
// CHECK: %[[S:.*]] = arith.addi %[[X]], %[[Y]] : i8
// CHECK: linalg.yield %[[S]] : i8
// CHECK: } -> tensor<2x3xi8>
// CHECK: %[[R:.*]] = builtin.unrealized_conversion_cast %[[G]] : tensor<2x3xi8> to tensor<2x3xui8>
// CHECK: return %[[R]]
func.func @boundary_casts(%a: tensor<2x3xui8>, %b: tensor<3xui8>) -> tensor<2x3xui8> {
  %0 = bcast.add %a, %b : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
  return %0 : tensor<2x3xui8>
}

// In place: the signless twin of the in-place operand is both an input and
// the init, so bufferization still writes into its buffer.
// CHECK-LABEL: func @in_place
// CHECK-SAME: (%[[A:.*]]: tensor<4xui32>, %[[B:.*]]: tensor<ui32>)
// CHECK-DAG: %[[SA:.*]] = builtin.unrealized_conversion_cast %[[A]] : tensor<4xui32> to tensor<4xi32>
// CHECK-DAG: %[[SB:.*]] = builtin.unrealized_conversion_cast %[[B]] : tensor<ui32> to tensor<i32>
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[SA]], %[[SB]] : tensor<4xi32>, tensor<i32>) outs(%[[SA]] : tensor<4xi32>)
// CHECK: arith.minui
// CHECK: %[[R:.*]] = builtin.unrealized_conversion_cast %[[G]] : tensor<4xi32> to tensor<4xui32>
// CHECK: return %[[R]]
func.func @in_place(%a: tensor<4xui32>, %b: tensor<ui32>) -> tensor<4xui32> {
  %0 = bcast.minimum_ %a, %b : (tensor<4xui32>, tensor<ui32>) -> tensor<4xui32>
  return %0 : tensor<4xui32>
}

// A signed or bool result needs no cast back.
// CHECK-LABEL: func @signless_results
// CHECK: %[[G:.*]] = linalg.generic
// CHECK: arith.cmpi ult
// CHECK: } -> tensor<4xi1>
// CHECK-NOT: unrealized_conversion_cast %[[G]]
// CHECK: return %[[G]]
func.func @signless_results(%a: tensor<4xui64>, %b: tensor<4xui64>) -> tensor<4xi1> {
  %0 = bcast.lt %a, %b : (tensor<4xui64>, tensor<4xui64>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// The element functions compute as unsigned.
// CHECK-LABEL: func @unsigned_ops
func.func @unsigned_ops(%a: tensor<4xui32>, %b: tensor<4xui32>) {
  // Wrapping, as signless integers.
  // CHECK: arith.addi
  %0 = bcast.add %a, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  // CHECK: arith.subi
  %1 = bcast.sub %a, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  // CHECK: arith.muli
  %2 = bcast.mul %a, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  // Both rounding modes are unsigned division; no sign fix-up.
  // CHECK: %[[T:.*]] = arith.divui
  // CHECK-NEXT: linalg.yield %[[T]]
  %3 = bcast.div %a, %b {rounding_mode = "trunc"} : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  // CHECK: %[[F:.*]] = arith.divui
  // CHECK-NEXT: linalg.yield %[[F]]
  %4 = bcast.div %a, %b {rounding_mode = "floor"} : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  // True division: uitofp to f32.
  // CHECK: arith.uitofp %{{.*}} : i32 to f32
  // CHECK: arith.uitofp %{{.*}} : i32 to f32
  // CHECK: arith.divf
  %5 = bcast.div %a, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xf32>
  // CHECK: %[[R:.*]] = arith.remui
  // CHECK-NEXT: linalg.yield %[[R]]
  %6 = bcast.remainder %a, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  // CHECK: %[[M:.*]] = arith.remui
  // CHECK-NEXT: linalg.yield %[[M]]
  %7 = bcast.fmod %a, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  // CHECK: arith.maxui
  %8 = bcast.maximum %a, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  // CHECK: arith.minui
  %9 = bcast.minimum %a, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  // CHECK: arith.cmpi eq
  %10 = bcast.eq %a, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xi1>
  // CHECK: arith.cmpi ne
  %11 = bcast.ne %a, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xi1>
  // CHECK: arith.cmpi ult
  %12 = bcast.lt %a, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xi1>
  // CHECK: arith.cmpi ule
  %13 = bcast.le %a, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xi1>
  // CHECK: arith.cmpi ugt
  %14 = bcast.gt %a, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xi1>
  // CHECK: arith.cmpi uge
  %15 = bcast.ge %a, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xi1>
  // Repeated squaring over the 32 bits of an unsigned exponent: no case for
  // a negative one.
  // CHECK: %[[P:[0-9]+]]:3 = scf.for
  // CHECK: arith.shrui
  // CHECK: }
  // CHECK-NEXT: linalg.yield %[[P]]#0
  %16 = bcast.pow %a, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  // CHECK: arith.andi
  %17 = bcast.and %a, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  return
}

// Promotion: unsigned operands extend without sign and convert to floats as
// unsigned; a bool joins an unsigned type.
// CHECK-LABEL: func @promotion
func.func @promotion(%u8: tensor<4xui8>, %i16: tensor<4xi16>, %f: tensor<f32>, %b: tensor<4xi1>, %u64: tensor<4xui64>, %d: tensor<4xf64>, %h: tensor<4xf16>) {
  // CHECK: ^bb0(%[[U:.*]]: i8, %[[S:.*]]: i16, %{{.*}}: i16):
  // CHECK: %[[E:.*]] = arith.extui %[[U]] : i8 to i16
  // CHECK: arith.maxsi %[[E]], %[[S]] : i16
  %0 = bcast.maximum %u8, %i16 : (tensor<4xui8>, tensor<4xi16>) -> tensor<4xi16>
  // CHECK: arith.uitofp %{{.*}} : i8 to f32
  // CHECK: arith.addf
  %1 = bcast.add %u8, %f : (tensor<4xui8>, tensor<f32>) -> tensor<4xf32>
  // CHECK: ^bb0(%[[U:.*]]: i8, %[[B:.*]]: i1, %{{.*}}: i8):
  // CHECK: %[[E:.*]] = arith.extui %[[B]] : i1 to i8
  // The divisor 0 becomes 1 (the run-time check has raised before).
  // CHECK: %[[Z:.*]] = arith.cmpi eq, %[[E]], %{{.*}} : i8
  // CHECK: %[[SAFE:.*]] = arith.select %[[Z]], %{{.*}}, %[[E]] : i8
  // CHECK: arith.divui %[[U]], %[[SAFE]] : i8
  %2 = bcast.div %u8, %b {rounding_mode = "floor"} : (tensor<4xui8>, tensor<4xi1>) -> tensor<4xui8>
  // CHECK: arith.uitofp %{{.*}} : i64 to f64
  // CHECK: arith.cmpf olt
  %3 = bcast.lt %u64, %d : (tensor<4xui64>, tensor<4xf64>) -> tensor<4xi1>
  // To f16 through f32, as from a signed integer.
  // CHECK: %[[W:.*]] = arith.uitofp %{{.*}} : i8 to f32
  // CHECK: arith.truncf %[[W]] : f32 to f16
  %4 = bcast.mul %u8, %h : (tensor<4xui8>, tensor<4xf16>) -> tensor<4xf16>
  // In place into ui8 from i16: computed in i16, truncated into the ui8.
  // CHECK: ^bb0(%[[U:.*]]: i8, %[[S:.*]]: i16, %{{.*}}: i8):
  // CHECK: %[[E:.*]] = arith.extui %[[U]] : i8 to i16
  // CHECK: %[[P:.*]] = arith.addi %[[E]], %[[S]] : i16
  // CHECK: %[[T:.*]] = arith.trunci %[[P]] : i16 to i8
  // CHECK: linalg.yield %[[T]] : i8
  %5 = bcast.add_ %u8, %i16 : (tensor<4xui8>, tensor<4xi16>) -> tensor<4xui8>
  return
}

// bcast.cast to and from unsigned types, on signless tensors.
// CHECK-LABEL: func @casts
func.func @casts(%u8: tensor<4xui8>, %f: tensor<4xf32>, %i8: tensor<4xi8>, %u64: tensor<4xui64>) -> (tensor<4xi32>, tensor<4xui8>, tensor<4xui16>, tensor<4xf64>, tensor<4xi1>, tensor<4xui32>) {
  // CHECK: %[[S:.*]] = builtin.unrealized_conversion_cast %{{.*}} : tensor<4xui8> to tensor<4xi8>
  // CHECK: linalg.generic {{.*}} ins(%[[S]] : tensor<4xi8>) outs(%{{.*}} : tensor<4xi32>)
  // CHECK: arith.extui %{{.*}} : i8 to i32
  %0 = bcast.cast %u8 : (tensor<4xui8>) -> tensor<4xi32>
  // Through i64, as PyTorch's CPU code converts (-3.0 is 253): NaN and
  // values out of range are INT64_MIN, whose low byte is 0.
  // CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4xf32>) outs(%{{.*}} : tensor<4xi8>)
  // CHECK: arith.cmpf oge, %{{.*}}, %{{.*}} : f32
  // CHECK: arith.cmpf olt, %{{.*}}, %{{.*}} : f32
  // CHECK: %[[W:.*]] = arith.fptosi %{{.*}} : f32 to i64
  // CHECK: %[[V:.*]] = arith.select %{{.*}}, %[[W]], %{{.*}} : i64
  // CHECK: arith.trunci %[[V]] : i64 to i8
  // CHECK: builtin.unrealized_conversion_cast %[[G]] : tensor<4xi8> to tensor<4xui8>
  %1 = bcast.cast %f : (tensor<4xf32>) -> tensor<4xui8>
  // A signed source extends with its sign (-1 is 65535).
  // CHECK: arith.extsi %{{.*}} : i8 to i16
  %2 = bcast.cast %i8 : (tensor<4xi8>) -> tensor<4xui16>
  // CHECK: arith.uitofp %{{.*}} : i64 to f64
  %3 = bcast.cast %u64 : (tensor<4xui64>) -> tensor<4xf64>
  // CHECK: arith.cmpi ne, %{{.*}}, %{{.*}} : i64
  %4 = bcast.cast %u64 : (tensor<4xui64>) -> tensor<4xi1>
  // CHECK: arith.trunci %{{.*}} : i64 to i32
  %5 = bcast.cast %u64 : (tensor<4xui64>) -> tensor<4xui32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi32>, tensor<4xui8>, tensor<4xui16>, tensor<4xf64>, tensor<4xi1>, tensor<4xui32>
}

// broadcast_to copies on signless tensors; the numpy policy's view keeps the
// unsigned type (bcast-signless-boundary converts it).
// CHECK-LABEL: func @broadcast_to_and_views
// CHECK-SAME: (%[[X:.*]]: tensor<3x1xui16>, %[[D:.*]]: tensor<?xui16>, %[[N:.*]]: tensor<4x?xui16>)
// CHECK: %[[SX:.*]] = builtin.unrealized_conversion_cast %[[X]] : tensor<3x1xui16> to tensor<3x1xi16>
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[SX]] : tensor<3x1xi16>) outs(%{{.*}} : tensor<2x3x5xi16>)
// CHECK: builtin.unrealized_conversion_cast %[[G]] : tensor<2x3x5xi16> to tensor<2x3x5xui16>
// CHECK: %[[V:.*]] = bcast.expand_view %[[D]][%{{.*}}] : tensor<?xui16>
// CHECK: builtin.unrealized_conversion_cast %[[V]] : tensor<?xui16> to tensor<?xi16>
func.func @broadcast_to_and_views(%x: tensor<3x1xui16>, %d: tensor<?xui16>, %n: tensor<4x?xui16>) -> (tensor<2x3x5xui16>, tensor<4x?xui16>) {
  %0 = bcast.broadcast_to %x : tensor<3x1xui16> -> tensor<2x3x5xui16>
  %1 = bcast.add %n, %d : (tensor<4x?xui16>, tensor<?xui16>) -> tensor<4x?xui16>
  return %0, %1 : tensor<2x3x5xui16>, tensor<4x?xui16>
}
