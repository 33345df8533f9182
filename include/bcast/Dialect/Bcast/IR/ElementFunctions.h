//===- ElementFunctions.h - Scalar semantics of bcast ops -------*- C++ -*-===//
//
// What the element functions of the element-wise ops (ElementFunctions.cpp,
// and the comparisons that ODS generates) share: the constant element they
// fold on, and the helpers the generated comparisons call. The lowering and
// folding reach an op's element function through ElementwiseOpInterface.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_DIALECT_BCAST_IR_ELEMENTFUNCTIONS_H
#define BCAST_DIALECT_BCAST_IR_ELEMENTFUNCTIONS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"

#include <optional>
#include <variant>

namespace mlir {
namespace bcast {

/// One element of a constant: an integer (i1 included) or a float.
using Scalar = std::variant<llvm::APInt, llvm::APFloat>;

/// Builds scalar arith code at one insertion point (element functions, and
/// the index arithmetic of the lowering's run-time checks).
struct ScalarBuilder {
  OpBuilder &b;
  Location loc;

  Value intConst(Type type, int64_t value) {
    return arith::ConstantOp::create(b, loc, type,
                                     b.getIntegerAttr(type, value));
  }
  Value floatConst(Type type, double value) {
    return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
  }
  Value cmpi(arith::CmpIPredicate pred, Value lhs, Value rhs) {
    return arith::CmpIOp::create(b, loc, pred, lhs, rhs);
  }
  Value cmpf(arith::CmpFPredicate pred, Value lhs, Value rhs) {
    return arith::CmpFOp::create(b, loc, pred, lhs, rhs);
  }
  Value select(Value cond, Value lhs, Value rhs) {
    return arith::SelectOp::create(b, loc, cond, lhs, rhs);
  }
  Value andi(Value lhs, Value rhs) {
    return arith::AndIOp::create(b, loc, lhs, rhs);
  }
  Value xori(Value lhs, Value rhs) {
    return arith::XOrIOp::create(b, loc, lhs, rhs);
  }
};

/// Builds the comparison `op` (an element-wise op with a bool result) as
/// `lhs <pred> rhs` on two scalars of its compute type: `floatPredicate` for
/// floats, `signedPredicate` for signed integers, `unsignedPredicate` for i1
/// and unsigned integers (which `args`, signless as arith requires, do not
/// show: the op's compute type says).
Value buildComparison(Operation *op, OpBuilder &builder, Location loc,
                      ValueRange args, arith::CmpFPredicate floatPredicate,
                      arith::CmpIPredicate signedPredicate,
                      arith::CmpIPredicate unsignedPredicate);

/// The same comparison on constants, as an i1 APInt.
std::optional<Scalar> foldComparison(Operation *op, ArrayRef<Scalar> args,
                                     arith::CmpFPredicate floatPredicate,
                                     arith::CmpIPredicate signedPredicate,
                                     arith::CmpIPredicate unsignedPredicate);

/// Converts the scalar `value` of element type `from` to element type `to`
/// with PyTorch's conversion semantics (`.to(dtype)`): floating to integer
/// truncates toward zero, integer to floating rounds to nearest, to i1 is
/// `!= 0` (NaN gives true), i1 to a number is 0 or 1, integer to integer
/// wraps, floating to floating rounds to nearest even. `from` and `to` may
/// be unsigned; `value` itself is signless, as arith requires.
Value buildConversion(OpBuilder &builder, Location loc, Value value, Type from,
                      Type to);

/// The same conversion on a constant; std::nullopt where the run-time result
/// is undefined (a NaN or out-of-range floating value converted to an
/// integer).
std::optional<Scalar> foldConversion(const Scalar &value, Type from, Type to);

/// A float function on a constant in the compute precision, f32 or f64, as
/// the C library computes it (`fn` takes and returns float or double);
/// std::nullopt for other precisions.
template <typename Fn>
std::optional<Scalar> foldFloatFunction(ArrayRef<Scalar> args, Fn fn) {
  const auto *x = std::get_if<llvm::APFloat>(&args[0]);
  if (!x)
    return std::nullopt;
  if (&x->getSemantics() == &llvm::APFloat::IEEEsingle())
    return llvm::APFloat(fn(x->convertToFloat()));
  if (&x->getSemantics() == &llvm::APFloat::IEEEdouble())
    return llvm::APFloat(fn(x->convertToDouble()));
  return std::nullopt;
}

/// How `bcast.div` rounds, from its `rounding_mode` attribute.
enum class RoundingMode { None, Trunc, Floor };

/// The rounding mode of a `bcast.div` or `bcast.div_`; None for other ops.
RoundingMode getRoundingMode(Operation *op);

} // namespace bcast
} // namespace mlir

#endif // BCAST_DIALECT_BCAST_IR_ELEMENTFUNCTIONS_H
