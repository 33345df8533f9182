//===- FuseElementwise.cpp - Fuse element-wise linalg.generic chains ------===//
//
// Producer/consumer fusion of the element-wise linalg.generic ops that
// convert-bcast-to-linalg produces: upstream's fuseElementwiseOps with the
// default control of linalg-fuse-elementwise-ops, but without that pass's
// rewrite of unread `outs` operands into tensor.empty, which would give
// every in-place op a new allocation (the pass description in Passes.td has
// the reasons).
//
//===----------------------------------------------------------------------===//

#include "bcast/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTFUSEELEMENTWISE
#include "bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;

namespace {
/// Fuses the first fusable single-use producer of one of the consumer's
/// inputs into the consumer.
struct FuseSingleUseProducer : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    for (OpOperand *operand : consumer.getDpsInputOperands()) {
      if (!linalg::areElementwiseOpsFusable(operand))
        continue;
      Operation *producer = operand->get().getDefiningOp();
      if (!producer || !producer->hasOneUse())
        continue;
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
    return rewriter.notifyMatchFailure(consumer, "no fusable producer");
  }
};

struct BcastFuseElementwisePass
    : public bcast::impl::BcastFuseElementwiseBase<BcastFuseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseSingleUseProducer>(&getContext());
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
