//===- Passes.td - bcast dialect passes --------------------*- tablegen -*-===//
//
// Passes that work on bcast ops without lowering them: teaching and
// debugging aids that explain broadcasts and warn about PyTorch's
// backwards-compatibility hazard. One file per pass in
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

#endif // BCAST_DIALECT_BCAST_TRANSFORMS_PASSES_TD
