//===- BcastFolding.cpp - Constant folding of bcast ops -------------------===//
//
// Folds bcast ops whose operands are constants into a constant, when the
// result is static and has at most kMaxFoldedElements elements (folding
// never materializes a large tensor in the compiler). The scalar semantics
// here must agree with the lowering's element-wise bodies; anything that
// would be undefined or trap at run time (integer division or remainder by
// zero, INT_MIN / -1, INT_MIN % -1) is left unfolded, as are operations
// whose run-time result depends on rounding steps the compiler cannot
// reproduce exactly (floor division, remainder and pow on f16/bf16).
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/IR/BcastOps.h"
#include "bcast/Dialect/Bcast/Utils/BroadcastShape.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace mlir::bcast;
using llvm::APFloat;
using llvm::APInt;

/// The largest result folded into a constant.
static constexpr int64_t kMaxFoldedElements = 1024;

//===----------------------------------------------------------------------===//
// Scalar semantics
//===----------------------------------------------------------------------===//

namespace {
/// One element of an operand: integer or floating point.
struct Scalar {
  APInt intValue;
  APFloat floatValue{0.0};
  bool isFloat = false;
};
} // namespace

/// PyTorch's integer power: repeated squaring with wrap-around; a negative
/// exponent gives 0 unless the base is 1 or -1. `isUnsigned` is for i1.
static APInt powInt(APInt base, APInt exponent, bool isUnsigned) {
  unsigned width = base.getBitWidth();
  if (!isUnsigned && exponent.isNegative()) {
    if (base.isOne())
      return base;
    if (base.isAllOnes())
      return exponent[0] ? base : APInt(width, 1);
    return APInt(width, 0);
  }
  APInt result(width, 1);
  while (!exponent.isZero()) {
    if (exponent[0])
      result *= base;
    base *= base;
    exponent = exponent.lshr(1);
  }
  return result;
}

/// Evaluates one integer element, or std::nullopt where the run-time result
/// is undefined (left unfolded).
static std::optional<APInt> evalInt(ElementwiseKind kind, RoundingMode mode,
                                    const APInt &lhs, const APInt &rhs) {
  // i1 holds PyTorch's bools: 0 and 1, with saturating add and multiply.
  bool isBool = lhs.getBitWidth() == 1;
  auto boolean = [](bool value) { return APInt(1, value ? 1 : 0); };
  bool divisionUndefined =
      rhs.isZero() || (!isBool && lhs.isMinSignedValue() && rhs.isAllOnes());
  using K = ElementwiseKind;
  switch (kind) {
  case K::Add:
    return isBool ? (lhs | rhs) : lhs + rhs;
  case K::Sub:
    return lhs - rhs;
  case K::Mul:
    return isBool ? (lhs & rhs) : lhs * rhs;
  case K::Div: {
    if (divisionUndefined)
      return std::nullopt;
    if (isBool)
      return lhs.udiv(rhs);
    APInt quotient = lhs.sdiv(rhs);
    if (mode == RoundingMode::Floor && !lhs.srem(rhs).isZero() &&
        (lhs.isNegative() != rhs.isNegative()))
      quotient -= 1;
    return quotient;
  }
  case K::Remainder: {
    if (divisionUndefined)
      return std::nullopt;
    if (isBool)
      return lhs.urem(rhs);
    APInt remainder = lhs.srem(rhs);
    if (!remainder.isZero() && remainder.isNegative() != rhs.isNegative())
      remainder += rhs;
    return remainder;
  }
  case K::Pow:
    return powInt(lhs, rhs, isBool);
  case K::Maximum:
    return isBool ? (lhs | rhs) : llvm::APIntOps::smax(lhs, rhs);
  case K::Minimum:
    return isBool ? (lhs & rhs) : llvm::APIntOps::smin(lhs, rhs);
  case K::And:
    return lhs & rhs;
  case K::Or:
    return lhs | rhs;
  case K::Xor:
    return lhs ^ rhs;
  case K::Eq:
    return boolean(lhs == rhs);
  case K::Ne:
    return boolean(lhs != rhs);
  case K::Lt:
    return boolean(isBool ? lhs.ult(rhs) : lhs.slt(rhs));
  case K::Le:
    return boolean(isBool ? lhs.ule(rhs) : lhs.sle(rhs));
  case K::Gt:
    return boolean(isBool ? lhs.ugt(rhs) : lhs.sgt(rhs));
  case K::Ge:
    return boolean(isBool ? lhs.uge(rhs) : lhs.sge(rhs));
  case K::Where:
    break;
  }
  llvm_unreachable("where is evaluated by the caller");
}

/// PyTorch's floor division and remainder of floating-point values, in the
/// element's own precision T (float or double), as the lowering computes
/// them.
template <typename T>
static T floorDivide(T a, T b) {
  if (b == 0)
    return a / b;
  T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0))
    div -= T(1);
  if (div == 0)
    return std::copysign(T(0), a / b);
  T floored = std::floor(div);
  if (div - floored > T(0.5))
    floored += T(1);
  return floored;
}

template <typename T>
static T floatRemainder(T a, T b) {
  T mod = std::fmod(a, b);
  if (mod != 0 && (b < 0) != (mod < 0))
    mod += b;
  return mod;
}

template <typename T>
static std::optional<T> evalNative(ElementwiseKind kind, RoundingMode mode,
                                   T lhs, T rhs) {
  using K = ElementwiseKind;
  switch (kind) {
  case K::Div:
    return mode == RoundingMode::Floor ? floorDivide(lhs, rhs)
                                       : std::trunc(lhs / rhs);
  case K::Remainder:
    return floatRemainder(lhs, rhs);
  case K::Pow:
    return std::pow(lhs, rhs);
  default:
    return std::nullopt;
  }
}

/// Evaluates one floating-point element; std::nullopt leaves the op
/// unfolded.
static std::optional<APFloat> evalFloat(ElementwiseKind kind,
                                        RoundingMode mode, const APFloat &lhs,
                                        const APFloat &rhs) {
  using K = ElementwiseKind;
  APFloat result = lhs;
  const auto rounding = APFloat::rmNearestTiesToEven;
  auto boolean = [](bool value) {
    return APFloat(value ? 1.0 : 0.0); // Marker; converted by the caller.
  };
  switch (kind) {
  case K::Add:
    result.add(rhs, rounding);
    return result;
  case K::Sub:
    result.subtract(rhs, rounding);
    return result;
  case K::Mul:
    result.multiply(rhs, rounding);
    return result;
  case K::Div:
    if (mode == RoundingMode::None || mode == RoundingMode::Trunc) {
      result.divide(rhs, rounding);
      if (mode == RoundingMode::Trunc)
        result.roundToIntegral(APFloat::rmTowardZero);
      return result;
    }
    [[fallthrough]];
  case K::Remainder:
  case K::Pow: {
    // Only f32 and f64 are evaluated natively, in their own precision.
    const llvm::fltSemantics &semantics = lhs.getSemantics();
    if (&semantics == &APFloat::IEEEsingle()) {
      if (std::optional<float> value = evalNative<float>(
              kind, mode, lhs.convertToFloat(), rhs.convertToFloat()))
        return APFloat(*value);
      return std::nullopt;
    }
    if (&semantics == &APFloat::IEEEdouble()) {
      if (std::optional<double> value = evalNative<double>(
              kind, mode, lhs.convertToDouble(), rhs.convertToDouble()))
        return APFloat(*value);
    }
    return std::nullopt;
  }
  case K::Maximum:
    return llvm::maximum(lhs, rhs);
  case K::Minimum:
    return llvm::minimum(lhs, rhs);
  case K::Eq:
    return boolean(lhs.compare(rhs) == APFloat::cmpEqual);
  case K::Ne:
    return boolean(lhs.compare(rhs) != APFloat::cmpEqual);
  case K::Lt:
    return boolean(lhs.compare(rhs) == APFloat::cmpLessThan);
  case K::Le: {
    APFloat::cmpResult cmp = lhs.compare(rhs);
    return boolean(cmp == APFloat::cmpLessThan || cmp == APFloat::cmpEqual);
  }
  case K::Gt:
    return boolean(lhs.compare(rhs) == APFloat::cmpGreaterThan);
  case K::Ge: {
    APFloat::cmpResult cmp = lhs.compare(rhs);
    return boolean(cmp == APFloat::cmpGreaterThan ||
                   cmp == APFloat::cmpEqual);
  }
  case K::And:
  case K::Or:
  case K::Xor:
  case K::Where:
    break;
  }
  return std::nullopt;
}

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
static void
forEachElement(ArrayRef<int64_t> resultShape,
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

static OpFoldResult foldElementwise(Operation *op,
                                    ArrayRef<Attribute> operands) {
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (!isFoldableResult(resultType))
    return {};
  SmallVector<DenseElementsAttr> values;
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Attribute attr : operands) {
    auto dense = dyn_cast_if_present<DenseElementsAttr>(attr);
    if (!dense)
      return {};
    values.push_back(dense);
    shapes.push_back(dense.getType().getShape());
  }
  // A constant's type may be more static than the result type; fold only
  // when the broadcast of the constants is exactly the result shape.
  std::optional<SmallVector<int64_t>> shape = broadcastShapes(shapes);
  if (!shape || ArrayRef<int64_t>(*shape) != resultType.getShape())
    return {};

  ElementwiseKind kind = getElementwiseKind(op);
  RoundingMode mode = getRoundingMode(op);
  Type resultElement = resultType.getElementType();
  bool boolResult = op->hasTrait<OpTrait::bcast::BoolResult>();
  bool failed = false;

  if (kind == ElementwiseKind::Where) {
    SmallVector<Attribute> elements;
    auto cond = values[0].getValues<bool>();
    auto x = values[1].getValues<Attribute>();
    auto y = values[2].getValues<Attribute>();
    forEachElement(resultType.getShape(), shapes, [&](ArrayRef<int64_t> idx) {
      elements.push_back(cond[idx[0]] ? x[idx[1]] : y[idx[2]]);
    });
    return DenseElementsAttr::get(resultType, elements);
  }

  if (isa<FloatType>(values[0].getElementType())) {
    auto lhs = values[0].getValues<APFloat>();
    auto rhs = values[1].getValues<APFloat>();
    SmallVector<APFloat> floats;
    SmallVector<bool> bools;
    forEachElement(resultType.getShape(), shapes, [&](ArrayRef<int64_t> idx) {
      if (failed)
        return;
      std::optional<APFloat> value = evalFloat(kind, mode, lhs[idx[0]], rhs[idx[1]]);
      if (!value) {
        failed = true;
        return;
      }
      if (boolResult)
        bools.push_back(!value->isZero());
      else
        floats.push_back(*value);
    });
    if (failed)
      return {};
    if (boolResult)
      return DenseElementsAttr::get(resultType, bools);
    return DenseElementsAttr::get(resultType, floats);
  }

  auto lhs = values[0].getValues<APInt>();
  auto rhs = values[1].getValues<APInt>();
  SmallVector<APInt> ints;
  forEachElement(resultType.getShape(), shapes, [&](ArrayRef<int64_t> idx) {
    if (failed)
      return;
    std::optional<APInt> value = evalInt(kind, mode, lhs[idx[0]], rhs[idx[1]]);
    if (!value) {
      failed = true;
      return;
    }
    ints.push_back(*value);
  });
  if (failed)
    return {};
  (void)resultElement;
  return DenseElementsAttr::get(resultType, ints);
}

#define BCAST_FOLDER(OpTy)                                                     \
  OpFoldResult OpTy::fold(FoldAdaptor adaptor) {                               \
    return foldElementwise(getOperation(), adaptor.getOperands());             \
  }
#define BCAST_FOLDER_PAIR(Name)                                                \
  BCAST_FOLDER(Name##Op)                                                       \
  BCAST_FOLDER(Name##InPlaceOp)

BCAST_FOLDER_PAIR(Add)
BCAST_FOLDER_PAIR(Sub)
BCAST_FOLDER_PAIR(Mul)
BCAST_FOLDER_PAIR(Div)
BCAST_FOLDER_PAIR(Remainder)
BCAST_FOLDER_PAIR(Pow)
BCAST_FOLDER_PAIR(Maximum)
BCAST_FOLDER_PAIR(Minimum)
BCAST_FOLDER_PAIR(And)
BCAST_FOLDER_PAIR(Or)
BCAST_FOLDER_PAIR(Xor)
BCAST_FOLDER(EqOp)
BCAST_FOLDER(NeOp)
BCAST_FOLDER(LtOp)
BCAST_FOLDER(LeOp)
BCAST_FOLDER(GtOp)
BCAST_FOLDER(GeOp)
BCAST_FOLDER(WhereOp)

OpFoldResult BroadcastToOp::fold(FoldAdaptor adaptor) {
  if (getX().getType() == getType())
    return getX();
  RankedTensorType type = getType();
  auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getX());
  if (!dense || !type.hasStaticShape())
    return {};
  if (dense.isSplat())
    return dense.resizeSplat(type);
  if (!isFoldableResult(type) || dense.getType().getShape() !=
                                     getX().getType().getShape())
    return {};
  ArrayRef<int64_t> shapes[] = {dense.getType().getShape()};
  auto source = dense.getValues<Attribute>();
  SmallVector<Attribute> elements;
  forEachElement(type.getShape(), shapes, [&](ArrayRef<int64_t> idx) {
    elements.push_back(source[idx[0]]);
  });
  return DenseElementsAttr::get(type, elements);
}
