//===- BcastOps.cpp - bcast verifiers, shape inference, reification -------===//
//
// The op-side half of bcast's semantics: verifiers that apply the shape rules
// in the order the dialect promises (operand broadcastability, the in-place
// rule, element types, the result type, then op attributes), result type
// inference and reification of dynamic result sizes; and specify_shape's
// verifier, folder and canonicalization. All shape reasoning is delegated to
// the shape-rule module (Utils/BroadcastShape.h).
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/IR/BcastOps.h"
#include "bcast/Dialect/Bcast/Utils/BroadcastShape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::bcast;

static_assert(kDynamicSize == ShapedType::kDynamic,
              "the shape-rule module and MLIR must agree on `?`");

//===----------------------------------------------------------------------===//
// Shape inference
//===----------------------------------------------------------------------===//

SmallVector<ArrayRef<int64_t>> bcast::getShapes(TypeRange types) {
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Type type : types)
    shapes.push_back(cast<RankedTensorType>(type).getShape());
  return shapes;
}

RankedTensorType bcast::inferBroadcastType(TypeRange operandTypes,
                                           bool isInPlace, bool boolResult) {
  if (operandTypes.empty() ||
      !llvm::all_of(operandTypes, llvm::IsaPred<RankedTensorType>))
    return {};
  auto last = cast<RankedTensorType>(operandTypes.back());
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(getShapes(operandTypes));
  if (!shape)
    return {};
  if (isInPlace)
    return cast<RankedTensorType>(operandTypes.front());
  Type elementType = boolResult ? IntegerType::get(last.getContext(), 1)
                                : last.getElementType();
  return RankedTensorType::get(*shape, elementType);
}

/// inferReturnTypes for every element-wise op: the op's traits say whether it
/// is in place or has an i1 result.
static LogicalResult inferElementwiseType(StringRef opName, bool inPlace,
                                          bool boolResult,
                                          std::optional<Location> location,
                                          ValueRange operands,
                                          SmallVectorImpl<Type> &results) {
  RankedTensorType type =
      inferBroadcastType(operands.getTypes(), inPlace, boolResult);
  if (!type)
    return emitOptionalError(location, "'", opName,
                             "' op operands do not broadcast");
  results.push_back(type);
  return success();
}

/// Accepts the refinements the verifier accepts: the same element type and
/// rank, and equal sizes wherever both are static.
static bool areCompatibleResultTypes(TypeRange lhs, TypeRange rhs) {
  if (lhs.size() != rhs.size())
    return false;
  for (auto [inferred, declared] : llvm::zip_equal(lhs, rhs)) {
    auto inferredType = dyn_cast<RankedTensorType>(inferred);
    auto declaredType = dyn_cast<RankedTensorType>(declared);
    if (!inferredType || !declaredType ||
        inferredType.getElementType() != declaredType.getElementType() ||
        !isCompatibleShape(inferredType.getShape(), declaredType.getShape()))
      return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

/// The checks every element-wise op shares, in the documented order.
static LogicalResult verifyElementwise(Operation *op) {
  SmallVector<ArrayRef<int64_t>> shapes = getShapes(op->getOperandTypes());

  // 1. The operands broadcast.
  SizeMismatch mismatch;
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(shapes, &mismatch);
  if (!shape)
    return op->emitOpError() << mismatch.message();

  // 2. PyTorch's in-place rule.
  bool inPlace = isInPlace(op);
  if (inPlace)
    if (std::optional<std::string> error = checkInPlace(shapes[0], shapes[1]))
      return op->emitOpError() << *error;

  // 3. Value operands share the element type (promotion comes later). The
  // condition of `where` is not a value operand.
  unsigned firstValue = isa<WhereOp>(op) ? 1 : 0;
  Type elementType =
      cast<RankedTensorType>(op->getOperand(firstValue).getType())
          .getElementType();
  for (unsigned i = firstValue + 1, e = op->getNumOperands(); i < e; ++i) {
    Type other =
        cast<RankedTensorType>(op->getOperand(i).getType()).getElementType();
    if (other != elementType)
      return op->emitOpError()
             << "operands must have the same element type, but tensor "
             << operandLetter(firstValue) << " has " << elementType
             << " and tensor " << operandLetter(i) << " has " << other
             << " (type promotion is not supported yet)";
  }

  // 4. The result type.
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (inPlace) {
    if (resultType != op->getOperand(0).getType())
      return op->emitOpError()
             << "result type " << resultType
             << " must equal the type of the in-place operand "
             << op->getOperand(0).getType();
  } else {
    Type expectedElement = op->hasTrait<OpTrait::bcast::BoolResult>()
                               ? IntegerType::get(op->getContext(), 1)
                               : elementType;
    if (resultType.getElementType() != expectedElement)
      return op->emitOpError()
             << "result element type " << resultType.getElementType()
             << " must be " << expectedElement;
    if (!isCompatibleShape(*shape, resultType.getShape()))
      return op->emitOpError()
             << "result shape " << formatShape(resultType.getShape())
             << " is not compatible with the broadcast shape "
             << formatShape(*shape);
  }
  return success();
}

/// Ops that PyTorch does not define on bools reject i1 operands with
/// `message` (the op's own sentence, given in BcastOps.td).
static LogicalResult verifyNotBool(Operation *op, StringRef message) {
  if (getElementTypeOrSelf(op->getOperand(0).getType()).isInteger(1))
    return op->emitOpError() << message;
  return success();
}

/// `rounding_mode` is "trunc" or "floor" when present, and required on
/// integers; checked after the shape checks.
static LogicalResult verifyRoundingMode(Operation *op,
                                        std::optional<StringRef> mode) {
  if (mode && *mode != "trunc" && *mode != "floor")
    return op->emitOpError()
           << "div expected rounding_mode to be one of None, 'trunc', or "
              "'floor' but found '"
           << *mode << "'";
  if (!mode && isa<IntegerType>(getElementTypeOrSelf(op->getOperand(0))))
    return op->emitOpError()
           << "integer division requires rounding_mode \"trunc\" or "
              "\"floor\" (true division of integers needs type promotion, "
              "which is not supported yet)";
  return success();
}

//===----------------------------------------------------------------------===//
// Reification of result sizes
//===----------------------------------------------------------------------===//

OpFoldResult bcast::buildBroadcastSize(OpBuilder &builder, Location loc,
                                       ArrayRef<OpFoldResult> sizes) {
  std::optional<int64_t> staticSize;
  SmallVector<Value> dynamicSizes;
  for (OpFoldResult size : sizes) {
    if (std::optional<int64_t> constant = getConstantIntValue(size)) {
      if (*constant != 1)
        staticSize = *constant;
    } else {
      dynamicSizes.push_back(cast<Value>(size));
    }
  }
  if (staticSize || dynamicSizes.empty())
    return builder.getIndexAttr(staticSize.value_or(1));
  Value size = dynamicSizes.front();
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  for (Value next : llvm::drop_begin(dynamicSizes)) {
    Value isOne = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                        size, one);
    size = arith::SelectOp::create(builder, loc, isOne, next, size);
  }
  return size;
}

/// The sizes of the broadcast result of `op`, built from its operands' sizes
/// (buildBroadcastSize); an in-place result has its operand's sizes.
static LogicalResult reifyElementwise(Operation *op, OpBuilder &builder,
                                      ReifiedRankedShapedTypeDims &result) {
  Location loc = op->getLoc();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (isInPlace(op)) {
    result.push_back(tensor::getMixedSizes(builder, loc, op->getOperand(0)));
    return success();
  }
  int64_t rank = resultType.getRank();
  SmallVector<OpFoldResult> sizes;
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (!resultType.isDynamicDim(dim)) {
      sizes.push_back(builder.getIndexAttr(resultType.getDimSize(dim)));
      continue;
    }
    SmallVector<OpFoldResult> operandSizes;
    for (Value operand : op->getOperands()) {
      auto type = cast<RankedTensorType>(operand.getType());
      int64_t operandDim = dim - (rank - type.getRank());
      if (operandDim >= 0)
        operandSizes.push_back(
            tensor::getMixedSize(builder, loc, operand, operandDim));
    }
    sizes.push_back(buildBroadcastSize(builder, loc, operandSizes));
  }
  result.push_back(sizes);
  return success();
}

/// Integer division and remainder trap on a zero divisor.
static Speculation::Speculatability getDivisionSpeculatability(Operation *op) {
  return isa<IntegerType>(getElementTypeOrSelf(op->getOperand(0)))
             ? Speculation::NotSpeculatable
             : Speculation::Speculatable;
}

//===----------------------------------------------------------------------===//
// BroadcastToOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastToOp::verify() {
  ArrayRef<int64_t> source = getX().getType().getShape();
  ArrayRef<int64_t> target = getType().getShape();
  if (std::optional<ExpandMismatch> mismatch =
          checkExpand(source, target, DynamicTarget::KeepsSourceSize))
    return emitOpError() << mismatch->message(source, target);
  if (getX().getType().getElementType() != getType().getElementType())
    return emitOpError() << "result element type " << getType().getElementType()
                         << " must equal the operand's element type "
                         << getX().getType().getElementType();
  return success();
}

LogicalResult
BroadcastToOp::reifyResultShapes(OpBuilder &builder,
                                 ReifiedRankedShapedTypeDims &result) {
  // A dynamic target size keeps the aligned source size (PyTorch's -1).
  RankedTensorType type = getType();
  int64_t offset = type.getRank() - getX().getType().getRank();
  SmallVector<OpFoldResult> sizes;
  for (int64_t dim = 0, rank = type.getRank(); dim < rank; ++dim) {
    if (!type.isDynamicDim(dim))
      sizes.push_back(builder.getIndexAttr(type.getDimSize(dim)));
    else
      sizes.push_back(
          tensor::getMixedSize(builder, getLoc(), getX(), dim - offset));
  }
  result.push_back(sizes);
  return success();
}

//===----------------------------------------------------------------------===//
// SpecifyShapeOp
//===----------------------------------------------------------------------===//

LogicalResult SpecifyShapeOp::verify() {
  RankedTensorType inputType = getX().getType();
  if (std::optional<std::string> error =
          checkSpecifyShape(inputType.getShape(), getType().getShape()))
    return emitOpError() << *error;
  if (inputType.getElementType() != getType().getElementType())
    return emitOpError() << "result element type " << getType().getElementType()
                         << " must equal the input's element type "
                         << inputType.getElementType();
  return success();
}

Speculation::Speculatability SpecifyShapeOp::getSpeculatability() {
  for (int64_t dim = 0, rank = getType().getRank(); dim < rank; ++dim)
    if (isRefined(dim))
      return Speculation::NotSpeculatable;
  return Speculation::Speculatable;
}

OpFoldResult SpecifyShapeOp::fold(FoldAdaptor) {
  // Nothing refined: nothing to check. (A refined size is never folded into
  // a tensor.cast here: the cast would drop the check.)
  if (getX().getType() == getType())
    return getX();
  return {};
}

namespace {
/// A specify_shape of a tensor.cast that only made sizes dynamic checks
/// what the cast's source already knows. It reads the source instead, and
/// refines only the sizes the source does not have:
///   %d = tensor.cast %s : tensor<3x1xf32> to tensor<?x?xf32>
///   %r = bcast.specify_shape %d : (tensor<?x?xf32>) -> tensor<?x1xf32>
/// becomes
///   %r = tensor.cast %s : tensor<3x1xf32> to tensor<?x1xf32>
/// (no check left), and a source of type tensor<?x?x5xf32> under a result
/// tensor<?x1x?xf32> gives a specify_shape to tensor<?x1x5xf32> and a cast
/// back. A static source size that contradicts a refined one is left to
/// fail at run time.
struct SpecifyShapeOfCast : public OpRewritePattern<SpecifyShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SpecifyShapeOp op,
                                PatternRewriter &rewriter) const override {
    auto castOp = op.getX().getDefiningOp<tensor::CastOp>();
    if (!castOp || !tensor::canFoldIntoConsumerOp(castOp))
      return rewriter.notifyMatchFailure(op, "not a cast to a dynamic type");
    auto sourceType = cast<RankedTensorType>(castOp.getSource().getType());
    RankedTensorType resultType = op.getType();
    SmallVector<int64_t> joined;
    for (auto [sourceSize, resultSize] :
         llvm::zip_equal(sourceType.getShape(), resultType.getShape())) {
      if (!ShapedType::isDynamic(sourceSize) &&
          !ShapedType::isDynamic(resultSize) && sourceSize != resultSize)
        return rewriter.notifyMatchFailure(op, "fails at run time");
      joined.push_back(ShapedType::isDynamic(sourceSize) ? resultSize
                                                         : sourceSize);
    }
    auto joinedType =
        RankedTensorType::get(joined, resultType.getElementType());
    Value value = castOp.getSource();
    if (joinedType != sourceType)
      value = SpecifyShapeOp::create(rewriter, op.getLoc(), joinedType, value);
    if (joinedType != resultType)
      value = tensor::CastOp::create(rewriter, op.getLoc(), resultType, value);
    rewriter.replaceOp(op, value);
    return success();
  }
};
} // namespace

void SpecifyShapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                 MLIRContext *context) {
  results.add<SpecifyShapeOfCast>(context);
}

//===----------------------------------------------------------------------===//
// Ops the lowering creates
//===----------------------------------------------------------------------===//

LogicalResult ExpandViewOp::verify() {
  int64_t numDynamic = getSource().getType().getNumDynamicDims();
  if (static_cast<int64_t>(getSizes().size()) != numDynamic)
    return emitOpError() << "expects one size per dynamic dimension ("
                         << numDynamic << "), but got " << getSizes().size();
  return success();
}

LogicalResult RuntimeCheckOp::verify() {
  // Every conversion must be %ld (one value each) and nothing else may start
  // with %, so the lowering can pass the values to printf safely.
  StringRef format = getFormat();
  size_t conversions = 0;
  for (size_t pos = format.find('%'); pos != StringRef::npos;
       pos = format.find('%', pos + 1)) {
    if (format.substr(pos, 3) != "%ld")
      return emitOpError() << "format may only contain %ld conversions";
    ++conversions;
  }
  if (conversions != getValues().size())
    return emitOpError() << "format has " << conversions << " conversions but "
                         << getValues().size() << " values are given";
  return success();
}

#include "bcast/Dialect/Bcast/IR/BcastInterfaces.cpp.inc"

// The per-op hooks ODS generates (Bcast_ElementwiseOp in BcastBase.td) call
// the static functions above.
#define GET_OP_CLASSES
#include "bcast/Dialect/Bcast/IR/BcastOps.cpp.inc"
