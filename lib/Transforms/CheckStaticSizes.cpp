//===- CheckStaticSizes.cpp - bcast-check-static-sizes --------------------===//
//
// Rejects, before lowering, every value whose static shape has more elements
// or bytes than a signed 64-bit integer holds: the lowering (bufferization,
// memref-to-LLVM) computes those sizes in 64 bits without overflow checks,
// and a wrapped size is a wrong allocation or a crash in an upstream pass.
//
//===----------------------------------------------------------------------===//

#include "bcast/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTCHECKSTATICSIZES
#include "bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;

/// Bytes per element for the element types the lowering stores, or 0 when
/// unknown (then only the element count is checked).
static int64_t getElementBytes(Type type) {
  if (type.isIntOrIndexOrFloat()) {
    unsigned bits = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
    return llvm::divideCeil(bits, 8);
  }
  if (auto complex = dyn_cast<ComplexType>(type))
    return 2 * getElementBytes(complex.getElementType());
  return 0;
}

/// Why `type` cannot be lowered, or nullptr if the product of its static
/// sizes, and that product in bytes, fit in int64.
static const char *getOverflow(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return nullptr;
  // Sizes 0 count as 1: an empty tensor has no elements, but its memref's
  // strides are still products of the other sizes.
  int64_t elements = 1;
  for (int64_t size : shaped.getShape()) {
    if (ShapedType::isDynamic(size) || size == 0)
      continue;
    if (size < 0 || llvm::MulOverflow(elements, size, elements))
      return "the product of its sizes";
  }
  int64_t bytes;
  if (int64_t elementBytes = getElementBytes(shaped.getElementType()))
    if (llvm::MulOverflow(elements, elementBytes, bytes))
      return "the product of its sizes in bytes";
  return nullptr;
}

namespace {
struct BcastCheckStaticSizesPass
    : public bcast::impl::BcastCheckStaticSizesBase<BcastCheckStaticSizesPass> {
  void runOnOperation() override {
    bool failed = false;
    auto check = [&](Value value, Operation *reportOn) {
      const char *what = getOverflow(value.getType());
      if (!what)
        return;
      InFlightDiagnostic diag =
          reportOn ? reportOn->emitError() : emitError(value.getLoc());
      diag << "cannot lower a value of type " << value.getType() << ": " << what
           << " does not fit in a signed 64-bit integer";
      failed = true;
    };
    getOperation()->walk([&](Operation *op) {
      for (Value result : op->getResults())
        check(result, op);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument argument : block.getArguments())
            check(argument, nullptr);
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
