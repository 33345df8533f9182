//===- ContractionFunctions.cpp - The contraction family's hooks ----------===//
//
// The op-side half of `bcast.matmul`: the verifier (PyTorch's checks in its
// order, from the rule module Utils/MatmulRules.h), shape inference,
// reification, speculatability and folding on small constants.
//
// Folding is exact for integers (products and sums wrap in the element
// width, as PyTorch's do). f32 and bf16 products are folded by summing in
// f64 (where each f32 product is exact) and rounding once: at least as
// accurate as the run-time sums, though not always bit-identical to them.
// f64 products are folded only where they are exact without arithmetic: a
// contracted size of 0 (zeros) or an empty result.
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/IR/BcastOps.h"
#include "bcast/Dialect/Bcast/Utils/MatmulRules.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::bcast;
using llvm::APFloat;
using llvm::APInt;

/// The largest result folded into a constant, and the most multiplications
/// a fold may do (folding never runs a large product at compile time).
static constexpr int64_t kMaxFoldedResultElements = 1024;
static constexpr int64_t kMaxFoldedProducts = 1 << 16;

//===----------------------------------------------------------------------===//
// Shape inference
//===----------------------------------------------------------------------===//

LogicalResult bcast::detail::inferMatmulType(StringRef opName,
                                             std::optional<Location> location,
                                             Type lhs, Type rhs,
                                             SmallVectorImpl<Type> &inferred) {
  auto lhsType = dyn_cast<RankedTensorType>(lhs);
  auto rhsType = dyn_cast<RankedTensorType>(rhs);
  std::optional<SmallVector<int64_t>> shape;
  if (lhsType && rhsType)
    shape = inferMatmulShape(lhsType.getShape(), rhsType.getShape());
  if (!shape)
    return emitOptionalError(location, "'", opName,
                             "' op operands cannot be multiplied");
  // Matmul has no promotion: the result has the operands' element type (a
  // mixed pair is the verifier's to report).
  inferred.push_back(RankedTensorType::get(*shape, lhsType.getElementType()));
  return success();
}

SmallVector<OpFoldResult> bcast::buildMatmulResultSizes(OpBuilder &builder,
                                                        Location loc, Value lhs,
                                                        Value rhs,
                                                        Type resultType) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  MatmulLayout layout(lhsType.getRank(), rhsType.getRank());
  auto declared = dyn_cast_if_present<RankedTensorType>(resultType);
  SmallVector<OpFoldResult> sizes;
  auto add = [&](int64_t dim, function_ref<OpFoldResult()> build) {
    if (declared && !declared.isDynamicDim(dim))
      sizes.push_back(builder.getIndexAttr(declared.getDimSize(dim)));
    else
      sizes.push_back(build());
  };
  int64_t batchRank = layout.batchRank();
  for (int64_t dim = 0; dim < batchRank; ++dim) {
    add(dim, [&] {
      SmallVector<OpFoldResult> operandSizes;
      int64_t lhsDim = dim - (batchRank - layout.lhsBatchRank());
      int64_t rhsDim = dim - (batchRank - layout.rhsBatchRank());
      if (lhsDim >= 0)
        operandSizes.push_back(tensor::getMixedSize(builder, loc, lhs, lhsDim));
      if (rhsDim >= 0)
        operandSizes.push_back(tensor::getMixedSize(builder, loc, rhs, rhsDim));
      return buildBroadcastSize(builder, loc, operandSizes);
    });
  }
  if (layout.hasM())
    add(layout.resultM(),
        [&] { return tensor::getMixedSize(builder, loc, lhs, layout.lhsM()); });
  if (layout.hasN())
    add(layout.resultN(),
        [&] { return tensor::getMixedSize(builder, loc, rhs, layout.rhsN()); });
  return sizes;
}

LogicalResult
bcast::detail::reifyMatmulShape(OpBuilder &builder, Operation *op,
                                ReifiedRankedShapedTypeDims &reified) {
  reified.push_back(buildMatmulResultSizes(builder, op->getLoc(),
                                           op->getOperand(0), op->getOperand(1),
                                           op->getResult(0).getType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Verifier
//===----------------------------------------------------------------------===//

LogicalResult bcast::detail::verifyMatmul(Operation *op) {
  auto lhsType = cast<RankedTensorType>(op->getOperand(0).getType());
  auto rhsType = cast<RankedTensorType>(op->getOperand(1).getType());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  ArrayRef<int64_t> lhs = lhsType.getShape(), rhs = rhsType.getShape();

  // 1. Ranks.
  if (lhs.empty() || rhs.empty())
    return op->emitOpError() << formatMatmulRankError(lhs.size(), rhs.size());

  // Bcast_Tensor admits only element types that have a DType.
  DType lhsDType = *getDType(lhsType.getElementType());
  DType rhsDType = *getDType(rhsType.getElementType());
  std::optional<std::string> typeError =
      checkMatmulElementTypes(lhsDType, rhsDType, lhs.size(), rhs.size());
  // dot rejects mixed types before it looks at the lengths.
  if (typeError && lhsDType != rhsDType &&
      checksTypesBeforeSizes(lhs.size(), rhs.size()))
    return op->emitOpError() << *typeError;

  // 2. Batch dims, then the contracted sizes.
  MatmulMismatch mismatch;
  std::optional<SmallVector<int64_t>> shape =
      inferMatmulShape(lhs, rhs, &mismatch);
  if (!shape)
    return op->emitOpError() << mismatch.message(lhs, rhs);

  // 3. The element types, as the kernel PyTorch reaches checks them.
  if (typeError)
    return op->emitOpError() << *typeError;

  // 4. The result type.
  if (resultType.getElementType() != lhsType.getElementType())
    return op->emitOpError()
           << "result element type " << resultType.getElementType()
           << " does not match the operands' element type "
           << lhsType.getElementType();
  if (!isCompatibleShape(*shape, resultType.getShape())) {
    MatmulLayout layout(lhs.size(), rhs.size());
    return op->emitOpError()
           << "result shape " << formatShape(resultType.getShape())
           << " is not compatible with the matmul shape " << formatShape(*shape)
           << " (the broadcast shape "
           << formatShape(
                  ArrayRef<int64_t>(*shape).take_front(layout.batchRank()))
           << " of the batch dims, then the product's)";
  }
  return success();
}

Speculation::Speculatability
bcast::detail::getMatmulSpeculatability(Operation *op) {
  // The lowering checks dynamic sizes at run time (batch dims, the
  // contracted sizes, a declared static result size).
  for (Type type : op->getOperandTypes())
    if (!cast<RankedTensorType>(type).hasStaticShape())
      return Speculation::NotSpeculatable;
  return Speculation::Speculatable;
}

//===----------------------------------------------------------------------===//
// Folding
//===----------------------------------------------------------------------===//

/// The row-major strides of `shape`.
static SmallVector<int64_t> getStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t dim = static_cast<int64_t>(shape.size()) - 1; dim > 0; --dim)
    strides[dim - 1] = strides[dim] * shape[dim];
  return strides;
}

OpFoldResult bcast::detail::foldMatmul(Operation *op, Attribute lhsAttr,
                                       Attribute rhsAttr) {
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  auto lhsType = cast<RankedTensorType>(op->getOperand(0).getType());
  auto rhsType = cast<RankedTensorType>(op->getOperand(1).getType());
  if (!resultType.hasStaticShape())
    return {};
  Type element = resultType.getElementType();
  MatmulLayout layout(lhsType.getRank(), rhsType.getRank());

  // Zeros whatever the operands are: an empty result, or a contracted size
  // of 0 (an empty sum).
  int64_t lhsK = lhsType.getDimSize(layout.lhsK());
  int64_t rhsK = rhsType.getDimSize(layout.rhsK());
  if (resultType.getNumElements() == 0 || lhsK == 0 || rhsK == 0)
    return DenseElementsAttr::get(
        resultType, OpBuilder(op->getContext()).getZeroAttr(element));

  auto lhs = dyn_cast_if_present<DenseElementsAttr>(lhsAttr);
  auto rhs = dyn_cast_if_present<DenseElementsAttr>(rhsAttr);
  if (!lhs || !rhs || element.isF64())
    return {};
  // A constant's type may be more static than the operand's; fold only
  // when the constants multiply to exactly the result shape.
  ArrayRef<int64_t> lhsShape = lhs.getType().getShape();
  ArrayRef<int64_t> rhsShape = rhs.getType().getShape();
  std::optional<SmallVector<int64_t>> shape =
      inferMatmulShape(lhsShape, rhsShape);
  if (!shape || ArrayRef<int64_t>(*shape) != resultType.getShape())
    return {};
  int64_t k = lhsShape[layout.lhsK()];
  int64_t count = resultType.getNumElements();
  if (count > kMaxFoldedResultElements || count * k > kMaxFoldedProducts)
    return {};

  // Each result element's first lhs and rhs offsets, by walking the result
  // index with each operand's strides (0 where a batch dim broadcasts).
  int64_t rank = resultType.getRank(), batchRank = layout.batchRank();
  SmallVector<int64_t> lhsStrides = getStrides(lhsShape);
  SmallVector<int64_t> rhsStrides = getStrides(rhsShape);
  SmallVector<int64_t> lhsStep(rank, 0), rhsStep(rank, 0);
  for (int64_t dim = 0; dim < batchRank; ++dim) {
    int64_t lhsDim = dim - (batchRank - layout.lhsBatchRank());
    int64_t rhsDim = dim - (batchRank - layout.rhsBatchRank());
    if (lhsDim >= 0 && lhsShape[lhsDim] != 1)
      lhsStep[dim] = lhsStrides[lhsDim];
    if (rhsDim >= 0 && rhsShape[rhsDim] != 1)
      rhsStep[dim] = rhsStrides[rhsDim];
  }
  if (layout.hasM())
    lhsStep[layout.resultM()] = lhsStrides[layout.lhsM()];
  if (layout.hasN())
    rhsStep[layout.resultN()] = rhsStrides[layout.rhsN()];
  int64_t lhsKStride = lhsStrides[layout.lhsK()];
  int64_t rhsKStride = rhsStrides[layout.rhsK()];

  bool isFloat = isa<FloatType>(element);
  SmallVector<APInt> lhsInts, rhsInts, ints;
  SmallVector<double> lhsFloats, rhsFloats;
  SmallVector<APFloat> floats;
  if (isFloat) {
    for (APFloat value : lhs.getValues<APFloat>())
      lhsFloats.push_back(value.convertToDouble());
    for (APFloat value : rhs.getValues<APFloat>())
      rhsFloats.push_back(value.convertToDouble());
  } else {
    lhsInts = llvm::to_vector(lhs.getValues<APInt>());
    rhsInts = llvm::to_vector(rhs.getValues<APInt>());
  }
  SmallVector<int64_t> index(rank, 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    int64_t lhsOffset = 0, rhsOffset = 0;
    for (int64_t dim = 0; dim < rank; ++dim) {
      lhsOffset += index[dim] * lhsStep[dim];
      rhsOffset += index[dim] * rhsStep[dim];
    }
    if (isFloat) {
      double sum = 0;
      for (int64_t i = 0; i < k; ++i)
        sum += lhsFloats[lhsOffset + i * lhsKStride] *
               rhsFloats[rhsOffset + i * rhsKStride];
      APFloat value(sum);
      bool losesInfo;
      value.convert(cast<FloatType>(element).getFloatSemantics(),
                    APFloat::rmNearestTiesToEven, &losesInfo);
      floats.push_back(value);
    } else {
      APInt sum(element.getIntOrFloatBitWidth(), 0);
      for (int64_t i = 0; i < k; ++i)
        sum += lhsInts[lhsOffset + i * lhsKStride] *
               rhsInts[rhsOffset + i * rhsKStride];
      ints.push_back(sum);
    }
    for (int64_t dim = rank; dim-- > 0;) {
      if (++index[dim] < resultType.getDimSize(dim))
        break;
      index[dim] = 0;
    }
  }
  if (isFloat)
    return DenseElementsAttr::get(resultType, floats);
  return DenseElementsAttr::get(resultType, ints);
}
