//===- UnshareInits.cpp - One filled init tensor per destination ----------===//
//
// Undoes CSE's merging of identical `linalg.fill` inits of destination-style
// ops: a fill that several ops write into would bufferize to one buffer
// shared through copies, which eliminate-empty-tensors can then tie to a
// caller's destination that another result is also copied out of (the pass
// description in Passes.td has the failing case).
//
//===----------------------------------------------------------------------===//

#include "bcast/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTUNSHAREINITS
#include "bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;

namespace {
struct BcastUnshareInitsPass
    : public bcast::impl::BcastUnshareInitsBase<BcastUnshareInitsPass> {
  using Base::Base;

  void runOnOperation() override {
    // An init, the result of another linalg op, that the op does not read
    // (its block argument has no use) but that something after the op reads (an
    // in-place op's `outs` is its input, also returned): a tensor.empty
    // instead. Bufferization could not write into that value's buffer anyway,
    // and eliminate-empty-tensors would otherwise tie the op's and the value's
    // roots to one destination, whose value the op's result then overwrites
    // before the other is copied out
    // (`v1 = x @ x; v2 = v1.sign_(); return v2, x @ x` after CSE, the
    // differential fuzzer's seed 3005359).
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!op.hasPureTensorSemantics())
        return;
      for (OpOperand &init : op.getDpsInitsMutable()) {
        // Only the result of another linalg op: an argument's tensor
        // (bufferization.to_tensor) keeps its init, which is how a result
        // aliasing an argument updated in place is copied out first
        // (finding 11).
        Value value = init.get();
        if (!op.getMatchingBlockArgument(&init).use_empty() ||
            !value.getDefiningOp<linalg::LinalgOp>() ||
            llvm::none_of(value.getUsers(), [&](Operation *user) {
              // Reads before the op do not conflict with writing in place.
              return user != op && (user->getBlock() != op->getBlock() ||
                                    op->isBeforeInBlock(user));
            }))
          continue;
        auto type = cast<RankedTensorType>(value.getType());
        OpBuilder b(op);
        SmallVector<Value> sizes;
        for (int64_t d = 0; d < type.getRank(); ++d)
          if (type.isDynamicDim(d))
            sizes.push_back(tensor::DimOp::create(b, op.getLoc(), value, d));
        init.set(tensor::EmptyOp::create(b, op.getLoc(), type.getShape(),
                                         type.getElementType(), sizes));
      }
    });
    // In program order, so that the first writer keeps the original fill.
    SmallVector<DestinationStyleOpInterface> users;
    getOperation()->walk<WalkOrder::PreOrder>(
        [&](DestinationStyleOpInterface op) { users.push_back(op); });
    llvm::DenseSet<Operation *> claimed;
    for (DestinationStyleOpInterface user : users) {
      for (OpOperand &init : user.getDpsInitsMutable()) {
        auto fill = init.get().getDefiningOp<linalg::FillOp>();
        if (!fill || !fill.hasPureTensorSemantics() ||
            claimed.insert(fill).second)
          continue;
        // Right after the fill, where its operands dominate and which
        // dominates every use.
        OpBuilder b(fill.getContext());
        b.setInsertionPointAfter(fill);
        OpOperand &dest = *fill.getDpsInitOperand(0);
        // A fill of another tensor keeps its destination: bufferization
        // then copies it, as it would have for the shared fill.
        Value newDest = dest.get();
        if (auto empty = newDest.getDefiningOp<tensor::EmptyOp>())
          newDest = b.clone(*empty)->getResult(0);
        Operation *clone = b.clone(*fill);
        clone->setOperand(dest.getOperandNumber(), newDest);
        init.set(clone->getResult(0));
      }
    }
  }
};
} // namespace
