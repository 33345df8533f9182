//===- FuseElementwise.cpp - Fuse element-wise linalg.generic chains ------===//
//
// Producer/consumer fusion of the element-wise linalg.generic ops that
// convert-bcast-to-linalg produces: upstream's fuseElementwiseOps with the
// default control of linalg-fuse-elementwise-ops, but without that pass's
// rewrite of unread `outs` operands into tensor.empty, which would give
// every in-place op a new allocation (the pass description in Passes.td has
// the reasons). Reduction consumers take element-wise producers as any
// consumer does (`sum(x * y)` never materializes `x * y`), and an
// element-wise producer whose every use is a fusable input of a generic is
// recomputed in each of them (bounded, below), so that a written-out
// softmax or LayerNorm keeps no [M,N] intermediate. Consecutive in-place
// updates of a tensor fuse, and, with multiple-results, so do producers
// whose results are also written out: in-place updates of several
// tensors (an Adam step) become one loop nest with several results. A
// matrix product takes no producer (isFusableUse).
//
//===----------------------------------------------------------------------===//

#include "VectorizeCommon.h"
#include "bcast/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SmallBitVector.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTFUSEELEMENTWISE
#include "bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;
using mlir::bcast::vectorize::hasCostlyMath;

/// A multi-use producer is recomputed in each consumer only when it has at
/// most this many uses and at most this many operations in its body: the
/// recomputation costs its body once more per extra use, and fused bodies
/// grow, so the bound also stops chains of multi-use producers from
/// multiplying their work.
static constexpr unsigned kMaxRecomputedUses = 4;
static constexpr unsigned kMaxRecomputedBodyOps = 16;

/// Whether `consumer` reads `producer`'s result (through `use`) along its
/// innermost loop and broadcasts it along another loop that is not of size
/// 1, the producer doing more than casts (isFusableUse's third case).
static bool isBroadcastAlongOuterLoops(linalg::GenericOp consumer,
                                       linalg::GenericOp producer,
                                       OpOperand *use) {
  AffineMap map = consumer.getMatchingIndexingMap(use);
  unsigned loops = consumer.getNumLoops();
  if (loops == 0 || !map.isProjectedPermutation(/*allowZeroInResults=*/true))
    return false;
  llvm::SmallBitVector read(loops);
  for (AffineExpr expr : map.getResults())
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      read.set(dim.getPosition());
  if (!read.test(loops - 1) ||
      llvm::all_of(producer.getBody()->without_terminator(),
                   [](Operation &op) { return isa<CastOpInterface>(op); }))
    return false;
  SmallVector<int64_t> ranges = consumer.getStaticLoopRanges();
  for (unsigned d = 0; d < loops; ++d)
    if (!read.test(d) && ranges[d] != 1)
      return true;
  return false;
}

/// Whether the producer of `use` may fuse into its consumer: upstream's
/// areElementwiseOpsFusable, less three cases it lets through.
/// - A matrix product (the generic convert-bcast-to-linalg marks
///   `bcast.matmul`) takes no producer. It reads each operand element once
///   per column or row of the other, so a fused producer's body would run
///   that many times (a GELU's erfc 384 times per element of a Linear
///   layer's input), and the product would lose the shape
///   bcast-matmul-to-blas hands to the BLAS.
/// - A producer whose body reads its own `outs` (the accumulator of a
///   reduction of a rank-0 tensor, which has no loops and so counts as
///   element-wise) read by a consumer through a map that is not a
///   permutation (a rank-0 value broadcast over the consumer's loops). The
///   fused loop would keep the accumulator as a result indexed by that map
///   and accumulate once per consumer element: `y.mean() / x` with a rank-0
///   `y` gave `3 * y / x` at the third element (differential fuzzer, edges
///   mode, seed 101927).
/// - A producer that the consumer broadcasts along a loop of more than one
///   iteration while reading it along its innermost loop, unless its body
///   only casts: fused, its body would run once per element of the
///   consumer rather than of its own result. A per-channel scale of a
///   channels-last BatchNorm (`w * rsqrt(var + eps)`, read along the
///   innermost loop, channels) ran once per pixel, and the region took
///   1.5 to 2 times as long as unfused. Unfused, it runs once into a small
///   buffer. A producer invariant along the innermost loop (the same
///   scale in the contiguous layout) stays fused: the vectorizer computes
///   it once per row.
static bool isFusableUse(OpOperand *use) {
  if (use->getOwner()->hasAttr("bcast.matmul") ||
      !linalg::areElementwiseOpsFusable(use))
    return false;
  auto consumer = dyn_cast<linalg::GenericOp>(use->getOwner());
  auto producer = use->get().getDefiningOp<linalg::GenericOp>();
  if (!consumer || !producer ||
      consumer.getMatchingIndexingMap(use).isPermutation())
    return true;
  if (isBroadcastAlongOuterLoops(consumer, producer, use))
    return false;
  return llvm::none_of(producer.getDpsInitsMutable(), [&](OpOperand &init) {
    return producer.payloadUsesValueFromOperand(&init);
  });
}

/// Whether every loop of `op` is parallel but a trailing run of reduction
/// loops: a reduction over each row's innermost dimensions, which
/// bcast-fuse-rows runs per block of rows, in cache.
static bool isRowReduction(linalg::GenericOp op) {
  auto iterators = op.getIteratorTypesArray();
  auto *firstReduction = llvm::find(iterators, utils::IteratorType::reduction);
  return firstReduction != iterators.begin() &&
         firstReduction != iterators.end() &&
         std::all_of(firstReduction, iterators.end(), [](auto type) {
           return type == utils::IteratorType::reduction;
         });
}

/// Fuses `operand`'s producer into `consumer` (upstream's
/// fuseElementwiseOps) and puts the fused op's results in place of the
/// consumer's and, outside the producer itself, of the producer's. A
/// producer left without uses is the greedy driver's to erase.
static LogicalResult fuseProducerInto(PatternRewriter &rewriter,
                                      linalg::GenericOp consumer,
                                      OpOperand *operand) {
  Operation *producer = operand->get().getDefiningOp();
  FailureOr<linalg::ElementwiseOpFusionResult> fused =
      linalg::fuseElementwiseOps(rewriter, operand);
  if (failed(fused))
    return rewriter.notifyMatchFailure(consumer, "fusion failed");
  for (auto [original, replacement] : fused->replacements)
    rewriter.replaceUsesWithIf(original, replacement, [&](OpOperand &use) {
      return use.getOwner() != producer;
    });
  rewriter.eraseOp(consumer);
  return success();
}

namespace {
/// A costly element-wise producer (hasCostlyMath: the `exp(x - m)` of a
/// written-out softmax) read by a row reduction and then by an element-wise
/// consumer of its own shape that writes a new tensor (`e / sum(e)`) is
/// computed once, not once per use: the consumer writes its result over
/// the producer's (the producer's tensor becomes its `outs`, which its body
/// does not read), so that bufferization gives both one buffer, the
/// destination, and bcast-fuse-rows keeps each block of rows of it in
/// cache between the producer, the reduction and the consumer. This is
/// PyTorch's own softmax kernel: exponentials stored, summed, then scaled
/// in place. Recomputation (below) would evaluate the exponential twice
/// per element, which on the CPU costs more than the cached reread. Over
/// outer dimensions (softmax over dim 0) the stored values would come back
/// from memory, a write and a read more of the whole tensor than the
/// recomputing sum and divide, whose input bcast-vectorize-reductions
/// prefetches: recomputing is the faster of the two there (Pipelines.md).
struct StoreCostlyProducer : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp producer,
                                PatternRewriter &rewriter) const override {
    if (producer->getNumResults() != 1 || !hasCostlyMath(producer) ||
        producer.getNumParallelLoops() != producer.getNumLoops())
      return rewriter.notifyMatchFailure(producer, "not a costly map");
    Value result = producer->getResult(0);
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : result.getUses())
      uses.push_back(&use);
    if (uses.size() != 2)
      return rewriter.notifyMatchFailure(producer, "not two uses");
    auto reduction = dyn_cast<linalg::GenericOp>(uses[0]->getOwner());
    auto consumer = dyn_cast<linalg::GenericOp>(uses[1]->getOwner());
    if (reduction && consumer && !isRowReduction(reduction))
      std::swap(reduction, consumer);
    if (!reduction || !consumer || !isRowReduction(reduction) ||
        reduction->getBlock() != producer->getBlock() ||
        consumer->getBlock() != producer->getBlock() ||
        !reduction->isBeforeInBlock(consumer))
      return rewriter.notifyMatchFailure(producer,
                                         "not a reduction, then a map");
    if (consumer.getNumParallelLoops() != consumer.getNumLoops() ||
        consumer->getNumResults() != 1 ||
        consumer->getResult(0).getType() != result.getType())
      return rewriter.notifyMatchFailure(consumer, "not a map of its shape");
    // (The use may be the consumer's `outs`, an in-place op: left alone.)
    OpOperand *read = nullptr;
    for (OpOperand *input : consumer.getDpsInputOperands())
      if (input->get() == result)
        read = input;
    OpOperand *init = consumer.getDpsInitOperand(0);
    if (!read || !consumer.getMatchingIndexingMap(read).isIdentity() ||
        !consumer.getMatchingIndexingMap(init).isIdentity() ||
        consumer.payloadUsesValueFromOperand(init) ||
        !init->get().getDefiningOp<tensor::EmptyOp>())
      return rewriter.notifyMatchFailure(consumer,
                                         "does not write a new tensor");
    rewriter.modifyOpInPlace(consumer, [&] { init->set(result); });
    return success();
  }
};

/// Gives each use of a multi-use element-wise producer a copy of its own
/// when every use is an input that can fuse into its consumer generic: the
/// copies then fuse one by one (FuseSingleUseProducer) and the producer's
/// result, an intermediate of the consumers' full size, is never
/// materialized. A producer with another kind of use (a return, a
/// non-generic op, an `outs` operand) keeps its result and is left alone.
struct RecomputeMultiUseProducer : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp producer,
                                PatternRewriter &rewriter) const override {
    if (producer->getNumResults() != 1 || producer->hasOneUse() ||
        producer->use_empty())
      return rewriter.notifyMatchFailure(producer, "not a multi-use result");
    if (producer.getNumParallelLoops() != producer.getNumLoops())
      return rewriter.notifyMatchFailure(producer, "not element-wise");
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : producer->getResult(0).getUses())
      uses.push_back(&use);
    if (uses.size() > kMaxRecomputedUses)
      return rewriter.notifyMatchFailure(producer, "too many uses");
    if (static_cast<unsigned>(llvm::range_size(
            producer.getBody()->without_terminator())) > kMaxRecomputedBodyOps)
      return rewriter.notifyMatchFailure(producer, "body too large");
    // Two uses in one consumer are first made one by the operand
    // deduplication patterns.
    llvm::SmallPtrSet<Operation *, 4> owners;
    for (OpOperand *use : uses)
      if (!owners.insert(use->getOwner()).second)
        return rewriter.notifyMatchFailure(producer,
                                           "a consumer reads it twice");
    if (!llvm::all_of(uses, [](OpOperand *use) {
          return isa<linalg::GenericOp>(use->getOwner()) && isFusableUse(use);
        }))
      return rewriter.notifyMatchFailure(producer, "a use cannot fuse");
    // The first use keeps the original; every other use gets a copy.
    rewriter.setInsertionPoint(producer);
    for (OpOperand *use : llvm::drop_begin(uses)) {
      Operation *copy = rewriter.clone(*producer);
      rewriter.modifyOpInPlace(use->getOwner(),
                               [&] { use->set(copy->getResult(0)); });
    }
    return success();
  }
};

} // namespace

/// Whether every loop of `op` is parallel and every result is indexed by
/// the identity: an element-wise map over its results' shape.
static bool isElementwiseMap(linalg::GenericOp op) {
  return op.getNumParallelLoops() == op.getNumLoops() &&
         llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
           return op.getMatchingIndexingMap(&init).isIdentity();
         });
}

namespace {

/// Consecutive in-place updates of one tensor (`m *= b1; m += t`): the
/// second generic reads the first's result as an input and writes over it
/// as its `outs`, which its body does not read. The `outs` use keeps the
/// first from fusing as a single-use producer; writing into the first's
/// own `outs` instead gives the same result in the same buffer and leaves
/// the read as the only use.
struct WriteIntoProducerInit : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    if (!isElementwiseMap(consumer))
      return rewriter.notifyMatchFailure(consumer, "not element-wise");
    for (OpOperand &init : consumer.getDpsInitsMutable()) {
      auto result = dyn_cast<OpResult>(init.get());
      auto producer =
          result ? dyn_cast<linalg::GenericOp>(result.getOwner()) : nullptr;
      if (!producer || !isElementwiseMap(producer) ||
          consumer.payloadUsesValueFromOperand(&init))
        continue;
      // Its only other use: an input of the consumer that can fuse.
      OpOperand *read = nullptr;
      bool otherUse = false;
      for (OpOperand &use : result.getUses()) {
        if (&use == &init)
          continue;
        if (use.getOwner() == consumer.getOperation() && !read &&
            consumer.isDpsInput(&use))
          read = &use;
        else
          otherUse = true;
      }
      if (!read || otherUse || !isFusableUse(read))
        continue;
      Value producerInit =
          producer.getDpsInitOperand(result.getResultNumber())->get();
      if (producerInit.getType() != init.get().getType())
        continue;
      rewriter.modifyOpInPlace(consumer, [&] { init.set(producerInit); });
      return success();
    }
    return rewriter.notifyMatchFailure(consumer, "no in-place chain");
  }
};

/// An element-wise producer whose result the element-wise consumer reads
/// and that is also used after the consumer otherwise (written to a
/// caller's buffer, returned): fused into the consumer all the same, the
/// fused generic keeping the producer's result as one more result, so that
/// both values come from one loop. Producers whose uses are all fusable
/// inputs are RecomputeMultiUseProducer's.
struct FuseKeepingProducerResult : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    if (!isElementwiseMap(consumer))
      return rewriter.notifyMatchFailure(consumer, "not element-wise");
    for (OpOperand *operand : consumer.getDpsInputOperands()) {
      auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
      if (!producer || !isElementwiseMap(producer) ||
          producer->getBlock() != consumer->getBlock() ||
          !consumer.getMatchingIndexingMap(operand).isIdentity() ||
          !isFusableUse(operand))
        continue;
      // A consumer writing over the producer's result (WriteIntoProducerInit
      // moves such inits first) would be fused into its own init. A consumer
      // reading it through several operands (`atan2(x, x)`) crashed the
      // upstream fusion's bookkeeping here (differential seed 1070).
      if (llvm::any_of(consumer.getDpsInits(),
                       [&](Value init) {
                         return init.getDefiningOp() == producer.getOperation();
                       }) ||
          llvm::count_if(consumer->getOperands(), [&](Value value) {
            return value.getDefiningOp() == producer.getOperation();
          }) > 1)
        continue;
      // Every other use after the consumer (the fused result replaces it
      // there), at least one of them not a fusable input of a generic.
      bool kept = false, valid = true;
      for (Value result : producer->getResults()) {
        for (OpOperand &use : result.getUses()) {
          Operation *user = use.getOwner();
          if (user == consumer.getOperation())
            continue;
          if (user->getBlock() != consumer->getBlock() ||
              !consumer->isBeforeInBlock(user)) {
            valid = false;
            break;
          }
          if (!isa<linalg::GenericOp>(user) || !isFusableUse(&use))
            kept = true;
        }
      }
      if (!valid || !kept)
        continue;
      if (failed(fuseProducerInto(rewriter, consumer, operand)))
        return failure();
      if (producer->use_empty())
        rewriter.eraseOp(producer);
      return success();
    }
    return rewriter.notifyMatchFailure(consumer, "no producer to keep");
  }
};

/// Fuses the first fusable single-use producer of one of the consumer's
/// inputs into the consumer.
struct FuseSingleUseProducer : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    for (OpOperand *operand : consumer.getDpsInputOperands()) {
      if (!isFusableUse(operand))
        continue;
      Operation *producer = operand->get().getDefiningOp();
      if (!producer || !producer->hasOneUse())
        continue;
      return fuseProducerInto(rewriter, consumer, operand);
    }
    return rewriter.notifyMatchFailure(consumer, "no fusable producer");
  }
};

struct BcastFuseElementwisePass
    : public bcast::impl::BcastFuseElementwiseBase<BcastFuseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // StoreCostlyProducer first: once a consumer writes over the producer,
    // the producer has an `outs` use and is no longer recomputed.
    patterns.add<StoreCostlyProducer>(&getContext(), /*benefit=*/2);
    patterns.add<FuseSingleUseProducer, RecomputeMultiUseProducer,
                 WriteIntoProducerInit>(&getContext());
    if (multipleResults)
      patterns.add<FuseKeepingProducerResult>(&getContext());
    // As in linalg-fuse-elementwise-ops: deduplicating operands exposes
    // more single-use producers (`where(p > t, p, t)` reads `p` twice).
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, &getContext());
    getContext()
        .getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    // Producers left without uses are erased by the driver.
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
