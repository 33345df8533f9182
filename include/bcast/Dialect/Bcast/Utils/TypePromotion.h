//===- TypePromotion.h - PyTorch's type promotion, in one place -*- C++ -*-===//
//
// PyTorch's element types and its promotion rules (`torch.promote_types`,
// `torch.result_type` over tensors, `canCast` for in-place results), and the
// names its messages use. The verifiers, shape inference, the lowering and
// folding call this module; nothing else re-derives the rules. Like the
// shape-rule module it depends on LLVM's ADT only (no MLIRContext), so the
// Python package can use it too; BcastOps.h maps MLIR types to it.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_DIALECT_BCAST_UTILS_TYPEPROMOTION_H
#define BCAST_DIALECT_BCAST_UTILS_TYPEPROMOTION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir {
namespace bcast {

/// The element types bcast supports, as PyTorch's dtypes.
enum class DType {
  Bool,     ///< i1
  Int8,     ///< i8 (PyTorch's Char)
  Int16,    ///< i16 (Short)
  Int32,    ///< i32 (Int)
  Int64,    ///< i64 (Long)
  UInt8,    ///< ui8 (Byte)
  UInt16,   ///< ui16
  UInt32,   ///< ui32
  UInt64,   ///< ui64
  Float16,  ///< f16 (Half)
  BFloat16, ///< bf16
  Float32,  ///< f32 (Float)
  Float64,  ///< f64 (Double)
};

/// PyTorch's name of `type`, as its messages print it: Bool, Char, Short,
/// Int, Long, Byte, UInt16, UInt32, UInt64, Half, BFloat16, Float, Double.
llvm::StringRef getTorchName(DType type);

bool isFloating(DType type);
/// Integer types, i1 excluded.
bool isIntegral(DType type);
bool isUnsigned(DType type);
/// Bits per element (1 for Bool).
unsigned getBitWidth(DType type);

/// The integer type of `bits` bits (Bool for 1 bit, signed), or
/// std::nullopt for widths PyTorch has no dtype of.
std::optional<DType> getIntegerDType(unsigned bits, bool isUnsigned);

/// `torch.promote_types(a, b)`; std::nullopt for the pairs PyTorch refuses:
/// UInt16, UInt32 and UInt64 promote only with themselves, Bool and the
/// floating types.
std::optional<DType> promoteTypes(DType a, DType b);

/// How an operand takes part in a promotion (c10's ResultTypeState groups).
enum class OperandKind {
  /// A tensor of rank 1 or more.
  Dimensioned,
  /// A rank-0 tensor.
  ZeroDim,
  /// A Python number (PyTorch's "wrapped number"): Bool for a bool, Int64
  /// for an int, Float32 (the default dtype) for a float.
  WrappedNumber,
};

/// One operand of a promotion: its element type and its kind.
struct PromotionOperand {
  DType type;
  OperandKind kind;
};

/// The result of `resultType`: the promoted type, or the first pair of
/// operand types that cannot be promoted (in operand order).
struct PromotionResult {
  std::optional<DType> type;
  DType unsupportedLhs = DType::Bool;
  DType unsupportedRhs = DType::Bool;
};

/// `torch.result_type`: dimensioned operands outrank zero-dim ones, which
/// outrank wrapped numbers, unless a lower group is of a higher category
/// (bool < integer < floating; c10's combine_categories). Any pair of
/// tensor operands that `promoteTypes` refuses, in any rank combination, is
/// reported.
PromotionResult resultType(llvm::ArrayRef<PromotionOperand> operands);

/// PyTorch's `canCast(from, to)`: whether a result computed as `from` may be
/// stored into an in-place operand of type `to` (not floating to integral or
/// bool, not non-bool to bool).
bool canCast(DType from, DType to);

} // namespace bcast
} // namespace mlir

#endif // BCAST_DIALECT_BCAST_UTILS_TYPEPROMOTION_H
