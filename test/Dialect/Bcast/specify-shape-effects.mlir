// What bcast.specify_shape's run-time check guards (docs/Semantics.md): the
// op is a value, as PyTensor's SpecifyShape is. It has no memory effect, so
// an unused one is removed with its check; it is not speculatable, so a used
// one is never hoisted where it would not have run.
// RUN: bcast-opt %s -canonicalize | FileCheck %s --check-prefix=DEAD
// RUN: bcast-opt %s -loop-invariant-code-motion | FileCheck %s --check-prefix=LICM

// DEAD-LABEL: func @unused
// DEAD-NOT: bcast.specify_shape
// DEAD: return
func.func @unused(%y: tensor<?x?xf32>) {
  %r = bcast.specify_shape %y : (tensor<?x?xf32>) -> tensor<?x1xf32>
  return
}

// A loop that may run zero times: the check stays inside it (a wrong size
// is only an error if the loop runs). A specify_shape that refines nothing
// checks nothing and is speculatable: it is hoisted.
// LICM-LABEL: func @in_loop
// LICM: bcast.specify_shape %{{.*}} : (tensor<?x1xf32>) -> tensor<?x1xf32>
// LICM: scf.for
// LICM: bcast.specify_shape %{{.*}} : (tensor<?x?xf32>) -> tensor<?x1xf32>
// LICM: scf.yield
func.func @in_loop(%y: tensor<?x?xf32>, %z: tensor<?x1xf32>, %n: index) -> tensor<?x1xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = tensor.empty() : tensor<1x1xf32>
  %initd = tensor.cast %init : tensor<1x1xf32> to tensor<?x1xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %initd) -> tensor<?x1xf32> {
    %c = bcast.specify_shape %y : (tensor<?x?xf32>) -> tensor<?x1xf32>
    %k = bcast.specify_shape %z : (tensor<?x1xf32>) -> tensor<?x1xf32>
    %u = bcast.add %c, %k : (tensor<?x1xf32>, tensor<?x1xf32>) -> tensor<?x1xf32>
    %v = bcast.add %u, %acc : (tensor<?x1xf32>, tensor<?x1xf32>) -> tensor<?x1xf32>
    scf.yield %v : tensor<?x1xf32>
  }
  return %r : tensor<?x1xf32>
}
