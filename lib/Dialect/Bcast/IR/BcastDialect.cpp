//===- BcastDialect.cpp - The bcast dialect -------------------------------===//
//
// Registers the ops, materializes folded constants as `arith.constant`, and
// holds the dialect-wide canonicalization: refining `?` result sizes that the
// broadcast rule determines statically.
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/IR/BcastDialect.h"
#include "bcast/Dialect/Bcast/IR/BcastBytecode.h"
#include "bcast/Dialect/Bcast/IR/BcastOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::bcast;

#include "bcast/Dialect/Bcast/IR/BcastOpsDialect.cpp.inc"

void BcastDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "bcast/Dialect/Bcast/IR/BcastOps.cpp.inc"
      >();
  addBytecodeInterface(this);
}

Operation *BcastDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed || typed.getType() != type)
    return nullptr;
  return arith::ConstantOp::create(builder, loc, type, typed);
}

namespace {
/// Replaces a `?` in an element-wise op's result type by the static size the
/// broadcast rule infers, and casts back to the old type for the users:
///   %r = bcast.add %a, %b : (tensor<4x?xf32>, tensor<3x1xf32>)
///                            -> tensor<?x?xf32>
/// becomes
///   %0 = bcast.add %a, %b : (tensor<4x?xf32>, tensor<3x1xf32>)
///                            -> tensor<4x?xf32>
///   %r = tensor.cast %0 : tensor<4x?xf32> to tensor<?x?xf32>
/// (after the verifier accepted the op, 4 here is the only valid size).
struct RefineResultType : public RewritePattern {
  RefineResultType(MLIRContext *context)
      : RewritePattern(MatchTraitOpTypeTag(),
                       TypeID::get<OpTrait::bcast::BroadcastElementwise>(),
                       /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (isInPlace(op))
      return rewriter.notifyMatchFailure(op, "in-place result types are fixed");
    auto declared = cast<RankedTensorType>(op->getResult(0).getType());
    RankedTensorType inferred =
        inferBroadcastType(op->getOperandTypes(), getElementwiseTypeRule(op));
    if (!inferred || inferred.getRank() != declared.getRank())
      return rewriter.notifyMatchFailure(op, "operands do not broadcast");
    SmallVector<int64_t> shape(declared.getShape());
    bool changed = false;
    for (auto [size, inferredSize] : llvm::zip(shape, inferred.getShape())) {
      if (ShapedType::isDynamic(size) && !ShapedType::isDynamic(inferredSize)) {
        size = inferredSize;
        changed = true;
      }
    }
    if (!changed)
      return rewriter.notifyMatchFailure(op, "result type already refined");
    auto refined = RankedTensorType::get(shape, declared.getElementType());
    rewriter.setInsertionPoint(op);
    Operation *clone = rewriter.clone(*op);
    rewriter.modifyOpInPlace(clone,
                             [&] { clone->getResult(0).setType(refined); });
    rewriter.replaceOpWithNewOp<tensor::CastOp>(op, declared,
                                                clone->getResult(0));
    return success();
  }
};
} // namespace

void BcastDialect::getCanonicalizationPatterns(
    RewritePatternSet &results) const {
  results.add<RefineResultType>(getContext());
}
