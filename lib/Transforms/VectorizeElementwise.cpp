//===- VectorizeElementwise.cpp - Vector loops for broadcast generics -----===//
//
// Lowers the element-wise linalg.generic ops that bcast's conversion and
// fusion produce, once bufferized, to explicit loops: parallel blocks of
// rows (on one thread when the result is smaller than the grain size), a
// vector loop along the contiguous innermost dimension with a scalar tail,
// row-invariant operands and sub-expressions computed once per row, and, if
// asked, non-temporal stores for large results. Broadcast
// element-wise work is memory-bound; these are the pieces that let it run at
// the memory bandwidth (docs/Benchmarks.md has the measurements).
//
//===----------------------------------------------------------------------===//

#include "VectorizeCommon.h"
#include "bcast/Transforms/BroadcastMaps.h"
#include "bcast/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTVECTORIZEELEMENTWISE
#include "bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;
using mlir::bcast::vectorize::hasStaticUnitInnerStride;
using mlir::bcast::vectorize::isVectorElement;

using mlir::bcast::kMaxTasks;

namespace {
/// How an input is read along the innermost dimension.
enum class InnerAccess {
  /// Its map does not use the innermost loop: one scalar per row.
  Invariant,
  /// Unit stride, known statically.
  Contiguous,
  /// Stride only known at run time (0 or 1 for the numpy policy's views).
  DynamicStride,
};

/// A full vector-length tile of one row, a 1-D linalg.generic on
/// rank-reduced subviews, for linalg::vectorize.
struct Tile {
  /// A dynamic-stride input read through its unit-stride view: where its
  /// run-time stride is 0, the tile reads one element instead.
  struct Versioned {
    Value view;   ///< The tile's subview of the unit-stride view.
    Value memref; ///< The input itself.
    Value stride; ///< Its run-time inner stride.
    SmallVector<Value> indices;
  };
  linalg::GenericOp op;
  SmallVector<Versioned> versioned;
};

struct InputInfo {
  Value memref;
  AffineMap map;
  InnerAccess access;
  Value stride;         ///< DynamicStride: the run-time inner stride.
  Value contiguousView; ///< DynamicStride: the same view with stride 1.
};

/// One eligible generic and what its lowering needs.
class GenericLowering {
public:
  GenericLowering(linalg::GenericOp op, int64_t vectorBytes, int64_t interleave,
                  bool parallel, int64_t grainSize,
                  int64_t nontemporalThreshold)
      : op(op), vectorBytes(vectorBytes), interleave(interleave),
        parallel(parallel), grainSize(grainSize),
        nontemporalThreshold(nontemporalThreshold) {}

  /// Whether the generic is an element-wise broadcast this lowering handles:
  /// besides the form of bcast's generics, at least one loop, a contiguous
  /// output, elements vectors can hold, and a body of element-wise ops.
  bool isEligible() {
    if (!bcast::isElementwiseBroadcastGeneric(op, /*multipleOutputs=*/true))
      return false;
    numInputs = op.getNumDpsInputs();
    rank = op.getNumLoops();
    if (rank == 0)
      return false;
    for (Value init : op.getDpsInits())
      if (!hasStaticUnitInnerStride(cast<MemRefType>(init.getType())))
        return false;
    for (OpOperand &operand : op->getOpOperands())
      if (!isVectorElement(
              cast<MemRefType>(operand.get().getType()).getElementType()) ||
          !bcast::vectorize::readsInnerLoopLast(
              op.getMatchingIndexingMap(&operand), rank))
        return false;
    // Only element-wise arith/math ops, which map one to one onto vectors.
    for (Operation &bodyOp : op.getBody()->without_terminator()) {
      if (bodyOp.getNumRegions() ||
          !isa<arith::ArithDialect, math::MathDialect>(bodyOp.getDialect()))
        return false;
      if (!isa<arith::ConstantOp>(bodyOp) &&
          !bodyOp.hasTrait<OpTrait::Elementwise>())
        return false;
    }
    return true;
  }

  LogicalResult lower(RewriterBase &rewriter);

private:
  /// The `length` subview of `memref` starting at `indices` along its
  /// innermost dimension, rank-reduced to 1-D.
  Value rowTile(OpBuilder &b, Value memref, ArrayRef<Value> indices,
                int64_t length) const;

  /// Vectorizes the tiles with upstream's linalg::vectorize, then adds what
  /// upstream cannot: the stride-0 splat, the non-temporal stores.
  LogicalResult vectorizeTiles(RewriterBase &rewriter);

  /// Indices into an operand with `map` at loop indices `ivs`.
  SmallVector<Value> indicesFor(OpBuilder &, AffineMap map,
                                ArrayRef<Value> ivs) const {
    return bcast::vectorize::indicesFor(map, ivs, zero);
  }

  bool usesInnerLoop(AffineMap map) const {
    return bcast::vectorize::usesInnerLoop(map, rank);
  }

  /// Emits the per-row work for outer indices `outer` (rank - 1 values),
  /// over innermost indices [lo, hi).
  void emitRow(OpBuilder &b, ArrayRef<Value> outer, Value lo, Value hi);

  /// The widest element, in bits, of what the vector loop computes per
  /// element: the output, the inputs read along the row and the body values
  /// that depend on them. Row invariants are computed once per row as
  /// scalars (emitRow), so a run-time scalar argument carried as f64 and
  /// truncated to f32 does not halve an f32 loop's vector length.
  int64_t widestVaryingBits();

  /// The body's block arguments of the outputs.
  ArrayRef<BlockArgument> outputArgs() {
    return op.getBody()->getArguments().drop_front(numInputs);
  }

  /// The scalar loop over [from, hi) for one row.
  void emitScalarLoop(OpBuilder &b, ArrayRef<Value> outer, Value from, Value hi,
                      IRMapping invariants);

  linalg::GenericOp op;
  int64_t vectorBytes;
  /// Vectors per iteration of the main vector loop (math-interleave).
  int64_t interleave;
  bool parallel;
  int64_t grainSize;
  int64_t nontemporalThreshold;
  int64_t rank = 0;
  Location loc = op.getLoc();
  Value zero, one;
  SmallVector<InputInfo> inputs;
  /// The outputs (several when bcast-fuse-elementwise fused in-place
  /// updates of several buffers): one shape, identity maps.
  SmallVector<Value> outputs;
  unsigned numInputs = 0;
  Value fastPath; ///< All dynamic inner strides are 0 or 1.
  int64_t vectorLength = 1;
  bool nontemporal = false;
  SmallVector<Tile> tiles;
  SmallVector<scf::ForOp> vectorLoops;
  llvm::SmallPtrSet<Operation *, 4> nontemporalLoops;
};
} // namespace

Value GenericLowering::rowTile(OpBuilder &b, Value memref,
                               ArrayRef<Value> indices, int64_t length) const {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<OpFoldResult> offsets(indices.begin(), indices.end());
  SmallVector<OpFoldResult> sizes(type.getRank(), b.getIndexAttr(1));
  sizes.back() = b.getIndexAttr(length);
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  MemRefType tileType = memref::SubViewOp::inferRankReducedResultType(
      {length}, type, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, tileType, memref, offsets, sizes,
                                   strides);
}

LogicalResult GenericLowering::vectorizeTiles(RewriterBase &rewriter) {
  for (Tile &tile : tiles) {
    rewriter.setInsertionPoint(tile.op);
    if (failed(linalg::vectorize(rewriter, tile.op)))
      return tile.op.emitOpError("upstream vectorization failed");
    rewriter.eraseOp(tile.op);
    // Stride 0: one element, splat; stride 1: the vector read through the
    // unit-stride view. The condition is loop invariant, so LLVM unswitches
    // it out of the loop.
    for (Tile::Versioned &input : tile.versioned) {
      for (Operation *user :
           llvm::make_early_inc_range(input.view.getUsers())) {
        auto read = dyn_cast<vector::TransferReadOp>(user);
        if (!read)
          continue;
        rewriter.setInsertionPoint(read);
        Location rloc = read.getLoc();
        Value isZero = arith::CmpIOp::create(
            rewriter, rloc, arith::CmpIPredicate::eq, input.stride, zero);
        auto ifOp = scf::IfOp::create(
            rewriter, rloc, isZero,
            [&](OpBuilder &tb, Location tloc) {
              Value scalar =
                  memref::LoadOp::create(tb, tloc, input.memref, input.indices);
              scf::YieldOp::create(
                  tb, tloc,
                  ValueRange{vector::BroadcastOp::create(
                      tb, tloc, read.getVectorType(), scalar)});
            },
            [&](OpBuilder &eb, Location eloc) {
              scf::YieldOp::create(eb, eloc,
                                   ValueRange{eb.clone(*read)->getResult(0)});
            });
        rewriter.replaceOp(read, ifOp.getResults());
      }
    }
  }
  // Upstream cleanup: in-bounds transfers to plain vector loads and stores,
  // their subviews folded into the indices, and the splats of row
  // invariants hoisted out of the vector loops.
  RewritePatternSet patterns(op.getContext());
  vector::populateVectorTransferLoweringPatterns(patterns);
  memref::populateFoldMemRefAliasOpPatterns(patterns);
  // Not through the collapse_shape views of bcast-collapse-dims: folded, a
  // load from a loop over the flattened dims indexes the original memref
  // through an affine.delinearize_index (divisions by each size) per
  // vector, which made an add of two 2x56x56x96 tensors 4x slower than the
  // same add on 602112 elements. Upstream has no entry point without them.
  llvm::erase_if(patterns.getNativePatterns(),
                 [](const std::unique_ptr<RewritePattern> &pattern) {
                   return pattern->getDebugName().contains(
                       "OfCollapseShapeOpFolder");
                 });
  affine::AffineApplyOp::getCanonicalizationPatterns(patterns, op.getContext());
  FrozenRewritePatternSet frozen(std::move(patterns));
  for (scf::ForOp loop : vectorLoops) {
    SmallVector<Operation *> ops;
    loop.getBody()->walk([&](Operation *nested) { ops.push_back(nested); });
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    if (failed(applyOpPatternsGreedily(ops, frozen, config)))
      return loop.emitOpError("vector cleanup did not converge");
    moveLoopInvariantCode(cast<LoopLikeOpInterface>(loop.getOperation()));
    // Non-temporal stores: upstream's transfer_write has no such hint.
    if (nontemporalLoops.contains(loop))
      loop.getBody()->walk(
          [](vector::StoreOp store) { store.setNontemporal(true); });
  }
  return success();
}

void GenericLowering::emitScalarLoop(OpBuilder &b, ArrayRef<Value> outer,
                                     Value from, Value hi,
                                     IRMapping invariants) {
  Block *body = op.getBody();
  scf::ForOp::create(
      b, loc, from, hi, one, ValueRange{},
      [&](OpBuilder &nb, Location nloc, Value j, ValueRange) {
        SmallVector<Value> ivs(outer);
        ivs.push_back(j);
        IRMapping mapping = invariants;
        for (auto [index, input] : llvm::enumerate(inputs)) {
          BlockArgument arg = body->getArgument(index);
          if (mapping.contains(arg))
            continue;
          mapping.map(arg,
                      memref::LoadOp::create(nb, nloc, input.memref,
                                             indicesFor(nb, input.map, ivs)));
        }
        for (auto [outArg, output] : llvm::zip_equal(outputArgs(), outputs))
          if (!outArg.use_empty())
            mapping.map(outArg, memref::LoadOp::create(nb, nloc, output, ivs));
        for (Operation &bodyOp : body->without_terminator())
          if (!mapping.contains(bodyOp.getResult(0)))
            nb.clone(bodyOp, mapping);
        // A yielded value may be defined outside the body (a generic that
        // fills its output with a constant): not in the mapping.
        for (auto [yielded, output] :
             llvm::zip_equal(body->getTerminator()->getOperands(), outputs))
          memref::StoreOp::create(nb, nloc, mapping.lookupOrDefault(yielded),
                                  output, ivs);
        scf::YieldOp::create(nb, nloc);
      });
}

int64_t GenericLowering::widestVaryingBits() {
  auto bits = [](Type type) -> int64_t {
    return type.isIntOrFloat() ? type.getIntOrFloatBitWidth() : 0;
  };
  Block *body = op.getBody();
  int64_t widest = 0;
  for (Value output : outputs)
    widest = std::max(
        widest, bits(cast<MemRefType>(output.getType()).getElementType()));
  llvm::SmallPtrSet<Value, 8> varying;
  for (auto [index, input] : llvm::enumerate(inputs)) {
    if (input.access == InnerAccess::Invariant)
      continue;
    Value arg = body->getArgument(index);
    varying.insert(arg);
    widest = std::max(widest, bits(arg.getType()));
  }
  for (BlockArgument outArg : outputArgs())
    varying.insert(outArg);
  for (Operation &bodyOp : body->without_terminator()) {
    if (llvm::none_of(bodyOp.getOperands(),
                      [&](Value v) { return varying.contains(v); }))
      continue;
    for (Value result : bodyOp.getResults()) {
      varying.insert(result);
      widest = std::max(widest, bits(result.getType()));
    }
  }
  return std::max<int64_t>(widest, 1);
}

void GenericLowering::emitRow(OpBuilder &b, ArrayRef<Value> outer, Value lo,
                              Value hi) {
  Block *body = op.getBody();
  SmallVector<Value> rowIvs(outer);
  rowIvs.push_back(zero); // Placeholder for the inner index.

  // Row-invariant operands, loaded once; body ops that only use them (and
  // values from outside the body), computed once.
  IRMapping invariants;
  for (auto [index, input] : llvm::enumerate(inputs))
    if (input.access == InnerAccess::Invariant)
      invariants.map(body->getArgument(index),
                     memref::LoadOp::create(b, loc, input.memref,
                                            indicesFor(b, input.map, rowIvs)));
  auto isInvariant = [&](Value v) {
    if (invariants.contains(v))
      return true;
    return v.getParentBlock() != body;
  };
  for (Operation &bodyOp : body->without_terminator())
    if (llvm::all_of(bodyOp.getOperands(), isInvariant))
      b.clone(bodyOp, invariants);

  // Vector loops over the multiple-of-V part (interleaved vectors, then
  // single ones), then the scalar tail.
  int64_t wideLength = vectorLength * interleave;
  // The end of the whole vectors of `length` from `from` on.
  auto vectorEndFrom = [&](OpBuilder &eb, Value from, int64_t length) {
    Value v = arith::ConstantIndexOp::create(eb, loc, length);
    Value count = arith::SubIOp::create(eb, loc, hi, from);
    Value vectorCount = arith::MulIOp::create(
        eb, loc, arith::DivUIOp::create(eb, loc, count, v), v);
    return arith::AddIOp::create(eb, loc, from, vectorCount).getResult();
  };
  // Rows of a static length need no vector loop when shorter than a vector,
  // and no scalar tail when a multiple of it.
  std::optional<int64_t> staticCount;
  if (std::optional<int64_t> l = getConstantIntValue(lo))
    if (std::optional<int64_t> h = getConstantIntValue(hi))
      staticCount = *h - *l;

  auto emitVectorLoop = [&](OpBuilder &vb) {
    if (staticCount && *staticCount < vectorLength) {
      emitScalarLoop(vb, outer, lo, hi, invariants);
      return;
    }
    // The tile's scalar operands: row invariants (inputs loaded once per row
    // and sub-expressions computed once per row) that the per-element part
    // of the body or its yield uses. linalg::vectorize broadcasts them.
    llvm::SetVector<Value> scalars;
    for (Operation &bodyOp : body->without_terminator()) {
      if (invariants.contains(bodyOp.getResult(0)))
        continue;
      for (Value operand : bodyOp.getOperands())
        if (isInvariant(operand))
          scalars.insert(operand);
    }
    for (Value yielded : body->getTerminator()->getOperands())
      if (isInvariant(yielded))
        scalars.insert(yielded);

    auto emitTileLoop = [&](Value from, Value to, int64_t length) {
      Value v = arith::ConstantIndexOp::create(vb, loc, length);
      auto loop = scf::ForOp::create(
          vb, loc, from, to, v, ValueRange{},
          [&](OpBuilder &nb, Location nloc, Value j, ValueRange) {
            SmallVector<Value> ivs(outer);
            ivs.push_back(j);
            Tile tile;
            SmallVector<Value> tileInputs;
            SmallVector<Value> bodyArgs;
            for (auto [index, input] : llvm::enumerate(inputs)) {
              if (input.access == InnerAccess::Invariant)
                continue;
              SmallVector<Value> indices = indicesFor(nb, input.map, ivs);
              // An input the body does not read (bcast-fuse-rows' next chunk
              // of rows) is prefetched, not loaded.
              if (body->getArgument(index).use_empty()) {
                memref::PrefetchOp::create(nb, nloc, input.memref, indices,
                                           /*isWrite=*/false,
                                           /*localityHint=*/3,
                                           /*isDataCache=*/true);
                continue;
              }
              bool dynamic = input.access == InnerAccess::DynamicStride;
              Value view =
                  rowTile(nb, dynamic ? input.contiguousView : input.memref,
                          indices, length);
              if (dynamic)
                tile.versioned.push_back(
                    {view, input.memref, input.stride, std::move(indices)});
              tileInputs.push_back(view);
              bodyArgs.push_back(body->getArgument(index));
            }
            for (Value scalar : scalars) {
              tileInputs.push_back(invariants.lookupOrDefault(scalar));
              bodyArgs.push_back(scalar);
            }
            SmallVector<Value> outTiles;
            for (Value output : outputs)
              outTiles.push_back(rowTile(nb, output, ivs, length));
            MLIRContext *ctx = nb.getContext();
            SmallVector<AffineMap> maps;
            for (Value in : tileInputs)
              maps.push_back(isa<MemRefType>(in.getType())
                                 ? AffineMap::getMultiDimIdentityMap(1, ctx)
                                 : AffineMap::get(1, 0, ctx));
            maps.append(outputs.size(),
                        AffineMap::getMultiDimIdentityMap(1, ctx));
            tile.op = linalg::GenericOp::create(
                nb, nloc, TypeRange{}, tileInputs, outTiles, maps,
                SmallVector<utils::IteratorType>{utils::IteratorType::parallel},
                [&](OpBuilder &gb, Location gloc, ValueRange args) {
                  IRMapping mapping;
                  for (auto [from, to] : llvm::zip(bodyArgs, args))
                    mapping.map(from, to);
                  for (auto [outArg, tileArg] : llvm::zip_equal(
                           outputArgs(), args.take_back(outputs.size())))
                    mapping.map(outArg, tileArg);
                  for (Operation &bodyOp : body->without_terminator())
                    if (!invariants.contains(bodyOp.getResult(0)))
                      gb.clone(bodyOp, mapping);
                  SmallVector<Value> results;
                  for (Value yielded : body->getTerminator()->getOperands())
                    results.push_back(mapping.lookupOrDefault(yielded));
                  linalg::YieldOp::create(gb, gloc, results);
                });
            tiles.push_back(std::move(tile));
            scf::YieldOp::create(nb, nloc);
          });
      vectorLoops.push_back(loop);
      if (nontemporal)
        nontemporalLoops.insert(loop);
    };
    // What a static row leaves after each loop decides the next one.
    Value from = lo;
    std::optional<int64_t> left = staticCount;
    if (interleave > 1 && (!left || *left >= wideLength)) {
      Value wideEnd = vectorEndFrom(vb, from, wideLength);
      emitTileLoop(from, wideEnd, wideLength);
      from = wideEnd;
      if (left)
        *left %= wideLength;
    }
    if (!left || *left >= vectorLength) {
      Value vectorEnd = vectorEndFrom(vb, from, vectorLength);
      emitTileLoop(from, vectorEnd, vectorLength);
      from = vectorEnd;
    }
    if (!left || *left % vectorLength != 0)
      emitScalarLoop(vb, outer, from, hi, invariants);
  };

  if (!fastPath) {
    emitVectorLoop(b);
    return;
  }
  scf::IfOp::create(
      b, loc, fastPath,
      [&](OpBuilder &tb, Location tloc) {
        emitVectorLoop(tb);
        scf::YieldOp::create(tb, tloc);
      },
      [&](OpBuilder &eb, Location eloc) {
        emitScalarLoop(eb, outer, lo, hi, invariants);
        scf::YieldOp::create(eb, eloc);
      });
}

LogicalResult GenericLowering::lower(RewriterBase &rewriter) {
  rewriter.setInsertionPoint(op);
  OpBuilder &b = rewriter;
  zero = arith::ConstantIndexOp::create(b, loc, 0);
  one = arith::ConstantIndexOp::create(b, loc, 1);
  outputs.assign(op.getDpsInits().begin(), op.getDpsInits().end());
  Value output = outputs.front();
  auto outType = cast<MemRefType>(output.getType());

  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = cast<MemRefType>(input->get().getType());
    InputInfo info{input->get(),
                   op.getMatchingIndexingMap(input),
                   InnerAccess::Contiguous,
                   {},
                   {}};
    if (!usesInnerLoop(info.map)) {
      info.access = InnerAccess::Invariant;
    } else if (!hasStaticUnitInnerStride(type)) {
      info.access = InnerAccess::DynamicStride;
      auto metadata =
          memref::ExtractStridedMetadataOp::create(b, loc, input->get());
      info.stride = metadata.getStrides().back();
      // The same view with a static unit inner stride, used only where the
      // run-time stride is 1.
      SmallVector<int64_t> strides(type.getRank(), ShapedType::kDynamic);
      strides.back() = 1;
      auto viewType = MemRefType::get(
          type.getShape(), type.getElementType(),
          StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, strides),
          type.getMemorySpace());
      SmallVector<OpFoldResult> sizes, viewStrides;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        sizes.push_back(type.isDynamicDim(d)
                            ? OpFoldResult(metadata.getSizes()[d])
                            : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
        viewStrides.push_back(d + 1 == type.getRank()
                                  ? OpFoldResult(b.getIndexAttr(1))
                                  : OpFoldResult(metadata.getStrides()[d]));
      }
      info.contiguousView = memref::ReinterpretCastOp::create(
          b, loc, viewType, input->get(), metadata.getOffset(), sizes,
          viewStrides);
      Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           info.stride, zero);
      Value isOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          info.stride, one);
      Value ok = arith::OrIOp::create(b, loc, isZero, isOne);
      fastPath =
          fastPath ? Value(arith::AndIOp::create(b, loc, fastPath, ok)) : ok;
    }
    inputs.push_back(info);
  }
  vectorLength = std::max<int64_t>(1, vectorBytes * 8 / widestVaryingBits());
  // Non-temporal stores skip reading the destination into the cache; an
  // output the body also reads (in place) is in the cache anyway, and
  // evicting it would only cost. (bcast's in-place ops read the output
  // buffer as an input.)
  bool outputRead =
      llvm::any_of(outputArgs(),
                   [](BlockArgument arg) { return !arg.use_empty(); }) ||
      llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *in) {
        return llvm::is_contained(outputs, in->get());
      });
  bool mayUseNontemporal = nontemporalThreshold > 0 && !outputRead;

  SmallVector<Value> sizes;
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(outType.isDynamicDim(d)
                        ? Value(memref::DimOp::create(b, loc, output, d))
                        : Value(arith::ConstantIndexOp::create(
                              b, loc, outType.getDimSize(d))));

  // Tasks are blocks of rows, counted over all outer dimensions together
  // (a [1, 4096, 4096] or [8, 1024, 1024] result has as many rows to share
  // among the cores as a [4096, 4096] one), or blocks of the row itself for
  // rank 1. A task recovers a row's outer indices from its number.
  Value extent = rank == 1 ? sizes.front() : Value();
  for (int64_t d = 0; d + 1 < rank; ++d)
    extent = extent ? Value(arith::MulIOp::create(b, loc, extent, sizes[d]))
                    : sizes[d];
  Value maxTasks = arith::ConstantIndexOp::create(b, loc, kMaxTasks);
  // block = ceil(extent / kMaxTasks), at least 1.
  Value block = arith::MaxUIOp::create(
      b, loc, one, arith::CeilDivUIOp::create(b, loc, extent, maxTasks));
  if (rank == 1) {
    // Keep row blocks a multiple of the (interleaved) vector length.
    Value v = arith::ConstantIndexOp::create(b, loc, vectorLength * interleave);
    block = arith::MulIOp::create(
        b, loc, arith::CeilDivUIOp::create(b, loc, block, v), v);
  }
  auto emitTask = [&](OpBuilder &tb, Value start) {
    Value end = arith::MinUIOp::create(
        tb, loc, arith::AddIOp::create(tb, loc, start, block), extent);
    if (rank == 1) {
      emitRow(tb, {}, start, end);
    } else {
      scf::ForOp::create(
          tb, loc, start, end, one, ValueRange{},
          [&](OpBuilder &fb, Location, Value row, ValueRange) {
            // Row number to outer indices, innermost outer dimension first.
            SmallVector<Value> outer(rank - 1);
            Value rest = row;
            for (int64_t d = rank - 2; d > 0; --d) {
              outer[d] = arith::RemUIOp::create(fb, loc, rest, sizes[d]);
              rest = arith::DivUIOp::create(fb, loc, rest, sizes[d]);
            }
            outer[0] = rest;
            emitRow(fb, outer, zero, sizes.back());
            scf::YieldOp::create(fb, loc);
          });
    }
    // Non-temporal stores are weakly ordered: make them visible before the
    // task ends.
    if (nontemporal)
      LLVM::FenceOp::create(tb, loc, LLVM::AtomicOrdering::seq_cst);
  };
  auto emitParallelNest = [&](OpBuilder &nb) {
    scf::ParallelOp::create(nb, loc, ValueRange{zero}, ValueRange{extent},
                            ValueRange{block},
                            [&](OpBuilder &pb, Location, ValueRange ivs) {
                              emitTask(pb, ivs.front());
                            });
  };
  auto emitSequentialNest = [&](OpBuilder &nb) {
    scf::ForOp::create(nb, loc, zero, extent, block, ValueRange{},
                       [&](OpBuilder &fb, Location, Value iv, ValueRange) {
                         emitTask(fb, iv);
                         scf::YieldOp::create(fb, loc);
                       });
  };
  // The grain size: a result of fewer elements stays on the calling thread,
  // where starting the other threads would cost more than they save.
  // Static sizes decide here; dynamic ones by one branch around the nest.
  auto emitNest = [&](OpBuilder &nb) {
    if (!parallel) {
      emitSequentialNest(nb);
      return;
    }
    if (grainSize <= 0) {
      emitParallelNest(nb);
      return;
    }
    bcast::vectorize::emitSizeThresholdBranch(
        nb, loc, sizes, /*scale=*/1, grainSize, [&](OpBuilder &bb, bool large) {
          if (large)
            emitParallelNest(bb);
          else
            emitSequentialNest(bb);
        });
  };

  // The bytes written per element, over all outputs.
  int64_t elementBytes = 0;
  for (Value out : outputs)
    elementBytes +=
        cast<MemRefType>(out.getType()).getElementTypeBitWidth() / 8;
  if (!mayUseNontemporal) {
    nontemporal = false;
    emitNest(b);
  } else {
    bcast::vectorize::emitSizeThresholdBranch(b, loc, sizes, elementBytes,
                                              nontemporalThreshold,
                                              [&](OpBuilder &bb, bool large) {
                                                nontemporal = large;
                                                emitNest(bb);
                                              });
  }
  if (failed(vectorizeTiles(rewriter)))
    return failure();
  rewriter.eraseOp(op);
  return success();
}

namespace {
struct BcastVectorizeElementwisePass
    : public bcast::impl::BcastVectorizeElementwiseBase<
          BcastVectorizeElementwisePass> {
  using Base::Base;

  bcast::vectorize::VectorWidths widths() const {
    return {vectorBytes, mathVectorBytes, inCacheVectorBytes, inCacheBytes};
  }

  void runOnOperation() override {
    if (mathInterleave < 1) {
      getOperation()->emitError() << "math-interleave must be positive";
      return signalPassFailure();
    }
    FailureOr<SmallVector<linalg::GenericOp>> generics =
        bcast::vectorize::collectGenerics(getOperation(), widths());
    if (failed(generics))
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : *generics) {
      // Inside bcast-fuse-rows' row blocks (parallel, or kept on one thread
      // below the grain size), the loops of one generic stay sequential.
      bool parallelLoops = parallel && !bcast::vectorize::isInsideRowTasks(op);
      int64_t interleave = bcast::vectorize::hasVaryingCostlyMath(op)
                               ? int64_t(mathInterleave)
                               : 1;
      GenericLowering lowering(
          op, bcast::vectorize::vectorBytesFor(op, widths()), interleave,
          parallelLoops, grainSize, nontemporalThreshold);
      if (lowering.isEligible() && failed(lowering.lower(rewriter)))
        return signalPassFailure();
    }
  }
};
} // namespace
