//===- ContractionFunctions.h - The contraction family's hooks --*- C++ -*-===//
//
// The functions ODS's contraction ops (BcastContractionOps.td) call for
// their verifier, shape inference, reification, speculatability and folder,
// and the result sizes the lowering builds. Included by BcastOps.h.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_DIALECT_BCAST_IR_CONTRACTIONFUNCTIONS_H
#define BCAST_DIALECT_BCAST_IR_CONTRACTIONFUNCTIONS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace bcast {

/// The sizes of the result of `torch.matmul(lhs, rhs)` (ranked tensors that
/// multiply), built at the builder's insertion point: constants where
/// `resultType` (when given) or the operands are static, else `tensor.dim`
/// values, and for a batch dim the broadcast of the operands' sizes
/// (buildBroadcastSize).
SmallVector<OpFoldResult> buildMatmulResultSizes(OpBuilder &builder,
                                                 Location loc, Value lhs,
                                                 Value rhs,
                                                 Type resultType = {});

namespace detail {
LogicalResult inferMatmulType(StringRef opName,
                              std::optional<Location> location, Type lhs,
                              Type rhs, SmallVectorImpl<Type> &inferred);
LogicalResult verifyMatmul(Operation *op);
Speculation::Speculatability getMatmulSpeculatability(Operation *op);
LogicalResult reifyMatmulShape(OpBuilder &builder, Operation *op,
                               ReifiedRankedShapedTypeDims &reified);
OpFoldResult foldMatmul(Operation *op, Attribute lhs, Attribute rhs);
} // namespace detail

} // namespace bcast
} // namespace mlir

#endif // BCAST_DIALECT_BCAST_IR_CONTRACTIONFUNCTIONS_H
