// Upstream's vectorizer on bcast's fused generics: the transform-dialect
// schedule that benchmarks/bench.py runs in place of bcast-vectorize-
// elementwise (the "upstream" kernels; docs/Benchmarks.md, "Upstream's
// vectorizer"). It is applied after bufferization, where bcast's own pass
// runs, so that everything else in the pipeline is the same.
//
// Every all-parallel linalg.generic of rank 2 or 3 with 32- or 64-bit
// result elements is
//   1. tiled to an scf.forall over blocks of 16 rows (every outer dimension
//      but the last tiled by 1, so that a batch of 1 still has rows to
//      share), which scf-forall-to-parallel and convert-scf-to-openmp turn
//      into the same OpenMP loop as bcast's (scf-forall-to-for for 1 thread);
//   2. tiled by scf.for to one row at a time and 32 bytes of it (8 x 32-bit
//      or 4 x 64-bit lanes, bcast's default vector-bytes=32);
//   3. the row loop peeled (loop.peel) into whole vectors and a remainder
//      where its length is not a static multiple of the vector, and each
//      piece vectorized with structured.vectorize at that size: unmasked
//      where the tile is statically full, masked in the remainder;
// then reads whose indices do not depend on the innermost loop (a column
// or a scalar operand) are hoisted out of it, and the vector.transfer ops
// are lowered to plain (or masked) vector loads and stores.
// Generics the matchers do not accept stay linalg and become scalar loops.
//
// Run: bcast-opt --pass-pipeline='builtin.module(...,
//   transform-preload-library{transform-library-paths=THIS},
//   transform-interpreter, ...)' (bench.py builds the whole pipeline).

module attributes {transform.with_named_sequence} {

  //===--------------------------------------------------------------------===//
  // Matchers
  //===--------------------------------------------------------------------===//

  /// Succeeds on an all-parallel linalg.generic of rank `rank` whose result
  /// elements are `bits` wide.
  transform.named_sequence @match_elementwise(
      %op: !transform.any_op {transform.readonly},
      %rank: !transform.param<i64> {transform.readonly},
      %bits: !transform.param<i64> {transform.readonly}) {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %r, %b = transform.match.structured %op
        : (!transform.any_op)
        -> (!transform.param<i64>, !transform.param<i64>) {
    ^bb0(%s: !transform.any_op):
      %r = transform.match.structured.rank %s
          : (!transform.any_op) -> !transform.param<i64>
      transform.match.structured.dim %s[all] {parallel} : !transform.any_op
      %init = transform.match.structured.init %s[0]
          : (!transform.any_op) -> !transform.any_value
      %b = transform.match.structured.elemental_bitwidth %init
          : (!transform.any_value) -> !transform.param<i64>
      transform.match.structured.yield %r, %b
          : !transform.param<i64>, !transform.param<i64>
    }
    transform.match.param.cmpi eq %r, %rank : !transform.param<i64>
    transform.match.param.cmpi eq %b, %bits : !transform.param<i64>
    transform.yield
  }

  /// The matchers yield the op and its number of lanes per 32 bytes.
  transform.named_sequence @match_rank2_32bit(
      %op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.param<i64>) {
    %rank = transform.param.constant 2 : i64 -> !transform.param<i64>
    %bits = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.include @match_elementwise failures(propagate) (%op, %rank, %bits)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> ()
    %lanes = transform.param.constant 8 : i64 -> !transform.param<i64>
    transform.yield %op, %lanes : !transform.any_op, !transform.param<i64>
  }

  transform.named_sequence @match_rank2_64bit(
      %op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.param<i64>) {
    %rank = transform.param.constant 2 : i64 -> !transform.param<i64>
    %bits = transform.param.constant 64 : i64 -> !transform.param<i64>
    transform.include @match_elementwise failures(propagate) (%op, %rank, %bits)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> ()
    %lanes = transform.param.constant 4 : i64 -> !transform.param<i64>
    transform.yield %op, %lanes : !transform.any_op, !transform.param<i64>
  }

  transform.named_sequence @match_rank3_32bit(
      %op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.param<i64>) {
    %rank = transform.param.constant 3 : i64 -> !transform.param<i64>
    %bits = transform.param.constant 32 : i64 -> !transform.param<i64>
    transform.include @match_elementwise failures(propagate) (%op, %rank, %bits)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> ()
    %lanes = transform.param.constant 8 : i64 -> !transform.param<i64>
    transform.yield %op, %lanes : !transform.any_op, !transform.param<i64>
  }

  transform.named_sequence @match_rank3_64bit(
      %op: !transform.any_op {transform.readonly})
      -> (!transform.any_op, !transform.param<i64>) {
    %rank = transform.param.constant 3 : i64 -> !transform.param<i64>
    %bits = transform.param.constant 64 : i64 -> !transform.param<i64>
    transform.include @match_elementwise failures(propagate) (%op, %rank, %bits)
        : (!transform.any_op, !transform.param<i64>, !transform.param<i64>)
        -> ()
    %lanes = transform.param.constant 4 : i64 -> !transform.param<i64>
    transform.yield %op, %lanes : !transform.any_op, !transform.param<i64>
  }

  //===--------------------------------------------------------------------===//
  // Actions: threads, then rows of vectors
  //===--------------------------------------------------------------------===//

  transform.named_sequence @vectorize_rank2(
      %op: !transform.any_op {transform.consumed},
      %lanes: !transform.param<i64> {transform.readonly}) {
    %tiled, %forall = transform.structured.tile_using_forall %op
        tile_sizes [16, 0]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %vector, %loops:2 = transform.structured.tile_using_for %tiled
        tile_sizes [1, %lanes]
        : (!transform.any_op, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %generics = transform.include @peel failures(propagate) (%forall, %loops#1)
        : (!transform.any_op, !transform.any_op) -> !transform.any_op
    transform.structured.vectorize %generics vector_sizes [1, %lanes]
        : !transform.any_op, !transform.param<i64>
    transform.yield
  }

  transform.named_sequence @vectorize_rank3(
      %op: !transform.any_op {transform.consumed},
      %lanes: !transform.param<i64> {transform.readonly}) {
    %tiled, %forall = transform.structured.tile_using_forall %op
        tile_sizes [1, 16, 0]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %vector, %loops:3 = transform.structured.tile_using_for %tiled
        tile_sizes [1, 1, %lanes]
        : (!transform.any_op, !transform.param<i64>)
        -> (!transform.any_op, !transform.any_op, !transform.any_op,
            !transform.any_op)
    %generics = transform.include @peel failures(propagate) (%forall, %loops#2)
        : (!transform.any_op, !transform.any_op) -> !transform.any_op
    transform.structured.vectorize %generics vector_sizes [1, 1, %lanes]
        : !transform.any_op, !transform.param<i64>
    transform.yield
  }

  /// Splits the innermost loop into whole vectors and a remainder (nothing
  /// to split where the row length is a static multiple of the vector: the
  /// caller ignores the failure) and returns the generics in the forall, to
  /// be vectorized: the whole vectors' unmasked, the remainder's masked.
  transform.named_sequence @peel(
      %forall: !transform.any_op {transform.readonly},
      %inner: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.include @peel_loop failures(suppress) (%inner)
        : (!transform.any_op) -> ()
    // Folds the whole vectors' sizes to constants (static shapes).
    transform.apply_patterns to %forall {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    %generics = transform.structured.match ops{["linalg.generic"]} in %forall
        : (!transform.any_op) -> !transform.any_op
    transform.yield %generics : !transform.any_op
  }

  transform.named_sequence @peel_loop(
      %loop: !transform.any_op {transform.readonly}) {
    %for = transform.cast %loop : !transform.any_op to !transform.op<"scf.for">
    %whole, %remainder = transform.loop.peel %for
        : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }

  //===--------------------------------------------------------------------===//
  // Entry point
  //===--------------------------------------------------------------------===//

  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.consumed}) {
    %updated = transform.foreach_match in %root
        @match_rank2_32bit -> @vectorize_rank2,
        @match_rank2_64bit -> @vectorize_rank2,
        @match_rank3_32bit -> @vectorize_rank3,
        @match_rank3_64bit -> @vectorize_rank3
        : (!transform.any_op) -> !transform.any_op
    %funcs = transform.structured.match ops{["func.func"]} in %updated
        : (!transform.any_op) -> !transform.any_op
    // Before the transfers are lowered: it hoists a read whose indices are
    // invariant in the innermost loop (a column's or a scalar's broadcast).
    %hoisted = transform.structured.hoist_redundant_vector_transfers %funcs
        : (!transform.any_op) -> !transform.any_op
    // lower_broadcast is left out: with the other patterns it never
    // converged here (mlir-opt 22 ran out of memory on the row workload);
    // convert-vector-to-llvm lowers the broadcasts.
    transform.apply_patterns to %hoisted {
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_masked_transfers
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
}
