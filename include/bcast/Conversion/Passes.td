//===- Passes.td - bcast conversion passes -----------------*- tablegen -*-===//
//
// The passes that rewrite bcast ops: bcast to linalg, the signless boundary
// that follows it (unsigned types made signless), and the run-time checks
// that lowering leaves behind (bcast.runtime_check) to code that reports a
// failure.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_CONVERSION_PASSES_TD
#define BCAST_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

// The values are shared with the pipelines' option (BroadcastPolicy.h).
defvar Bcast_PolicyOption = [{::mlir::bcast::getBroadcastPolicyValues()}];

def ConvertBcastToLinalg : Pass<"convert-bcast-to-linalg"> {
  let summary = "Lower bcast ops to linalg.generic with broadcast indexing maps";
  let description = [{
    Each bcast op becomes one `linalg.generic` over the result shape whose
    indexing maps express the broadcast, so no operand is ever copied to the
    full size:

    - a dimension an operand lacks is dropped from its map;
    - a dimension that is statically 1 in the operand indexes 0 (an affine
      constant in the map, as upstream's TosaToLinalg does). We keep the
      operand as it is rather than collapsing the 1s away with
      `tensor.collapse_shape`: a reshape between producer and consumer would
      stop element-wise fusion (`bcast-fuse-elementwise`, as
      `linalg-fuse-elementwise-ops`) from fusing chains, while constant
      map results fuse and vectorize directly (the vectorizer reads them as
      broadcasts).

    The init is a `tensor.empty` of the result shape (sizes from the
    operands' `tensor.dim` where dynamic); in-place ops use the in-place
    operand itself as the `outs`, so one-shot bufferization writes into its
    buffer. The body reads the in-place operand as an input, not through
    the output block argument: fusion keeps a producer result whose init the
    body reads, and such an in-place result fused into a consumer that
    broadcasts it would be written, and read back, once per broadcast
    element.

    Dynamic sizes follow `broadcast-policy`:

    - `numpy` (default): a `?` size that is 1 at run time broadcasts. The
      operand is wrapped in `bcast.expand_view`, which bufferizes to a
      `memref.reinterpret_cast` with stride 0 on the dimensions that are 1 at
      run time. The loops then index every operand with the result's indices:
      no per-element select or gather, no versions of the loop nest. Only an
      operand whose `?` size may differ from the result size gets a view.
    - `static` (PyTensor's rule): only sizes statically 1 broadcast; a `?`
      size must equal the others at run time, so the maps are the identity.
      The same operands get the view all the same: it keeps their `?` size
      from folding into the generic when canonicalization later proves a
      producer static and contradicting (its check always fails).

    Sizes that are not known at compile time are checked at run time by
    `bcast.runtime_check` ops placed before the generic, with the real sizes
    in PyTorch's (numpy) or PyTensor's (static) sentences; in-place ops also
    check that the in-place operand's shape does not change, and a static
    result size declared where the broadcast size is dynamic is checked too.
    `bcast-lower-runtime-checks` turns them into code.

    `bcast.specify_shape` becomes one `bcast.runtime_check` per refined size
    (`SpecifyShape: dim 1 of input has shape %ld, expected 1.`, dimension 0
    first) and a `tensor.cast` to its result type, which the checks make
    valid: no loop, no copy.

    Element-wise bodies use arith and math with PyTorch's semantics per
    element type (docs/Semantics.md).

    Integer division (`div` with a rounding mode or on integers,
    `remainder`, `fmod`) never traps: the body divides by 1 where the
    divisor is 0 (and, signed, by -1, negating instead, so that `INT_MIN //
    -1` wraps). With `check-division` (the default) a reduction over the
    divisor before the generic finds any zero and a `bcast.runtime_check`
    raises PyTorch's `ZeroDivisionError` when the result has elements; a
    constant divisor without zeros needs no check.

    Unsigned element types (`ui8`..`ui64`) stop at the linalg boundary, as
    in torch-mlir: arith works on signless integers only, so every
    `linalg.generic` is built on signless tensors (`tensor<4xi8>` for
    `tensor<4xui8>`, the same bits). An unsigned operand reaches it through
    a `builtin.unrealized_conversion_cast` to its signless twin, and an
    unsigned result leaves it through a cast back. The body keeps the
    unsigned semantics: it reads them from the op's types (`arith.divui`,
    `remui`, `maxui`, `minui`, `cmpi ult`, `uitofp`, `fptoui`, `extui`).
    The pass runs nested under `func.func` and changes no signature: the
    module pass `bcast-signless-boundary`, which the pipelines run next,
    makes the remaining unsigned types signless (function signatures,
    constants, `tensor` ops) and so folds the casts away.
  }];
  let options = [
    Option<"policy", "broadcast-policy", "::mlir::bcast::BroadcastPolicy",
           "::mlir::bcast::BroadcastPolicy::NumPy",
           "How `?` sizes broadcast at run time", Bcast_PolicyOption>,
    Option<"checkDivision", "check-division", "bool", "true",
           "Check integer divisors for zeros at run time (PyTorch's CPU "
           "`ZeroDivisionError`); the NVVM pipeline turns it off, as "
           "PyTorch's CUDA kernels do not check">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def BcastSignlessBoundary : Pass<"bcast-signless-boundary", "::mlir::ModuleOp"> {
  let summary = "Make unsigned integer types signless after the lowering "
                "(the ABI of ui8..ui64)";
  let description = [{
    Runs right after `convert-bcast-to-linalg` in the pipelines. That pass
    builds every `linalg.generic` on signless tensors and puts the unsigned
    semantics into its body, but runs nested under `func.func` and changes
    no signature, so unsigned types remain at function boundaries, in
    constants, in `tensor` ops and in the lowering's views, joined to the
    generics by `builtin.unrealized_conversion_cast`. This module pass
    makes every unsigned integer type the signless type of the same width
    (`ui8` to `i8`: the same bits), everywhere: function signatures and
    calls, results, block arguments, type attributes, dense constants
    (bitcast), tensors (keeping their encoding), memrefs and vectors. The
    casts become identities and fold away, so chains of unsigned ops fuse
    like any other.

    This is the ABI of unsigned tensors: a `ui8` function argument is an
    `i8` memref once bufferized (the same bytes; the caller passes a
    `uint8` buffer).

    Ops whose meaning depends on the signedness must have been lowered
    before: an element-wise bcast op or a `bcast.cast` with an unsigned
    type is refused (`computes on unsigned integers: lower it with
    convert-bcast-to-linalg before bcast-signless-boundary erases their
    signedness`) rather than silently made signed.
  }];
}

def BcastLowerRuntimeChecks : Pass<"bcast-lower-runtime-checks", "::mlir::ModuleOp"> {
  let summary = "Turn bcast.runtime_check into code that reports a failure";
  let description = [{
    Runs after bufferization. In `exit` mode (the default, for the command
    line and `mlir-runner`), a failing check writes its message and a newline
    to stderr with `dprintf(2, ...)` and calls `exit(1)`: no abort, no stack
    dump, no library beyond libc.

    In `report` mode (for embedders and the Python package), a failing check
    formats its message with `snprintf` into a 1024-byte buffer on the stack,
    calls the external function

        void bcastReportError(const char *message);

    which the embedder provides (it must return), and then returns early from
    the enclosing function. Memref results of the early return are freshly
    allocated buffers with their dynamic sizes set to 0 (so the caller can
    free them as usual); other results are zero. Checks must then be at the
    top level of a function body (not inside loops or other regions); a
    check elsewhere is an error.
  }];
  let options = [
    Option<"report", "report", "bool", "false",
           "Report failures to the caller (bcastReportError) instead of "
           "exiting">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def BcastShardToMPI : Pass<"bcast-shard-to-mpi", "::mlir::ModuleOp"> {
  let summary = "Partition a module annotated with shard ops and lower its "
                "collectives to MPI";
  let description = [{
    Does nothing to a module without `shard.grid`. Otherwise, in order:

    1. checks the `MPI:Implementation` DLTI entry (MPICH when absent; bcast's
       MPI runtime is built against MPICH, so another value is an error);
    2. runs `sharding-propagation{traversal=forward-backward}` and `cse` on
       every function (the default order left ops unannotated and made
       shard-partition crash in MLIR 22.1.8);
    3. rejects every split dim that is dynamic or whose size is not
       divisible by the product of its grid axes (`dim D of size S is not
       divisible by grid axis A`): partitioning would silently drop the
       remainder;
    4. runs `shard-partition`, `canonicalize` and `cse` on every function;
    5. lowers `shard.all_slice` with upstream's patterns (local slices, no
       communication), `shard.all_reduce` and `shard.all_gather` to calls of
       libbcast_mpi_runtime.so, which creates one communicator per grid and
       axis list on first use and reuses it, and the process index ops with
       `convert-shard-to-mpi`;
    6. fails on any `shard` op left but `shard.grid` (a collective with no
       lowering, e.g. `shard.all_to_all`), then erases the grids.

    docs/Sharding.md states the calling convention of the result.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::DLTIDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::mpi::MPIDialect",
    "::mlir::shard::ShardDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // BCAST_CONVERSION_PASSES_TD
