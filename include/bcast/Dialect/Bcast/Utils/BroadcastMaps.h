//===- BroadcastMaps.h - The indexing maps of broadcast generics -*- C++ -*-===//
//
// The form of the indexing maps convert-bcast-to-linalg gives broadcast
// operands, which the passes working on its generics (vectorization, the
// GPU mapping) rely on.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_DIALECT_BCAST_UTILS_BROADCASTMAPS_H
#define BCAST_DIALECT_BCAST_UTILS_BROADCASTMAPS_H

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"

#include <cstdint>

namespace mlir::bcast {

/// A broadcast indexing map: each result is a loop dimension, in increasing
/// order (an operand's trailing dimensions aligned with the loops'), or the
/// constant 0 (a dimension of size 1 broadcast along its loop).
inline bool isBroadcastIndexingMap(AffineMap map) {
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

} // namespace mlir::bcast

#endif // BCAST_DIALECT_BCAST_UTILS_BROADCASTMAPS_H
