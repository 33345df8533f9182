//===- CollapseDims.cpp - One loop for dims every operand walks alike -----===//
//
// A bufferized broadcast generic whose adjacent loops every operand reads
// alike (both dims contiguous in its memory, or neither read) becomes a
// generic of fewer loops on collapsed views of its operands. The
// vectorizers vectorize the innermost loop and run a scalar tail after it:
// a BatchNorm of an [N,C,14,14] activation with [C,1,1] statistics has an
// innermost loop of 14: with 8 lanes, 6 of every 14 elements run in the
// scalar tail, and with 16 (a SiLU's exp on AVX-512) all of them, where the
// collapsed [N,C,196] loop leaves a tail of 4 (docs/Benchmarks.md has the
// measurements).
//
//===----------------------------------------------------------------------===//

#include "VectorizeCommon.h"
#include "bcast/Transforms/BroadcastMaps.h"
#include "bcast/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTCOLLAPSEDIMS
#include "bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;

/// The memref dim at which `map` reads loop `loop`, if it reads it.
static std::optional<int64_t> resultOf(AffineMap map, int64_t loop) {
  for (auto [i, expr] : llvm::enumerate(map.getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      if (static_cast<int64_t>(dim.getPosition()) == loop)
        return i;
  return std::nullopt;
}

/// Whether an operand of `type` read through `map` walks loops `outer` and
/// `outer + 1` as one: it reads neither, or reads both at dims that are
/// contiguous in memory (only size-1 dims, read at index 0, between them).
static bool walksAsOne(AffineMap map, MemRefType type, int64_t outer) {
  std::optional<int64_t> a = resultOf(map, outer);
  std::optional<int64_t> b = resultOf(map, outer + 1);
  if (!a && !b)
    return true;
  if (!a || !b || *b < *a)
    return false;
  for (int64_t d = *a + 1; d < *b; ++d)
    if (!isa<AffineConstantExpr>(map.getResult(d)))
      return false;
  if (type.getLayout().isIdentity())
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  if (ShapedType::isDynamic(strides[*a]) ||
      ShapedType::isDynamic(strides[*b]) || type.isDynamicDim(*b))
    return false;
  return strides[*a] == strides[*b] * type.getDimSize(*b);
}

/// Whether every operand of `op` is read through a broadcast map whose
/// constant results read size-1 dims (the dims a collapsed view may fold
/// into a neighbour).
static bool readsBroadcasts(linalg::GenericOp op) {
  return llvm::all_of(op->getOpOperands(), [&](OpOperand &operand) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    // (d0, d1) -> (d1, 0), fusion's map through a transpose of a column,
    // does not walk its dims in the loops' order.
    if (!type || !bcast::isBroadcastIndexingMap(map) ||
        !bcast::vectorize::readsInnerLoopLast(map, map.getNumDims()))
      return false;
    for (auto [d, expr] : llvm::enumerate(map.getResults()))
      if (isa<AffineConstantExpr>(expr) && type.getDimSize(d) != 1)
        return false;
    return true;
  });
}

/// Groups of consecutive loops that every operand walks as one, or nullopt
/// when no two loops merge.
static std::optional<SmallVector<ReassociationIndices>>
getLoopGroups(linalg::GenericOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<ReassociationIndices> groups{{0}};
  bool merged = false;
  for (int64_t loop = 1, e = op.getNumLoops(); loop < e; ++loop) {
    // Two loops of one iteration gain nothing merged, and their operands
    // may be views of rank-0 buffers (a keepdim result [1,1]), whose
    // collapsed views the vectorizer's folding turns into invalid loads.
    bool units = ranges[loop] == 1 && ranges[loop - 1] == 1;
    bool one = !units && iterators[loop] == iterators[loop - 1] &&
               llvm::all_of(op->getOpOperands(), [&](OpOperand &operand) {
                 return walksAsOne(op.getMatchingIndexingMap(&operand),
                                   cast<MemRefType>(operand.get().getType()),
                                   loop - 1);
               });
    if (one)
      groups.back().push_back(loop);
    else
      groups.push_back({loop});
    merged |= one;
  }
  if (!merged)
    return std::nullopt;
  return groups;
}

/// The generic `op` on loops `groups`: each operand a collapsed view (its
/// size-1 dims read at index 0 folded into a neighbour, its dims of one
/// group into one dim), read through the map of the new loops.
static LogicalResult collapse(RewriterBase &rewriter, linalg::GenericOp op,
                              ArrayRef<ReassociationIndices> groups) {
  SmallVector<int64_t> groupOf(op.getNumLoops());
  for (auto [g, group] : llvm::enumerate(groups))
    for (int64_t loop : group)
      groupOf[loop] = g;

  rewriter.setInsertionPoint(op);
  MLIRContext *context = op.getContext();
  SmallVector<Value> operands;
  SmallVector<AffineMap> maps;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    auto type = cast<MemRefType>(operand.get().getType());
    // Memref dims per new loop, in order; the size-1 dims before the first
    // read dim join the first group, the others the group before them.
    SmallVector<ReassociationIndices> reassociation;
    SmallVector<AffineExpr> results;
    int64_t lastGroup = -1;
    ReassociationIndices leading;
    for (auto [d, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim) {
        if (reassociation.empty())
          leading.push_back(d);
        else
          reassociation.back().push_back(d);
        continue;
      }
      int64_t g = groupOf[dim.getPosition()];
      if (g == lastGroup) {
        reassociation.back().push_back(d);
        continue;
      }
      lastGroup = g;
      reassociation.emplace_back(leading);
      leading.clear();
      reassociation.back().push_back(d);
      results.push_back(getAffineDimExpr(g, context));
    }
    Value value = operand.get();
    if (static_cast<int64_t>(reassociation.size()) != type.getRank()) {
      if (!memref::CollapseShapeOp::isGuaranteedCollapsible(type,
                                                            reassociation))
        return failure();
      value = memref::CollapseShapeOp::create(rewriter, op.getLoc(), value,
                                              reassociation);
    }
    operands.push_back(value);
    maps.push_back(AffineMap::get(groups.size(), 0, results, context));
  }

  SmallVector<utils::IteratorType> iterators;
  for (const ReassociationIndices &group : groups)
    iterators.push_back(op.getIteratorTypesArray()[group.front()]);
  int64_t numInputs = op.getNumDpsInputs();
  auto collapsed = linalg::GenericOp::create(
      rewriter, op.getLoc(), TypeRange{},
      ArrayRef<Value>(operands).take_front(numInputs),
      ArrayRef<Value>(operands).drop_front(numInputs), maps, iterators);
  collapsed->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  rewriter.inlineRegionBefore(op.getRegion(), collapsed.getRegion(),
                              collapsed.getRegion().begin());
  rewriter.eraseOp(op);
  return success();
}

namespace {
struct BcastCollapseDimsPass
    : public bcast::impl::BcastCollapseDimsBase<BcastCollapseDimsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> candidates;
    getOperation()->walk([&](linalg::GenericOp op) {
      // A body that reads its loop indices would need them rebuilt.
      if (op.hasPureBufferSemantics() && op.getNumLoops() > 1 &&
          !op.hasIndexSemantics() && readsBroadcasts(op))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : candidates)
      if (std::optional<SmallVector<ReassociationIndices>> groups =
              getLoopGroups(op))
        (void)collapse(rewriter, op, *groups);
  }
};
} // namespace
