// Element-wise ops have no memory effect, but may be speculated only when
// nothing can fail at run time: with dynamic sizes the lowering's shape
// check may fail, and integer division may trap. LICM hoists the others out
// of a loop that may run zero times and leaves these inside; an unused op is
// removed either way.
// RUN: bcast-opt %s -loop-invariant-code-motion | FileCheck %s
// RUN: bcast-opt %s -canonicalize | FileCheck %s --check-prefix=DEAD

// CHECK-LABEL: func @hoisting
// CHECK: bcast.add %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<3xf32>)
// CHECK: bcast.div %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4xf32>)
// CHECK: scf.for
// CHECK-DAG: bcast.add %{{.*}}, %{{.*}} : (tensor<?xf32>, tensor<3xf32>)
// CHECK-DAG: bcast.div %{{.*}}, %{{.*}} {rounding_mode = "trunc"} : (tensor<4xi32>, tensor<4xi32>)
// CHECK: scf.yield
func.func @hoisting(%a: tensor<4x3xf32>, %b: tensor<3xf32>, %d: tensor<?xf32>,
                    %f: tensor<4xf32>, %i: tensor<4xi32>, %n: index)
    -> (tensor<4x3xf32>, tensor<?xf32>, tensor<4xf32>, tensor<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:4 = scf.for %k = %c0 to %n step %c1
      iter_args(%x = %a, %y = %d, %z = %f, %w = %i)
      -> (tensor<4x3xf32>, tensor<?xf32>, tensor<4xf32>, tensor<4xi32>) {
    %s = bcast.add %a, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
    %t = bcast.add %d, %b : (tensor<?xf32>, tensor<3xf32>) -> tensor<3xf32>
    %u = bcast.div %f, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %v = bcast.div %i, %i {rounding_mode = "trunc"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %tc = tensor.cast %t : tensor<3xf32> to tensor<?xf32>
    scf.yield %s, %tc, %u, %v : tensor<4x3xf32>, tensor<?xf32>, tensor<4xf32>, tensor<4xi32>
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<4x3xf32>, tensor<?xf32>, tensor<4xf32>, tensor<4xi32>
}

// DEAD-LABEL: func @unused
// DEAD-NOT: bcast.
// DEAD: return
func.func @unused(%d: tensor<?xf32>, %i: tensor<4xi32>) {
  %t = bcast.add %d, %d : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %v = bcast.div %i, %i {rounding_mode = "floor"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// CHECK-LABEL: func @broadcast_to
// CHECK: bcast.broadcast_to %{{.*}} : tensor<3xf32> -> tensor<2x3xf32>
// CHECK: scf.for
// CHECK: bcast.broadcast_to %{{.*}} : tensor<?xf32> -> tensor<2x3xf32>
// CHECK: scf.yield
func.func @broadcast_to(%s: tensor<3xf32>, %d: tensor<?xf32>, %n: index) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<2x3xf32>
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%x = %e, %y = %e) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
    %a = bcast.broadcast_to %s : tensor<3xf32> -> tensor<2x3xf32>
    %b = bcast.broadcast_to %d : tensor<?xf32> -> tensor<2x3xf32>
    scf.yield %a, %b : tensor<2x3xf32>, tensor<2x3xf32>
  }
  return %r#0, %r#1 : tensor<2x3xf32>, tensor<2x3xf32>
}
