//===- DropContradictedCasts.cpp - bcast-drop-contradicted-casts ----------===//
//
// Replaces the last `tensor.cast` of a chain whose first source and last
// result contradict each other in a static size by a `tensor.empty`, before
// bufferization turns the chain into `memref.cast` ops that upstream's
// folding would compose into one that does not verify (robustness finding
// 18; the pass description in Passes.td has the case).
//
//===----------------------------------------------------------------------===//

#include "bcast/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTDROPCONTRADICTEDCASTS
#include "bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;

/// Whether some static size of the chain's first source differs from the
/// same static size of `cast`'s result (the casts in between only relax or
/// refine, so each of them verifies).
static bool isContradicted(tensor::CastOp cast) {
  auto result = dyn_cast<RankedTensorType>(cast.getType());
  if (!result)
    return false;
  Value source = cast.getSource();
  while (auto producer = source.getDefiningOp<tensor::CastOp>()) {
    source = producer.getSource();
    auto known = dyn_cast<RankedTensorType>(source.getType());
    if (!known || known.getRank() != result.getRank())
      return false;
    for (auto [a, b] : llvm::zip_equal(known.getShape(), result.getShape()))
      if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b)
        return true;
  }
  return false;
}

namespace {
struct BcastDropContradictedCastsPass
    : public bcast::impl::BcastDropContradictedCastsBase<
          BcastDropContradictedCastsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<tensor::CastOp> contradicted;
    getOperation()->walk([&](tensor::CastOp cast) {
      if (isContradicted(cast))
        contradicted.push_back(cast);
    });
    for (tensor::CastOp cast : contradicted) {
      OpBuilder b(cast);
      auto type = cast_or_null<RankedTensorType>(cast.getType());
      SmallVector<Value> dynamicSizes;
      for (int64_t d = 0; d < type.getRank(); ++d)
        if (type.isDynamicDim(d))
          dynamicSizes.push_back(
              tensor::DimOp::create(b, cast.getLoc(), cast.getSource(), d));
      Value empty =
          tensor::EmptyOp::create(b, cast.getLoc(), type, dynamicSizes);
      cast.replaceAllUsesWith(empty);
      cast.erase();
    }
  }
};
} // namespace
