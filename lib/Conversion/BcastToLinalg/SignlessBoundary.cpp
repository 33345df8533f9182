//===- SignlessBoundary.cpp - Make unsigned integer types signless --------===//
//
// bcast-signless-boundary, the second half of the lowering of unsigned
// tensors (torch-mlir's and StableHLO's signless boundary): after
// convert-bcast-to-linalg has built every linalg.generic on signless tensors
// and put the unsigned semantics into their bodies, a dialect conversion
// turns every remaining unsigned integer type into the signless type of the
// same width (ui8 to i8, the same bits) in function signatures, calls,
// constants (dense attributes are bitcast), tensor ops, the lowering's views
// and any other op, so that the rest of the pipeline sees signless types
// only. The unrealized casts the lowering put at the boundary become
// identities and fold away. Ops whose meaning depends on the signedness
// (bcast's element-wise ops and casts) must have been lowered: they are
// refused with a diagnostic rather than silently made signed.
//
//===----------------------------------------------------------------------===//

#include "bcast/Conversion/BcastToLinalg/BcastToLinalg.h"
#include "bcast/Dialect/Bcast/IR/BcastOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTSIGNLESSBOUNDARY
#include "bcast/Conversion/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;
using namespace mlir::bcast;

//===----------------------------------------------------------------------===//
// Types and attributes
//===----------------------------------------------------------------------===//

SignlessTypeConverter::SignlessTypeConverter()
    : replacer(std::make_shared<AttrTypeReplacer>()) {
  replacer->addReplacement([](IntegerType type) -> std::optional<Type> {
    if (!type.isUnsigned())
      return std::nullopt;
    return IntegerType::get(type.getContext(), type.getWidth());
  });
  // Dense constants keep their bits under the signless element type.
  replacer->addReplacement(
      [](DenseIntElementsAttr attr) -> std::optional<Attribute> {
        auto integer = dyn_cast<IntegerType>(attr.getElementType());
        if (!integer || !integer.isUnsigned())
          return std::nullopt;
        return attr.bitcast(
            IntegerType::get(attr.getContext(), integer.getWidth()));
      });
  // Composite types (tensors, with their encoding; memrefs, with their
  // layout and memory space; vectors; functions) are rebuilt around their
  // converted parts by the replacer.
  std::shared_ptr<AttrTypeReplacer> shared = replacer;
  addConversion([shared](Type type) { return shared->replace(type); });
}

Attribute SignlessTypeConverter::convertAttribute(Attribute attr) const {
  return attr ? replacer->replace(attr) : attr;
}

/// Whether `type` is or holds an unsigned integer type.
static bool holdsUnsigned(Type type) {
  bool found = false;
  type.walk([&](IntegerType integer) { found |= integer.isUnsigned(); });
  return found;
}

/// Whether `attr` holds an unsigned integer type (a type attribute, a dense
/// constant, a typed integer).
static bool holdsUnsigned(Attribute attr) {
  bool found = false;
  if (attr)
    attr.walk([&](IntegerType integer) { found |= integer.isUnsigned(); });
  return found;
}

/// Whether `op` itself (not the ops nested in it) mentions an unsigned
/// integer type: in its operands, results, block arguments, attributes or
/// properties.
static bool mentionsUnsigned(Operation *op) {
  auto isUnsignedValue = [](Value value) {
    return holdsUnsigned(value.getType());
  };
  if (llvm::any_of(op->getOperands(), isUnsignedValue) ||
      llvm::any_of(op->getResults(), isUnsignedValue) ||
      holdsUnsigned(op->getDiscardableAttrDictionary()) ||
      holdsUnsigned(op->getPropertiesAsAttribute()))
    return true;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (llvm::any_of(block.getArguments(), isUnsignedValue))
        return true;
  return false;
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {
/// A cast the lowering put at the boundary becomes an identity once its
/// types are signless: its uses read its (converted) operands.
struct FoldIdentityCast
    : public OpConversionPattern<UnrealizedConversionCastOp> {
  FoldIdentityCast(const TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(UnrealizedConversionCastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<Type> resultTypes;
    if (failed(getTypeConverter()->convertTypes(op.getResultTypes(),
                                                resultTypes)) ||
        TypeRange(adaptor.getInputs()) != TypeRange(resultTypes))
      return rewriter.notifyMatchFailure(op, "not an identity once signless");
    rewriter.replaceOp(op, adaptor.getInputs());
    return success();
  }
};

/// Converts any other op: its operand, result and block argument types
/// (every block, not only the entry block) and its attributes and
/// properties become signless; the bits are the same. A function changes in
/// place (its symbol stays where it is); other ops are rebuilt.
struct ConvertAnyOp : public ConversionPattern {
  ConvertAnyOp(const SignlessTypeConverter &converter, MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1,
                          context),
        converter(converter) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    auto attrs = cast<DictionaryAttr>(
        converter.convertAttribute(op->getDiscardableAttrDictionary()));
    Attribute properties =
        converter.convertAttribute(op->getPropertiesAsAttribute());
    if (isa<FunctionOpInterface>(op)) {
      rewriter.modifyOpInPlace(op, [&] {
        op->setDiscardableAttrs(attrs);
        if (properties)
          (void)op->setPropertiesFromAttribute(properties,
                                               /*emitError=*/nullptr);
      });
      for (Region &region : op->getRegions())
        if (failed(rewriter.convertRegionTypes(&region, converter)))
          return rewriter.notifyMatchFailure(op, "blocks not converted");
      return success();
    }
    SmallVector<Type> resultTypes;
    if (failed(converter.convertTypes(op->getResultTypes(), resultTypes)))
      return rewriter.notifyMatchFailure(op, "results not converted");
    OperationState state(op->getLoc(), op->getName(), operands, resultTypes,
                         attrs.getValue(), op->getSuccessors());
    state.propertiesAttr = properties;
    for (Region &region : op->getRegions()) {
      Region *converted = state.addRegion();
      rewriter.inlineRegionBefore(region, *converted, converted->end());
      if (failed(rewriter.convertRegionTypes(converted, converter)))
        return rewriter.notifyMatchFailure(op, "blocks not converted");
    }
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }

  const SignlessTypeConverter &converter;
};
} // namespace

void bcast::populateSignlessBoundaryPatterns(
    const SignlessTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<FoldIdentityCast>(converter, patterns.getContext());
  patterns.add<ConvertAnyOp>(converter, patterns.getContext());
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct BcastSignlessBoundaryPass
    : public bcast::impl::BcastSignlessBoundaryBase<BcastSignlessBoundaryPass> {
  using Base::Base;

  void runOnOperation() override {
    // Made signless, these ops would compute as signed: refuse them.
    WalkResult unlowered =
        getOperation()->walk([](Operation *op) {
          if ((isElementwiseBroadcast(op) || isa<CastOp>(op)) &&
              mentionsUnsigned(op)) {
            op->emitOpError()
                << "computes on unsigned integers: lower it with "
                   "convert-bcast-to-linalg before bcast-signless-boundary "
                   "erases their signedness";
            return WalkResult::interrupt();
          }
          return WalkResult::advance();
        });
    if (unlowered.wasInterrupted())
      return signalPassFailure();

    SignlessTypeConverter converter;
    ConversionTarget target(getContext());
    target.markUnknownOpDynamicallyLegal(
        [](Operation *op) { return !mentionsUnsigned(op); });
    RewritePatternSet patterns(&getContext());
    populateSignlessBoundaryPatterns(converter, patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
