// bcast-signless-boundary: every unsigned integer type becomes the signless
// type of the same width (the ABI of ui8..ui64: a ui8 argument is an i8
// tensor, and an i8 memref once bufferized), and the casts that
// convert-bcast-to-linalg put at the boundary fold away.
// RUN: bcast-opt %s --bcast-signless-boundary -split-input-file -verify-diagnostics -mlir-print-local-scope | FileCheck %s

// What convert-bcast-to-linalg leaves for `bcast.add` on ui8: the casts
// become identities and disappear.
// CHECK-LABEL: func @lowered_add
// CHECK-SAME: (%[[A:.*]]: tensor<4xi8>, %[[B:.*]]: tensor<4xi8>) -> tensor<4xi8>
// CHECK-NOT: unrealized_conversion_cast
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<4xi8>, tensor<4xi8>)
// CHECK: return %[[G]] : tensor<4xi8>
func.func @lowered_add(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %0 = builtin.unrealized_conversion_cast %a : tensor<4xui8> to tensor<4xi8>
  %1 = builtin.unrealized_conversion_cast %b : tensor<4xui8> to tensor<4xi8>
  %2 = tensor.empty() : tensor<4xi8>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%0, %1 : tensor<4xi8>, tensor<4xi8>) outs(%2 : tensor<4xi8>) {
  ^bb0(%x: i8, %y: i8, %o: i8):
    %s = arith.addi %x, %y : i8
    linalg.yield %s : i8
  } -> tensor<4xi8>
  %4 = builtin.unrealized_conversion_cast %3 : tensor<4xi8> to tensor<4xui8>
  return %4 : tensor<4xui8>
}

// -----

// Dense constants keep their bits: ui8 255 is i8 -1, ui64 2^64 - 1 is -1.
// CHECK-LABEL: func @constants
// CHECK-DAG: arith.constant dense<[-1, 0, 127, -128]> : tensor<4xi8>
// CHECK-DAG: arith.constant dense<-1> : tensor<i64>
// CHECK-DAG: arith.constant dense<-2147483648> : tensor<2xi32>
func.func @constants() -> (tensor<4xui8>, tensor<ui64>, tensor<2xui32>) {
  %0 = arith.constant dense<[255, 0, 127, 128]> : tensor<4xui8>
  %1 = arith.constant dense<18446744073709551615> : tensor<ui64>
  %2 = arith.constant dense<2147483648> : tensor<2xui32>
  return %0, %1, %2 : tensor<4xui8>, tensor<ui64>, tensor<2xui32>
}

// -----

// Declarations, calls, memrefs (with their layout), vectors and encodings.
// CHECK-LABEL: func private @external
// CHECK-SAME: (memref<4xi8>, memref<4xi32, strided<[2]>>) -> vector<4xi16>
func.func private @external(memref<4xui8>, memref<4xui32, strided<[2]>>) -> vector<4xui16>

// CHECK-LABEL: func @caller
// CHECK-SAME: (%[[M:.*]]: memref<4xi8>, %[[S:.*]]: memref<4xi32, strided<[2]>>, %[[T:.*]]: tensor<4xi64, "encoding">) -> (vector<4xi16>, tensor<4xi64, "encoding">)
// CHECK: %[[V:.*]] = call @external(%[[M]], %[[S]]) : (memref<4xi8>, memref<4xi32, strided<[2]>>) -> vector<4xi16>
// CHECK: return %[[V]], %[[T]]
func.func @caller(%m: memref<4xui8>, %s: memref<4xui32, strided<[2]>>, %t: tensor<4xui64, "encoding">) -> (vector<4xui16>, tensor<4xui64, "encoding">) {
  %0 = call @external(%m, %s) : (memref<4xui8>, memref<4xui32, strided<[2]>>) -> vector<4xui16>
  return %0, %t : vector<4xui16>, tensor<4xui64, "encoding">
}

// -----

// Tensor ops, the lowering's view, regions and blocks of any op.
// CHECK-LABEL: func @ops_and_regions
// CHECK-SAME: (%[[X:.*]]: tensor<?xi32>, %[[N:.*]]: index, %[[C:.*]]: i1)
// CHECK: tensor.dim %[[X]], %{{.*}} : tensor<?xi32>
// CHECK: %[[V:.*]] = bcast.expand_view %[[X]][%[[N]]] : tensor<?xi32>
// CHECK: tensor.cast %[[V]] : tensor<?xi32> to tensor<4xi32>
// CHECK: scf.for {{.*}} iter_args(%[[I:.*]] = %{{.*}}) -> (tensor<4xi32>)
// CHECK: linalg.generic {{.*}} ins(%[[I]] : tensor<4xi32>) outs(%{{.*}} : tensor<4xi32>)
// CHECK: ^bb0(%{{.*}}: i32, %{{.*}}: i32):
// CHECK: scf.yield %{{.*}} : tensor<4xi32>
// CHECK: cf.cond_br %[[C]], ^bb1(%{{.*}} : tensor<4xi32>), ^bb1(%{{.*}} : tensor<4xi32>)
// CHECK: ^bb1(%[[R:.*]]: tensor<4xi32>):
// CHECK: return %[[R]] : tensor<4xi32>
func.func @ops_and_regions(%x: tensor<?xui32>, %n: index, %c: i1) -> tensor<4xui32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = tensor.dim %x, %c0 : tensor<?xui32>
  %v = bcast.expand_view %x [%n] : tensor<?xui32>
  %s = tensor.cast %v : tensor<?xui32> to tensor<4xui32>
  %e = tensor.empty() : tensor<4xui32>
  %l = scf.for %i = %c0 to %d step %c1 iter_args(%it = %s) -> (tensor<4xui32>) {
    %copy = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%it : tensor<4xui32>) outs(%e : tensor<4xui32>) {
    ^bb0(%a: ui32, %o: ui32):
      linalg.yield %a : ui32
    } -> tensor<4xui32>
    scf.yield %copy : tensor<4xui32>
  }
  cf.cond_br %c, ^bb1(%l : tensor<4xui32>), ^bb1(%s : tensor<4xui32>)
^bb1(%r: tensor<4xui32>):
  return %r : tensor<4xui32>
}

// -----

// A cast that is not an identity once signless stays, with signless types.
// CHECK-LABEL: func @other_cast
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : tensor<2xi16> to memref<2xi16>
func.func @other_cast(%x: tensor<2xui16>) -> memref<2xui16> {
  %0 = builtin.unrealized_conversion_cast %x : tensor<2xui16> to memref<2xui16>
  return %0 : memref<2xui16>
}

// -----

// An op whose meaning depends on the signedness must be lowered first.
func.func @unlowered(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xi1> {
  // expected-error @+1 {{'bcast.lt' op computes on unsigned integers: lower it with convert-bcast-to-linalg before bcast-signless-boundary erases their signedness}}
  %0 = bcast.lt %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
