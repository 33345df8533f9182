//===- Passes.td - bcast dialect passes --------------------*- tablegen -*-===//
//
// Passes that work on bcast ops without lowering them (teaching and
// debugging aids that explain broadcasts and warn about PyTorch's
// backwards-compatibility hazard), and the passes of the lowering pipeline
// that work on the linalg.generic ops bcast lowers to (fusion, vector
// loops).
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

def BcastFuseElementwise : Pass<"bcast-fuse-elementwise"> {
  let summary = "Fuse chains of element-wise linalg.generic ops on tensors, "
                "keeping in-place inits";
  let description = [{
    Fuses every element-wise producer `linalg.generic` whose result has a
    single use, as an input of a consumer generic, into that consumer
    (upstream's `fuseElementwiseOps` with the default control of
    `linalg-fuse-elementwise-ops`), so that a chain such as `(a + b) * c - d`
    becomes one loop nest with no intermediate tensors.

    Unlike `linalg-fuse-elementwise-ops`, it never replaces an `outs`
    operand that the body does not read by a `tensor.empty`: the lowering of
    an in-place op (`bcast.add_`, ...) reads its first operand as an input
    and writes the same tensor as its `outs`, so that one-shot bufferization
    writes the result into that operand's buffer; a new `tensor.empty` there
    would cost an allocation. (The lowering does not read the in-place
    operand through the output block argument: fusion keeps a producer
    result whose init the body reads, and such a kept in-place result fused
    into a consumer that broadcasts it would be written, and read back,
    once per broadcast element.)
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def BcastVectorizeElementwise : Pass<"bcast-vectorize-elementwise"> {
  let summary = "Explicit vector loops (and parallel loops) for broadcast "
                "element-wise linalg.generic ops on buffers";
  let description = [{
    Runs after bufferization. Each element-wise `linalg.generic` on memrefs
    whose maps are broadcasts (dimensions in order, dropped, or constant 0)
    becomes explicit loops:

    - The outer dimensions are one loop over rows, all outer dimensions
      counted together (a row's indices are recovered from its number), in
      blocks; with `parallel` the blocks are an `scf.parallel` (lowered to
      OpenMP later), so that a result with a short first dimension, such as
      a batch of 1, still has work for every core. Each block ends with a
      fence when non-temporal stores are used.
    - The innermost (contiguous) dimension is a loop over vectors of
      `vector-bytes` bytes plus a scalar tail. Operands that do not vary
      along it (row broadcasts, scalars) are loaded once per row and splat;
      body operations that depend only on such operands are computed once
      per row, not once per element (broadcast-aware work placement).
    - Operands whose innermost stride is only known at run time (the stride-0
      views of the numpy policy) are loaded as a vector or as a splat,
      chosen per vector by a loop-invariant branch that LLVM unswitches: one
      version of the row loop per such choice, never per element. Strides
      other than 0 and 1 take a scalar loop.
    - Results of at least `nontemporal-threshold` bytes are written with
      non-temporal stores, which skip reading the destination into the cache
      first (not for in-place results, which the loop reads anyway). For
      dynamic sizes the choice is made at run time, by one branch around the
      loop nest.

    Generics it cannot handle (elements of other than 8, 16, 32 or 64 bits,
    such as i1 or i4, which buffers store a byte or more apiece while vectors
    pack their bits; region ops in the body; transposed maps; reductions)
    are left for `convert-linalg-to-loops`.
  }];
  let options = [
    Option<"vectorBytes", "vector-bytes", "int64_t", "32",
           "Bytes per vector (32: AVX2; 64, AVX-512, splits accesses to "
           "buffers that are only 16-byte aligned across cache lines)">,
    Option<"parallel", "parallel", "bool", "true",
           "Run the outermost loop in parallel (scf.parallel)">,
    Option<"nontemporalThreshold", "nontemporal-threshold", "int64_t",
           "0",
           "Use non-temporal stores for results of at least this many bytes "
           "(0: never, the default: regular stores measured as fast or "
           "faster nearly always)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

#endif // BCAST_DIALECT_BCAST_TRANSFORMS_PASSES_TD
