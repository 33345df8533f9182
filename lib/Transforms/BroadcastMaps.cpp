//===- BroadcastMaps.cpp - The generics of bcast's lowering ---------------===//
//
// Recognizes the element-wise broadcast generics that the vectorizer and
// the GPU mapping lower; each pass adds its own conditions on top.
//
//===----------------------------------------------------------------------===//

#include "bcast/Transforms/BroadcastMaps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineExpr.h"
#include "llvm/ADT/STLExtras.h"

#include <cstdint>

using namespace mlir;

bool bcast::isBroadcastIndexingMap(AffineMap map) {
  // Result `r` of `n` reads loop `loops - n + r` or is 0: a map whose
  // dimensions only increase can still misalign them, as fusion through a
  // permute of size-1 dims makes (d0, d1) -> (d1, 0), which the vectorizer
  // read as invariant along the inner loop (a wrong result).
  int64_t loops = map.getNumDims(), results = map.getNumResults();
  for (auto [r, expr] : llvm::enumerate(map.getResults())) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      if (static_cast<int64_t>(dim.getPosition()) !=
          loops - results + static_cast<int64_t>(r))
        return false;
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
