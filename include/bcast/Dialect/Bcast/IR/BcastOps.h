//===- BcastOps.h - The bcast operations ------------------------*- C++ -*-===//
//
// Declares the bcast ops (generated from BcastOps.td), the native traits that
// mark op families, and helpers shared by the verifiers, folders and passes.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_DIALECT_BCAST_IR_BCASTOPS_H
#define BCAST_DIALECT_BCAST_IR_BCASTOPS_H

#include "bcast/Dialect/Bcast/IR/BcastDialect.h"
#include "bcast/Dialect/Bcast/IR/ContractionFunctions.h"
#include "bcast/Dialect/Bcast/IR/ElementFunctions.h"
#include "bcast/Dialect/Bcast/IR/ReductionFunctions.h"
#include "bcast/Dialect/Bcast/Utils/TypePromotion.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace OpTrait {
namespace bcast {

/// Marks the element-wise broadcasting ops: all operands broadcast together
/// to the result shape.
template <typename ConcreteType>
class BroadcastElementwise
    : public TraitBase<ConcreteType, BroadcastElementwise> {};

/// Marks PyTorch's in-place variants (`bcast.add_`, ...): operand 0 is the
/// in-place tensor and the result has its type.
template <typename ConcreteType>
class InPlace : public TraitBase<ConcreteType, InPlace> {};

/// Marks ops whose result element type is i1 (the comparisons).
template <typename ConcreteType>
class BoolResult : public TraitBase<ConcreteType, BoolResult> {};

} // namespace bcast
} // namespace OpTrait
} // namespace mlir

namespace mlir {
namespace bcast {

/// How an element-wise op's compute type follows from the promoted type of
/// its operands (ODS's `computeTypeRule`).
enum class ComputeTypeRule {
  /// The promoted type itself.
  Promoted,
  /// Float (PyTorch's default float type) where the promoted type is
  /// integral or bool, as true division does.
  IntegersToFloat,
  /// A float function (exp, sqrt, ...): integral and bool operands give a
  /// Float result, and f16 and bf16 are computed in f32 and rounded once to
  /// their own type, as PyTorch's CPU kernels do.
  FloatFunction,
  /// PyTorch's `opmath_type`: the promoted type, except that f16 and bf16 are
  /// computed in f32 and rounded once (hypot, lerp, addcmul, addcdiv).
  /// Integral and bool types stay; the op's verifier rejects those its
  /// kernel lacks.
  OpMath,
};

/// What ODS says of an element-wise op's element types.
struct ElementwiseTypeRule {
  /// The result has operand 0's type (an in-place op).
  bool inPlace = false;
  /// The result has i1 elements (comparisons).
  bool boolResult = false;
  /// The element function gives i1 (the comparisons, `logical_not` and its
  /// in-place twin, which stores it in the in-place type).
  bool boolValued = false;
  /// Operand 0 is a condition, not a value operand (`where`).
  bool hasCondition = false;
  /// The last operand is a Python number (PyTorch's `Scalar` argument, such
  /// as lerp's `weight` with `scalar_weight`): it takes no part in the
  /// promotion and is converted from its own type (i1, i64 or f64) straight
  /// to the compute type, never rounded to the tensors' type first.
  bool lastOperandIsNumber = false;
  ComputeTypeRule compute = ComputeTypeRule::Promoted;
};

/// An element-wise op's element types: the type its element function
/// computes in, the type of the element function's value (the compute type,
/// or i1), the type of that value as PyTorch names it, and the result
/// element type it is converted to.
struct ElementTypes {
  Type compute;
  Type element;
  /// The out-of-place result element type: `element`, but the promoted f16
  /// or bf16 where the op computes them in f32. In place, PyTorch's canCast
  /// checks it against the in-place type.
  Type value;
  Type result;
};

/// The DType of an MLIR element type, or std::nullopt if bcast does not
/// support it.
std::optional<DType> getDType(Type type);

/// The MLIR element type of `type` (ui8 for UInt8, i8 for Int8, ...).
Type getMLIRType(MLIRContext *context, DType type);

/// PyTorch's promotion of the value operands of an element-wise op with
/// operand types `operandTypes` (ranked tensors of supported element types)
/// under `rule`. On failure, `error` (when given) receives the diagnostic.
FailureOr<ElementTypes> inferElementTypes(TypeRange operandTypes,
                                          const ElementwiseTypeRule &rule,
                                          std::string *error = nullptr);

/// The type a reduction accumulates in (ODS's `accumulator`).
enum class ReductionAccumulator {
  /// The result type, with f16 and bf16 widened to f32 (PyTorch's
  /// `opmath_type`): i64 for integer sums, f32 for an f16 mean, i1 for any.
  OpMath,
  /// The input element type (amax, argmax: they pick an element).
  Input,
};

/// A reduction as written: the dims as given (std::nullopt: every
/// dimension; possibly negative, unchecked) and keepdim.
struct ReductionSpec {
  std::optional<SmallVector<int64_t>> dims;
  bool keepdim = false;

  static std::optional<SmallVector<int64_t>>
  toList(std::optional<ArrayRef<int64_t>> dims) {
    if (!dims)
      return std::nullopt;
    return SmallVector<int64_t>(*dims);
  }
  static std::optional<SmallVector<int64_t>> toList(IntegerAttr dim) {
    if (!dim)
      return std::nullopt;
    return SmallVector<int64_t>{dim.getInt()};
  }
};

/// The type a reduction with accumulator rule `rule` accumulates in, for
/// input elements `input` and result elements `result`.
Type getReductionAccumulatorType(ReductionAccumulator rule, Type input,
                                 Type result);

/// The reduced dimensions of a reduction of a tensor of rank `rank`,
/// normalized to [0, rank) and sorted (every dimension when `spec.dims` is
/// absent); the spec must verify.
SmallVector<int64_t> getReducedDims(const ReductionSpec &spec, int64_t rank);

class ReductionOpInterface;

namespace detail {
/// Every bcast op's isCompatibleReturnTypes: it accepts the refinements the
/// verifiers accept, the same element type and rank, and equal sizes
/// wherever both are static (BcastOps.cpp).
bool areCompatibleResultTypes(TypeRange lhs, TypeRange rhs);

/// The hooks ODS's Bcast_ReductionOp calls (BcastReductions.cpp). `element`
/// is the result element type the op's rule gives (null: not accepted).
LogicalResult inferReductionType(StringRef opName, const ReductionSpec &spec,
                                 std::optional<Location> location, Type input,
                                 Type element, SmallVectorImpl<Type> &inferred);
LogicalResult verifyReduction(ReductionOpInterface op);
Speculation::Speculatability
getReductionSpeculatability(ReductionOpInterface op);
OpFoldResult foldReduction(ReductionOpInterface op, Attribute input);
} // namespace detail

} // namespace bcast
} // namespace mlir

#include "bcast/Dialect/Bcast/IR/BcastInterfaces.h.inc"

#define GET_OP_CLASSES
#include "bcast/Dialect/Bcast/IR/BcastOps.h.inc"

namespace mlir {
namespace bcast {

/// Whether `op` is one of the element-wise broadcasting ops.
inline bool isElementwiseBroadcast(Operation *op) {
  return op->hasTrait<OpTrait::bcast::BroadcastElementwise>();
}

/// Whether `op` is an in-place variant.
inline bool isInPlace(Operation *op) {
  return op->hasTrait<OpTrait::bcast::InPlace>();
}

/// The shapes of `types`, which must be ranked tensors (an element-wise op's
/// operand types), for the shape-rule module.
SmallVector<ArrayRef<int64_t>> getShapes(TypeRange types);

/// The rule of the element-wise op `op`.
ElementwiseTypeRule getElementwiseTypeRule(Operation *op);

/// The compute and result element types of the element-wise op `op`, which
/// must verify.
ElementTypes getElementTypes(Operation *op);

/// The result type of an element-wise op with operand types `operandTypes`
/// under `rule`: the broadcast shape (operand 0's type in place) with the
/// promoted result element type, or a null type if the operands do not
/// broadcast or promote.
RankedTensorType inferBroadcastType(TypeRange operandTypes,
                                    const ElementwiseTypeRule &rule);

/// The size of one dimension of a broadcast result, built at the builder's
/// insertion point from the operands' sizes there (constants for static
/// sizes): a static size that is not 1 if there is one, else the first size
/// that is not 1 at run time (1 if all are). That holds under both broadcast
/// policies for programs that pass the run-time checks. Reification and the
/// lowering's run-time checks both use it.
OpFoldResult buildBroadcastSize(OpBuilder &builder, Location loc,
                                ArrayRef<OpFoldResult> sizes);

namespace detail {
/// The folder of every element-wise op: its element function applied to
/// constant operands, for small static results (BcastFolding.cpp).
OpFoldResult foldElementwise(Operation *op, ArrayRef<Attribute> operands);
} // namespace detail

} // namespace bcast
} // namespace mlir

#endif // BCAST_DIALECT_BCAST_IR_BCASTOPS_H
