//===- MathToLibm.cpp - bcast-math-to-libm --------------------------------===//
//
// Sends the math functions whose LLVM lowering is missing or inaccurate to
// the C library, and leaves every other math op to convert-math-to-llvm
// (the pass description in Passes.td says which and why).
//
//===----------------------------------------------------------------------===//

#include "bcast/Transforms/Passes.h"

#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTMATHTOLIBM
#include "bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;

namespace {
struct BcastMathToLibmPass
    : public bcast::impl::BcastMathToLibmBase<BcastMathToLibmPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    populateMathToLibmConversionPatterns(patterns);
    // Upstream's patterns cover every math function; the target makes only
    // these illegal, so the partial conversion leaves the rest alone.
    ConversionTarget target(*context);
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addIllegalOp<math::ExpM1Op, math::Log1pOp, math::AsinhOp,
                        math::AcoshOp, math::AtanhOp, math::ErfOp,
                        math::ErfcOp>();
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
