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
