//===- BroadcastMaps.h - The generics of bcast's lowering -------*- C++ -*-===//
//
// The form of the element-wise generics that convert-bcast-to-linalg and
// fusion produce, as the passes that work on them once bufferized
// (vectorization, the GPU mapping) recognize it: one test, so that both
// accept the same generics.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_TRANSFORMS_BROADCASTMAPS_H
#define BCAST_TRANSFORMS_BROADCASTMAPS_H

#include "mlir/IR/AffineMap.h"

namespace mlir {
namespace linalg {
class GenericOp;
} // namespace linalg
namespace bcast {

/// A broadcast indexing map: each result is a loop dimension, in increasing
/// order (an operand's trailing dimensions aligned with the loops'), or the
/// constant 0 (a dimension of size 1 broadcast along its loop).
bool isBroadcastIndexingMap(AffineMap map);

/// An element-wise broadcast generic on buffers: one init (or, with
/// `multipleOutputs`, one or more: bcast-fuse-elementwise's fused in-place
/// updates of several buffers), all loops parallel, every operand a memref,
/// the inits indexed by the identity and every input by a broadcast
/// indexing map. Its body is not looked at.
bool isElementwiseBroadcastGeneric(linalg::GenericOp op,
                                   bool multipleOutputs = false);

} // namespace bcast
} // namespace mlir

#endif // BCAST_TRANSFORMS_BROADCASTMAPS_H
