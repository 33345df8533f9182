//===- BcastFolding.cpp - Constant folding of bcast ops -------------------===//
//
// Folds bcast ops whose operands are constants into a constant, when the
// result is static and has at most kMaxFoldedElements elements (folding
// never materializes a large tensor in the compiler). Element-wise ops apply
// their element function (ElementFunctions.cpp, the same semantics as the
// lowering) at every broadcast index; it declines where the run-time result
// is undefined or cannot be reproduced exactly, and the op stays unfolded.
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/IR/BcastOps.h"
#include "bcast/Dialect/Bcast/Utils/BroadcastShape.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::bcast;
using llvm::APFloat;
using llvm::APInt;

/// The largest result folded into a constant.
static constexpr int64_t kMaxFoldedElements = 1024;

//===----------------------------------------------------------------------===//
// Folding over broadcast indices
//===----------------------------------------------------------------------===//

/// The linear index into an operand of shape `shape` for the result
/// multi-index `index` (of the broadcast rank): size-1 and missing
/// dimensions index 0.
static int64_t operandIndex(ArrayRef<int64_t> shape, ArrayRef<int64_t> index) {
  int64_t offset = index.size() - shape.size();
  int64_t linear = 0;
  for (auto [dim, size] : llvm::enumerate(shape))
    linear = linear * size + (size == 1 ? 0 : index[offset + dim]);
  return linear;
}

/// Calls `fn(linearResultIndex, operandIndices)` for every element of a
/// result of static shape `resultShape`.
static void forEachElement(ArrayRef<int64_t> resultShape,
                           ArrayRef<ArrayRef<int64_t>> operandShapes,
                           llvm::function_ref<void(ArrayRef<int64_t>)> fn) {
  int64_t count = *getNumElements(resultShape);
  SmallVector<int64_t> index(resultShape.size(), 0);
  SmallVector<int64_t> operandIndices(operandShapes.size());
  for (int64_t linear = 0; linear < count; ++linear) {
    for (auto [i, shape] : llvm::enumerate(operandShapes))
      operandIndices[i] = operandIndex(shape, index);
    fn(operandIndices);
    for (int64_t dim = resultShape.size(); dim-- > 0;) {
      if (++index[dim] < resultShape[dim])
        break;
      index[dim] = 0;
    }
  }
}

/// Whether `type` is small and static enough to fold into.
static bool isFoldableResult(RankedTensorType type) {
  std::optional<int64_t> count = getNumElements(type.getShape());
  return count && *count <= kMaxFoldedElements;
}

/// The elements of a constant operand, in order.
static SmallVector<Scalar> getScalars(DenseElementsAttr dense) {
  SmallVector<Scalar> scalars;
  if (isa<FloatType>(dense.getElementType()))
    llvm::append_range(scalars, dense.getValues<APFloat>());
  else
    llvm::append_range(scalars, dense.getValues<APInt>());
  return scalars;
}

OpFoldResult bcast::detail::foldElementwise(Operation *op,
                                            ArrayRef<Attribute> operands) {
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (!isFoldableResult(resultType))
    return {};
  SmallVector<SmallVector<Scalar>> values;
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Attribute attr : operands) {
    auto dense = dyn_cast_if_present<DenseElementsAttr>(attr);
    if (!dense)
      return {};
    values.push_back(getScalars(dense));
    shapes.push_back(dense.getType().getShape());
  }
  // A constant's type may be more static than the result type; fold only
  // when the broadcast of the constants is exactly the result shape.
  std::optional<SmallVector<int64_t>> shape = broadcastShapes(shapes);
  if (!shape || ArrayRef<int64_t>(*shape) != resultType.getShape())
    return {};

  auto elementwise = cast<ElementwiseOpInterface>(op);
  ElementTypes types = getElementTypes(op);
  unsigned firstValue = isa<WhereOp>(op) ? 1 : 0;
  SmallVector<Type> operandElementTypes;
  for (Value operand : op->getOperands())
    operandElementTypes.push_back(getElementTypeOrSelf(operand.getType()));
  bool isFloatResult = isa<FloatType>(resultType.getElementType());
  SmallVector<APFloat> floats;
  SmallVector<APInt> ints;
  SmallVector<Scalar, 3> args(operands.size(), APInt());
  bool failed = false;
  forEachElement(resultType.getShape(), shapes, [&](ArrayRef<int64_t> idx) {
    if (failed)
      return;
    for (auto [k, arg] : llvm::enumerate(args)) {
      std::optional<Scalar> converted =
          k < firstValue
              ? values[k][idx[k]]
              : foldConversion(values[k][idx[k]], operandElementTypes[k],
                               types.compute);
      if (!converted) {
        failed = true;
        return;
      }
      arg = *converted;
    }
    std::optional<Scalar> value = elementwise.foldElement(args);
    if (value)
      value = foldConversion(*value, types.element, types.result);
    // An element of the wrong kind would be a bug in the element function;
    // leave the op unfolded rather than build a wrong constant.
    if (!value || std::holds_alternative<APFloat>(*value) != isFloatResult) {
      failed = true;
      return;
    }
    if (isFloatResult)
      floats.push_back(std::get<APFloat>(*value));
    else
      ints.push_back(std::get<APInt>(*value));
  });
  if (failed)
    return {};
  if (isFloatResult)
    return DenseElementsAttr::get(resultType, floats);
  return DenseElementsAttr::get(resultType, ints);
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  Type from = getX().getType().getElementType();
  Type to = getType().getElementType();
  if (from == to)
    return getX();
  auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getX());
  RankedTensorType type = getType();
  if (!dense || !type.hasStaticShape() || !isFoldableResult(type))
    return {};
  SmallVector<APFloat> floats;
  SmallVector<APInt> ints;
  for (const Scalar &element : getScalars(dense)) {
    std::optional<Scalar> value = foldConversion(element, from, to);
    if (!value)
      return {};
    if (isa<FloatType>(to))
      floats.push_back(std::get<APFloat>(*value));
    else
      ints.push_back(std::get<APInt>(*value));
  }
  if (isa<FloatType>(to))
    return DenseElementsAttr::get(type, floats);
  return DenseElementsAttr::get(type, ints);
}

OpFoldResult PermuteOp::fold(FoldAdaptor adaptor) {
  SmallVector<int64_t> permutation = getPermutation();
  if (llvm::equal(permutation, llvm::seq<int64_t>(0, permutation.size())))
    return getX();
  // permute(permute(y, inner), outer) reads y[inner[outer[i]]]: one
  // permute of y. The op is updated in place (a fold may do that).
  if (auto producer = getX().getDefiningOp<PermuteOp>()) {
    SmallVector<int64_t> inner = producer.getPermutation();
    SmallVector<int64_t> composed;
    for (int64_t dim : permutation)
      composed.push_back(inner[dim]);
    getXMutable().assign(producer.getX());
    setDims(composed);
    return getResult();
  }
  auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getX());
  RankedTensorType type = getType();
  if (!dense || !type.hasStaticShape())
    return {};
  if (dense.isSplat())
    return dense.resizeSplat(type);
  if (!isFoldableResult(type))
    return {};
  // Result element `index` is the source element whose index along source
  // dim permutation[i] is index[i].
  ArrayRef<int64_t> sourceShape = dense.getType().getShape();
  SmallVector<int64_t> sourceStrides(sourceShape.size(), 1);
  for (int64_t dim = static_cast<int64_t>(sourceShape.size()) - 2; dim >= 0;
       --dim)
    sourceStrides[dim] = sourceStrides[dim + 1] * sourceShape[dim + 1];
  auto source = dense.getValues<Attribute>();
  ArrayRef<int64_t> shape = type.getShape();
  int64_t count = *getNumElements(shape);
  SmallVector<int64_t> index(shape.size(), 0);
  SmallVector<Attribute> elements;
  elements.reserve(count);
  for (int64_t n = 0; n < count; ++n) {
    int64_t linear = 0;
    for (auto [i, dim] : llvm::enumerate(permutation))
      linear += index[i] * sourceStrides[dim];
    elements.push_back(source[linear]);
    for (int64_t dim = shape.size(); dim-- > 0;) {
      if (++index[dim] < shape[dim])
        break;
      index[dim] = 0;
    }
  }
  return DenseElementsAttr::get(type, elements);
}

OpFoldResult BroadcastToOp::fold(FoldAdaptor adaptor) {
  if (getX().getType() == getType())
    return getX();
  RankedTensorType type = getType();
  auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getX());
  if (!dense || !type.hasStaticShape())
    return {};
  if (dense.isSplat())
    return dense.resizeSplat(type);
  if (!isFoldableResult(type) ||
      dense.getType().getShape() != getX().getType().getShape())
    return {};
  ArrayRef<int64_t> shapes[] = {dense.getType().getShape()};
  auto source = dense.getValues<Attribute>();
  SmallVector<Attribute> elements;
  forEachElement(type.getShape(), shapes, [&](ArrayRef<int64_t> idx) {
    elements.push_back(source[idx[0]]);
  });
  return DenseElementsAttr::get(type, elements);
}
