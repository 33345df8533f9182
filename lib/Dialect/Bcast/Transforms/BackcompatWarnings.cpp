//===- BackcompatWarnings.cpp - bcast-backcompat-warnings -----------------===//
//
// A pass that only reports: PyTorch's backwards-compatibility warning on
// binary ops whose operands older PyTorch viewed as 1-d instead of
// broadcasting them. The rule and the sentence come from the shape-rule
// module.
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/IR/BcastOps.h"
#include "bcast/Dialect/Bcast/Transforms/Passes.h"
#include "bcast/Dialect/Bcast/Utils/BroadcastShape.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTBACKCOMPATWARNINGS
#include "bcast/Dialect/Bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;
using namespace mlir::bcast;

namespace {
struct BcastBackcompatWarningsPass
    : public bcast::impl::BcastBackcompatWarningsBase<
          BcastBackcompatWarningsPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (!isElementwiseBroadcast(op) || op->getNumOperands() != 2)
        return;
      SmallVector<ArrayRef<int64_t>> shapes = getShapes(op->getOperandTypes());
      if (needsBackcompatWarning(shapes[0], shapes[1]))
        op->emitWarning() << getBackcompatWarning();
    });
  }
};
} // namespace
