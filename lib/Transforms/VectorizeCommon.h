//===- VectorizeCommon.h - Shared by the bcast vectorizers ------*- C++ -*-===//
//
// Private to lib/Transforms: the checks and index arithmetic that
// bcast-vectorize-elementwise and bcast-vectorize-reductions share, so the
// two agree on which buffers vector loads may read, and the cost test that
// bcast-fuse-elementwise and the reduction vectorizer share.
//
//===----------------------------------------------------------------------===//

// A private header: llvm-header-guard would name the guard after the checkout's
// absolute path.
#ifndef BCAST_LIB_TRANSFORMS_VECTORIZECOMMON_H // NOLINT(llvm-header-guard)
#define BCAST_LIB_TRANSFORMS_VECTORIZECOMMON_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace bcast {
namespace vectorize {

/// Whether `op`'s body has an operation that costs far more than a load and
/// a store: a math function other than the cheap ones (exp, log, tanh, ...
/// are tens of instructions per vector, even in libmvec).
inline bool hasCostlyMath(linalg::GenericOp op) {
  return llvm::any_of(op.getBody()->without_terminator(), [](Operation &inner) {
    if (inner.getDialect() == nullptr ||
        inner.getDialect()->getNamespace() != "math")
      return false;
    return !isa<math::AbsFOp, math::AbsIOp, math::CopySignOp, math::FmaOp,
                math::FloorOp, math::CeilOp, math::RoundOp, math::RoundEvenOp,
                math::TruncOp, math::SqrtOp, math::RsqrtOp>(inner);
  });
}

/// Whether vector loads and stores of `type` match the buffers' layout.
/// Buffers hold each element in whole bytes (i1 and i4 in one byte, i24 in
/// four), while vector loads and stores pack the elements' bits: only widths
/// of 8, 16, 32 and 64 bits agree.
inline bool isVectorElement(Type type) {
  if (!isa<FloatType>(type) && !type.isSignlessInteger())
    return false;
  unsigned width = type.getIntOrFloatBitWidth();
  return width >= 8 && width <= 64 && llvm::isPowerOf2_32(width);
}

/// Whether consecutive elements of the innermost dimension are adjacent,
/// known at compile time.
inline bool hasStaticUnitInnerStride(MemRefType type) {
  if (type.getRank() == 0)
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  return strides.back() == 1;
}

/// Whether an operand indexed by `map` varies along loop `rank - 1`, the
/// innermost, in its own innermost dimension.
inline bool usesInnerLoop(AffineMap map, int64_t rank) {
  return map.getNumResults() &&
         map.getResults().back() ==
             getAffineDimExpr(rank - 1, map.getContext());
}

/// Indices into an operand with broadcast map `map` at loop indices `ivs`:
/// a constant 0 in the map (a size-1 dimension) reads index `zero`.
inline SmallVector<Value> indicesFor(AffineMap map, ArrayRef<Value> ivs,
                                     Value zero) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      indices.push_back(ivs[dim.getPosition()]);
    else
      indices.push_back(zero);
  }
  return indices;
}

/// The bytes per vector of `op`: `mathVectorBytes` (when positive) for a
/// body with a costly math function, whose vector calls gain more from
/// wider vectors than its memory accesses lose (AVX-512 libmvec calls),
/// `vectorBytes` otherwise.
inline int64_t vectorBytesFor(linalg::GenericOp op, int64_t vectorBytes,
                              int64_t mathVectorBytes) {
  return mathVectorBytes > 0 && hasCostlyMath(op) ? mathVectorBytes
                                                  : vectorBytes;
}

/// The generics under `root`, collected before either pass rewrites any;
/// failure, with an error on `root`, when the pass's vector-bytes option is
/// not positive or its math-vector-bytes option is negative.
inline FailureOr<SmallVector<linalg::GenericOp>>
collectGenerics(Operation *root, int64_t vectorBytes, int64_t mathVectorBytes) {
  if (vectorBytes <= 0)
    return root->emitError() << "vector-bytes must be positive";
  if (mathVectorBytes < 0)
    return root->emitError() << "math-vector-bytes must not be negative";
  SmallVector<linalg::GenericOp> generics;
  root->walk([&](linalg::GenericOp op) { generics.push_back(op); });
  return generics;
}

} // namespace vectorize
} // namespace bcast
} // namespace mlir

#endif // BCAST_LIB_TRANSFORMS_VECTORIZECOMMON_H
