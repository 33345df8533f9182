//===- ReductionFunctions.h - What the reductions compute -------*- C++ -*-===//
//
// What the reduction entries (ReductionFunctions.cpp) are written against:
// the emitter through which an entry builds its loops without knowing how
// the lowering builds them (linalg.generic, in convert-bcast-to-linalg),
// and the identities and combiners that softmax and sum_to_size, which
// are not reductions of the family, share with them. The lowering and
// folding reach a reduction's entry through ReductionOpInterface.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_DIALECT_BCAST_IR_REDUCTIONFUNCTIONS_H
#define BCAST_DIALECT_BCAST_IR_REDUCTIONFUNCTIONS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlir {
namespace bcast {

/// Builds the loops of one reduction of the input at the builder's
/// insertion point. Tensors it returns are "reduced": of the result's
/// shape (before argmax's flattening is undone), indexed from the input's
/// loops through the reduction's map. Scalars are signless, as arith
/// requires; the types below keep their signedness.
class ReductionEmitter {
public:
  /// One step of a reduction's loop: the new accumulators from one input
  /// element `x`, the elements of the statistics it reads (reduced
  /// tensors, broadcast back over the input) and the accumulators.
  using BodyFn = function_ref<SmallVector<Value>(
      OpBuilder &, Location, Value x, ValueRange stats, ValueRange accs)>;
  /// One element of an element-wise map over reduced tensors.
  using MapFn = function_ref<Value(OpBuilder &, Location, ValueRange args)>;
  /// One accumulator from one input element (a one-accumulator BodyFn).
  using CombineFn =
      function_ref<Value(OpBuilder &, Location, Value acc, Value x)>;

  ReductionEmitter(OpBuilder &builder, Location loc, Type input,
                   Type accumulator, Type result)
      : builder(builder), loc(loc), input(input), accumulator(accumulator),
        result(result) {}
  virtual ~ReductionEmitter();

  /// A reduced tensor filled with `value` (of its element type).
  virtual Value fill(TypedAttr value) = 0;
  /// Reduces the input into `inits` (reduced tensors) with `body`, reading
  /// the reduced tensors `stats`; returns the reduced accumulators.
  virtual SmallVector<Value> reduce(ValueRange inits, ValueRange stats,
                                    BodyFn body) = 0;
  /// An element-wise map over reduced tensors `args` with result elements
  /// of `type`.
  virtual Value map(ValueRange args, Type type, MapFn fn) = 0;
  /// The number of input elements reduced into each result element, an
  /// index built at the insertion point.
  virtual Value count() = 0;
  /// Inside a BodyFn: the index of the current element along the reduced
  /// dimension, as an i64 (0 where none is reduced). For reductions of one
  /// dimension (argmax).
  virtual Value reducedIndex(OpBuilder &builder, Location loc) = 0;

  /// One pass: a reduced tensor filled with `identity`, into which
  /// `combine` folds every input element.
  Value accumulate(TypedAttr identity, CombineFn combine);
  /// The input element `x` converted to the accumulator type.
  Value load(OpBuilder &builder, Location loc, Value x) const;

  /// The element types with their signedness, and the accumulator's
  /// signless scalar type.
  Type getInputType() const { return input; }
  Type getAccumulatorType() const { return accumulator; }
  Type getResultType() const { return result; }
  Type getAccumulatorScalar() const;

  OpBuilder &builder;
  Location loc;

private:
  Type input, accumulator, result;
};

/// Identities, as constants of the signless scalar of `type`: 0, 1, the
/// lowest value (-inf, the signed or unsigned minimum) and the highest.
TypedAttr getZeroAttr(Type type);
TypedAttr getOneAttr(Type type);
TypedAttr getLowestAttr(Type type);
TypedAttr getHighestAttr(Type type);

/// `lhs + rhs` on two scalars of `type` (sum's combiner).
Value buildAdd(OpBuilder &builder, Location loc, Type type, Value lhs,
               Value rhs);

/// The passes logsumexp shares with softmax and log_softmax: the maximum
/// of the input elements (loaded to the accumulator type) into `lowest`,
/// and the sum of `exp(x - shift)` into `zeros`.
Value reduceMaximum(ReductionEmitter &emitter, Value lowest);
Value reduceShiftedExp(ReductionEmitter &emitter, Value zeros, Value shift);

/// f32 for f16 and bf16, `type` otherwise: where PyTorch computes a
/// reduction's half-precision floats.
Type getOpMathType(Type type);

} // namespace bcast
} // namespace mlir

#endif // BCAST_DIALECT_BCAST_IR_REDUCTIONFUNCTIONS_H
