//===- FuseRows.cpp - One parallel loop over row blocks for a chain -------===//
//
// Row-block fusion of bufferized linalg ops: consecutive linalg ops on
// buffers whose outermost loop is a parallel row dimension that every
// buffer they share is indexed by (a row's statistics, such as a keepdim
// reduction's [M,1] result, and the rows that use them) are wrapped in one
// loop over blocks of rows, parallel across tasks, each op applied to
// subviews of the block's rows. A written-out softmax or LayerNorm then
// reads each block of its input from memory once and reuses it from the
// cache for the statistics and for the output, instead of streaming the
// whole input through memory once per op. While a chunk is computed from
// the cache, its element-wise op prefetches the next chunk's input rows.
//
//===----------------------------------------------------------------------===//

#include "RowGroups.h"
#include "bcast/Transforms/Parallel.h"
#include "bcast/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <vector>

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTFUSEROWS
#include "bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;
using namespace mlir::bcast::rows;
using mlir::bcast::kMaxTasks;

/// Within a task, the ops run on chunks of rows of about this many elements
/// of the widest op (64 KiB of f32): small enough that a chunk read by the
/// first op is still in the core's cache for the last one.
static constexpr int64_t kChunkElements = 16384;

/// Wraps `group`'s members in one loop over row blocks (parallel across
/// tasks when `parallel` and the group's widest op has at least `grainSize`
/// elements), each member applied to subviews of a chunk of rows.
static void rewriteGroup(RewriterBase &rewriter, RowGroup &group, bool parallel,
                         int64_t grainSize) {
  SmallVector<linalg::LinalgOp> &members = group.members;
  linalg::LinalgOp last = members.back();
  Location loc = last.getLoc();
  rewriter.setInsertionPoint(last);
  OpBuilder &b = rewriter;
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  Value zero = constant(0), one = constant(1);

  // The sizes of every buffer the members index by row, and the number of
  // rows and the elements per row of the widest member.
  llvm::SmallDenseMap<Value, SmallVector<OpFoldResult>> sizesOf;
  Value extent;
  Value rowElements = one;
  // The widest op's elements when every size is static (the grain size
  // then decides at compile time).
  std::optional<int64_t> staticElements = 0;
  for (linalg::LinalgOp op : members) {
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      if (!type || !isRowIndexed(op.getMatchingIndexingMap(&operand)) ||
          sizesOf.contains(operand.get()))
        continue;
      SmallVector<OpFoldResult> sizes;
      Value elements = one;
      if (staticElements)
        staticElements = type.hasStaticShape()
                             ? std::optional(std::max(*staticElements,
                                                      type.getNumElements()))
                             : std::nullopt;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        Value size =
            type.isDynamicDim(d)
                ? Value(memref::DimOp::create(b, loc, operand.get(), d))
                : constant(type.getDimSize(d));
        sizes.push_back(type.isDynamicDim(d)
                            ? OpFoldResult(size)
                            : b.getIndexAttr(type.getDimSize(d)));
        if (d == 0 && !extent)
          extent = size;
        if (d > 0)
          elements = arith::MulIOp::create(b, loc, elements, size);
      }
      rowElements = arith::MaxUIOp::create(b, loc, rowElements, elements);
      sizesOf[operand.get()] = std::move(sizes);
    }
  }

  // Tasks of ceil(rows / kMaxTasks) rows; chunks of at least one row.
  Value block = arith::MaxUIOp::create(
      b, loc, one,
      arith::CeilDivUIOp::create(b, loc, extent, constant(kMaxTasks)));
  Value chunk = arith::MaxUIOp::create(
      b, loc, one,
      arith::DivUIOp::create(b, loc, constant(kChunkElements), rowElements));

  // The buffers members read row by row and none writes: the group's
  // input, streamed from memory.
  llvm::SmallDenseSet<Value> streamed;
  for (linalg::LinalgOp op : members)
    for (OpOperand *input : op.getDpsInputOperands())
      if (isa<MemRefType>(input->get().getType()) &&
          isRowIndexed(op.getMatchingIndexingMap(input)) &&
          !group.writes(getRoot(input->get())))
        streamed.insert(input->get());
  // An element-wise member that reads a streamed buffer also gets, as an
  // input its body does not read, the same buffer's rows of the next chunk:
  // bcast-vectorize-elementwise prefetches them while it computes, so that
  // the next chunk's first pass finds them in cache rather than waiting on
  // memory while the core is idle.
  auto addPrefetch = [&](OpBuilder &cb, linalg::LinalgOp clone,
                         linalg::LinalgOp original, Value row, Value count) {
    auto generic = dyn_cast<linalg::GenericOp>(clone.getOperation());
    if (!generic || generic.getNumReductionLoops() != 0)
      return;
    OpOperand *source = nullptr;
    for (OpOperand *input : original.getDpsInputOperands())
      if (streamed.contains(input->get()) &&
          isRowIndexed(original.getMatchingIndexingMap(input)))
        source = input;
    if (!source)
      return;
    Value buffer = source->get();
    auto type = cast<MemRefType>(buffer.getType());
    Value next = arith::MinUIOp::create(
        cb, loc, arith::AddIOp::create(cb, loc, row, chunk),
        arith::SubIOp::create(cb, loc, extent, count));
    SmallVector<OpFoldResult> offsets(type.getRank(), cb.getIndexAttr(0));
    offsets[0] = next;
    SmallVector<OpFoldResult> sizes = sizesOf[buffer];
    sizes[0] = count;
    SmallVector<OpFoldResult> strides(type.getRank(), cb.getIndexAttr(1));
    Value view =
        memref::SubViewOp::create(cb, loc, buffer, offsets, sizes, strides);
    SmallVector<Value> inputs(generic.getDpsInputs());
    inputs.push_back(view);
    SmallVector<AffineMap> maps;
    for (OpOperand *input : generic.getDpsInputOperands())
      maps.push_back(generic.getMatchingIndexingMap(input));
    maps.push_back(original.getMatchingIndexingMap(source));
    for (OpOperand &init : generic.getDpsInitsMutable())
      maps.push_back(generic.getMatchingIndexingMap(&init));
    linalg::GenericOp::create(
        cb, loc, TypeRange{}, inputs, generic.getDpsInits(), maps,
        generic.getIteratorTypesArray(),
        [&](OpBuilder &nb, Location, ValueRange args) {
          IRMapping mapping;
          Block *body = generic.getBody();
          unsigned numInputs = generic.getNumDpsInputs();
          for (unsigned i = 0; i < body->getNumArguments(); ++i)
            mapping.map(body->getArgument(i), args[i < numInputs ? i : i + 1]);
          for (Operation &bodyOp : body->getOperations())
            nb.clone(bodyOp, mapping);
        });
    generic->erase();
  };
  auto emitChunk = [&](OpBuilder &cb, Value row, Value count) {
    for (linalg::LinalgOp op : members) {
      SmallVector<std::pair<unsigned, Value>> views;
      for (OpOperand &operand : op->getOpOperands()) {
        auto type = dyn_cast<MemRefType>(operand.get().getType());
        if (!type || !isRowIndexed(op.getMatchingIndexingMap(&operand)))
          continue;
        SmallVector<OpFoldResult> offsets(type.getRank(), cb.getIndexAttr(0));
        offsets[0] = row;
        SmallVector<OpFoldResult> sizes = sizesOf[operand.get()];
        sizes[0] = count;
        SmallVector<OpFoldResult> strides(type.getRank(), cb.getIndexAttr(1));
        Value view = memref::SubViewOp::create(cb, loc, operand.get(), offsets,
                                               sizes, strides);
        views.emplace_back(operand.getOperandNumber(), view);
      }
      Operation *clone = cb.clone(*op.getOperation());
      for (auto [number, view] : views)
        clone->setOperand(number, view);
      if (op != members.front())
        addPrefetch(cb, cast<linalg::LinalgOp>(clone), op, row, count);
    }
  };
  auto emitTask = [&](OpBuilder &tb, Value start) {
    Value end = arith::MinUIOp::create(
        tb, loc, arith::AddIOp::create(tb, loc, start, block), extent);
    scf::ForOp::create(tb, loc, start, end, chunk, ValueRange{},
                       [&](OpBuilder &fb, Location, Value row, ValueRange) {
                         Value count = arith::MinUIOp::create(
                             fb, loc, chunk,
                             arith::SubIOp::create(fb, loc, end, row));
                         emitChunk(fb, row, count);
                         scf::YieldOp::create(fb, loc);
                       });
  };
  auto emitParallel = [&](OpBuilder &nb) -> Operation * {
    return scf::ParallelOp::create(
        nb, loc, ValueRange{zero}, ValueRange{extent}, ValueRange{block},
        [&](OpBuilder &pb, Location, ValueRange ivs) {
          emitTask(pb, ivs.front());
        });
  };
  // Below the grain size the loop stays on the calling thread, marked so
  // that the vector lowerings do not parallelize its members either.
  auto emitSequential = [&](OpBuilder &nb) -> Operation * {
    auto loop = scf::ForOp::create(
        nb, loc, zero, extent, block, ValueRange{},
        [&](OpBuilder &fb, Location, Value start, ValueRange) {
          emitTask(fb, start);
          scf::YieldOp::create(fb, loc);
        });
    if (parallel)
      loop->setAttr(bcast::kSequentialRowsAttrName, nb.getUnitAttr());
    return loop;
  };
  Operation *loop;
  if (!parallel) {
    loop = emitSequential(b);
  } else if (grainSize <= 0) {
    loop = emitParallel(b);
  } else if (staticElements) {
    loop = *staticElements >= grainSize ? emitParallel(b) : emitSequential(b);
  } else {
    // Dynamic sizes: one branch around the two versions.
    Value elements = arith::MulIOp::create(b, loc, extent, rowElements);
    Value large = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                        elements, constant(grainSize));
    loop = scf::IfOp::create(
        b, loc, large,
        [&](OpBuilder &tb, Location tloc) {
          emitParallel(tb);
          scf::YieldOp::create(tb, tloc);
        },
        [&](OpBuilder &eb, Location eloc) {
          emitSequential(eb);
          scf::YieldOp::create(eb, eloc);
        });
  }
  for (Operation *free : llvm::reverse(group.deferred))
    rewriter.moveOpAfter(free, loop);
  for (linalg::LinalgOp op : members)
    rewriter.eraseOp(op);
}

namespace {
struct BcastFuseRowsPass
    : public bcast::impl::BcastFuseRowsBase<BcastFuseRowsPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // Worth a loop of its own: two ops or more, one of them a reduction
    // (chains of element-wise ops are fused into one generic before
    // bufferization and need no row loop).
    std::vector<RowGroup> groups =
        collectRowGroups(getOperation(), [](const RowGroup &group) {
          return group.members.size() >= 2 && group.hasReduction();
        });
    for (RowGroup &group : groups)
      rewriteGroup(rewriter, group, parallel, grainSize);
  }
};
} // namespace
