//===- Explain.cpp - bcast-explain ----------------------------------------===//
//
// A pass that only reports: a remark per op explaining its broadcast,
// dimension by dimension, in the words of the shape-rule module.
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/IR/BcastOps.h"
#include "bcast/Dialect/Bcast/Transforms/Passes.h"
#include "bcast/Dialect/Bcast/Utils/BroadcastShape.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTEXPLAIN
#include "bcast/Dialect/Bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;
using namespace mlir::bcast;

namespace {
struct BcastExplainPass
    : public bcast::impl::BcastExplainBase<BcastExplainPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      std::string text;
      llvm::raw_string_ostream os(text);
      SmallVector<ArrayRef<int64_t>> shapes;
      if (isElementwiseBroadcast(op)) {
        shapes = getShapes(op->getOperandTypes());
        os << "broadcast of";
        for (auto [index, shape] : llvm::enumerate(shapes))
          os << (index ? " and " : " ") << operandLetter(index) << " "
             << formatShape(shape);
        std::optional<SmallVector<int64_t>> result = broadcastShapes(shapes);
        if (!result)
          return;
        os << " to " << formatShape(*result);
      } else if (auto broadcastTo = dyn_cast<BroadcastToOp>(op)) {
        // Explained as the broadcast of a against the target shape.
        shapes = {broadcastTo.getX().getType().getShape(),
                  broadcastTo.getType().getShape()};
        os << "broadcast of a " << formatShape(shapes[0]) << " to "
           << formatShape(shapes[1]);
      } else {
        return;
      }
      os << ": " << explainBroadcast(shapes);
      op->emitRemark() << text;
    });
  }
};
} // namespace
