//===- Strict.cpp - bcast-strict ------------------------------------------===//
//
// The strict mode: every implicit rank promotion and element-type promotion
// of an element-wise op is reported, as an error (the default) or a warning.
// The promoted type comes from the type-rule module, like the verifiers'.
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/IR/BcastOps.h"
#include "bcast/Dialect/Bcast/Transforms/Passes.h"
#include "bcast/Dialect/Bcast/Utils/BroadcastShape.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTSTRICT
#include "bcast/Dialect/Bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;
using namespace mlir::bcast;

namespace {
struct BcastStrictPass : public bcast::impl::BcastStrictBase<BcastStrictPass> {
  using Base::Base;

  void runOnOperation() override {
    bool failed = false;
    auto report = [&](Operation *op) {
      if (warnOnly)
        return op->emitWarning();
      failed = true;
      return op->emitError();
    };
    getOperation()->walk([&](Operation *op) {
      if (!isElementwiseBroadcast(op))
        return;
      int64_t rank =
          cast<RankedTensorType>(op->getResult(0).getType()).getRank();
      Type compute = getElementTypes(op).compute;
      unsigned firstValue = isa<WhereOp>(op) ? 1 : 0;
      for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
        auto type = cast<RankedTensorType>(operand.getType());
        if (type.getRank() > 0 && type.getRank() < rank)
          report(op) << "rank promotion of tensor " << operandLetter(index)
                     << " from rank " << type.getRank() << " to rank " << rank
                     << " is implicit; make it explicit with "
                        "bcast.broadcast_to or tensor.expand_shape";
        if (index >= firstValue && type.getElementType() != compute)
          report(op) << "promotion of tensor " << operandLetter(index)
                     << " from " << type.getElementType() << " to " << compute
                     << " is implicit; make it explicit with bcast.cast";
      }
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
