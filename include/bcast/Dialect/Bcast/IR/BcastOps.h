//===- BcastOps.h - The bcast operations --------------------------*- C++ -*-===//
//
// Declares the bcast ops (generated from BcastOps.td), the native traits that
// mark op families, and helpers shared by the verifiers, folders and passes.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_DIALECT_BCAST_IR_BCASTOPS_H
#define BCAST_DIALECT_BCAST_IR_BCASTOPS_H

#include "bcast/Dialect/Bcast/IR/BcastDialect.h"

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

/// The scalar operation an element-wise op applies; in-place twins share
/// their out-of-place op's kind. Folding and lowering switch on it.
enum class ElementwiseKind {
  Add,
  Sub,
  Mul,
  Div,
  Remainder,
  Pow,
  Maximum,
  Minimum,
  And,
  Or,
  Xor,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  Where,
};

/// The kind of element-wise op `op` (which must have the
/// BroadcastElementwise trait).
ElementwiseKind getElementwiseKind(Operation *op);

/// How `bcast.div` rounds, from its `rounding_mode` attribute.
enum class RoundingMode { None, Trunc, Floor };

/// The rounding mode of a `bcast.div` or `bcast.div_`; None for other ops.
RoundingMode getRoundingMode(Operation *op);

/// The broadcast result type of an element-wise op with operand types
/// `operandTypes`, or a null type if they do not broadcast. `isInPlace`
/// gives operand 0's type; `boolResult` gives i1 elements; otherwise the
/// element type is that of the last operand (the branches of `where`).
RankedTensorType inferBroadcastType(TypeRange operandTypes, bool isInPlace,
                                    bool boolResult);

} // namespace bcast
} // namespace mlir

#endif // BCAST_DIALECT_BCAST_IR_BCASTOPS_H
