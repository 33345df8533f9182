//===- MapElementwiseToGPU.cpp - bcast-map-elementwise-to-gpu -------------===//
//
// Turns the bufferized element-wise generics of bcast's lowering into
// gpu.launch ops whose thread x runs along the contiguous innermost
// dimension (coalesced loads and stores), with grid-stride loops so that
// any size is covered. The pass description in Passes.td records the
// mapping.
//
//===----------------------------------------------------------------------===//

#include "bcast/Transforms/BroadcastMaps.h"
#include "bcast/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTMAPELEMENTWISETOGPU
#include "bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;

/// The largest grid y; the grid-stride loop gives each thread the rows
/// beyond it. One block per row (up to CUDA's limit, 65535) was 6-26%
/// slower on an H100 than a few rows per thread: with 2112 (16 blocks of
/// 256 threads per SM of 132) the row, outer and chain benchmarks ran
/// fastest (docs/Benchmarks.md).
static constexpr int64_t kMaxGridY = 2112;
/// The largest grid x used for a flattened index space; a grid-stride loop
/// covers the rest.
static constexpr int64_t kMaxFlatGridX = 1 << 20;

/// The buffer `value` is a view of (through casts, reinterpret_casts,
/// subviews and reshapes), or `value` itself.
static Value getRootBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

static bool isArgumentOf(Value value, Operation *op) {
  auto arg = dyn_cast<BlockArgument>(getRootBuffer(value));
  return arg && arg.getOwner()->getParentOp() == op;
}

/// Rewrites, in `func`, each memref.copy between device buffers into an
/// element-wise generic, which then becomes a kernel like the others: a copy
/// on the host would dereference device pointers. Bufferization makes such
/// copies for in-place ops on read-only inputs and for a broadcast_to whose
/// copy is all that is left of it. A copy is on device buffers when the
/// function computes on the GPU (it has generics to map, and its own
/// buffers become device buffers) or when it reads or writes the function's
/// arguments (the pipeline's host functions take device buffers); a
/// driver's copies between its own host buffers stay as they are.
static void copiesToGenerics(RewriterBase &rewriter, Operation *func) {
  bool computes = false;
  SmallVector<memref::CopyOp> copies;
  func->walk([&](Operation *op) {
    if (isa<gpu::LaunchOp, gpu::GPUModuleOp>(op))
      return WalkResult::skip();
    if (isa<linalg::GenericOp>(op))
      computes = true;
    if (auto copy = dyn_cast<memref::CopyOp>(op))
      copies.push_back(copy);
    return WalkResult::advance();
  });
  for (memref::CopyOp copy : copies) {
    if (!computes && !isArgumentOf(copy.getSource(), func) &&
        !isArgumentOf(copy.getTarget(), func))
      continue;
    auto type = cast<MemRefType>(copy.getTarget().getType());
    AffineMap identity = rewriter.getMultiDimIdentityMap(type.getRank());
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    rewriter.setInsertionPoint(copy);
    linalg::GenericOp::create(
        rewriter, copy.getLoc(), TypeRange{}, ValueRange{copy.getSource()},
        ValueRange{copy.getTarget()}, ArrayRef<AffineMap>{identity, identity},
        iterators, [](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(b, loc, args[0]);
        });
    rewriter.eraseOp(copy);
  }
}

/// Emits the body of `op` for loop indices `ivs`: loads, the element-wise
/// computation, the store.
static void emitElement(OpBuilder &b, Location loc, linalg::GenericOp op,
                        ArrayRef<Value> ivs) {
  Block *body = op.getBody();
  IRMapping mapping;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = body->getArgument(operand.getOperandNumber());
    if (arg.use_empty())
      continue;
    SmallVector<Value> indices;
    for (AffineExpr expr : op.getMatchingIndexingMap(&operand).getResults()) {
      if (auto dim = dyn_cast<AffineDimExpr>(expr))
        indices.push_back(ivs[dim.getPosition()]);
      else
        indices.push_back(zero);
    }
    mapping.map(arg, memref::LoadOp::create(b, loc, operand.get(), indices));
  }
  for (Operation &bodyOp : body->without_terminator())
    b.clone(bodyOp, mapping);
  Value result = mapping.lookupOrDefault(body->getTerminator()->getOperand(0));
  memref::StoreOp::create(b, loc, result, op.getDpsInits()[0], ivs);
}

/// Splits a linear index over dims [0, sizes.size()) into indices.
static SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                                      ArrayRef<Value> sizes) {
  SmallVector<Value> indices(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    if (d == 0) {
      indices[d] = linear;
      break;
    }
    indices[d] = arith::RemUIOp::create(b, loc, linear, sizes[d]);
    linear = arith::DivUIOp::create(b, loc, linear, sizes[d]);
  }
  return indices;
}

static void lowerToLaunch(RewriterBase &rewriter, linalg::GenericOp op,
                          int64_t blockSize) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  OpBuilder &b = rewriter;
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value one = index(1);
  Value output = op.getDpsInits()[0];
  auto outType = cast<MemRefType>(output.getType());
  int64_t rank = outType.getRank();

  SmallVector<Value> sizes;
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(outType.isDynamicDim(d)
                        ? Value(memref::DimOp::create(b, loc, output, d))
                        : index(outType.getDimSize(d)));

  Value block = index(blockSize);
  if (rank == 0) {
    auto launch = gpu::LaunchOp::create(b, loc, one, one, one, one, one, one);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    emitElement(b, loc, op, {});
    gpu::TerminatorOp::create(b, loc);
    rewriter.eraseOp(op);
    return;
  }

  bool flat = !outType.isDynamicDim(rank - 1) &&
              outType.getDimSize(rank - 1) < blockSize;
  if (flat) {
    // One grid-stride loop over all elements.
    Value total = sizes.front();
    for (Value size : ArrayRef<Value>(sizes).drop_front())
      total = arith::MulIOp::create(b, loc, total, size);
    Value blocks = arith::MaxUIOp::create(
        b, loc, one,
        arith::MinUIOp::create(b, loc,
                               arith::CeilDivUIOp::create(b, loc, total, block),
                               index(kMaxFlatGridX)));
    auto launch =
        gpu::LaunchOp::create(b, loc, blocks, one, one, block, one, one);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    Value start = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, launch.getBlockIds().x, block),
        launch.getThreadIds().x);
    Value stride = arith::MulIOp::create(b, loc, launch.getGridSize().x, block);
    scf::ForOp::create(
        b, loc, start, total, stride, ValueRange{},
        [&](OpBuilder &fb, Location floc, Value linear, ValueRange) {
          emitElement(fb, floc, op, delinearize(fb, floc, linear, sizes));
          scf::YieldOp::create(fb, floc);
        });
    gpu::TerminatorOp::create(b, loc);
    rewriter.eraseOp(op);
    return;
  }

  // Rows: block x and thread x along the innermost dimension, block y over
  // the rows (all outer dimensions), grid-stride.
  Value inner = sizes.back();
  ArrayRef<Value> outer = ArrayRef<Value>(sizes).drop_back();
  Value rows = one;
  if (!outer.empty()) {
    rows = outer.front();
    for (Value size : outer.drop_front())
      rows = arith::MulIOp::create(b, loc, rows, size);
  }
  Value blocksX = arith::MaxUIOp::create(
      b, loc, one, arith::CeilDivUIOp::create(b, loc, inner, block));
  Value blocksY = arith::MaxUIOp::create(
      b, loc, one, arith::MinUIOp::create(b, loc, rows, index(kMaxGridY)));
  auto launch =
      gpu::LaunchOp::create(b, loc, blocksX, blocksY, one, block, one, one);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  Value j = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, launch.getBlockIds().x, block),
      launch.getThreadIds().x);
  Value inRange =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, j, inner);
  scf::IfOp::create(b, loc, inRange, [&](OpBuilder &ib, Location iloc) {
    scf::ForOp::create(
        ib, iloc, launch.getBlockIds().y, rows, launch.getGridSize().y,
        ValueRange{}, [&](OpBuilder &fb, Location floc, Value row, ValueRange) {
          SmallVector<Value> ivs =
              delinearize(fb, floc, row, ArrayRef<Value>(sizes).drop_back());
          ivs.push_back(j);
          emitElement(fb, floc, op, ivs);
          scf::YieldOp::create(fb, floc);
        });
    scf::YieldOp::create(ib, iloc);
  });
  gpu::TerminatorOp::create(b, loc);
  rewriter.eraseOp(op);
}

namespace {
struct BcastMapElementwiseToGPUPass
    : public bcast::impl::BcastMapElementwiseToGPUBase<
          BcastMapElementwiseToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    if (blockSize <= 0 || blockSize > 1024) {
      getOperation()->emitError() << "block-size must be in [1, 1024]";
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](FunctionOpInterface func) {
      if (!func->getParentOfType<gpu::GPUModuleOp>())
        copiesToGenerics(rewriter, func);
    });
    SmallVector<linalg::GenericOp> generics;
    getOperation()->walk([&](linalg::GenericOp op) {
      // Generics already inside a kernel stay as they are.
      if (!op->getParentOfType<gpu::LaunchOp>() &&
          !op->getParentOfType<gpu::GPUModuleOp>())
        generics.push_back(op);
    });
    for (linalg::GenericOp op : generics) {
      if (!bcast::isElementwiseBroadcastGeneric(op)) {
        op.emitOpError() << "cannot be mapped to the GPU: bcast's GPU "
                            "lowering handles element-wise generics with "
                            "broadcast indexing maps";
        return signalPassFailure();
      }
      // The body moves into a kernel, where a linalg.index has no generic
      // to read its loop from (bcast's lowering never emits one; the fuzz
      // target's hand-written seeds do).
      if (op.hasIndexSemantics()) {
        op.emitOpError() << "cannot be mapped to the GPU: its body reads "
                            "the loop indices (linalg.index)";
        return signalPassFailure();
      }
      lowerToLaunch(rewriter, op, blockSize);
    }
  }
};
} // namespace
