//===- BroadcastMaps.cpp - The generics of bcast's lowering ---------------===//
//
// Recognizes the element-wise broadcast generics that the vectorizer and
// the GPU mapping lower; each pass adds its own conditions on top.
//
//===----------------------------------------------------------------------===//

#include "bcast/Transforms/BroadcastMaps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineExpr.h"

#include <cstdint>

using namespace mlir;

bool bcast::isBroadcastIndexingMap(AffineMap map) {
  int64_t last = -1;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      if (static_cast<int64_t>(dim.getPosition()) <= last)
        return false;
      last = dim.getPosition();
      continue;
    }
    auto constant = dyn_cast<AffineConstantExpr>(expr);
    if (!constant || constant.getValue() != 0)
      return false;
  }
  return true;
}

bool bcast::isElementwiseBroadcastGeneric(linalg::GenericOp op,
                                          bool multipleOutputs) {
  if (op.getNumDpsInits() < 1 ||
      (op.getNumDpsInits() > 1 && !multipleOutputs) ||
      !op.hasPureBufferSemantics())
    return false;
  if (llvm::any_of(op.getIteratorTypesArray(), [](utils::IteratorType t) {
        return t != utils::IteratorType::parallel;
      }))
    return false;
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!op.getMatchingIndexingMap(&init).isIdentity())
      return false;
  for (OpOperand &operand : op->getOpOperands())
    if (!isa<MemRefType>(operand.get().getType()) ||
        !isBroadcastIndexingMap(op.getMatchingIndexingMap(&operand)))
      return false;
  return true;
}
