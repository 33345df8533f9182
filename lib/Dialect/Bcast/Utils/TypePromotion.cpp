//===- TypePromotion.cpp - PyTorch's type promotion -----------------------===//
//
// c10's promote_types table, written as the rules it encodes, and
// result_type's combination of dimensioned and zero-dim operands
// (c10/core/ScalarType.h, aten/src/ATen/native/TypeProperties.cpp).
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/Utils/TypePromotion.h"

#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::bcast;
using llvm::ArrayRef;
using llvm::StringRef;

StringRef bcast::getTorchName(DType type) {
  switch (type) {
  case DType::Bool:
    return "Bool";
  case DType::Int8:
    return "Char";
  case DType::Int16:
    return "Short";
  case DType::Int32:
    return "Int";
  case DType::Int64:
    return "Long";
  case DType::UInt8:
    return "Byte";
  case DType::UInt16:
    return "UInt16";
  case DType::UInt32:
    return "UInt32";
  case DType::UInt64:
    return "UInt64";
  case DType::Float16:
    return "Half";
  case DType::BFloat16:
    return "BFloat16";
  case DType::Float32:
    return "Float";
  case DType::Float64:
    return "Double";
  }
  llvm_unreachable("unknown DType");
}

bool bcast::isFloating(DType type) {
  return type == DType::Float16 || type == DType::BFloat16 ||
         type == DType::Float32 || type == DType::Float64;
}

bool bcast::isUnsigned(DType type) {
  return type == DType::UInt8 || type == DType::UInt16 ||
         type == DType::UInt32 || type == DType::UInt64;
}

bool bcast::isIntegral(DType type) {
  return type != DType::Bool && !isFloating(type);
}

unsigned bcast::getBitWidth(DType type) {
  switch (type) {
  case DType::Bool:
    return 1;
  case DType::Int8:
  case DType::UInt8:
    return 8;
  case DType::Int16:
  case DType::UInt16:
  case DType::Float16:
  case DType::BFloat16:
    return 16;
  case DType::Int32:
  case DType::UInt32:
  case DType::Float32:
    return 32;
  case DType::Int64:
  case DType::UInt64:
  case DType::Float64:
    return 64;
  }
  llvm_unreachable("unknown DType");
}

/// UInt16, UInt32 and UInt64: PyTorch's "barebones" unsigned types.
static bool isBarebonesUnsigned(DType type) {
  return type == DType::UInt16 || type == DType::UInt32 ||
         type == DType::UInt64;
}

std::optional<DType> bcast::getIntegerDType(unsigned bits, bool isUnsigned) {
  switch (bits) {
  case 1:
    return isUnsigned ? std::nullopt : std::optional<DType>(DType::Bool);
  case 8:
    return isUnsigned ? DType::UInt8 : DType::Int8;
  case 16:
    return isUnsigned ? DType::UInt16 : DType::Int16;
  case 32:
    return isUnsigned ? DType::UInt32 : DType::Int32;
  case 64:
    return isUnsigned ? DType::UInt64 : DType::Int64;
  default:
    return std::nullopt;
  }
}

std::optional<DType> bcast::promoteTypes(DType a, DType b) {
  if (a == b)
    return a;
  if (a == DType::Bool)
    return b;
  if (b == DType::Bool)
    return a;
  bool aFloat = isFloating(a), bFloat = isFloating(b);
  if (aFloat && bFloat) {
    // Half and BFloat16 have no common 16-bit type.
    if (getBitWidth(a) == getBitWidth(b))
      return DType::Float32;
    return getBitWidth(a) > getBitWidth(b) ? a : b;
  }
  if (aFloat)
    return a;
  if (bFloat)
    return b;
  // Two different integer types.
  if (isBarebonesUnsigned(a) || isBarebonesUnsigned(b))
    return std::nullopt;
  if (a == DType::UInt8 || b == DType::UInt8) {
    // Byte with a signed type: the signed type with room for 0..255.
    DType other = a == DType::UInt8 ? b : a;
    return *getIntegerDType(std::max(16u, getBitWidth(other)),
                            /*isUnsigned=*/false);
  }
  return getBitWidth(a) > getBitWidth(b) ? a : b;
}

namespace {
/// A promotion that may not have started yet (c10's Undefined).
using MaybeType = std::optional<DType>;
} // namespace

/// c10's promote_skip_undefined, for types already known to promote.
static MaybeType promoteSkipUndefined(MaybeType a, MaybeType b) {
  if (!a)
    return b;
  if (!b)
    return a;
  return promoteTypes(*a, *b);
}

/// c10's combine_categories: `higher` wins unless it is Bool or `lower` is
/// of a higher category (floating over integral).
static MaybeType combineCategories(MaybeType higher, MaybeType lower) {
  if (higher && isFloating(*higher))
    return higher;
  if ((higher && *higher == DType::Bool) || (lower && isFloating(*lower)))
    return promoteSkipUndefined(higher, lower);
  if (higher)
    return higher;
  return lower;
}

PromotionResult bcast::resultType(ArrayRef<PromotionOperand> operands) {
  PromotionResult result;
  // Pairs PyTorch refuses are errors whatever the ranks.
  for (size_t i = 0, e = operands.size(); i < e; ++i) {
    for (size_t j = i + 1; j < e; ++j) {
      if (operands[i].kind == OperandKind::WrappedNumber ||
          operands[j].kind == OperandKind::WrappedNumber)
        continue;
      if (!promoteTypes(operands[i].type, operands[j].type)) {
        result.unsupportedLhs = operands[i].type;
        result.unsupportedRhs = operands[j].type;
        return result;
      }
    }
  }
  MaybeType dimResult, zeroResult, wrappedResult;
  for (const PromotionOperand &operand : operands) {
    MaybeType &group = operand.kind == OperandKind::Dimensioned ? dimResult
                       : operand.kind == OperandKind::ZeroDim   ? zeroResult
                                                                : wrappedResult;
    std::optional<DType> promoted = promoteSkipUndefined(group, operand.type);
    if (!promoted) {
      // A wrapped number with a barebones unsigned type: PyTorch refuses.
      result.unsupportedLhs = *group;
      result.unsupportedRhs = operand.type;
      return result;
    }
    group = promoted;
  }
  result.type = combineCategories(dimResult,
                                  combineCategories(zeroResult, wrappedResult));
  if (!result.type) {
    result.unsupportedLhs = dimResult.value_or(DType::Bool);
    result.unsupportedRhs = wrappedResult.value_or(DType::Bool);
  }
  return result;
}

bool bcast::canCast(DType from, DType to) {
  if (isFloating(from) && (isIntegral(to) || to == DType::Bool))
    return false;
  return !(from != DType::Bool && to == DType::Bool);
}
