//===- Passes.td - bcast dialect passes --------------------*- tablegen -*-===//
//
// Passes that work on bcast ops without lowering them: teaching and
// debugging aids that explain broadcasts and warn about PyTorch's
// backwards-compatibility hazard, and the strict mode that forbids implicit
// promotions. One file per pass in
// lib/Dialect/Bcast/Transforms, named after its flag.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_DIALECT_BCAST_TRANSFORMS_PASSES_TD
#define BCAST_DIALECT_BCAST_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def BcastExplain : Pass<"bcast-explain"> {
  let summary = "Emit a remark per bcast op explaining how its operands align";
  let description = [{
    For teaching and debugging: every bcast op gets a remark that walks its
    dimensions from the trailing one, as PyTorch's broadcasting notes do,
    naming the operands a, b (and c for `where`) as the diagnostics do:

    ```
    broadcast of a [5, 1, 4, 1] and b [3, 1, 1] to [5, 3, 4, 1]: 1st
    trailing dimension: both have size 1; 2nd: b has size 1 and is expanded
    to 4; 3rd: a has size 1 and is expanded to 3; 4th: b's dimension doesn't
    exist
    ```

    `broadcast_to` is explained as the broadcast of its operand against the
    target shape.
  }];
}

def BcastBackcompatWarnings : Pass<"bcast-backcompat-warnings"> {
  let summary = "Warn where broadcasting changes PyTorch's old 1-d behaviour";
  let description = [{
    Emits PyTorch's backwards-compatibility warning ("self and other do not
    have the same shape, but are broadcastable, and have the same number of
    elements.") on every binary bcast op whose operands have different
    static shapes with the same number of elements: older PyTorch viewed
    such operands as 1-dimensional instead of broadcasting them, e.g.
    `[4, 1] + [4]` gave `[4, 1]` and now gives `[4, 4]`.
  }];
}

def BcastStrict : Pass<"bcast-strict"> {
  let summary = "Reject implicit rank and element-type promotions";
  let description = [{
    For people who want no implicit conversions (JAX's
    `jax_numpy_rank_promotion="raise"`, TOSA and StableHLO style): an error
    on every element-wise op with

    - an implicit rank promotion: a value operand of rank 1 or more whose
      rank is lower than the result's (rank-0 operands are scalars and
      exempt, as in JAX), e.g. `rank promotion of tensor b from rank 1 to
      rank 2 is implicit; make it explicit with bcast.broadcast_to or
      tensor.expand_shape`;
    - an implicit element-type promotion: a value operand whose element type
      is not the type the op computes in, e.g. `promotion of tensor b from
      'i32' to 'f32' is implicit; make it explicit with bcast.cast`.

    Operands are named a, b, c in operand order, as in the other
    diagnostics. With `warn-only=true` the same messages are warnings and the
    pass succeeds.
  }];
  let options = [
    Option<"warnOnly", "warn-only", "bool", "false",
           "Report implicit promotions as warnings instead of errors">,
  ];
}

#endif // BCAST_DIALECT_BCAST_TRANSFORMS_PASSES_TD
