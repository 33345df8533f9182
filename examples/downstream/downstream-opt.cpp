//===- downstream-opt.cpp - An opt tool of a project that embeds bcast ----===//
//
// What a downstream compiler needs to use bcast: one call,
// registerAllBcastDialectsAndPasses, gives a registry that parses bcast
// programs and runs --bcast-to-linalg and --bcast-to-llvm (no upstream
// registerAll* call). The tool adds one pass of its own built on bcast's
// public C++ API, to show the headers and op helpers in use.
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/IR/BcastOps.h"
#include "bcast/Dialect/Bcast/Utils/BroadcastShape.h"
#include "bcast/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

namespace {
/// Counts the bcast element-wise ops and how many of them really broadcast
/// (some operand's shape differs from the broadcast shape) and reports both
/// as a remark on the module.
struct CountBroadcastsPass
    : public mlir::PassWrapper<CountBroadcastsPass,
                               mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CountBroadcastsPass)

  llvm::StringRef getArgument() const final {
    return "downstream-count-broadcasts";
  }
  llvm::StringRef getDescription() const final {
    return "Report how many bcast ops broadcast their operands";
  }

  void runOnOperation() override {
    unsigned elementwise = 0, broadcasting = 0;
    getOperation()->walk([&](mlir::Operation *op) {
      if (!mlir::bcast::isElementwiseBroadcast(op))
        return;
      ++elementwise;
      llvm::SmallVector<llvm::ArrayRef<int64_t>> shapes;
      for (mlir::Type type : op->getOperandTypes())
        shapes.push_back(llvm::cast<mlir::RankedTensorType>(type).getShape());
      std::optional<llvm::SmallVector<int64_t>> result =
          mlir::bcast::broadcastShapes(shapes);
      if (result && llvm::any_of(shapes, [&](llvm::ArrayRef<int64_t> shape) {
            return shape != llvm::ArrayRef<int64_t>(*result);
          }))
        ++broadcasting;
    });
    getOperation()->emitRemark() << elementwise << " bcast element-wise ops, "
                                 << broadcasting << " of them broadcasting";
  }
};
} // namespace

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::bcast::registerAllBcastDialectsAndPasses(registry);
  mlir::PassRegistration<CountBroadcastsPass>();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "downstream optimizer driver (with bcast)\n", registry));
}
