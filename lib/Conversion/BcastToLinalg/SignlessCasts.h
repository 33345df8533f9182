//===- SignlessCasts.h - Shared by convert-bcast-to-linalg ------*- C++ -*-===//
//
// What the element-wise, reduction and contraction lowerings of
// convert-bcast-to-linalg share: every linalg.generic is built on signless
// tensors, with unrealized casts at unsigned operands and results (removed
// by bcast-signless-boundary); and the permute lowering, which the matmul
// lowering calls for a permute it cannot read through.
//
//===----------------------------------------------------------------------===//

// A private header: llvm-header-guard would name the guard after the checkout's
// absolute path.
#ifndef BCAST_LIB_CONVERSION_BCASTTOLINALG_SIGNLESSCASTS_H // NOLINT(llvm-header-guard)
#define BCAST_LIB_CONVERSION_BCASTTOLINALG_SIGNLESSCASTS_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace bcast {

/// `type` (a ranked tensor) with unsigned integer elements made signless, as
/// arith and the linalg bodies require; other types as they are.
RankedTensorType getSignlessType(RankedTensorType type);

/// `value` as a signless tensor: itself, or an unrealized cast of an unsigned
/// tensor to its signless twin (the same bits).
Value castToSignless(OpBuilder &b, Location loc, Value value);

/// The signless result `value` of a generic as a tensor of type `type` (its
/// unsigned twin, or its own type).
Value castFromSignless(OpBuilder &b, Location loc, Value value, Type type);

/// The map through which a generic over the loops of `permute`'s result
/// reads its source: source dim `dims[i]` is loop `i`.
AffineMap getPermuteSourceMap(ArrayRef<int64_t> permutation,
                              MLIRContext *context);

/// Replaces `op` by a linalg.generic that reads its source through
/// getPermuteSourceMap (a copy only where nothing fuses it away).
void lowerPermute(RewriterBase &rewriter, class PermuteOp op);

/// Adds the patterns that lower the reductions, softmax, log_softmax and
/// sum_to_size (ReductionsToLinalg.cpp).
void populateReductionToLinalgPatterns(RewritePatternSet &patterns);

} // namespace bcast
} // namespace mlir

#endif // BCAST_LIB_CONVERSION_BCASTTOLINALG_SIGNLESSCASTS_H
