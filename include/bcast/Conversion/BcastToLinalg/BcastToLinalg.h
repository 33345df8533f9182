//===- BcastToLinalg.h - Lower bcast ops to linalg --------------*- C++ -*-===//
//
// The patterns of convert-bcast-to-linalg, for embedders that build their
// own conversion.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_CONVERSION_BCASTTOLINALG_BCASTTOLINALG_H
#define BCAST_CONVERSION_BCASTTOLINALG_BCASTTOLINALG_H

#include "bcast/Conversion/Passes.h"

namespace mlir {
class RewritePatternSet;
namespace bcast {

/// Adds the patterns that lower every bcast op (but the lowering's own
/// `expand_view` and `runtime_check`) to linalg.generic, with run-time
/// checks for dynamic sizes under `policy`; `specify_shape` becomes its
/// run-time checks and a `tensor.cast`.
void populateBcastToLinalgConversionPatterns(RewritePatternSet &patterns,
                                             BroadcastPolicy policy);

} // namespace bcast
} // namespace mlir

#endif // BCAST_CONVERSION_BCASTTOLINALG_BCASTTOLINALG_H
