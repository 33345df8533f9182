//===- MapReductionsToGPU.cpp - bcast-map-reductions-to-gpu ---------------===//
//
// Turns the bufferized reduction generics of bcast's lowering into
// gpu.launch ops. A row group (RowGroups.h: a written-out softmax or
// LayerNorm, whose keepdim statistics broadcast back over the same rows)
// becomes one kernel in which a block takes a row at a time and runs every
// member on it in turn, so the row is read from memory once and the rest
// of its reads hit the cache. A reduction along the contiguous innermost
// dimension is shared by the block's threads: strided, coalesced loads
// into one partial per thread, then warp shuffles and shared memory. A
// reduction that keeps the innermost dimension gives each lane a column
// and each warp of the block a share of the reduced rows. The pass
// description in Passes.td records the mapping.
//
//===----------------------------------------------------------------------===//

#include "RowGroups.h"
#include "bcast/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTMAPREDUCTIONSTOGPU
#include "bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;
using namespace mlir::bcast::rows;

/// The largest grid; blocks loop over the rest (as in
/// bcast-map-elementwise-to-gpu: 16 blocks of 256 threads per SM of an
/// H100's 132).
static constexpr int64_t kMaxGrid = 2112;
static constexpr int64_t kWarp = 32;
/// A reduction to one element is split among blocks (lowerFullReduction)
/// in shares of at least this many elements per thread.
static constexpr int64_t kFullSplit = 4;

namespace {
/// How a reduction generic folds a value into its accumulator.
struct Combiner {
  Operation *op = nullptr;
  /// The combiner's operand that is the accumulator.
  unsigned accOperand = 0;
  TypedAttr neutral;

  /// `acc` combined with `value`, as the body combines them.
  Value emit(OpBuilder &b, Value acc, Value value) const {
    IRMapping mapping;
    mapping.map(op->getOperand(accOperand), acc);
    mapping.map(op->getOperand(1 - accOperand), value);
    return b.clone(*op, mapping)->getResult(0);
  }
};
} // namespace

/// The combiner of a reduction generic with one result whose body reads the
/// accumulator only in a combiner such as arith.addf or arith.maximumf.
static FailureOr<Combiner> matchCombiner(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1)
    return failure();
  Block *body = op.getBody();
  BlockArgument acc = body->getArguments().back();
  Operation *combiner = body->getTerminator()->getOperand(0).getDefiningOp();
  if (!combiner || combiner->getBlock() != body ||
      combiner->getNumOperands() != 2 || !acc.hasOneUse() ||
      acc.getUses().begin()->getOwner() != combiner ||
      combiner->getOperand(0) == combiner->getOperand(1) ||
      !linalg::getCombinerOpKind(combiner))
    return failure();
  std::optional<TypedAttr> neutral = arith::getNeutralElement(combiner);
  Type type = acc.getType();
  if (!neutral || !type.isIntOrFloat() || type.getIntOrFloatBitWidth() > 64)
    return failure();
  return Combiner{combiner, combiner->getOperand(0) == acc ? 0u : 1u, *neutral};
}

/// Whether the body of `op` can be cloned into a kernel: element-wise ops
/// without memory effects (no linalg.index).
static bool hasClonableBody(linalg::LinalgOp op) {
  return llvm::all_of(op.getBlock()->without_terminator(), [](Operation &o) {
    return !isa<linalg::IndexOp>(o) && isMemoryEffectFree(&o) &&
           o.getNumRegions() == 0;
  });
}

/// Whether every operand is indexed by loops or the constant 0.
static bool hasLoadableMaps(linalg::LinalgOp op) {
  return llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
    return llvm::all_of(map.getResults(), [](AffineExpr expr) {
      auto constant = dyn_cast<AffineConstantExpr>(expr);
      return isa<AffineDimExpr>(expr) || (constant && constant.getValue() == 0);
    });
  });
}

/// The extent of loop `d` of `op`, read on the host from an operand that
/// the loop indexes.
static Value getLoopSize(OpBuilder &b, Location loc, linalg::LinalgOp op,
                         unsigned d) {
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      continue;
    for (auto [i, expr] :
         llvm::enumerate(op.getMatchingIndexingMap(&operand).getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim || dim.getPosition() != d)
        continue;
      if (type.isDynamicDim(i))
        return memref::DimOp::create(b, loc, operand.get(), i);
      return arith::ConstantIndexOp::create(b, loc, type.getDimSize(i));
    }
  }
  llvm_unreachable("a verified linalg op indexes every loop");
}

static SmallVector<Value> operandIndices(OpBuilder &b, Location loc,
                                         AffineMap map, ArrayRef<Value> ivs) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      indices.push_back(ivs[dim.getPosition()]);
    else
      indices.push_back(arith::ConstantIndexOp::create(b, loc, 0));
  }
  return indices;
}

/// The body of `op` at loop indices `ivs`: its inputs loaded, `acc` as the
/// output's element (or the stored elements when null); the yielded values.
static SmallVector<Value> emitBodyValues(OpBuilder &b, Location loc,
                                         linalg::LinalgOp op,
                                         ArrayRef<Value> ivs, Value acc) {
  Block *body = op.getBlock();
  IRMapping mapping;
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (arg.use_empty())
      continue;
    if (op.isDpsInit(&operand) && acc) {
      mapping.map(arg, acc);
      continue;
    }
    if (!isa<MemRefType>(operand.get().getType())) {
      mapping.map(arg, operand.get());
      continue;
    }
    mapping.map(
        arg,
        memref::LoadOp::create(
            b, loc, operand.get(),
            operandIndices(b, loc, op.getMatchingIndexingMap(&operand), ivs)));
  }
  for (Operation &bodyOp : body->without_terminator())
    b.clone(bodyOp, mapping);
  SmallVector<Value> results;
  for (Value yielded : body->getTerminator()->getOperands())
    results.push_back(mapping.lookupOrDefault(yielded));
  return results;
}

static Value emitBody(OpBuilder &b, Location loc, linalg::LinalgOp op,
                      ArrayRef<Value> ivs, Value acc) {
  return emitBodyValues(b, loc, op, ivs, acc).front();
}

/// Every output of the element-wise `op` at `ivs`.
static void emitElement(OpBuilder &b, Location loc, linalg::LinalgOp op,
                        ArrayRef<Value> ivs) {
  SmallVector<Value> values = emitBodyValues(b, loc, op, ivs, Value());
  for (auto [value, out] : llvm::zip_equal(values, op.getDpsInitsMutable()))
    memref::StoreOp::create(
        b, loc, value, out.get(),
        operandIndices(b, loc, op.getMatchingIndexingMap(&out), ivs));
}

static OpOperand &getOutput(linalg::LinalgOp op) {
  return *op.getDpsInitOperand(0);
}

static Value loadOutput(OpBuilder &b, Location loc, linalg::LinalgOp op,
                        ArrayRef<Value> ivs) {
  OpOperand &out = getOutput(op);
  return memref::LoadOp::create(
      b, loc, out.get(),
      operandIndices(b, loc, op.getMatchingIndexingMap(&out), ivs));
}

static void storeOutput(OpBuilder &b, Location loc, linalg::LinalgOp op,
                        ArrayRef<Value> ivs, Value value) {
  OpOperand &out = getOutput(op);
  memref::StoreOp::create(
      b, loc, value, out.get(),
      operandIndices(b, loc, op.getMatchingIndexingMap(&out), ivs));
}

/// Splits `linear` into indices of `loops` (sizes `sizes`, innermost last)
/// and writes them into `ivs`.
static void delinearizeInto(OpBuilder &b, Location loc, Value linear,
                            ArrayRef<unsigned> loops, ArrayRef<Value> sizes,
                            SmallVectorImpl<Value> &ivs) {
  for (size_t i = loops.size(); i-- > 0;) {
    if (i == 0) {
      ivs[loops[i]] = linear;
      break;
    }
    Value size = sizes[loops[i]];
    ivs[loops[i]] = arith::RemUIOp::create(b, loc, linear, size);
    linear = arith::DivUIOp::create(b, loc, linear, size);
  }
}

static Value product(OpBuilder &b, Location loc, ArrayRef<unsigned> loops,
                     ArrayRef<Value> sizes) {
  Value result = arith::ConstantIndexOp::create(b, loc, 1);
  for (unsigned loop : loops)
    result = arith::MulIOp::create(b, loc, result, sizes[loop]);
  return result;
}

/// `value` from the lane `offset` away in the butterfly: gpu.shuffle moves
/// 32 bits, so narrower elements are widened and 64-bit ones go in halves.
static Value shuffleXor(OpBuilder &b, Location loc, Value value,
                        int32_t offset) {
  Type type = value.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  Type i32 = b.getI32Type();
  Type bitsType = b.getIntegerType(width);
  Value bits = isa<FloatType>(type)
                   ? Value(arith::BitcastOp::create(b, loc, bitsType, value))
                   : value;
  auto shuffle = [&](Value word) -> Value {
    return gpu::ShuffleOp::create(b, loc, word, offset, kWarp,
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  };
  Value moved;
  if (width == 32) {
    moved = shuffle(bits);
  } else if (width < 32) {
    moved = arith::TruncIOp::create(
        b, loc, bitsType, shuffle(arith::ExtUIOp::create(b, loc, i32, bits)));
  } else {
    Value low = arith::TruncIOp::create(b, loc, i32, bits);
    Value shift = arith::ConstantIntOp::create(b, loc, bitsType, 32);
    Value high = arith::TruncIOp::create(
        b, loc, i32, arith::ShRUIOp::create(b, loc, bits, shift));
    Value lowMoved = arith::ExtUIOp::create(b, loc, bitsType, shuffle(low));
    Value highMoved = arith::ExtUIOp::create(b, loc, bitsType, shuffle(high));
    moved = arith::OrIOp::create(
        b, loc, lowMoved, arith::ShLIOp::create(b, loc, highMoved, shift));
  }
  return isa<FloatType>(type)
             ? Value(arith::BitcastOp::create(b, loc, type, moved))
             : moved;
}

/// `value` combined over the threads of the block (`blockSize` threads, a
/// multiple of 32), returned to every thread: a butterfly within each warp,
/// then the warps' results through `scratch` (32 elements of workgroup
/// memory) in warp order. Every thread of the block must reach it.
static Value emitBlockReduce(OpBuilder &b, Location loc, const Combiner &c,
                             Value value, Value tid, int64_t blockSize,
                             Value scratch) {
  for (int32_t offset = kWarp / 2; offset >= 1; offset /= 2)
    value = c.emit(b, value, shuffleXor(b, loc, value, offset));
  int64_t warps = blockSize / kWarp;
  if (warps == 1)
    return value;
  Value warpSize = arith::ConstantIndexOp::create(b, loc, kWarp);
  Value lane = arith::RemUIOp::create(b, loc, tid, warpSize);
  Value warp = arith::DivUIOp::create(b, loc, tid, warpSize);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, zero);
  scf::IfOp::create(b, loc, first, [&](OpBuilder &ib, Location iloc) {
    memref::StoreOp::create(ib, iloc, value, scratch, warp);
    scf::YieldOp::create(ib, iloc);
  });
  gpu::BarrierOp::create(b, loc);
  Value total = memref::LoadOp::create(b, loc, scratch, zero);
  for (int64_t w = 1; w < warps; ++w)
    total = c.emit(b, total,
                   memref::LoadOp::create(
                       b, loc, scratch,
                       ValueRange{arith::ConstantIndexOp::create(b, loc, w)}));
  // The scratch may be reused by the next reduction.
  gpu::BarrierOp::create(b, loc);
  return total;
}

/// A loop `for (i = start; i < end; i += step)` that carries `init` (or
/// nothing) through `body`, returning the carried value.
static Value
emitFor(OpBuilder &b, Location loc, Value start, Value end, Value step,
        Value init,
        function_ref<Value(OpBuilder &, Location, Value, Value)> body) {
  SmallVector<Value> inits;
  if (init)
    inits.push_back(init);
  auto loop = scf::ForOp::create(
      b, loc, start, end, step, inits,
      [&](OpBuilder &fb, Location floc, Value i, ValueRange carried) {
        Value next = body(fb, floc, i, init ? carried.front() : Value());
        scf::YieldOp::create(fb, floc, next ? ValueRange{next} : ValueRange{});
      });
  return init ? loop.getResult(0) : Value();
}

/// A thread's partial of `op` at the kept indices `at`: `init` combined
/// with the reduced elements start, start + step, ... below `count`, the
/// reduced loops `reduced` flattened.
static Value emitStridedPartial(OpBuilder &b, Location loc, linalg::LinalgOp op,
                                ArrayRef<Value> at, ArrayRef<unsigned> reduced,
                                ArrayRef<Value> sizes, Value start, Value count,
                                Value step, Value init) {
  return emitFor(b, loc, start, count, step, init,
                 [&](OpBuilder &rb, Location rloc, Value r, Value carried) {
                   SmallVector<Value> inner(at);
                   delinearizeInto(rb, rloc, r, reduced, sizes, inner);
                   return emitBody(rb, rloc, op, inner, carried);
                 });
}

namespace {
/// Emits one linalg op inside a kernel for given indices of its `fixed`
/// loops, the block's threads sharing the rest.
struct BlockEmitter {
  linalg::LinalgOp op;
  SmallVector<Value> sizes; ///< Loop extents, read on the host.
  std::optional<Combiner> combiner;
  Value scratch; ///< Workgroup memory of 32 elements, for reductions.
  int64_t blockSize;

  void emit(OpBuilder &b, Location loc, Value tid,
            ArrayRef<std::pair<unsigned, Value>> fixed) const;
};
} // namespace

void BlockEmitter::emit(OpBuilder &b, Location loc, Value tid,
                        ArrayRef<std::pair<unsigned, Value>> fixed) const {
  // The interface's accessors are not const.
  linalg::LinalgOp op = this->op;
  unsigned rank = op.getNumLoops();
  SmallVector<Value> ivs(rank);
  for (auto [loop, value] : fixed)
    ivs[loop] = value;
  SmallVector<unsigned> parallel, reduced;
  for (auto [d, iterator] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (ivs[d])
      continue;
    (iterator == utils::IteratorType::reduction ? reduced : parallel)
        .push_back(d);
  }
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value block = arith::ConstantIndexOp::create(b, loc, blockSize);
  Value kept = product(b, loc, parallel, sizes);

  if (reduced.empty()) {
    // Element-wise: the threads stride over the elements.
    emitFor(b, loc, tid, kept, block, {},
            [&](OpBuilder &fb, Location floc, Value linear, Value) {
              SmallVector<Value> at = ivs;
              delinearizeInto(fb, floc, linear, parallel, sizes, at);
              emitElement(fb, floc, op, at);
              return Value();
            });
    return;
  }

  Value count = product(b, loc, reduced, sizes);
  if (reduced.back() != rank - 1) {
    // The innermost loop is kept: a thread per kept element (consecutive
    // threads, consecutive addresses), the reduced loops in order.
    emitFor(b, loc, tid, kept, block, {},
            [&](OpBuilder &fb, Location floc, Value linear, Value) {
              SmallVector<Value> at = ivs;
              delinearizeInto(fb, floc, linear, parallel, sizes, at);
              Value acc = loadOutput(fb, floc, op, at);
              acc = emitFor(
                  fb, floc, zero, count, one, acc,
                  [&](OpBuilder &rb, Location rloc, Value r, Value carried) {
                    SmallVector<Value> inner = at;
                    delinearizeInto(rb, rloc, r, reduced, sizes, inner);
                    return emitBody(rb, rloc, op, inner, carried);
                  });
              storeOutput(fb, floc, op, at, acc);
              return Value();
            });
    return;
  }

  // The innermost loop is reduced: the whole block reduces each kept
  // element in turn, each thread striding over the reduced elements.
  Value neutral = arith::ConstantOp::create(b, loc, combiner->neutral);
  emitFor(
      b, loc, zero, kept, one, {},
      [&](OpBuilder &fb, Location floc, Value linear, Value) {
        SmallVector<Value> at = ivs;
        delinearizeInto(fb, floc, linear, parallel, sizes, at);
        Value partial = emitStridedPartial(fb, floc, op, at, reduced, sizes,
                                           tid, count, block, neutral);
        Value total = emitBlockReduce(fb, floc, *combiner, partial, tid,
                                      blockSize, scratch);
        Value first = arith::CmpIOp::create(fb, floc, arith::CmpIPredicate::eq,
                                            tid, zero);
        scf::IfOp::create(fb, floc, first, [&](OpBuilder &ib, Location iloc) {
          // Reduced loops index the output by the constant 0.
          SmallVector<Value> out = at;
          for (unsigned d : reduced)
            out[d] = zero;
          storeOutput(ib, iloc, op, out,
                      combiner->emit(ib, loadOutput(ib, iloc, op, out), total));
          scf::YieldOp::create(ib, iloc);
        });
        return Value();
      });
}

/// A one-dimensional launch of `blockSize` threads per block and
/// min(`units`, kMaxGrid) blocks (at least one), with workgroup buffers of
/// `scratchTypes`.
static gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, Value units,
                                  int64_t blockSize,
                                  TypeRange scratchTypes = {}) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value grid = arith::MaxUIOp::create(
      b, loc, one,
      arith::MinUIOp::create(b, loc, units,
                             arith::ConstantIndexOp::create(b, loc, kMaxGrid)));
  Value block = arith::ConstantIndexOp::create(b, loc, blockSize);
  return gpu::LaunchOp::create(b, loc, grid, one, one, block, one, one,
                               /*dynamicSharedMemorySize=*/nullptr,
                               /*asyncTokenType=*/nullptr,
                               /*asyncDependencies=*/{}, scratchTypes);
}

/// The launch's block size: reductions shuffle whole warps.
static int64_t getReductionBlockSize(int64_t blockSize) {
  return std::min<int64_t>(1024, llvm::alignTo(blockSize, kWarp));
}

/// The emitter of `op`, its loop sizes read at the builder's position (on
/// the host), and its scratch type, if it needs one.
static BlockEmitter makeEmitter(OpBuilder &b, Location loc, linalg::LinalgOp op,
                                int64_t blockSize,
                                SmallVectorImpl<Type> &scratchTypes) {
  BlockEmitter emitter{op, {}, std::nullopt, Value(), blockSize};
  for (unsigned d = 0; d < op.getNumLoops(); ++d)
    emitter.sizes.push_back(getLoopSize(b, loc, op, d));
  if (op.getNumReductionLoops()) {
    emitter.combiner = *matchCombiner(cast<linalg::GenericOp>(op));
    scratchTypes.push_back(MemRefType::get(
        {kWarp}, emitter.combiner->neutral.getType(), AffineMap(),
        gpu::AddressSpaceAttr::get(b.getContext(),
                                   gpu::AddressSpace::Workgroup)));
  }
  return emitter;
}

/// A row group as one kernel: block x takes rows in turn and runs every
/// member on the row, with a barrier between members (a member reads what
/// the previous ones wrote into the row, in other threads).
static void lowerRowGroup(RewriterBase &rewriter, RowGroup &group,
                          int64_t blockSize) {
  linalg::LinalgOp last = group.members.back();
  Location loc = last.getLoc();
  rewriter.setInsertionPoint(last);
  OpBuilder &b = rewriter;
  SmallVector<Type> scratchTypes;
  SmallVector<BlockEmitter> emitters;
  for (linalg::LinalgOp op : group.members)
    emitters.push_back(makeEmitter(b, loc, op, blockSize, scratchTypes));
  Value rows = emitters.front().sizes.front();
  gpu::LaunchOp launch = createLaunch(b, loc, rows, blockSize, scratchTypes);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    unsigned next = 0;
    for (BlockEmitter &emitter : emitters)
      if (emitter.combiner)
        emitter.scratch = launch.getWorkgroupAttributions()[next++];
    Value tid = launch.getThreadIds().x;
    emitFor(b, loc, launch.getBlockIds().x, rows, launch.getGridSize().x, {},
            [&](OpBuilder &fb, Location floc, Value row, Value) {
              for (const BlockEmitter &emitter : emitters) {
                emitter.emit(fb, floc, tid, {{0u, row}});
                gpu::BarrierOp::create(fb, floc);
              }
              return Value();
            });
    gpu::TerminatorOp::create(b, loc);
  }
  for (Operation *free : llvm::reverse(group.deferred))
    rewriter.moveOpAfter(free, launch);
  for (linalg::LinalgOp op : group.members)
    rewriter.eraseOp(op);
}

/// A reduction to one element (every kept extent statically 1) of more
/// elements than `kFullSplit` blocks' worth as two kernels, so that it
/// runs on the whole GPU rather than on one block: each block of the first
/// reduces a grid-strided share of the flattened elements into a partial
/// (consecutive threads, consecutive elements), and one block of the
/// second reduces the partials, in block order, into the output.
static void lowerFullReduction(RewriterBase &rewriter, linalg::GenericOp op,
                               int64_t blockSize) {
  Location loc = op.getLoc();
  OpBuilder &b = rewriter;
  SmallVector<Type> scratchTypes;
  BlockEmitter emitter = makeEmitter(b, loc, op, blockSize, scratchTypes);
  const Combiner &c = *emitter.combiner;
  unsigned rank = op.getNumLoops();
  SmallVector<unsigned> reduced;
  for (auto [d, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    if (iterator == utils::IteratorType::reduction)
      reduced.push_back(d);
  ArrayRef<Value> sizes = emitter.sizes;
  Value count = product(b, loc, reduced, sizes);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value block = arith::ConstantIndexOp::create(b, loc, blockSize);
  // Blocks of the first kernel: a few elements per thread at least.
  Value units = arith::CeilDivUIOp::create(
      b, loc, count,
      arith::ConstantIndexOp::create(b, loc, blockSize * kFullSplit));
  Value grid = arith::MaxUIOp::create(
      b, loc, one,
      arith::MinUIOp::create(b, loc, units,
                             arith::ConstantIndexOp::create(b, loc, kMaxGrid)));
  Type accType = c.neutral.getType();
  Value partials = memref::AllocOp::create(
      b, loc, MemRefType::get({ShapedType::kDynamic}, accType),
      ValueRange{grid});
  SmallVector<Value> origin(rank, zero);

  gpu::LaunchOp first = createLaunch(b, loc, grid, blockSize, scratchTypes);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&first.getBody().front());
    Value tid = first.getThreadIds().x;
    Value bid = first.getBlockIds().x;
    Value start = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, bid, block), tid);
    Value stride = arith::MulIOp::create(b, loc, first.getGridSize().x, block);
    Value neutral = arith::ConstantOp::create(b, loc, c.neutral);
    Value partial = emitStridedPartial(b, loc, op, origin, reduced, sizes,
                                       start, count, stride, neutral);
    Value total = emitBlockReduce(b, loc, c, partial, tid, blockSize,
                                  first.getWorkgroupAttributions().front());
    Value leader =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, zero);
    scf::IfOp::create(b, loc, leader, [&](OpBuilder &ib, Location iloc) {
      memref::StoreOp::create(ib, iloc, total, partials, ValueRange{bid});
      scf::YieldOp::create(ib, iloc);
    });
    gpu::TerminatorOp::create(b, loc);
  }

  gpu::LaunchOp second = createLaunch(b, loc, one, blockSize, scratchTypes);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&second.getBody().front());
    Value tid = second.getThreadIds().x;
    Value neutral = arith::ConstantOp::create(b, loc, c.neutral);
    Value partial =
        emitFor(b, loc, tid, grid, block, neutral,
                [&](OpBuilder &rb, Location rloc, Value i, Value carried) {
                  return c.emit(rb, carried,
                                memref::LoadOp::create(rb, rloc, partials, i));
                });
    Value total = emitBlockReduce(b, loc, c, partial, tid, blockSize,
                                  second.getWorkgroupAttributions().front());
    Value leader =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, zero);
    scf::IfOp::create(b, loc, leader, [&](OpBuilder &ib, Location iloc) {
      storeOutput(ib, iloc, op, origin,
                  c.emit(ib, loadOutput(ib, iloc, op, origin), total));
      scf::YieldOp::create(ib, iloc);
    });
    gpu::TerminatorOp::create(b, loc);
  }
  memref::DeallocOp::create(b, loc, partials);
  rewriter.eraseOp(op);
}

/// A reduction outside row groups (over an outer or every dimension) as one
/// kernel. When the innermost loop is reduced, each block reduces a kept
/// element at a time. When it is kept, lane l of each warp takes column
/// `32 * block + l` and warp w the reduced elements w, w + warps, ...;
/// the warps' partials meet in workgroup memory, in warp order.
static void lowerReduction(RewriterBase &rewriter, linalg::GenericOp op,
                           int64_t blockSize) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  OpBuilder &b = rewriter;
  // One kept element of more than a block's share: both kernels.
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  bool oneKept = true;
  int64_t reducedElements = 1;
  for (auto [size, iterator] : llvm::zip_equal(ranges, iterators)) {
    if (iterator == utils::IteratorType::parallel)
      oneKept &= size == 1;
    else if (ShapedType::isDynamic(size) || reducedElements < 0)
      reducedElements = -1;
    else
      reducedElements *= size;
  }
  if (oneKept &&
      (reducedElements < 0 || reducedElements > blockSize * kFullSplit))
    return lowerFullReduction(rewriter, op, blockSize);
  SmallVector<Type> scratchTypes;
  BlockEmitter emitter = makeEmitter(b, loc, op, blockSize, scratchTypes);
  unsigned rank = op.getNumLoops();
  SmallVector<unsigned> parallel, reduced;
  for (auto [d, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    (iterator == utils::IteratorType::reduction ? reduced : parallel)
        .push_back(d);
  ArrayRef<Value> sizes = emitter.sizes;
  Value kept = product(b, loc, parallel, sizes);
  Value count = product(b, loc, reduced, sizes);
  Value warpSize = arith::ConstantIndexOp::create(b, loc, kWarp);
  bool innerReduced = reduced.back() == rank - 1;
  Value units =
      innerReduced ? kept : arith::CeilDivUIOp::create(b, loc, kept, warpSize);
  if (!innerReduced) {
    // A partial per thread rather than per warp.
    scratchTypes.back() = MemRefType::get(
        {blockSize}, emitter.combiner->neutral.getType(), AffineMap(),
        gpu::AddressSpaceAttr::get(b.getContext(),
                                   gpu::AddressSpace::Workgroup));
  }
  gpu::LaunchOp launch = createLaunch(b, loc, units, blockSize, scratchTypes);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  emitter.scratch = launch.getWorkgroupAttributions().front();
  Value tid = launch.getThreadIds().x;
  Value bid = launch.getBlockIds().x;
  Value gridSize = launch.getGridSize().x;
  if (innerReduced) {
    // The emitter's serial loop over kept elements becomes the grid's.
    emitFor(b, loc, bid, kept, gridSize, {},
            [&](OpBuilder &fb, Location floc, Value linear, Value) {
              SmallVector<Value> at(rank);
              delinearizeInto(fb, floc, linear, parallel, sizes, at);
              SmallVector<std::pair<unsigned, Value>> fixed;
              for (unsigned d : parallel)
                fixed.emplace_back(d, at[d]);
              emitter.emit(fb, floc, tid, fixed);
              return Value();
            });
    gpu::TerminatorOp::create(b, loc);
    rewriter.eraseOp(op);
    return;
  }

  const Combiner &c = *emitter.combiner;
  int64_t warps = blockSize / kWarp;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value lane = arith::RemUIOp::create(b, loc, tid, warpSize);
  Value warp = arith::DivUIOp::create(b, loc, tid, warpSize);
  Value warpsValue = arith::ConstantIndexOp::create(b, loc, warps);
  Value neutral = arith::ConstantOp::create(b, loc, c.neutral);
  Value start = arith::MulIOp::create(b, loc, bid, warpSize);
  Value step = arith::MulIOp::create(b, loc, gridSize, warpSize);
  emitFor(
      b, loc, start, kept, step, {},
      [&](OpBuilder &fb, Location floc, Value base, Value) {
        Value column = arith::AddIOp::create(fb, floc, base, lane);
        Value inRange = arith::CmpIOp::create(
            fb, floc, arith::CmpIPredicate::ult, column, kept);
        auto at = [&](OpBuilder &ab, Location aloc) {
          SmallVector<Value> ivs(rank);
          delinearizeInto(ab, aloc, column, parallel, sizes, ivs);
          return ivs;
        };
        auto partial = scf::IfOp::create(
            fb, floc, inRange,
            [&](OpBuilder &ib, Location iloc) {
              Value acc =
                  emitStridedPartial(ib, iloc, op, at(ib, iloc), reduced, sizes,
                                     warp, count, warpsValue, neutral);
              scf::YieldOp::create(ib, iloc, acc);
            },
            [&](OpBuilder &ib, Location iloc) {
              scf::YieldOp::create(ib, iloc, neutral);
            });
        memref::StoreOp::create(fb, floc, partial.getResult(0), emitter.scratch,
                                tid);
        gpu::BarrierOp::create(fb, floc);
        Value firstWarp = arith::CmpIOp::create(
            fb, floc, arith::CmpIPredicate::eq, warp, zero);
        Value writes = arith::AndIOp::create(fb, floc, firstWarp, inRange);
        scf::IfOp::create(fb, floc, writes, [&](OpBuilder &ib, Location iloc) {
          SmallVector<Value> out = at(ib, iloc);
          for (unsigned d : reduced)
            out[d] = zero;
          Value total = loadOutput(ib, iloc, op, out);
          for (int64_t w = 0; w < warps; ++w) {
            Value slot = arith::AddIOp::create(
                ib, iloc, lane,
                arith::ConstantIndexOp::create(ib, iloc, w * kWarp));
            total = c.emit(ib, total,
                           memref::LoadOp::create(ib, iloc, emitter.scratch,
                                                  ValueRange{slot}));
          }
          storeOutput(ib, iloc, op, out, total);
          scf::YieldOp::create(ib, iloc);
        });
        // The partials may be overwritten by the next columns.
        gpu::BarrierOp::create(fb, floc);
        return Value();
      });
  gpu::TerminatorOp::create(b, loc);
  rewriter.eraseOp(op);
}

/// An element-wise generic with several results (a reduction over extents
/// of 1 fused with its consumers, or one over a rank-0 tensor), which
/// bcast-map-elementwise-to-gpu does not take: one grid-stride loop over
/// all elements.
static void lowerElementwise(RewriterBase &rewriter, linalg::GenericOp op,
                             int64_t blockSize) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  OpBuilder &b = rewriter;
  SmallVector<Value> sizes;
  SmallVector<unsigned> loops;
  for (unsigned d = 0; d < op.getNumLoops(); ++d) {
    sizes.push_back(getLoopSize(b, loc, op, d));
    loops.push_back(d);
  }
  Value total = product(b, loc, loops, sizes);
  Value block = arith::ConstantIndexOp::create(b, loc, blockSize);
  gpu::LaunchOp launch = createLaunch(
      b, loc, arith::CeilDivUIOp::create(b, loc, total, block), blockSize);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  Value start = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, launch.getBlockIds().x, block),
      launch.getThreadIds().x);
  Value step = arith::MulIOp::create(b, loc, launch.getGridSize().x, block);
  emitFor(b, loc, start, total, step, {},
          [&](OpBuilder &fb, Location floc, Value linear, Value) {
            SmallVector<Value> ivs(sizes.size());
            delinearizeInto(fb, floc, linear, loops, sizes, ivs);
            emitElement(fb, floc, op, ivs);
            return Value();
          });
  gpu::TerminatorOp::create(b, loc);
  rewriter.eraseOp(op);
}

/// Whether the pass can lower `op` inside a kernel.
static bool isSupported(linalg::LinalgOp op) {
  if (!isa<linalg::GenericOp, linalg::FillOp>(op) ||
      !op.hasPureBufferSemantics() || !hasClonableBody(op) ||
      !hasLoadableMaps(op))
    return false;
  if (op.getNumReductionLoops() == 0)
    return true;
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  return generic && succeeded(matchCombiner(generic));
}

/// Rewrites a linalg.fill on a buffer into the element-wise generic it is,
/// for bcast-map-elementwise-to-gpu.
static void fillToGeneric(RewriterBase &rewriter, linalg::FillOp fill) {
  Value output = fill.getDpsInits()[0];
  auto type = cast<MemRefType>(output.getType());
  AffineMap identity = rewriter.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  Value value = fill.getDpsInputs()[0];
  rewriter.setInsertionPoint(fill);
  linalg::GenericOp::create(rewriter, fill.getLoc(), TypeRange{}, ValueRange{},
                            ValueRange{output}, ArrayRef<AffineMap>{identity},
                            iterators,
                            [&](OpBuilder &b, Location loc, ValueRange) {
                              linalg::YieldOp::create(b, loc, value);
                            });
  rewriter.eraseOp(fill);
}

namespace {
struct BcastMapReductionsToGPUPass
    : public bcast::impl::BcastMapReductionsToGPUBase<
          BcastMapReductionsToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    if (blockSize <= 0 || blockSize > 1024) {
      getOperation()->emitError() << "block-size must be in [1, 1024]";
      return signalPassFailure();
    }
    int64_t threads = getReductionBlockSize(blockSize);
    auto outsideKernels = [](Operation *op) {
      return !op->getParentOfType<gpu::LaunchOp>() &&
             !op->getParentOfType<gpu::GPUModuleOp>();
    };
    // Every reduction must be one the kernels can compute; argmax and
    // argmin (two results) are not.
    WalkResult walk = getOperation()->walk([&](linalg::GenericOp op) {
      if (!outsideKernels(op) || op.getNumReductionLoops() == 0 ||
          isSupported(op))
        return WalkResult::advance();
      op.emitOpError()
          << "cannot be mapped to the GPU: bcast's GPU lowering handles "
             "reductions with one result that a combiner such as arith.addf "
             "or arith.maximumf accumulates";
      return WalkResult::interrupt();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();

    IRRewriter rewriter(&getContext());
    std::vector<RowGroup> groups =
        collectRowGroups(getOperation(), [&](const RowGroup &group) {
          return group.hasReduction() &&
                 llvm::all_of(group.members, isSupported) &&
                 outsideKernels(group.members.front());
        });
    for (RowGroup &group : groups)
      lowerRowGroup(rewriter, group, threads);

    SmallVector<linalg::GenericOp> reductions, multiResult;
    SmallVector<linalg::FillOp> fills;
    getOperation()->walk([&](Operation *op) {
      if (!outsideKernels(op))
        return;
      if (auto generic = dyn_cast<linalg::GenericOp>(op);
          generic && generic.getNumReductionLoops() > 0)
        reductions.push_back(generic);
      else if (generic && generic.getNumDpsInits() > 1 && isSupported(generic))
        multiResult.push_back(generic);
      if (auto fill = dyn_cast<linalg::FillOp>(op);
          fill && fill.hasPureBufferSemantics())
        fills.push_back(fill);
    });
    for (linalg::GenericOp op : reductions)
      lowerReduction(rewriter, op, threads);
    for (linalg::GenericOp op : multiResult)
      lowerElementwise(rewriter, op, threads);
    for (linalg::FillOp fill : fills)
      fillToGeneric(rewriter, fill);
  }
};
} // namespace
