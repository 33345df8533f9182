//===- BcastOps.cpp - bcast verifiers, shape inference, reification -------===//
//
// The op-side half of bcast's semantics: verifiers that apply the shape rules
// in the order the dialect promises (operand broadcastability, the in-place
// rule, the op's rules on its operand types, element types, the result type,
// then the op's rules on its compute type and attributes, with PyTorch's
// sentences), result type inference and reification of dynamic result
// sizes; and specify_shape's verifier, folder and canonicalization. All
// shape reasoning is delegated to the shape-rule module
// (Utils/BroadcastShape.h).
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/IR/BcastOps.h"
#include "bcast/Dialect/Bcast/Utils/BroadcastShape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

#include "llvm/ADT/APSInt.h"

#include <cmath>

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

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

std::optional<DType> bcast::getDType(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type)) {
    if (integer.isSigned())
      return std::nullopt;
    return getIntegerDType(integer.getWidth(), integer.isUnsigned());
  }
  if (type.isF16())
    return DType::Float16;
  if (type.isBF16())
    return DType::BFloat16;
  if (type.isF32())
    return DType::Float32;
  if (type.isF64())
    return DType::Float64;
  return std::nullopt;
}

Type bcast::getMLIRType(MLIRContext *context, DType type) {
  Builder b(context);
  switch (type) {
  case DType::Float16:
    return b.getF16Type();
  case DType::BFloat16:
    return b.getBF16Type();
  case DType::Float32:
    return b.getF32Type();
  case DType::Float64:
    return b.getF64Type();
  default:
    return IntegerType::get(context, getBitWidth(type),
                            isUnsigned(type) ? IntegerType::Unsigned
                                             : IntegerType::Signless);
  }
}

FailureOr<ElementTypes>
bcast::inferElementTypes(TypeRange operandTypes,
                         const ElementwiseTypeRule &rule, std::string *error) {
  auto fail = [&](Type lhs, Type rhs) -> FailureOr<ElementTypes> {
    if (error) {
      llvm::raw_string_ostream os(*error);
      os << "promotion of " << lhs << " and " << rhs << " is not supported";
    }
    return failure();
  };
  TypeRange values = operandTypes.drop_front(rule.hasCondition ? 1 : 0)
                         .drop_back(rule.lastOperandIsNumber ? 1 : 0);
  MLIRContext *context = values.front().getContext();
  SmallVector<Type> elementTypes;
  SmallVector<PromotionOperand> promotion;
  for (Type type : values) {
    auto tensor = cast<RankedTensorType>(type);
    elementTypes.push_back(tensor.getElementType());
    if (std::optional<DType> dtype = getDType(tensor.getElementType()))
      promotion.push_back({*dtype, tensor.getRank() == 0
                                       ? OperandKind::ZeroDim
                                       : OperandKind::Dimensioned});
  }
  Type promoted;
  if (promotion.size() == elementTypes.size()) {
    PromotionResult result = resultType(promotion);
    if (!result.type)
      return fail(getMLIRType(context, result.unsupportedLhs),
                  getMLIRType(context, result.unsupportedRhs));
    promoted = getMLIRType(context, *result.type);
  } else {
    // Integers of other widths (i4, i7, ...) have no PyTorch dtype: they
    // combine only with themselves.
    for (Type other : llvm::drop_begin(elementTypes))
      if (other != elementTypes.front())
        return fail(elementTypes.front(), other);
    promoted = elementTypes.front();
  }
  ElementTypes types;
  types.compute = promoted;
  Type natural = promoted;
  bool toFloat = rule.compute == ComputeTypeRule::IntegersToFloat ||
                 rule.compute == ComputeTypeRule::FloatFunction;
  if (toFloat && !isa<FloatType>(promoted))
    types.compute = natural = Float32Type::get(context);
  bool widenHalf = rule.compute == ComputeTypeRule::FloatFunction ||
                   rule.compute == ComputeTypeRule::OpMath;
  if (widenHalf && isa<FloatType>(promoted) &&
      promoted.getIntOrFloatBitWidth() == 16)
    types.compute = Float32Type::get(context);
  Type i1 = IntegerType::get(context, 1);
  types.element = rule.boolValued ? i1 : types.compute;
  types.value = rule.boolValued ? i1 : natural;
  types.result =
      rule.inPlace
          ? cast<RankedTensorType>(operandTypes.front()).getElementType()
          : types.value;
  return types;
}

ElementwiseTypeRule bcast::getElementwiseTypeRule(Operation *op) {
  return cast<ElementwiseOpInterface>(op).getElementTypeRule();
}

ElementTypes bcast::getElementTypes(Operation *op) {
  FailureOr<ElementTypes> types =
      inferElementTypes(op->getOperandTypes(), getElementwiseTypeRule(op));
  assert(succeeded(types) && "the verifier checked the promotion");
  return *types;
}

RankedTensorType bcast::inferBroadcastType(TypeRange operandTypes,
                                           const ElementwiseTypeRule &rule) {
  if (operandTypes.size() <= (rule.hasCondition ? 1u : 0u) ||
      !llvm::all_of(operandTypes, llvm::IsaPred<RankedTensorType>))
    return {};
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(getShapes(operandTypes));
  if (!shape)
    return {};
  if (rule.inPlace)
    return cast<RankedTensorType>(operandTypes.front());
  FailureOr<ElementTypes> types = inferElementTypes(operandTypes, rule);
  if (failed(types))
    return {};
  return RankedTensorType::get(*shape, types->result);
}

/// inferReturnTypes for every element-wise op, under the op's rule.
static LogicalResult inferElementwiseType(StringRef opName,
                                          const ElementwiseTypeRule &rule,
                                          std::optional<Location> location,
                                          ValueRange operands,
                                          SmallVectorImpl<Type> &results) {
  RankedTensorType type = inferBroadcastType(operands.getTypes(), rule);
  if (!type)
    return emitOptionalError(location, "'", opName,
                             "' op operands do not broadcast or promote");
  results.push_back(type);
  return success();
}

bool bcast::detail::areCompatibleResultTypes(TypeRange lhs, TypeRange rhs) {
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

/// The checks every element-wise op shares, in the documented order;
/// `verifyOperandTypes` runs the op's own checks of its operand element
/// types first, as PyTorch makes them before it broadcasts.
static LogicalResult
verifyElementwise(Operation *op,
                  function_ref<LogicalResult()> verifyOperandTypes) {
  SmallVector<ArrayRef<int64_t>> shapes = getShapes(op->getOperandTypes());

  // 0. The op's own rules on its operand types (sub_check, lerp's one
  // dtype, addcdiv's integer operands, div's rounding mode).
  if (failed(verifyOperandTypes()))
    return failure();

  // 1. The operands broadcast.
  SizeMismatch mismatch;
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(shapes, &mismatch);
  if (!shape)
    return op->emitOpError() << mismatch.message();

  // 2. PyTorch's in-place rule.
  bool inPlace = isInPlace(op);
  if (inPlace)
    if (std::optional<std::string> error = checkInPlaceOperands(shapes))
      return op->emitOpError() << *error;

  // 3. The promotion of the operand element types (PyTorch's result_type).
  std::string error;
  FailureOr<ElementTypes> types = inferElementTypes(
      op->getOperandTypes(), getElementwiseTypeRule(op), &error);
  if (failed(types))
    return op->emitOpError() << error;

  // 4. The result type.
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (inPlace) {
    if (resultType != op->getOperand(0).getType())
      return op->emitOpError()
             << "result type " << resultType
             << " must equal the type of the in-place operand "
             << op->getOperand(0).getType();
    // PyTorch's canCast from the computed type to the in-place tensor's.
    std::optional<DType> from = getDType(types->value);
    std::optional<DType> to = getDType(types->result);
    if (from && to && !canCast(*from, *to))
      return op->emitOpError() << "result type " << getTorchName(*from)
                               << " can't be cast to the desired output type "
                               << getTorchName(*to);
  } else {
    if (resultType.getElementType() != types->result)
      return op->emitOpError()
             << "result element type " << resultType.getElementType()
             << " does not match the promoted element type " << types->result;
    if (!isCompatibleShape(*shape, resultType.getShape()))
      return op->emitOpError()
             << "result shape " << formatShape(resultType.getShape())
             << " is not compatible with the broadcast shape "
             << formatShape(*shape);
  }
  return success();
}

/// Ops that PyTorch does not define on bools reject a computation in i1
/// with `message` (the op's own sentence, given in BcastOps.td).
static LogicalResult verifyNotBool(Operation *op, StringRef message) {
  if (getElementTypes(op).compute.isInteger(1))
    return op->emitOpError() << message;
  return success();
}

/// PyTorch's sentence for a kernel it lacks for `type`: `"silu_cpu" not
/// implemented for 'Int'`.
static LogicalResult emitNotImplemented(Operation *op, StringRef kernel,
                                        Type type) {
  std::optional<DType> dtype = getDType(type);
  InFlightDiagnostic diag = op->emitOpError() << "\"" << kernel
                                              << "\" not "
                                                 "implemented for '";
  if (dtype)
    diag << getTorchName(*dtype);
  else
    diag << type;
  return diag << "'";
}

/// Ops that PyTorch defines on floats only (silu, gelu) reject integral and
/// bool operands with PyTorch's sentence for the missing kernel.
static LogicalResult verifyFloatOperands(Operation *op, StringRef kernel) {
  Type type = getElementTypeOrSelf(op->getOperand(0).getType());
  if (!isa<FloatType>(type))
    return emitNotImplemented(op, kernel, type);
  return success();
}

/// Ops that PyTorch defines on integers only (bitwise_not) reject floats.
static LogicalResult verifyIntegralOperands(Operation *op, StringRef kernel) {
  Type type = getElementTypeOrSelf(op->getOperand(0).getType());
  if (isa<FloatType>(type))
    return emitNotImplemented(op, kernel, type);
  return success();
}

/// Ops that PyTorch defines on floats only (hypot) reject an integral or
/// bool compute type with PyTorch's sentence naming it.
static LogicalResult verifyFloatCompute(Operation *op, StringRef kernel) {
  Type compute = getElementTypes(op).compute;
  if (!isa<FloatType>(compute))
    return emitNotImplemented(op, kernel, compute);
  return success();
}

/// The bitwise ops, defined by PyTorch on integers and bools, reject a float
/// compute type with PyTorch's sentence naming it. The check follows the
/// shapes' and the in-place cast's, as PyTorch's kernel dispatch follows
/// TensorIterator's.
static LogicalResult verifyBitwiseCompute(Operation *op, StringRef kernel) {
  Type compute = getElementTypes(op).compute;
  if (isa<FloatType>(compute))
    return emitNotImplemented(op, kernel, compute);
  return success();
}

/// Ops that PyTorch defines on integers only (the shifts) reject a float or
/// bool compute type with PyTorch's sentence naming it.
static LogicalResult verifyIntegralCompute(Operation *op, StringRef kernel) {
  Type compute = getElementTypes(op).compute;
  if (isa<FloatType>(compute) || compute.isInteger(1))
    return emitNotImplemented(op, kernel, compute);
  return success();
}

/// `type` as MLIR prints it: the name of a type PyTorch does not have.
static std::string printType(Type type) {
  std::string name;
  llvm::raw_string_ostream os(name);
  os << type;
  return name;
}

/// The C++ name of `type` as PyTorch's dtype checks print it (caffe2's
/// TypeMeta): `float`, `double`, `c10::Half`, `long int`, ...
static std::string getTypeMetaName(Type type) {
  std::optional<DType> dtype = getDType(type);
  if (!dtype)
    return printType(type);
  switch (*dtype) {
  case DType::Bool:
    return "bool";
  case DType::Int8:
    return "signed char";
  case DType::Int16:
    return "short int";
  case DType::Int32:
    return "int";
  case DType::Int64:
    return "long int";
  case DType::UInt8:
    return "unsigned char";
  case DType::UInt16:
    return "unsigned short";
  case DType::UInt32:
    return "unsigned int";
  case DType::UInt64:
    return "unsigned long";
  case DType::Float16:
    return "c10::Half";
  case DType::BFloat16:
    return "c10::BFloat16";
  case DType::Float32:
    return "float";
  case DType::Float64:
    return "double";
  }
  llvm_unreachable("unknown dtype");
}

/// PyTorch's lerp: `end` and `weight` have the type of `input` (its
/// sentences, before the promotion), which is a float. A `scalar_weight` is
/// a Python number's carrier instead (lerp.Scalar, whose kernel has its own
/// name).
static LogicalResult verifyLerp(Operation *op) {
  Type input = getElementTypeOrSelf(op->getOperand(0).getType());
  bool scalarWeight = op->hasAttr("scalar_weight");
  if (scalarWeight) {
    auto weight = cast<RankedTensorType>(op->getOperand(2).getType());
    Type element = weight.getElementType();
    if (weight.getRank() != 0 ||
        !(element.isF64() || element.isSignlessInteger(64) ||
          element.isSignlessInteger(1)))
      return op->emitOpError()
             << "`scalar_weight` takes a Python number: `weight` must be "
                "tensor<f64>, tensor<i64> or tensor<i1>, not "
             << weight;
  }
  StringRef names[] = {"end", "weight"};
  for (auto [index, name] : llvm::enumerate(names)) {
    if (scalarWeight && index == 1)
      break;
    Type other = getElementTypeOrSelf(op->getOperand(index + 1).getType());
    if (other != input)
      return op->emitOpError()
             << "expected dtype " << getTypeMetaName(input) << " for `" << name
             << "` but got dtype " << getTypeMetaName(other);
  }
  return success();
}

/// lerp's kernels are defined on floats; PyTorch dispatches to them after it
/// broadcasts.
static LogicalResult verifyLerpKernel(Operation *op) {
  return verifyFloatOperands(op, op->hasAttr("scalar_weight")
                                     ? "lerp_kernel_scalar"
                                     : "lerp_kernel_tensor");
}

/// The C++ type that PyTorch converts a Scalar `value` to, as its overflow
/// message names it (c10's `checked_convert`).
static std::string getScalarTypeName(Type type) {
  std::optional<DType> dtype = getDType(type);
  if (!dtype)
    return printType(type);
  switch (*dtype) {
  case DType::Int32:
    return "int";
  case DType::Float16:
    return "c10::Half";
  case DType::BFloat16:
    return "c10::BFloat16";
  case DType::Float32:
    return "float";
  case DType::Float64:
    return "double";
  case DType::Bool:
    return "bool";
  default:
    // int8_t, int16_t, int64_t, uint8_t .. uint64_t.
    return (Twine(isUnsigned(*dtype) ? "uint" : "int") +
            Twine(getBitWidth(*dtype)) + "_t")
        .str();
  }
}

/// addcmul's and addcdiv's `value` must lie within the range of the compute
/// type, as c10's `checked_convert` requires: for integers between the least
/// and the greatest value (127.5 overflows i8, though it would truncate to
/// 127; compared exactly, so 2^63 overflows i64), for floats finite values
/// up to the largest (infinities and NaN pass).
static LogicalResult verifyScaleValue(Operation *op) {
  auto value = op->getAttrOfType<FloatAttr>("value");
  if (!value)
    return success();
  Type compute = getElementTypes(op).compute;
  // IEEE quad holds every double and every 64-bit integer exactly.
  const llvm::fltSemantics &quad = llvm::APFloat::IEEEquad();
  auto exact = [&](llvm::APFloat x) {
    bool losesInfo;
    x.convert(quad, llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    return x;
  };
  llvm::APFloat scale = exact(value.getValue());
  bool overflows;
  if (auto floatType = dyn_cast<FloatType>(compute)) {
    llvm::APFloat max =
        exact(llvm::APFloat::getLargest(floatType.getFloatSemantics()));
    overflows = scale.isFinite() &&
                abs(scale).compare(max) == llvm::APFloat::cmpGreaterThan;
  } else {
    unsigned width = compute.getIntOrFloatBitWidth();
    bool isUnsigned = cast<IntegerType>(compute).isUnsigned();
    llvm::APFloat min(quad), max(quad);
    min.convertFromAPInt(isUnsigned ? llvm::APInt::getMinValue(width)
                                    : llvm::APInt::getSignedMinValue(width),
                         !isUnsigned, llvm::APFloat::rmNearestTiesToEven);
    max.convertFromAPInt(isUnsigned ? llvm::APInt::getMaxValue(width)
                                    : llvm::APInt::getSignedMaxValue(width),
                         !isUnsigned, llvm::APFloat::rmNearestTiesToEven);
    overflows = scale.isNaN() ||
                scale.compare(min) == llvm::APFloat::cmpLessThan ||
                scale.compare(max) == llvm::APFloat::cmpGreaterThan;
  }
  if (overflows)
    return op->emitOpError()
           << "value cannot be converted to type " << getScalarTypeName(compute)
           << " without overflow";
  return success();
}

/// PyTorch's addcmul: not on bools; `value` fits the compute type.
static LogicalResult verifyAddcmul(Operation *op) {
  if (failed(
          verifyNotBool(op, "\"addcmul_cpu_out\" not implemented for 'Bool'")))
    return failure();
  return verifyScaleValue(op);
}

/// PyTorch's addcdiv: not with integral (or bool) `tensor1` and `tensor2`
/// (its sentence, before the promotion).
static LogicalResult verifyAddcdivOperands(Operation *op) {
  auto isIntegral = [](Value operand) {
    return !isa<FloatType>(getElementTypeOrSelf(operand.getType()));
  };
  if (isIntegral(op->getOperand(1)) && isIntegral(op->getOperand(2)))
    return op->emitOpError()
           << "Integer division with addcdiv is no longer supported, and in a "
              "future  release addcdiv will perform a true division of "
              "tensor1 and tensor2. The historic addcdiv behavior can be "
              "implemented as (input + value * torch.trunc(tensor1 / "
              "tensor2)).to(input.dtype) for integer inputs and as (input + "
              "value * tensor1 / tensor2) for float inputs. The future "
              "addcdiv behavior is just the latter implementation: (input + "
              "value * tensor1 / tensor2), for all dtypes.";
  return success();
}

/// `approximate` is "none" or "tanh" (PyTorch's sentence), and the operand
/// a float.
static LogicalResult verifyGelu(Operation *op,
                                std::optional<StringRef> approximate) {
  if (approximate && *approximate != "none" && *approximate != "tanh")
    return op->emitOpError()
           << "approximate argument must be either none or tanh.";
  return verifyFloatOperands(op, "GeluKernelImpl");
}

/// PyTorch's `sub_check`: no bool operand, with its two sentences.
static LogicalResult verifySubtraction(Operation *op) {
  auto isBool = [](Value operand) {
    return getElementTypeOrSelf(operand.getType()).isInteger(1);
  };
  bool lhs = isBool(op->getOperand(0)), rhs = isBool(op->getOperand(1));
  if (lhs && rhs)
    return op->emitOpError()
           << "Subtraction, the `-` operator, with two bool tensors is not "
              "supported. Use the `^` or `logical_xor()` operator instead.";
  if (lhs || rhs)
    return op->emitOpError()
           << "Subtraction, the `-` operator, with a bool tensor is not "
              "supported. If you are trying to invert a mask, use the `~` or "
              "`logical_not()` operator instead.";
  return success();
}

/// PyTorch's C++ name of a compute type, as its overflow sentence prints it.
static StringRef getCppTypeName(Type type) {
  if (type.isInteger(1))
    return "bool";
  if (auto integer = dyn_cast<IntegerType>(type)) {
    bool isUnsigned = integer.isUnsigned();
    switch (integer.getWidth()) {
    case 8:
      return isUnsigned ? "uint8_t" : "int8_t";
    case 16:
      return isUnsigned ? "uint16_t" : "int16_t";
    case 32:
      return isUnsigned ? "uint32_t" : "int";
    default:
      return isUnsigned ? "uint64_t" : "int64_t";
    }
  }
  if (type.isF16())
    return "at::Half";
  if (type.isBF16())
    return "at::BFloat16";
  return type.isF32() ? "float" : "double";
}

/// PyTorch's `alpha_check` on the common dtype, then its conversion of alpha
/// to it (c10's `checked_convert`): a bool alpha only for bools, no float
/// alpha for integers and bools, and the value within the type's range (an
/// unsigned type also takes down to minus its maximum, which wraps; a float
/// type, anything finite up to its largest value).
static LogicalResult verifyAlpha(Operation *op) {
  Attribute alpha = op->getAttr("alpha");
  if (!alpha)
    return success();
  Type compute = getElementTypes(op).compute;
  if (isa<BoolAttr>(alpha)) {
    if (!compute.isInteger(1))
      return op->emitOpError()
             << "Boolean alpha only supported for Boolean results.";
    return success();
  }
  auto floatType = dyn_cast<FloatType>(compute);
  auto floatAlpha = dyn_cast<FloatAttr>(alpha);
  if (floatAlpha && !floatType)
    return op->emitOpError() << "For integral input tensors, argument alpha "
                                "must not be a floating point number.";
  bool overflows = false;
  if (floatType) {
    double value =
        floatAlpha ? floatAlpha.getValueAsDouble()
                   : static_cast<double>(
                         cast<IntegerAttr>(alpha).getValue().getSExtValue());
    APFloat largest = APFloat::getLargest(floatType.getFloatSemantics());
    bool losesInfo;
    largest.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                    &losesInfo);
    overflows =
        std::isfinite(value) && std::fabs(value) > largest.convertToDouble();
  } else if (!compute.isInteger(1)) {
    auto integer = cast<IntegerType>(compute);
    int64_t value = cast<IntegerAttr>(alpha).getValue().getSExtValue();
    unsigned width = integer.getWidth();
    APInt wide(64, static_cast<uint64_t>(value), /*isSigned=*/true);
    if (integer.isUnsigned()) {
      APInt max = APInt::getMaxValue(width).zextOrTrunc(64);
      overflows = value >= 0 ? wide.ugt(max) : (-wide).ugt(max);
    } else if (width < 64) {
      overflows = wide.sgt(APInt::getSignedMaxValue(width).sext(64)) ||
                  wide.slt(APInt::getSignedMinValue(width).sext(64));
    }
  }
  if (overflows)
    return op->emitOpError() << "value cannot be converted to type "
                             << getCppTypeName(compute) << " without overflow";
  return success();
}

/// `rounding_mode` is "trunc" or "floor" when present; PyTorch checks it
/// before it broadcasts.
static LogicalResult verifyRoundingModeName(Operation *op,
                                            std::optional<StringRef> mode) {
  if (mode && *mode != "trunc" && *mode != "floor")
    return op->emitOpError()
           << "div expected rounding_mode to be one of None, 'trunc', or "
              "'floor' but found '"
           << *mode << "'";
  return success();
}

/// PyTorch 1.13 has no rounding division of bools: its kernels say so after
/// the shape and type checks.
static LogicalResult verifyRoundingMode(Operation *op,
                                        std::optional<StringRef> mode) {
  if (mode)
    return verifyNotBool(
        op, *mode == "floor" ? "\"div_floor_cpu\" not implemented for 'Bool'"
                             : "\"div_trunc_cpu\" not implemented for 'Bool'");
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

/// An element-wise op may be speculated unless it can fail at run time: a
/// dynamic size is checked there (the lowering's run-time checks), and
/// integer division and remainder raise ZeroDivisionError on a zero divisor
/// (`mayTrap`).
static Speculation::Speculatability
getElementwiseSpeculatability(Operation *op, bool mayTrap) {
  auto hasDynamicSizes = [](Type type) {
    return !cast<RankedTensorType>(type).hasStaticShape();
  };
  if (llvm::any_of(op->getOperandTypes(), hasDynamicSizes) ||
      llvm::any_of(op->getResultTypes(), hasDynamicSizes))
    return Speculation::NotSpeculatable;
  if (mayTrap && isa<IntegerType>(getElementTypes(op).compute))
    return Speculation::NotSpeculatable;
  return Speculation::Speculatable;
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  if (getX().getType().getShape() != getType().getShape())
    return emitOpError() << "result shape " << formatShape(getType().getShape())
                         << " must equal the operand's shape "
                         << formatShape(getX().getType().getShape())
                         << " (cast does not broadcast)";
  return success();
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

Speculation::Speculatability BroadcastToOp::getSpeculatability() {
  // The lowering checks a dynamic source size against the target.
  return getX().getType().hasStaticShape() ? Speculation::Speculatable
                                           : Speculation::NotSpeculatable;
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
// PermuteOp
//===----------------------------------------------------------------------===//

/// The permuted type of `x` under `dims`, or PyTorch's sentence.
static FailureOr<RankedTensorType>
inferPermutedType(std::optional<Location> location, Type x,
                  ArrayRef<int64_t> dims) {
  auto type = dyn_cast<RankedTensorType>(x);
  if (!type)
    return emitOptionalError(location, "'bcast.permute' op operand must be a "
                                       "ranked tensor");
  SmallVector<int64_t> permutation;
  if (std::optional<std::string> error =
          normalizePermutation(type.getRank(), dims, permutation))
    return emitOptionalError(location, "'bcast.permute' op ", *error);
  SmallVector<int64_t> shape;
  for (int64_t dim : permutation)
    shape.push_back(type.getDimSize(dim));
  return RankedTensorType::get(shape, type.getElementType());
}

LogicalResult
PermuteOp::inferReturnTypes(MLIRContext *, std::optional<Location> location,
                            ValueRange operands, DictionaryAttr attributes,
                            OpaqueProperties properties, RegionRange regions,
                            SmallVectorImpl<Type> &inferred) {
  Adaptor adaptor(operands, attributes, properties, regions);
  // Asked before the op is verified (the fuzzer's generator), the attribute
  // may be missing: a diagnostic, never a crash.
  if (!adaptor.getDimsAttr())
    return emitOptionalError(location,
                             "'bcast.permute' op requires attribute 'dims'");
  FailureOr<RankedTensorType> type =
      inferPermutedType(location, adaptor.getX().getType(), adaptor.getDims());
  if (failed(type))
    return failure();
  inferred.push_back(*type);
  return success();
}

LogicalResult PermuteOp::verify() {
  // Runs before InferTypeOpInterface's check, which would add "failed to
  // infer returned types" to PyTorch's sentence or to a wrong result type.
  FailureOr<RankedTensorType> permuted =
      inferPermutedType(getLoc(), getX().getType(), getDims());
  if (failed(permuted))
    return failure();
  if (getType() != *permuted)
    return emitOpError() << "result type " << getType()
                         << " must be the permuted type " << *permuted;
  return success();
}

SmallVector<int64_t> PermuteOp::getPermutation() {
  SmallVector<int64_t> permutation;
  (void)normalizePermutation(getX().getType().getRank(), getDims(),
                             permutation);
  return permutation;
}

LogicalResult
PermuteOp::reifyResultShapes(OpBuilder &builder,
                             ReifiedRankedShapedTypeDims &result) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t dim : getPermutation())
    sizes.push_back(tensor::getMixedSize(builder, getLoc(), getX(), dim));
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
