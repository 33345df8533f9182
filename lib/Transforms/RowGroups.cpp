//===- RowGroups.cpp - Runs of linalg ops that share a row loop -----------===//
//
// The membership rules of row groups (RowGroups.h): every buffer a group
// writes is accessed only row by row and through one value, and the members
// have the same number of rows.
//
//===----------------------------------------------------------------------===//

#include "RowGroups.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::bcast;
using namespace mlir::bcast::rows;

Value rows::getRoot(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>()) {
    if (view.getViewDest() != value)
      break;
    value = view.getViewSource();
  }
  return value;
}

bool rows::isRowIndexed(AffineMap map) {
  return map.getNumResults() > 0 && map.getResult(0).isFunctionOfDim(0) &&
         isa<AffineDimExpr>(map.getResult(0));
}

/// Whether `map` uses loop 0 only as its first result, or not at all.
static bool usesRowDimOnlyFirst(AffineMap map) {
  for (auto [index, expr] : llvm::enumerate(map.getResults()))
    if (expr.isFunctionOfDim(0) && (index != 0 || !isa<AffineDimExpr>(expr)))
      return false;
  return true;
}

bool rows::isRowOp(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0 ||
      op.getIteratorTypesArray().front() != utils::IteratorType::parallel)
    return false;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type) {
      if (isa<ShapedType>(operand.get().getType()))
        return false;
      continue;
    }
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!usesRowDimOnlyFirst(map))
      return false;
    if (op.isDpsInit(&operand) && !isRowIndexed(map))
      return false;
  }
  for (Operation &bodyOp : op.getBlock()->without_terminator())
    if (!isMemoryEffectFree(&bodyOp))
      return false;
  return true;
}

/// A value that stands for the dynamic number of rows of `memref`: the
/// buffer whose dimension 0 an allocation's size was read from
/// (`memref.alloc(%rows)` with `%rows = memref.dim %x, %c0` stands for the
/// rows of `%x`), the allocation's size value otherwise, or the memref.
static Value getRowsKey(Value memref) {
  Operation *def = memref.getDefiningOp();
  if (!isa_and_nonnull<memref::AllocOp, memref::AllocaOp>(def))
    return memref;
  auto type = cast<MemRefType>(memref.getType());
  if (!type.isDynamicDim(0))
    return memref;
  // The first dynamic size is dimension 0's.
  Value size = isa<memref::AllocOp>(def)
                   ? cast<memref::AllocOp>(def).getDynamicSizes().front()
                   : cast<memref::AllocaOp>(def).getDynamicSizes().front();
  if (auto dim = size.getDefiningOp<memref::DimOp>())
    if (getConstantIntValue(dim.getIndex()) == 0)
      return getRowsKey(dim.getSource());
  return size;
}

bool RowGroup::tryAdd(linalg::LinalgOp op) {
  std::optional<int64_t> extent;
  bool sharesRows = false;
  llvm::SmallDenseMap<Value, RootUse> uses = rootUses;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      continue;
    bool rowwise = isRowIndexed(op.getMatchingIndexingMap(&operand));
    if (rowwise) {
      if (!type.isDynamicDim(0))
        extent = type.getDimSize(0);
      sharesRows |= rowKeys.contains(getRowsKey(operand.get()));
    }
    Value root = getRoot(operand.get());
    auto [it, inserted] = uses.try_emplace(root);
    RootUse &use = it->second;
    if (inserted)
      use.value = operand.get();
    use.oneValue &= use.value == operand.get();
    use.onlyRowwise &= rowwise;
    use.written |= op.isDpsInit(&operand);
  }
  if (!members.empty() && !sharesRows &&
      !(extent && staticExtent && *extent == *staticExtent))
    return false;
  for (auto &[root, use] : uses)
    if (use.written && (!use.oneValue || !use.onlyRowwise))
      return false;
  rootUses = std::move(uses);
  members.push_back(op);
  if (extent)
    staticExtent = extent;
  for (OpOperand &operand : op->getOpOperands())
    if (isa<MemRefType>(operand.get().getType()) &&
        isRowIndexed(op.getMatchingIndexingMap(&operand)))
      rowKeys.insert(getRowsKey(operand.get()));
  return true;
}

bool RowGroup::hasReduction() const {
  return llvm::any_of(members, [](linalg::LinalgOp op) {
    return op.getNumReductionLoops() > 0;
  });
}

bool RowGroup::writes(Value root) const {
  return rootUses.lookup(root).written;
}

std::vector<RowGroup>
rows::collectRowGroups(Operation *root,
                       llvm::function_ref<bool(const RowGroup &)> accept) {
  SmallVector<Block *> blocks;
  root->walk([&](Block *block) { blocks.push_back(block); });
  std::vector<RowGroup> groups;
  for (Block *block : blocks) {
    RowGroup group;
    auto finish = [&] {
      if (!group.empty() && accept(group))
        groups.push_back(std::move(group));
      group = RowGroup();
    };
    for (Operation &op : *block) {
      auto linalgOp = dyn_cast<linalg::LinalgOp>(&op);
      if (linalgOp && isRowOp(linalgOp)) {
        if (group.tryAdd(linalgOp))
          continue;
        finish();
        (void)group.tryAdd(linalgOp);
        continue;
      }
      if (group.empty())
        continue;
      if (isa<memref::DeallocOp>(op)) {
        group.deferred.push_back(&op);
        continue;
      }
      if (isMemoryEffectFree(&op) && op.getNumRegions() == 0)
        continue;
      if (isa<memref::AllocOp, memref::AllocaOp>(op))
        continue;
      finish();
    }
    finish();
  }
  return groups;
}
