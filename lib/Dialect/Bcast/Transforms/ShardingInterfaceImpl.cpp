//===- ShardingInterfaceImpl.cpp - Broadcast-aware sharding ---------------===//
//
// shard::ShardingInterface for bcast ops, written so that upstream's default
// propagation (sharding-propagation) can be reused: the ops describe
// themselves as loops and indexing maps, and partition each op itself.
//
// Broadcasting is where upstream's element-wise model (TOSA's identity maps)
// goes wrong: an operand dim of size 1 that broadcasts must never take the
// result dim's split. Upstream's propagation accepts only dims and sums of
// `const * dim` in operand maps (no constant 0), so such a dim is mapped to
// one extra parallel loop that no result references: nothing ever splits
// it, and the operand stays whole along it, with no communication. A
// missing leading dim is simply absent from the map.
//
// Reductions (and sum_to_size) split along a reduced dim reduce their local
// shard and finish with `shard.all_reduce` of the matching kind (mean: the
// average of equal shards' means). Reductions with no associative
// combination of partial results (var, std, logsumexp, argmax, argmin) are
// rejected there, as softmax and log_softmax split along their dim are.
//
// matmul's loops are its batch dims, M, N (parallel) and K (a sum): split
// along K, each process multiplies its blocks and `shard.all_reduce` sums
// the partial products. Its broadcast batch dims map to the extra loop as
// element-wise ops' do. A split batch dim of `?` size on an operand (which
// may broadcast at run time) and a bf16 K split (partial products would be
// rounded twice) are rejected.
//
// specify_shape and expand_view keep every dim in place and split like an
// element-wise op, except along the dims whose sizes are decided at run
// time: a size specify_shape refines from `?`, and a `?` size expand_view
// may broadcast. Those are rejected split. runtime_check reads scalars only
// and is cloned as it is.
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/Transforms/ShardingInterfaceImpl.h"
#include "bcast/Dialect/Bcast/IR/BcastDialect.h"
#include "bcast/Dialect/Bcast/IR/BcastOps.h"
#include "bcast/Dialect/Bcast/Utils/MatmulRules.h"

#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterface.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

#include <type_traits>

using namespace mlir;
using namespace mlir::bcast;

//===----------------------------------------------------------------------===//
// Utilities
//===----------------------------------------------------------------------===//

/// The split axes of `sharding` for each of `rank` dims (empty when the dim
/// is whole, or when `sharding` is null: replicated).
static SmallVector<SmallVector<shard::GridAxis>>
splitAxesPerDim(shard::Sharding sharding, int64_t rank) {
  SmallVector<SmallVector<shard::GridAxis>> axes(rank);
  if (!sharding)
    return axes;
  for (auto [dim, dimAxes] : llvm::enumerate(sharding.getSplitAxes()))
    if (static_cast<int64_t>(dim) < rank)
      axes[dim] = llvm::to_vector(dimAxes.asArrayRef());
  return axes;
}

/// Whether operand dim `operandSize` broadcasts to result dim `resultSize`:
/// a static 1 against anything but a static 1.
static bool isBroadcastDim(int64_t operandSize, int64_t resultSize) {
  return operandSize == 1 && resultSize != 1;
}

/// Halo sizes and explicit shard offsets describe uneven or overlapping
/// shards; bcast partitions only equal contiguous blocks.
static LogicalResult checkEvenSharding(Operation *op, shard::Sharding sharding,
                                       StringRef what) {
  if (!sharding)
    return success();
  if (!sharding.getStaticHaloSizes().empty() ||
      !sharding.getDynamicHaloSizes().empty() ||
      !sharding.getStaticShardedDimsOffsets().empty() ||
      !sharding.getDynamicShardedDimsOffsets().empty())
    return op->emitOpError()
           << "cannot be partitioned with halo sizes or sharded dims offsets "
              "on its "
           << what << "; bcast splits dims into equal contiguous blocks";
  return success();
}

/// Formats the grid axes of one dim as `[0, 1]` for diagnostics.
static std::string formatAxisList(ArrayRef<shard::GridAxis> axes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleaveComma(axes, os);
  os << "]";
  return text;
}

/// Formats split axes per dim as `[[0], [], [1]]` for diagnostics.
static std::string formatAxes(ArrayRef<SmallVector<shard::GridAxis>> axes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleaveComma(axes, os, [&](const SmallVector<shard::GridAxis> &a) {
    os << formatAxisList(a);
  });
  os << "]";
  return text;
}

/// Drops trailing empty entries so that `[[0], []]` equals `[[0]]`.
static void trimTrailing(SmallVector<SmallVector<shard::GridAxis>> &axes) {
  while (!axes.empty() && axes.back().empty())
    axes.pop_back();
}

/// Clones `op` on its partitioned operands and gives each result the local
/// type of its sharding.
static Operation *cloneLocally(Operation *op,
                               ArrayRef<shard::Sharding> resultShardings,
                               IRMapping &partitionMap,
                               SymbolTableCollection &symbolTable,
                               OpBuilder &builder) {
  Operation *local = builder.clone(*op, partitionMap);
  for (auto [result, sharding] :
       llvm::zip_equal(local->getResults(), resultShardings)) {
    if (!sharding)
      continue;
    result.setType(shard::shardType(
        result.getType(),
        shard::getGridOrNull(op, sharding.getGridAttr(), symbolTable),
        sharding));
  }
  return local;
}

//===----------------------------------------------------------------------===//
// Element-wise ops, cast and broadcast_to: operands broadcast to the result
//===----------------------------------------------------------------------===//

namespace {
/// The loops of a broadcasting op: one per result dim, plus one more that
/// the operands' broadcast size-1 dims map to when there is any.
struct BroadcastLoops {
  int64_t resultRank = 0;
  bool hasBroadcastLoop = false;
  int64_t numLoops() const { return resultRank + (hasBroadcastLoop ? 1 : 0); }
};

} // namespace

static BroadcastLoops getBroadcastLoops(Operation *op) {
  BroadcastLoops loops;
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  loops.resultRank = resultType.getRank();
  for (Type type : op->getOperandTypes()) {
    auto operandType = dyn_cast<RankedTensorType>(type);
    if (!operandType)
      continue;
    int64_t offset = loops.resultRank - operandType.getRank();
    for (auto [i, size] : llvm::enumerate(operandType.getShape()))
      if (isBroadcastDim(size, resultType.getDimSize(offset + i)))
        loops.hasBroadcastLoop = true;
  }
  return loops;
}

namespace {
/// Works for any op whose one result has the broadcast shape of its ranked
/// tensor operands, aligned to the right.
template <typename OpTy>
struct BroadcastingShardingModel
    : public shard::ShardingInterface::ExternalModel<
          BroadcastingShardingModel<OpTy>, OpTy> {
  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *op) const {
    return SmallVector<utils::IteratorType>(getBroadcastLoops(op).numLoops(),
                                            utils::IteratorType::parallel);
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    MLIRContext *context = op->getContext();
    BroadcastLoops loops = getBroadcastLoops(op);
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<AffineMap> maps;
    for (Type type : op->getOperandTypes()) {
      auto operandType = cast<RankedTensorType>(type);
      int64_t offset = loops.resultRank - operandType.getRank();
      SmallVector<AffineExpr> exprs;
      for (auto [i, size] : llvm::enumerate(operandType.getShape())) {
        int64_t resultDim = offset + static_cast<int64_t>(i);
        exprs.push_back(getAffineDimExpr(
            isBroadcastDim(size, resultType.getDimSize(resultDim))
                ? loops.resultRank
                : resultDim,
            context));
      }
      maps.push_back(AffineMap::get(loops.numLoops(), 0, exprs, context));
    }
    SmallVector<AffineExpr> resultExprs;
    for (int64_t i = 0; i < loops.resultRank; ++i)
      resultExprs.push_back(getAffineDimExpr(i, context));
    maps.push_back(AffineMap::get(loops.numLoops(), 0, resultExprs, context));
    return maps;
  }

  LogicalResult partition(Operation *op, ArrayRef<Value> partitionedOperands,
                          ArrayRef<shard::Sharding> operandShardings,
                          ArrayRef<shard::Sharding> resultShardings,
                          IRMapping &partitionMap,
                          SymbolTableCollection &symbolTable,
                          OpBuilder &builder) const {
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    int64_t resultRank = resultType.getRank();
    if (failed(checkEvenSharding(op, resultShardings[0], "result")))
      return failure();
    SmallVector<SmallVector<shard::GridAxis>> resultAxes =
        splitAxesPerDim(resultShardings[0], resultRank);
    // Each operand must arrive split exactly as the result dims it is
    // aligned with, and whole along the dims it broadcasts: the local op
    // then computes exactly the local block of the result.
    for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
      auto operandType = cast<RankedTensorType>(operand.getType());
      int64_t rank = operandType.getRank();
      if (failed(checkEvenSharding(op, operandShardings[index], "operands")))
        return failure();
      SmallVector<SmallVector<shard::GridAxis>> expected(rank);
      int64_t offset = resultRank - rank;
      for (int64_t i = 0; i < rank; ++i)
        if (!isBroadcastDim(operandType.getDimSize(i),
                            resultType.getDimSize(offset + i)))
          expected[i] = resultAxes[offset + i];
      SmallVector<SmallVector<shard::GridAxis>> actual =
          splitAxesPerDim(operandShardings[index], rank);
      trimTrailing(expected);
      trimTrailing(actual);
      if (expected != actual)
        return op->emitOpError()
               << "operand " << index << " is split " << formatAxes(actual)
               << " but the result's sharding "
               << formatAxes(splitAxesPerDim(resultShardings[0], resultRank))
               << " needs it split " << formatAxes(expected);
    }
    cloneLocally(op, resultShardings, partitionMap, symbolTable, builder);
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

namespace {
/// The shape of a reduction: which input dims it sums away, which of those
/// stay in the result as size-1 dims, and how partial results over equal
/// disjoint blocks combine, when they do (mean: the average of the blocks'
/// means).
struct ReductionLayout {
  int64_t rank = 0;
  SmallVector<int64_t> reduced;
  /// For each reduced dim, whether the result keeps it (size 1).
  SmallVector<bool> kept;
  std::optional<shard::ReductionKind> combiner;
  /// The op's name in messages.
  StringRef name;
};
} // namespace

template <typename OpTy> static ReductionLayout getReductionLayout(OpTy op) {
  ReductionLayout layout;
  layout.rank = cast<RankedTensorType>(op.getX().getType()).getRank();
  ReductionSpec spec = op.getSpec();
  layout.reduced = getReducedDims(spec, layout.rank);
  layout.kept.assign(layout.reduced.size(), spec.keepdim);
  layout.combiner = shard::symbolizeReductionKind(op.getPartialCombiner());
  layout.name = op.getReductionName();
  return layout;
}

/// sum_to_size sums away the leading dims the result lacks and, keeping
/// them, the result's size-1 dims where the input is not 1.
template <> ReductionLayout getReductionLayout<SumToSizeOp>(SumToSizeOp op) {
  ReductionLayout layout;
  auto type = cast<RankedTensorType>(op.getX().getType());
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  layout.rank = type.getRank();
  int64_t offset = layout.rank - resultType.getRank();
  for (int64_t dim = 0; dim < layout.rank; ++dim) {
    if (dim < offset) {
      layout.reduced.push_back(dim);
      layout.kept.push_back(false);
    } else if (isBroadcastDim(resultType.getDimSize(dim - offset),
                              type.getDimSize(dim))) {
      layout.reduced.push_back(dim);
      layout.kept.push_back(true);
    }
  }
  layout.combiner = shard::ReductionKind::Sum;
  layout.name = "sum_to_size";
  return layout;
}

namespace {
/// Loops of a reduction: one per input dim (the reduced ones are reduction
/// loops), then one parallel loop per reduced dim the result keeps as a
/// size-1 dim, so that the result map stays a projected permutation.
template <typename OpTy>
struct ReductionShardingModel : public shard::ShardingInterface::ExternalModel<
                                    ReductionShardingModel<OpTy>, OpTy> {
  static int64_t numKept(const ReductionLayout &layout) {
    return llvm::count(layout.kept, true);
  }

  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *op) const {
    ReductionLayout layout = getReductionLayout(cast<OpTy>(op));
    SmallVector<utils::IteratorType> types(layout.rank,
                                           utils::IteratorType::parallel);
    for (int64_t dim : layout.reduced)
      types[dim] = utils::IteratorType::reduction;
    types.append(numKept(layout), utils::IteratorType::parallel);
    return types;
  }

  SmallVector<shard::ReductionKind>
  getReductionLoopIteratorKinds(Operation *op) const {
    ReductionLayout layout = getReductionLayout(cast<OpTy>(op));
    shard::ReductionKind kind =
        layout.combiner.value_or(shard::ReductionKind::Generic);
    return SmallVector<shard::ReductionKind>(layout.reduced.size(), kind);
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    MLIRContext *context = op->getContext();
    ReductionLayout layout = getReductionLayout(cast<OpTy>(op));
    int64_t numLoops = layout.rank + numKept(layout);
    SmallVector<AffineExpr> resultExprs;
    int64_t extraLoop = layout.rank;
    for (int64_t dim = 0; dim < layout.rank; ++dim) {
      const auto *found = llvm::find(layout.reduced, dim);
      if (found == layout.reduced.end())
        resultExprs.push_back(getAffineDimExpr(dim, context));
      else if (layout.kept[found - layout.reduced.begin()])
        resultExprs.push_back(getAffineDimExpr(extraLoop++, context));
    }
    return {AffineMap::getMultiDimIdentityMap(numLoops, context)
                .getMajorSubMap(layout.rank),
            AffineMap::get(numLoops, 0, resultExprs, context)};
  }

  LogicalResult partition(Operation *op, ArrayRef<Value> partitionedOperands,
                          ArrayRef<shard::Sharding> operandShardings,
                          ArrayRef<shard::Sharding> resultShardings,
                          IRMapping &partitionMap,
                          SymbolTableCollection &symbolTable,
                          OpBuilder &builder) const {
    if (failed(checkEvenSharding(op, operandShardings[0], "operand")) ||
        failed(checkEvenSharding(op, resultShardings[0], "result")))
      return failure();
    ReductionLayout layout = getReductionLayout(cast<OpTy>(op));
    SmallVector<SmallVector<shard::GridAxis>> operandAxes =
        splitAxesPerDim(operandShardings[0], layout.rank);
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<SmallVector<shard::GridAxis>> resultAxes =
        splitAxesPerDim(resultShardings[0], resultType.getRank());

    // The result is split as the kept dims of the operand; the reduced
    // dims' axes are combined by the all-reduce.
    SmallVector<SmallVector<shard::GridAxis>> expected;
    SmallVector<shard::GridAxis> reductionAxes;
    for (int64_t dim = 0; dim < layout.rank; ++dim) {
      const auto *found = llvm::find(layout.reduced, dim);
      if (found == layout.reduced.end()) {
        expected.push_back(operandAxes[dim]);
        continue;
      }
      llvm::append_range(reductionAxes, operandAxes[dim]);
      if (layout.kept[found - layout.reduced.begin()])
        expected.emplace_back();
    }
    trimTrailing(expected);
    trimTrailing(resultAxes);
    if (expected != resultAxes)
      return op->emitOpError()
             << "result is split " << formatAxes(resultAxes)
             << " but its operand's sharding " << formatAxes(operandAxes)
             << " gives " << formatAxes(expected);

    if (reductionAxes.empty()) {
      cloneLocally(op, resultShardings, partitionMap, symbolTable, builder);
      return success();
    }
    std::optional<shard::ReductionKind> kind = layout.combiner;
    if (!kind)
      return op->emitOpError()
             << "cannot be partitioned along a reduced dim: partial "
             << layout.name
             << " results of the shards do not combine with one all-reduce; "
                "keep the reduced dims whole (split axes "
             << formatAxes(operandAxes) << ")";
    Operation *local =
        cloneLocally(op, resultShardings, partitionMap, symbolTable, builder);
    // A sum_to_size whose shard sums nothing (one element per shard along
    // the split dim) would keep its input's type; its partial sum, of the
    // sum's type, is then that element converted.
    if (auto sumToSize = dyn_cast<SumToSizeOp>(local)) {
      RankedTensorType input = sumToSize.getX().getType();
      RankedTensorType partial = sumToSize.getType();
      bool atRunTime = false;
      Type element =
          SumToSizeOp::inferElementType(input, partial.getShape(), &atRunTime);
      if (!atRunTime && element != partial.getElementType() &&
          input.getShape() == partial.getShape()) {
        Operation *cast =
            CastOp::create(builder, op->getLoc(), partial, sumToSize.getX());
        sumToSize->erase();
        local = cast;
      }
    }
    auto grid = resultShardings[0] ? resultShardings[0].getGridAttr()
                                   : operandShardings[0].getGridAttr();
    llvm::sort(reductionAxes);
    auto allReduce =
        shard::AllReduceOp::create(builder, op->getLoc(), local->getResult(0),
                                   grid.getValue(), reductionAxes, *kind);
    partitionMap.map(op->getResult(0), allReduce.getResult());
    return success();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// softmax and log_softmax: element-wise along every dim but their own
//===----------------------------------------------------------------------===//

namespace {
/// The softmax dim normalizes over the whole dim, so it must stay whole;
/// every other dim splits with no communication.
template <typename OpTy>
struct SoftmaxShardingModel
    : public shard::ShardingInterface::ExternalModel<SoftmaxShardingModel<OpTy>,
                                                     OpTy> {
  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *op) const {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    return SmallVector<utils::IteratorType>(type.getRank(),
                                            utils::IteratorType::parallel);
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    AffineMap identity =
        AffineMap::getMultiDimIdentityMap(type.getRank(), op->getContext());
    return {identity, identity};
  }

  LogicalResult partition(Operation *op, ArrayRef<Value> partitionedOperands,
                          ArrayRef<shard::Sharding> operandShardings,
                          ArrayRef<shard::Sharding> resultShardings,
                          IRMapping &partitionMap,
                          SymbolTableCollection &symbolTable,
                          OpBuilder &builder) const {
    if (failed(checkEvenSharding(op, operandShardings[0], "operand")) ||
        failed(checkEvenSharding(op, resultShardings[0], "result")))
      return failure();
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    int64_t rank = type.getRank();
    int64_t dim = cast<OpTy>(op).getDim();
    if (dim < 0)
      dim += rank;
    SmallVector<SmallVector<shard::GridAxis>> operandAxes =
        splitAxesPerDim(operandShardings[0], rank);
    SmallVector<SmallVector<shard::GridAxis>> resultAxes =
        splitAxesPerDim(resultShardings[0], rank);
    if (operandAxes != resultAxes)
      return op->emitOpError() << "operand is split " << formatAxes(operandAxes)
                               << " but the result " << formatAxes(resultAxes);
    if (dim >= 0 && dim < rank && !operandAxes[dim].empty())
      return op->emitOpError()
             << "cannot be partitioned along its dim " << dim
             << ", which it normalizes over; keep it whole (split axes "
             << formatAxes(operandAxes) << ")";
    cloneLocally(op, resultShardings, partitionMap, symbolTable, builder);
    return success();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// specify_shape and expand_view: result dim i is operand dim i
//===----------------------------------------------------------------------===//

/// Formats `axes` as checkSplitDims in bcast-shard-to-mpi does, so that the
/// same mistake reads the same whichever check finds it.
static std::string formatGridAxes(ArrayRef<shard::GridAxis> axes) {
  std::string text = axes.size() == 1 ? "grid axis " : "grid axes ";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(axes, os);
  return text;
}

/// shardType divides a static size by the product of its axes' sizes and
/// drops the remainder, which would silently lose elements. `dim` names the
/// dim in messages ("dim 0", or "contracted dim (operand 0's dim 1)").
static LogicalResult checkDivisible(Operation *op, shard::Sharding sharding,
                                    StringRef dim, int64_t size,
                                    ArrayRef<shard::GridAxis> axes,
                                    SymbolTableCollection &symbolTable) {
  shard::GridOp grid =
      shard::getGridOrNull(op, sharding.getGridAttr(), symbolTable);
  if (!grid)
    return op->emitOpError() << "refers to no shard.grid";
  int64_t processes = 1;
  for (shard::GridAxis axis : axes) {
    if (axis < 0 || axis >= grid.getRank())
      return op->emitOpError()
             << "splits " << dim << " over grid axis " << axis
             << ", which grid @" << grid.getSymName() << " of rank "
             << grid.getRank() << " does not have";
    int64_t axisSize = grid.getShape()[axis];
    if (ShapedType::isDynamic(axisSize))
      return op->emitOpError()
             << "splits " << dim << " over grid axis " << axis
             << " of dynamic size; bcast shards over static grids only";
    processes *= axisSize;
  }
  if (size % processes != 0)
    return op->emitOpError() << dim << " of size " << size
                             << " is not divisible by " << formatGridAxes(axes);
  return success();
}

namespace {
/// One operand that the result reproduces dim by dim (plus, for
/// expand_view, index operands that no loop indexes), so every dim is a
/// parallel loop shared by operand and result, as for an element-wise op.
/// The ops differ in which dims may be split: `checkSplitDim` rejects the
/// others.
template <typename ConcreteModel, typename OpTy>
struct ShapePreservingShardingModel
    : public shard::ShardingInterface::ExternalModel<ConcreteModel, OpTy> {
  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *op) const {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    return SmallVector<utils::IteratorType>(type.getRank(),
                                            utils::IteratorType::parallel);
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    MLIRContext *context = op->getContext();
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    AffineMap identity =
        AffineMap::getMultiDimIdentityMap(type.getRank(), context);
    // The sizes of expand_view are scalars: maps with no results.
    SmallVector<AffineMap> maps(op->getNumOperands(),
                                AffineMap::get(type.getRank(), 0, context));
    maps[0] = identity;
    maps.push_back(identity);
    return maps;
  }

  /// Upstream's default also annotates each scalar operand, with a sharding
  /// that has no grid, and the `shard.sharding` it creates does not verify;
  /// only the tensor operand and the result are annotated here.
  LogicalResult
  addShardingAnnotations(Operation *op, OpBuilder &builder,
                         const shard::ShardingOption &option) const {
    FailureOr<std::vector<shard::Sharding>> shardings =
        shard::detail::defaultGetShardingAnnotations(op, option);
    if (failed(shardings))
      return failure();
    shard::maybeInsertTargetShardingAnnotation(
        (*shardings)[op->getNumOperands()], op->getResult(0), builder);
    OpBuilder::InsertionGuard guard(builder);
    shard::maybeInsertSourceShardingAnnotation((*shardings)[0],
                                               op->getOpOperand(0), builder);
    return success();
  }

  LogicalResult partition(Operation *op, ArrayRef<Value> partitionedOperands,
                          ArrayRef<shard::Sharding> operandShardings,
                          ArrayRef<shard::Sharding> resultShardings,
                          IRMapping &partitionMap,
                          SymbolTableCollection &symbolTable,
                          OpBuilder &builder) const {
    if (failed(checkEvenSharding(op, operandShardings[0], "operand")) ||
        failed(checkEvenSharding(op, resultShardings[0], "result")))
      return failure();
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    int64_t rank = type.getRank();
    SmallVector<SmallVector<shard::GridAxis>> operandAxes =
        splitAxesPerDim(operandShardings[0], rank);
    SmallVector<SmallVector<shard::GridAxis>> resultAxes =
        splitAxesPerDim(resultShardings[0], rank);
    if (operandAxes != resultAxes)
      return op->emitOpError() << "operand is split " << formatAxes(operandAxes)
                               << " but the result " << formatAxes(resultAxes);
    for (int64_t dim = 0; dim < rank; ++dim) {
      if (resultAxes[dim].empty())
        continue;
      if (failed(ConcreteModel::checkSplitDim(cast<OpTy>(op), dim,
                                              resultAxes[dim])))
        return failure();
      if (!type.isDynamicDim(dim) &&
          failed(checkDivisible(
              op, resultShardings[0], "dim " + std::to_string(dim),
              type.getDimSize(dim), resultAxes[dim], symbolTable)))
        return failure();
    }
    cloneLocally(op, resultShardings, partitionMap, symbolTable, builder);
    return success();
  }
};

/// A dim specify_shape leaves alone splits like an element-wise dim (a `?`
/// one stays `?` locally, as everywhere in bcast). A refined dim (`?` to S)
/// does not: the local check would be of a block of a dynamic size, and
/// bcast partitions no dynamic size (bcast-shard-to-mpi rejects the split
/// `?` operand before partitioning). Equal blocks of S would need
/// S/N locally, but nothing makes the caller's `?` blocks equal, and a
/// global size other than S could then pass every local check.
struct SpecifyShapeShardingModel
    : public ShapePreservingShardingModel<SpecifyShapeShardingModel,
                                          SpecifyShapeOp> {
  static LogicalResult checkSplitDim(SpecifyShapeOp op, int64_t dim,
                                     ArrayRef<shard::GridAxis> axes) {
    if (!op.isRefined(dim))
      return success();
    return op.emitOpError()
           << "cannot be partitioned along dim " << dim
           << ", which it refines from ? to " << op.getType().getDimSize(dim)
           << ": its operand's dim " << dim << " of dynamic size cannot be "
           << "split over " << formatGridAxes(axes)
           << "; keep the dim whole or give the operand a static size";
  }
};

/// A `?` dim of expand_view may be 1 at run time and repeat to its target
/// size: a block of the result is then not the view of a block of the
/// source, so such dims stay whole, and the target sizes, which are only
/// of `?` dims, stay valid locally. A static dim is never expanded.
struct ExpandViewShardingModel
    : public ShapePreservingShardingModel<ExpandViewShardingModel,
                                          ExpandViewOp> {
  static LogicalResult checkSplitDim(ExpandViewOp op, int64_t dim,
                                     ArrayRef<shard::GridAxis> axes) {
    if (!op.getSource().getType().isDynamicDim(dim))
      return success();
    return op.emitOpError()
           << "cannot be partitioned along dim " << dim
           << " of dynamic size, which may be 1 and broadcast at run time, "
              "over "
           << formatGridAxes(axes) << "; keep it whole";
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// runtime_check: scalars only
//===----------------------------------------------------------------------===//

namespace {
/// Nothing to split: partitioning leaves scalars as they are, so every
/// process runs the check on the values the unsharded program would have
/// (unless they were computed from a local block, e.g. its tensor.dim).
struct RuntimeCheckShardingModel
    : public shard::ShardingInterface::ExternalModel<RuntimeCheckShardingModel,
                                                     RuntimeCheckOp> {
  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *) const {
    return {};
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    return SmallVector<AffineMap>(op->getNumOperands(),
                                  AffineMap::get(op->getContext()));
  }

  LogicalResult partition(Operation *op, ArrayRef<Value> partitionedOperands,
                          ArrayRef<shard::Sharding> operandShardings,
                          ArrayRef<shard::Sharding> resultShardings,
                          IRMapping &partitionMap,
                          SymbolTableCollection &symbolTable,
                          OpBuilder &builder) const {
    builder.clone(*op, partitionMap);
    return success();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// matmul: batch, M and N loops, K a sum
//===----------------------------------------------------------------------===//

namespace {
/// The loops of a matmul, in this order: the result's batch dims, M (when
/// lhs has rank 2 or more), N (when rhs has), K, then one more parallel loop
/// that the operands' broadcast size-1 batch dims map to, when there is any
/// (as for element-wise ops: nothing splits it). A 1-D lhs has no M and a
/// 1-D rhs no N; a missing batch dim is absent from the operand's map.
struct MatmulLoops {
  MatmulLayout layout{1, 1};
  RankedTensorType lhsType, rhsType, resultType;
  /// Per operand, per batch dim of the operand: whether it broadcasts.
  SmallVector<bool> lhsBroadcast, rhsBroadcast;
  bool hasBroadcastLoop = false;

  int64_t batchRank() const { return layout.batchRank(); }
  /// The result's dims are the first loops, in order.
  int64_t resultRank() const { return layout.resultRank(); }
  int64_t kLoop() const { return resultRank(); }
  int64_t broadcastLoop() const { return resultRank() + 1; }
  int64_t numLoops() const { return resultRank() + 1 + hasBroadcastLoop; }

  /// The loop each dim of operand `index` maps to (the broadcast loop for
  /// a batch dim it broadcasts).
  SmallVector<int64_t> operandLoops(unsigned index) const {
    bool isLhs = index == 0;
    RankedTensorType type = isLhs ? lhsType : rhsType;
    int64_t operandBatchRank =
        isLhs ? layout.lhsBatchRank() : layout.rhsBatchRank();
    ArrayRef<bool> broadcast = isLhs ? lhsBroadcast : rhsBroadcast;
    SmallVector<int64_t> loops;
    int64_t offset = batchRank() - operandBatchRank;
    for (int64_t dim = 0; dim < operandBatchRank; ++dim)
      loops.push_back(broadcast[dim] ? broadcastLoop() : offset + dim);
    if (isLhs) {
      if (layout.hasM())
        loops.push_back(layout.resultM());
      loops.push_back(kLoop());
    } else {
      loops.push_back(kLoop());
      if (layout.hasN())
        loops.push_back(layout.resultN());
    }
    assert(static_cast<int64_t>(loops.size()) == type.getRank());
    (void)type;
    return loops;
  }
};
} // namespace

static MatmulLoops getMatmulLoops(MatmulOp op) {
  MatmulLoops loops;
  loops.lhsType = cast<RankedTensorType>(op.getLhs().getType());
  loops.rhsType = cast<RankedTensorType>(op.getRhs().getType());
  loops.resultType = cast<RankedTensorType>(op.getResult().getType());
  loops.layout = MatmulLayout(loops.lhsType.getRank(), loops.rhsType.getRank());
  auto markBroadcast = [&](RankedTensorType type, int64_t operandBatchRank,
                           SmallVector<bool> &broadcast) {
    int64_t offset = loops.batchRank() - operandBatchRank;
    for (int64_t dim = 0; dim < operandBatchRank; ++dim) {
      broadcast.push_back(isBroadcastDim(
          type.getDimSize(dim), loops.resultType.getDimSize(offset + dim)));
      loops.hasBroadcastLoop |= broadcast.back();
    }
  };
  markBroadcast(loops.lhsType, loops.layout.lhsBatchRank(), loops.lhsBroadcast);
  markBroadcast(loops.rhsType, loops.layout.rhsBatchRank(), loops.rhsBroadcast);
  return loops;
}

namespace {
/// The batch, M and N loops are parallel and partition with no
/// communication: each operand is split as the result dims it shares, and
/// whole along the batch dims it broadcasts (size 1) or lacks. A split K
/// leaves each process a partial product of its blocks, summed by
/// `shard.all_reduce` (integer sums wrap alike in any order).
struct MatmulShardingModel
    : public shard::ShardingInterface::ExternalModel<MatmulShardingModel,
                                                     MatmulOp> {
  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *op) const {
    MatmulLoops loops = getMatmulLoops(cast<MatmulOp>(op));
    SmallVector<utils::IteratorType> types(loops.numLoops(),
                                           utils::IteratorType::parallel);
    types[loops.kLoop()] = utils::IteratorType::reduction;
    return types;
  }

  SmallVector<shard::ReductionKind>
  getReductionLoopIteratorKinds(Operation *) const {
    return {shard::ReductionKind::Sum};
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    MLIRContext *context = op->getContext();
    MatmulLoops loops = getMatmulLoops(cast<MatmulOp>(op));
    SmallVector<AffineMap> maps;
    for (unsigned index : {0u, 1u}) {
      SmallVector<AffineExpr> exprs;
      for (int64_t loop : loops.operandLoops(index))
        exprs.push_back(getAffineDimExpr(loop, context));
      maps.push_back(AffineMap::get(loops.numLoops(), 0, exprs, context));
    }
    // Built dim by dim: getMajorSubMap(0) of a dot product's rank-0 result
    // is a null map, which propagation dereferences.
    SmallVector<AffineExpr> resultExprs;
    for (int64_t loop = 0; loop < loops.resultRank(); ++loop)
      resultExprs.push_back(getAffineDimExpr(loop, context));
    maps.push_back(AffineMap::get(loops.numLoops(), 0, resultExprs, context));
    return maps;
  }

  LogicalResult partition(Operation *op, ArrayRef<Value> partitionedOperands,
                          ArrayRef<shard::Sharding> operandShardings,
                          ArrayRef<shard::Sharding> resultShardings,
                          IRMapping &partitionMap,
                          SymbolTableCollection &symbolTable,
                          OpBuilder &builder) const {
    auto matmul = cast<MatmulOp>(op);
    if (failed(checkEvenSharding(op, operandShardings[0], "operands")) ||
        failed(checkEvenSharding(op, operandShardings[1], "operands")) ||
        failed(checkEvenSharding(op, resultShardings[0], "result")))
      return failure();
    MatmulLoops loops = getMatmulLoops(matmul);
    int64_t resultRank = loops.resultRank();

    // The axes of every loop: the result's dims give the parallel loops',
    // lhs's contracted dim gives K's (rhs must agree, checked below).
    SmallVector<SmallVector<shard::GridAxis>> loopAxes =
        splitAxesPerDim(resultShardings[0], resultRank);
    loopAxes.resize(loops.numLoops());
    SmallVector<shard::GridAxis> kAxes = splitAxesPerDim(
        operandShardings[0], loops.lhsType.getRank())[loops.layout.lhsK()];
    loopAxes[loops.kLoop()] = kAxes;

    // Each operand must arrive split exactly as the loops its dims map to:
    // then the local product is the result's block (or, with K split, this
    // process's part of its sum).
    for (unsigned index : {0u, 1u}) {
      auto type = cast<RankedTensorType>(op->getOperand(index).getType());
      SmallVector<SmallVector<shard::GridAxis>> expected;
      for (int64_t loop : loops.operandLoops(index))
        expected.push_back(loopAxes[loop]);
      SmallVector<SmallVector<shard::GridAxis>> actual =
          splitAxesPerDim(operandShardings[index], type.getRank());
      trimTrailing(expected);
      trimTrailing(actual);
      if (expected != actual)
        return op->emitOpError()
               << "operand " << index << " is split " << formatAxes(actual)
               << " but the result's sharding "
               << formatAxes(splitAxesPerDim(resultShardings[0], resultRank))
               << " and its contracted dim's split " << formatAxisList(kAxes)
               << " need it split " << formatAxes(expected);
    }

    // A batch dim of dynamic size on an operand may be 1 at run time and
    // broadcast: its block would then not be the block of the result's dim.
    for (int64_t dim = 0; dim < loops.batchRank(); ++dim) {
      if (loopAxes[dim].empty())
        continue;
      for (unsigned index : {0u, 1u}) {
        auto type = cast<RankedTensorType>(op->getOperand(index).getType());
        int64_t operandDim = dim - (loops.batchRank() -
                                    (index == 0 ? loops.layout.lhsBatchRank()
                                                : loops.layout.rhsBatchRank()));
        if (operandDim >= 0 && type.isDynamicDim(operandDim))
          return op->emitOpError()
                 << "cannot be partitioned along batch dim " << dim
                 << ": operand " << index << "'s dim " << operandDim
                 << " is of dynamic size, which may be 1 and broadcast at run "
                    "time, and cannot be split over "
                 << formatGridAxes(loopAxes[dim]) << "; keep it whole";
      }
    }
    // shardType drops the remainder of a size its axes do not divide.
    for (int64_t dim = 0; dim < resultRank; ++dim)
      if (!loopAxes[dim].empty() && !loops.resultType.isDynamicDim(dim) &&
          failed(checkDivisible(
              op, resultShardings[0], "result dim " + std::to_string(dim),
              loops.resultType.getDimSize(dim), loopAxes[dim], symbolTable)))
        return failure();
    // K's size from the first operand where it is static (lhs's, or rhs's
    // when lhs's is ?): the verifier has checked that static sizes agree.
    for (unsigned index : {0u, 1u}) {
      auto type = index == 0 ? loops.lhsType : loops.rhsType;
      int64_t kDim = index == 0 ? loops.layout.lhsK() : loops.layout.rhsK();
      if (kAxes.empty() || type.isDynamicDim(kDim))
        continue;
      if (failed(checkDivisible(op, operandShardings[0],
                                "contracted dim (operand " +
                                    std::to_string(index) + "'s dim " +
                                    std::to_string(kDim) + ")",
                                type.getDimSize(kDim), kAxes, symbolTable)))
        return failure();
      break;
    }

    if (kAxes.empty()) {
      cloneLocally(op, resultShardings, partitionMap, symbolTable, builder);
      return success();
    }
    // bf16 products accumulate in f32 and are rounded once; partial
    // products summed in bf16 would be rounded twice.
    if (loops.resultType.getElementType().isBF16())
      return op->emitOpError()
             << "cannot be partitioned along its contracted dim with bf16 "
                "operands: each partial product would be rounded to bf16 "
                "before the sum, which the unsharded product rounds once; "
                "keep the contracted dim whole (split over "
             << formatGridAxes(kAxes) << ")";
    Operation *local =
        cloneLocally(op, resultShardings, partitionMap, symbolTable, builder);
    llvm::sort(kAxes);
    auto allReduce =
        shard::AllReduceOp::create(builder, op->getLoc(), local->getResult(0),
                                   operandShardings[0].getGridAttr().getValue(),
                                   kAxes, shard::ReductionKind::Sum);
    partitionMap.map(op->getResult(0), allReduce.getResult());
    return success();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// Attaching the models
//===----------------------------------------------------------------------===//

template <typename OpTy> static void attachModel(MLIRContext *context) {
  if constexpr (OpTy::template hasTrait<
                    OpTrait::bcast::BroadcastElementwise>() ||
                std::is_same_v<OpTy, CastOp> ||
                std::is_same_v<OpTy, BroadcastToOp>)
    OpTy::template attachInterface<BroadcastingShardingModel<OpTy>>(*context);
  else if constexpr (std::is_same_v<OpTy, SoftmaxOp> ||
                     std::is_same_v<OpTy, LogSoftmaxOp>)
    OpTy::template attachInterface<SoftmaxShardingModel<OpTy>>(*context);
  else if constexpr (OpTy::template hasTrait<ReductionOpInterface::Trait>() ||
                     std::is_same_v<OpTy, SumToSizeOp>)
    OpTy::template attachInterface<ReductionShardingModel<OpTy>>(*context);
  else if constexpr (std::is_same_v<OpTy, SpecifyShapeOp>)
    OpTy::template attachInterface<SpecifyShapeShardingModel>(*context);
  else if constexpr (std::is_same_v<OpTy, ExpandViewOp>)
    OpTy::template attachInterface<ExpandViewShardingModel>(*context);
  else if constexpr (std::is_same_v<OpTy, RuntimeCheckOp>)
    OpTy::template attachInterface<RuntimeCheckShardingModel>(*context);
  else if constexpr (std::is_same_v<OpTy, MatmulOp>)
    OpTy::template attachInterface<MatmulShardingModel>(*context);
}

template <typename... OpTys> static void attachModels(MLIRContext *context) {
  (attachModel<OpTys>(context), ...);
}

void bcast::registerShardingInterfaceExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, BcastDialect *) {
    context->getOrLoadDialect<shard::ShardDialect>();
    attachModels<
#define GET_OP_LIST
#include "bcast/Dialect/Bcast/IR/BcastOps.cpp.inc"
        >(context);
  });
}
