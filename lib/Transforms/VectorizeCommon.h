//===- VectorizeCommon.h - Shared by the bcast vectorizers ------*- C++ -*-===//
//
// Private to lib/Transforms: the checks and index arithmetic that
// bcast-vectorize-elementwise and bcast-vectorize-reductions share, so the
// two agree on which buffers vector loads may read and on each generic's
// vector width, and the cost test bcast-fuse-elementwise shares;
// whether an op's loops are already shared among threads; and the branch on
// a loop nest's size that the grain size and non-temporal stores take.
//
//===----------------------------------------------------------------------===//

// A private header: llvm-header-guard would name the guard after the checkout's
// absolute path.
#ifndef BCAST_LIB_TRANSFORMS_VECTORIZECOMMON_H // NOLINT(llvm-header-guard)
#define BCAST_LIB_TRANSFORMS_VECTORIZECOMMON_H

#include "bcast/Transforms/Parallel.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace bcast {
namespace vectorize {

/// Whether `inner` costs far more than a load and a store: a math function
/// other than the cheap ones (exp, log, tanh, ... are tens of instructions
/// per vector, even in libmvec), or the last op of one written out inline
/// (kInlineMathAttrName).
inline bool isCostlyMath(Operation &inner) {
  if (inner.hasAttr(kInlineMathAttrName))
    return true;
  if (inner.getDialect() == nullptr ||
      inner.getDialect()->getNamespace() != "math")
    return false;
  return !isa<math::AbsFOp, math::AbsIOp, math::CopySignOp, math::FmaOp,
              math::FloorOp, math::CeilOp, math::RoundOp, math::RoundEvenOp,
              math::TruncOp, math::SqrtOp, math::RsqrtOp>(inner);
}

/// Whether `op`'s body has a costly math function (isCostlyMath).
inline bool hasCostlyMath(linalg::GenericOp op) {
  return llvm::any_of(op.getBody()->without_terminator(), isCostlyMath);
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

/// Whether loop `rank - 1`, the innermost, is read by `map` only in its
/// last result, if at all. The vectorizers take an operand whose last
/// result is not that loop for invariant along it; fusion through a
/// transpose of a column makes (d0, d1) -> (d1, 0), a broadcast map that
/// reads along it in its first dim (x + x.t() gave x + x[0]). Such generics
/// are left to plain loops.
inline bool readsInnerLoopLast(AffineMap map, int64_t rank) {
  int64_t results = map.getNumResults();
  for (int64_t r = 0; r + 1 < results; ++r)
    if (map.getResult(r).isFunctionOfDim(rank - 1))
      return false;
  return true;
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

/// Whether a costly math function of `op`'s body (hasCostlyMath) computes
/// a value that varies along the innermost loop: one that reads a block
/// argument whose operand is indexed by that loop, directly or through
/// other body ops. The vectorizers compute the others once per row
/// (log-softmax's `log(sum)`).
inline bool hasVaryingCostlyMath(linalg::GenericOp op) {
  int64_t innermost = static_cast<int64_t>(op.getNumLoops()) - 1;
  if (innermost < 0 || !hasCostlyMath(op))
    return false;
  llvm::SmallPtrSet<Value, 8> varying;
  for (OpOperand &operand : op->getOpOperands())
    if (op.getMatchingIndexingMap(&operand).isFunctionOfDim(innermost))
      varying.insert(op.getMatchingBlockArgument(&operand));
  for (Operation &inner : op.getBody()->without_terminator()) {
    if (llvm::none_of(inner.getOperands(),
                      [&](Value v) { return varying.contains(v); }))
      continue;
    for (Value result : inner.getResults())
      varying.insert(result);
    if (isCostlyMath(inner))
      return true;
  }
  return false;
}

/// Whether `op` runs inside a loop that already decided how its rows are
/// shared among threads: an `scf.parallel`, or a row-block loop that
/// bcast-fuse-rows kept on one thread (below the grain size). Its own
/// loops then stay sequential.
inline bool isInsideRowTasks(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (isa<scf::ParallelOp>(parent) ||
        (isa<scf::ForOp>(parent) && parent->hasAttr(kSequentialRowsAttrName)))
      return true;
  return false;
}

/// The buffer that `value` views through view-like ops (subviews, casts,
/// reshapes): a loop over such views, such as bcast-fuse-rows' chunks of
/// rows, walks all of it.
inline Value viewedBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// Whether the buffers `op`'s operands view (viewedBuffer), each counted
/// once, all have static shapes and hold at most `limit` bytes together.
/// (The vectorizers take only generics on memrefs.)
inline bool buffersFitIn(linalg::GenericOp op, int64_t limit) {
  llvm::SmallPtrSet<Value, 8> seen;
  uint64_t total = 0;
  for (Value operand : op->getOperands()) {
    Value buffer = viewedBuffer(operand);
    if (!seen.insert(buffer).second)
      continue;
    auto type = dyn_cast<MemRefType>(buffer.getType());
    if (!type || !type.hasStaticShape() ||
        !type.getElementType().isIntOrFloat())
      return false;
    bool overflow = false;
    uint64_t bytes = llvm::SaturatingMultiply<uint64_t>(
        type.getNumElements(),
        llvm::divideCeil(type.getElementTypeBitWidth(), 8), &overflow);
    total = llvm::SaturatingAdd<uint64_t>(total, bytes, &overflow);
    if (overflow || total > static_cast<uint64_t>(limit))
      return false;
  }
  return true;
}

/// The vectorizers' options that choose a generic's bytes per vector.
struct VectorWidths {
  /// The default.
  int64_t vectorBytes;
  /// A body that computes a costly math function per element (0: none).
  int64_t mathVectorBytes;
  /// Buffers that fit in `inCacheBytes` (0: none).
  int64_t inCacheVectorBytes;
  int64_t inCacheBytes;
};

/// The bytes per vector of `op`: `mathVectorBytes` (when positive) for a
/// body with a costly math function computed per element, whose vector
/// calls gain more from wider vectors than its memory accesses lose
/// (AVX-512 libmvec calls); `inCacheVectorBytes` (when positive) for one
/// whose buffers fit in `inCacheBytes`: in the cache wider vectors do more
/// per instruction, while kernels streaming from memory, whose 64-byte
/// accesses to buffers only 16-byte aligned straddle cache lines, were
/// measured slower with them (docs/Benchmarks.md, "Vector width by size");
/// `vectorBytes` otherwise.
inline int64_t vectorBytesFor(linalg::GenericOp op,
                              const VectorWidths &widths) {
  if (widths.mathVectorBytes > 0 && hasVaryingCostlyMath(op))
    return widths.mathVectorBytes;
  if (widths.inCacheVectorBytes > 0 && buffersFitIn(op, widths.inCacheBytes))
    return widths.inCacheVectorBytes;
  return widths.vectorBytes;
}

/// The generics under `root`, collected before either pass rewrites any;
/// failure, with an error on `root`, when the pass's vector-bytes option is
/// not positive or another of `widths` is negative.
inline FailureOr<SmallVector<linalg::GenericOp>>
collectGenerics(Operation *root, const VectorWidths &widths) {
  if (widths.vectorBytes <= 0)
    return root->emitError() << "vector-bytes must be positive";
  if (widths.mathVectorBytes < 0)
    return root->emitError() << "math-vector-bytes must not be negative";
  if (widths.inCacheVectorBytes < 0)
    return root->emitError() << "in-cache-vector-bytes must not be negative";
  if (widths.inCacheBytes < 0)
    return root->emitError() << "in-cache-bytes must not be negative";
  SmallVector<linalg::GenericOp> generics;
  root->walk([&](linalg::GenericOp op) { generics.push_back(op); });
  return generics;
}

/// Calls `emit(builder, reached)` where `reached` says whether `scale` times
/// the product of `sizes` is at least `threshold`: once, decided here, when
/// every size is a constant; else once in each branch of one `scf.if` on
/// the run-time product, so that the choice costs one compare per call,
/// not one per loop iteration.
inline void
emitSizeThresholdBranch(OpBuilder &b, Location loc, ValueRange sizes,
                        int64_t scale, int64_t threshold,
                        function_ref<void(OpBuilder &, bool reached)> emit) {
  int64_t product = scale;
  bool isStatic = true;
  for (Value size : sizes) {
    std::optional<int64_t> constant = getConstantIntValue(size);
    isStatic = isStatic && constant;
    product *= constant.value_or(1);
  }
  if (isStatic) {
    emit(b, product >= threshold);
    return;
  }
  Value runtime =
      scale == 1 ? Value() : arith::ConstantIndexOp::create(b, loc, scale);
  for (Value size : sizes)
    runtime =
        runtime ? Value(arith::MulIOp::create(b, loc, runtime, size)) : size;
  Value reached =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, runtime,
                            arith::ConstantIndexOp::create(b, loc, threshold));
  scf::IfOp::create(
      b, loc, reached,
      [&](OpBuilder &tb, Location tloc) {
        emit(tb, true);
        scf::YieldOp::create(tb, tloc);
      },
      [&](OpBuilder &eb, Location eloc) {
        emit(eb, false);
        scf::YieldOp::create(eb, eloc);
      });
}

} // namespace vectorize
} // namespace bcast
} // namespace mlir

#endif // BCAST_LIB_TRANSFORMS_VECTORIZECOMMON_H
