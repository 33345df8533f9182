//===- ElementFunctions.cpp - What each element-wise op computes ----------===//
//
// The element-function table: for every element-wise op, the scalar code the
// lowering puts in the body of its linalg.generic (`buildScalar`) and the
// same semantics on constants (`foldScalar`), side by side so that the two
// cannot drift apart. PyTorch's CPU kernels are the reference
// (docs/Semantics.md); i1 holds PyTorch's bools (0 and 1, unsigned, with
// saturating add and multiply). An op whose compute type is unsigned
// (ui8..ui64) gets unsigned semantics (divui, remui, maxui, minui, unsigned
// predicates) on the signless values arith works on; add, sub and mul wrap
// alike for both. In-place twins apply their out-of-place op's functions,
// and the comparisons are generated from their predicates in BcastOps.td
// (buildComparison and foldComparison below).
//
// Folding declines (std::nullopt) wherever the run-time result is undefined
// or traps (integer division or remainder by zero, signed INT_MIN / -1,
// INT_MIN % -1), and where it depends on rounding steps the compiler cannot
// reproduce exactly (floor division, remainder and pow on f16 and bf16).
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/IR/ElementFunctions.h"
#include "bcast/Dialect/Bcast/IR/BcastOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/APSInt.h"

#include <cmath>

using namespace mlir;
using namespace mlir::bcast;
using llvm::APFloat;
using llvm::APInt;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

RoundingMode bcast::getRoundingMode(Operation *op) {
  auto mode = op->getAttrOfType<StringAttr>("rounding_mode");
  if (!mode || !isa<DivOp, DivInPlaceOp>(op))
    return RoundingMode::None;
  if (mode.getValue() == "trunc")
    return RoundingMode::Trunc;
  if (mode.getValue() == "floor")
    return RoundingMode::Floor;
  return RoundingMode::None;
}

static bool isFloat(ValueRange args) {
  return isa<FloatType>(args[0].getType());
}
static bool isBool(ValueRange args) { return args[0].getType().isInteger(1); }

static const APFloat *getFloat(const Scalar &value) {
  return std::get_if<APFloat>(&value);
}
static const APInt &getInt(const Scalar &value) {
  return std::get<APInt>(value);
}
static Scalar boolean(bool value) { return APInt(1, value ? 1 : 0); }

static bool isUnsignedInt(Type type) {
  return isa<IntegerType>(type) && cast<IntegerType>(type).isUnsigned();
}

/// Whether the element-wise op `op` computes in an unsigned integer type
/// (ui8..ui64). Its element function then has unsigned semantics; the
/// scalars it builds on and folds are signless, as arith requires, so the
/// signedness comes from the op.
static bool isUnsignedCompute(Operation *op) {
  return isUnsignedInt(getElementTypes(op).compute);
}

/// Whether `op` compares, divides and orders its integers as unsigned: it
/// computes in an unsigned type, or in i1 (PyTorch's bools are 0 and 1).
static bool hasUnsignedOrder(Operation *op, bool isBoolean) {
  return isBoolean || isUnsignedCompute(op);
}

/// Whether the run-time result of an integer division or remainder is
/// undefined: a zero divisor, or, when signed, INT_MIN / -1.
static bool isDivisionUndefined(const APInt &lhs, const APInt &rhs,
                                bool isUnsigned) {
  return rhs.isZero() ||
         (!isUnsigned && lhs.isMinSignedValue() && rhs.isAllOnes());
}

/// Evaluates `fn` natively in the element's own precision where that is f32
/// or f64 (as the compiled code computes); std::nullopt for other types.
template <typename Fn>
static std::optional<Scalar> foldNative(const APFloat &lhs, const APFloat &rhs,
                                        Fn fn) {
  const llvm::fltSemantics &semantics = lhs.getSemantics();
  if (&semantics == &APFloat::IEEEsingle())
    return APFloat(fn(lhs.convertToFloat(), rhs.convertToFloat()));
  if (&semantics == &APFloat::IEEEdouble())
    return APFloat(fn(lhs.convertToDouble(), rhs.convertToDouble()));
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Conversions (promotion to the compute type, results, bcast.cast)
//===----------------------------------------------------------------------===//

Value bcast::buildConversion(OpBuilder &b, Location loc, Value value, Type from,
                             Type to) {
  if (from == to)
    return value;
  ScalarBuilder s{b, loc};
  Type target = to;
  if (auto integer = dyn_cast<IntegerType>(to))
    target = IntegerType::get(b.getContext(), integer.getWidth());
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  if (to.isInteger(1) && !isUnsignedInt(to)) {
    if (fromFloat)
      return s.cmpf(arith::CmpFPredicate::UNE, value,
                    s.floatConst(value.getType(), 0.0));
    return s.cmpi(arith::CmpIPredicate::ne, value,
                  s.intConst(value.getType(), 0));
  }
  bool fromUnsigned = isUnsignedInt(from) || from.isInteger(1);
  // To f16 or bf16 from anything but f32: through f32, as PyTorch's Half
  // and BFloat16 are built from a float (and as a JIT without compiler-rt's
  // __truncdfhf2 and __floatdihf can run).
  if (toFloat && to.getIntOrFloatBitWidth() == 16 && !from.isF32()) {
    value = buildConversion(b, loc, value, from, b.getF32Type());
    from = b.getF32Type();
    fromFloat = true;
  }
  if (fromFloat && toFloat) {
    unsigned toWidth = to.getIntOrFloatBitWidth();
    if (cast<FloatType>(value.getType()).getWidth() < toWidth)
      return arith::ExtFOp::create(b, loc, target, value);
    return arith::TruncFOp::create(b, loc, target, value);
  }
  if (fromFloat) {
    if (isUnsignedInt(to))
      return arith::FPToUIOp::create(b, loc, target, value);
    return arith::FPToSIOp::create(b, loc, target, value);
  }
  if (toFloat) {
    if (fromUnsigned)
      return arith::UIToFPOp::create(b, loc, target, value);
    return arith::SIToFPOp::create(b, loc, target, value);
  }
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  unsigned toWidth = to.getIntOrFloatBitWidth();
  if (fromWidth > toWidth)
    return arith::TruncIOp::create(b, loc, target, value);
  if (fromWidth == toWidth)
    return value;
  if (fromUnsigned)
    return arith::ExtUIOp::create(b, loc, target, value);
  return arith::ExtSIOp::create(b, loc, target, value);
}

std::optional<Scalar> bcast::foldConversion(const Scalar &value, Type from,
                                            Type to) {
  if (from == to)
    return value;
  // Through f32 to f16 and bf16, as buildConversion does.
  if (isa<FloatType>(to) && to.getIntOrFloatBitWidth() == 16 && !from.isF32()) {
    Type f32 = Float32Type::get(to.getContext());
    std::optional<Scalar> single = foldConversion(value, from, f32);
    if (!single)
      return std::nullopt;
    return foldConversion(*single, f32, to);
  }
  bool fromUnsigned = isUnsignedInt(from) || from.isInteger(1);
  if (const APFloat *f = getFloat(value)) {
    if (to.isInteger(1) && !isUnsignedInt(to))
      return boolean(!f->isZero());
    if (auto floatType = dyn_cast<FloatType>(to)) {
      APFloat result = *f;
      bool losesInfo;
      result.convert(floatType.getFloatSemantics(),
                     APFloat::rmNearestTiesToEven, &losesInfo);
      return result;
    }
    llvm::APSInt result(to.getIntOrFloatBitWidth(), isUnsignedInt(to));
    bool isExact;
    if (f->convertToInteger(result, APFloat::rmTowardZero, &isExact) &
        APFloat::opInvalidOp)
      return std::nullopt;
    return APInt(result);
  }
  const APInt &i = getInt(value);
  if (to.isInteger(1) && !isUnsignedInt(to))
    return boolean(!i.isZero());
  if (auto floatType = dyn_cast<FloatType>(to)) {
    APFloat result(floatType.getFloatSemantics());
    result.convertFromAPInt(i, /*IsSigned=*/!fromUnsigned,
                            APFloat::rmNearestTiesToEven);
    return result;
  }
  unsigned width = to.getIntOrFloatBitWidth();
  return fromUnsigned ? i.zextOrTrunc(width) : i.sextOrTrunc(width);
}

//===----------------------------------------------------------------------===//
// Comparisons (called by the ODS-generated element functions)
//===----------------------------------------------------------------------===//

Value bcast::buildComparison(Operation *op, OpBuilder &builder, Location loc,
                             ValueRange args,
                             arith::CmpFPredicate floatPredicate,
                             arith::CmpIPredicate signedPredicate,
                             arith::CmpIPredicate unsignedPredicate) {
  ScalarBuilder s{builder, loc};
  if (isFloat(args))
    return s.cmpf(floatPredicate, args[0], args[1]);
  return s.cmpi(hasUnsignedOrder(op, isBool(args)) ? unsignedPredicate
                                                   : signedPredicate,
                args[0], args[1]);
}

std::optional<Scalar>
bcast::foldComparison(Operation *op, ArrayRef<Scalar> args,
                      arith::CmpFPredicate floatPredicate,
                      arith::CmpIPredicate signedPredicate,
                      arith::CmpIPredicate unsignedPredicate) {
  if (const APFloat *lhs = getFloat(args[0]))
    return boolean(
        arith::applyCmpPredicate(floatPredicate, *lhs, *getFloat(args[1])));
  const APInt &lhs = getInt(args[0]);
  bool isUnsigned = hasUnsignedOrder(op, lhs.getBitWidth() == 1);
  return boolean(arith::applyCmpPredicate(
      isUnsigned ? unsignedPredicate : signedPredicate, lhs, getInt(args[1])));
}

//===----------------------------------------------------------------------===//
// add, sub, mul
//===----------------------------------------------------------------------===//

Value AddOp::buildScalar(Operation *, OpBuilder &b, Location loc,
                         ValueRange args) {
  if (isFloat(args))
    return arith::AddFOp::create(b, loc, args[0], args[1]);
  if (isBool(args))
    return arith::OrIOp::create(b, loc, args[0], args[1]);
  return arith::AddIOp::create(b, loc, args[0], args[1]);
}

std::optional<Scalar> AddOp::foldScalar(Operation *, ArrayRef<Scalar> args) {
  if (const APFloat *lhs = getFloat(args[0])) {
    APFloat result = *lhs;
    result.add(*getFloat(args[1]), APFloat::rmNearestTiesToEven);
    return result;
  }
  const APInt &lhs = getInt(args[0]), &rhs = getInt(args[1]);
  return lhs.getBitWidth() == 1 ? (lhs | rhs) : lhs + rhs;
}

Value SubOp::buildScalar(Operation *, OpBuilder &b, Location loc,
                         ValueRange args) {
  if (isFloat(args))
    return arith::SubFOp::create(b, loc, args[0], args[1]);
  return arith::SubIOp::create(b, loc, args[0], args[1]);
}

std::optional<Scalar> SubOp::foldScalar(Operation *, ArrayRef<Scalar> args) {
  if (const APFloat *lhs = getFloat(args[0])) {
    APFloat result = *lhs;
    result.subtract(*getFloat(args[1]), APFloat::rmNearestTiesToEven);
    return result;
  }
  return getInt(args[0]) - getInt(args[1]);
}

Value MulOp::buildScalar(Operation *, OpBuilder &b, Location loc,
                         ValueRange args) {
  if (isFloat(args))
    return arith::MulFOp::create(b, loc, args[0], args[1]);
  if (isBool(args))
    return arith::AndIOp::create(b, loc, args[0], args[1]);
  return arith::MulIOp::create(b, loc, args[0], args[1]);
}

std::optional<Scalar> MulOp::foldScalar(Operation *, ArrayRef<Scalar> args) {
  if (const APFloat *lhs = getFloat(args[0])) {
    APFloat result = *lhs;
    result.multiply(*getFloat(args[1]), APFloat::rmNearestTiesToEven);
    return result;
  }
  const APInt &lhs = getInt(args[0]), &rhs = getInt(args[1]);
  return lhs.getBitWidth() == 1 ? (lhs & rhs) : lhs * rhs;
}

//===----------------------------------------------------------------------===//
// div
//===----------------------------------------------------------------------===//

/// PyTorch's floating-point floor division (`div_floor_floating`), in the
/// element's own precision T (float or double), as the lowering computes it.
template <typename T> static T floorDivide(T a, T b) {
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

/// The same floor division, built.
static Value buildFloorDivFloat(ScalarBuilder &s, Value a, Value bv) {
  OpBuilder &b = s.b;
  Location loc = s.loc;
  Type type = a.getType();
  Value zero = s.floatConst(type, 0.0);
  Value quotient = arith::DivFOp::create(b, loc, a, bv);
  Value mod = arith::RemFOp::create(b, loc, a, bv);
  Value div =
      arith::DivFOp::create(b, loc, arith::SubFOp::create(b, loc, a, mod), bv);
  Value modNonZero = s.cmpf(arith::CmpFPredicate::UNE, mod, zero);
  Value signsDiffer = s.xori(s.cmpf(arith::CmpFPredicate::OLT, bv, zero),
                             s.cmpf(arith::CmpFPredicate::OLT, mod, zero));
  Value adjust = s.andi(modNonZero, signsDiffer);
  div = s.select(
      adjust, arith::SubFOp::create(b, loc, div, s.floatConst(type, 1.0)), div);
  Value floored = math::FloorOp::create(b, loc, div);
  Value roundUp = s.cmpf(arith::CmpFPredicate::OGT,
                         arith::SubFOp::create(b, loc, div, floored),
                         s.floatConst(type, 0.5));
  floored = s.select(
      roundUp, arith::AddFOp::create(b, loc, floored, s.floatConst(type, 1.0)),
      floored);
  Value signedZero = math::CopySignOp::create(b, loc, zero, quotient);
  Value result = s.select(s.cmpf(arith::CmpFPredicate::UNE, div, zero), floored,
                          signedZero);
  return s.select(s.cmpf(arith::CmpFPredicate::OEQ, bv, zero), quotient,
                  result);
}

Value DivOp::buildScalar(Operation *op, OpBuilder &b, Location loc,
                         ValueRange args) {
  ScalarBuilder s{b, loc};
  RoundingMode mode = bcast::getRoundingMode(op);
  if (isFloat(args)) {
    if (mode == RoundingMode::Floor)
      return buildFloorDivFloat(s, args[0], args[1]);
    Value quotient = arith::DivFOp::create(b, loc, args[0], args[1]);
    if (mode == RoundingMode::Trunc)
      return math::TruncOp::create(b, loc, quotient);
    return quotient;
  }
  // Unsigned quotients are non-negative: truncating and flooring agree.
  if (hasUnsignedOrder(op, isBool(args)))
    return arith::DivUIOp::create(b, loc, args[0], args[1]);
  if (mode == RoundingMode::Floor)
    return arith::FloorDivSIOp::create(b, loc, args[0], args[1]);
  return arith::DivSIOp::create(b, loc, args[0], args[1]);
}

std::optional<Scalar> DivOp::foldScalar(Operation *op, ArrayRef<Scalar> args) {
  RoundingMode mode = bcast::getRoundingMode(op);
  if (const APFloat *lhs = getFloat(args[0])) {
    const APFloat &rhs = *getFloat(args[1]);
    if (mode == RoundingMode::Floor)
      return foldNative(*lhs, rhs,
                        [](auto a, auto b) { return floorDivide(a, b); });
    APFloat result = *lhs;
    result.divide(rhs, APFloat::rmNearestTiesToEven);
    if (mode == RoundingMode::Trunc)
      result.roundToIntegral(APFloat::rmTowardZero);
    return result;
  }
  const APInt &lhs = getInt(args[0]), &rhs = getInt(args[1]);
  bool isUnsigned = hasUnsignedOrder(op, lhs.getBitWidth() == 1);
  if (isDivisionUndefined(lhs, rhs, isUnsigned))
    return std::nullopt;
  if (isUnsigned)
    return lhs.udiv(rhs);
  APInt quotient = lhs.sdiv(rhs);
  if (mode == RoundingMode::Floor && !lhs.srem(rhs).isZero() &&
      (lhs.isNegative() != rhs.isNegative()))
    quotient -= 1;
  return quotient;
}

//===----------------------------------------------------------------------===//
// remainder
//===----------------------------------------------------------------------===//

/// Remainder with the sign of the divisor, in the element's own precision.
template <typename T> static T floatRemainder(T a, T b) {
  T mod = std::fmod(a, b);
  if (mod != 0 && (b < 0) != (mod < 0))
    mod += b;
  return mod;
}

Value RemainderOp::buildScalar(Operation *op, OpBuilder &b, Location loc,
                               ValueRange args) {
  ScalarBuilder s{b, loc};
  Value lhs = args[0], rhs = args[1];
  if (isFloat(args)) {
    Value zero = s.floatConst(lhs.getType(), 0.0);
    Value mod = arith::RemFOp::create(b, loc, lhs, rhs);
    Value adjust = s.andi(s.cmpf(arith::CmpFPredicate::UNE, mod, zero),
                          s.xori(s.cmpf(arith::CmpFPredicate::OLT, rhs, zero),
                                 s.cmpf(arith::CmpFPredicate::OLT, mod, zero)));
    return s.select(adjust, arith::AddFOp::create(b, loc, mod, rhs), mod);
  }
  // Unsigned remainders, like the divisor, are never negative.
  if (hasUnsignedOrder(op, isBool(args)))
    return arith::RemUIOp::create(b, loc, lhs, rhs);
  Value zero = s.intConst(lhs.getType(), 0);
  Value rem = arith::RemSIOp::create(b, loc, lhs, rhs);
  Value adjust = s.andi(s.cmpi(arith::CmpIPredicate::ne, rem, zero),
                        s.xori(s.cmpi(arith::CmpIPredicate::slt, rem, zero),
                               s.cmpi(arith::CmpIPredicate::slt, rhs, zero)));
  return s.select(adjust, arith::AddIOp::create(b, loc, rem, rhs), rem);
}

std::optional<Scalar> RemainderOp::foldScalar(Operation *op,
                                              ArrayRef<Scalar> args) {
  if (const APFloat *lhs = getFloat(args[0]))
    return foldNative(*lhs, *getFloat(args[1]),
                      [](auto a, auto b) { return floatRemainder(a, b); });
  const APInt &lhs = getInt(args[0]), &rhs = getInt(args[1]);
  bool isUnsigned = hasUnsignedOrder(op, lhs.getBitWidth() == 1);
  if (isDivisionUndefined(lhs, rhs, isUnsigned))
    return std::nullopt;
  if (isUnsigned)
    return lhs.urem(rhs);
  APInt remainder = lhs.srem(rhs);
  if (!remainder.isZero() && remainder.isNegative() != rhs.isNegative())
    remainder += rhs;
  return remainder;
}

//===----------------------------------------------------------------------===//
// fmod
//===----------------------------------------------------------------------===//

Value FmodOp::buildScalar(Operation *op, OpBuilder &b, Location loc,
                          ValueRange args) {
  if (isFloat(args))
    return arith::RemFOp::create(b, loc, args[0], args[1]);
  if (isUnsignedCompute(op))
    return arith::RemUIOp::create(b, loc, args[0], args[1]);
  return arith::RemSIOp::create(b, loc, args[0], args[1]);
}

std::optional<Scalar> FmodOp::foldScalar(Operation *op, ArrayRef<Scalar> args) {
  // fmod is exact in every float type, so APFloat's agrees with libm's.
  if (const APFloat *lhs = getFloat(args[0])) {
    APFloat result = *lhs;
    result.mod(*getFloat(args[1]));
    return result;
  }
  const APInt &lhs = getInt(args[0]), &rhs = getInt(args[1]);
  bool isUnsigned = isUnsignedCompute(op);
  if (isDivisionUndefined(lhs, rhs, isUnsigned))
    return std::nullopt;
  return isUnsigned ? lhs.urem(rhs) : lhs.srem(rhs);
}

//===----------------------------------------------------------------------===//
// pow
//===----------------------------------------------------------------------===//

/// PyTorch's integer power: repeated squaring with wrap-around; a negative
/// exponent gives 0 unless the base is 1 or -1. `isUnsigned` (i1 and
/// unsigned types) reads the exponent as unsigned: it is never negative.
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

/// The same power, built: square-and-multiply over every bit of the
/// exponent, and for a negative exponent 1, +-1 or 0.
static Value buildPowInt(ScalarBuilder &s, Value base, Value exponent,
                         bool isUnsigned) {
  OpBuilder &b = s.b;
  Location loc = s.loc;
  Type type = base.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  Value lb = arith::ConstantIndexOp::create(b, loc, 0);
  Value ub = arith::ConstantIndexOp::create(b, loc, width);
  Value step = arith::ConstantIndexOp::create(b, loc, 1);
  Value one = s.intConst(type, 1);
  Value zero = s.intConst(type, 0);
  auto loop = scf::ForOp::create(
      b, loc, lb, ub, step, ValueRange{one, base, exponent},
      [&](OpBuilder &nb, Location nloc, Value, ValueRange iter) {
        ScalarBuilder n{nb, nloc};
        Value bit = arith::AndIOp::create(nb, nloc, iter[2], one);
        Value isSet = n.cmpi(arith::CmpIPredicate::ne, bit, zero);
        Value product = arith::MulIOp::create(nb, nloc, iter[0], iter[1]);
        Value result = n.select(isSet, product, iter[0]);
        Value square = arith::MulIOp::create(nb, nloc, iter[1], iter[1]);
        Value shifted = arith::ShRUIOp::create(nb, nloc, iter[2], one);
        scf::YieldOp::create(nb, nloc, ValueRange{result, square, shifted});
      });
  Value result = loop.getResult(0);
  if (isUnsigned)
    return result;
  Value minusOne = s.intConst(type, -1);
  Value isNegative = s.cmpi(arith::CmpIPredicate::slt, exponent, zero);
  Value isOdd = s.cmpi(arith::CmpIPredicate::ne, s.andi(exponent, one), zero);
  Value forMinusOne = s.select(isOdd, minusOne, one);
  Value negative =
      s.select(s.cmpi(arith::CmpIPredicate::eq, base, one), one,
               s.select(s.cmpi(arith::CmpIPredicate::eq, base, minusOne),
                        forMinusOne, zero));
  return s.select(isNegative, negative, result);
}

Value PowOp::buildScalar(Operation *op, OpBuilder &b, Location loc,
                         ValueRange args) {
  ScalarBuilder s{b, loc};
  if (isFloat(args))
    return math::PowFOp::create(b, loc, args[0], args[1]);
  return buildPowInt(s, args[0], args[1], hasUnsignedOrder(op, isBool(args)));
}

std::optional<Scalar> PowOp::foldScalar(Operation *op, ArrayRef<Scalar> args) {
  if (const APFloat *lhs = getFloat(args[0]))
    return foldNative(*lhs, *getFloat(args[1]),
                      [](auto a, auto b) { return std::pow(a, b); });
  const APInt &lhs = getInt(args[0]);
  return powInt(lhs, getInt(args[1]),
                hasUnsignedOrder(op, lhs.getBitWidth() == 1));
}

//===----------------------------------------------------------------------===//
// maximum, minimum
//===----------------------------------------------------------------------===//

Value MaximumOp::buildScalar(Operation *op, OpBuilder &b, Location loc,
                             ValueRange args) {
  if (isFloat(args))
    return arith::MaximumFOp::create(b, loc, args[0], args[1]);
  if (isBool(args))
    return arith::OrIOp::create(b, loc, args[0], args[1]);
  if (isUnsignedCompute(op))
    return arith::MaxUIOp::create(b, loc, args[0], args[1]);
  return arith::MaxSIOp::create(b, loc, args[0], args[1]);
}

std::optional<Scalar> MaximumOp::foldScalar(Operation *op,
                                            ArrayRef<Scalar> args) {
  if (const APFloat *lhs = getFloat(args[0]))
    return llvm::maximum(*lhs, *getFloat(args[1]));
  const APInt &lhs = getInt(args[0]), &rhs = getInt(args[1]);
  if (lhs.getBitWidth() == 1)
    return lhs | rhs;
  return isUnsignedCompute(op) ? llvm::APIntOps::umax(lhs, rhs)
                               : llvm::APIntOps::smax(lhs, rhs);
}

Value MinimumOp::buildScalar(Operation *op, OpBuilder &b, Location loc,
                             ValueRange args) {
  if (isFloat(args))
    return arith::MinimumFOp::create(b, loc, args[0], args[1]);
  if (isBool(args))
    return arith::AndIOp::create(b, loc, args[0], args[1]);
  if (isUnsignedCompute(op))
    return arith::MinUIOp::create(b, loc, args[0], args[1]);
  return arith::MinSIOp::create(b, loc, args[0], args[1]);
}

std::optional<Scalar> MinimumOp::foldScalar(Operation *op,
                                            ArrayRef<Scalar> args) {
  if (const APFloat *lhs = getFloat(args[0]))
    return llvm::minimum(*lhs, *getFloat(args[1]));
  const APInt &lhs = getInt(args[0]), &rhs = getInt(args[1]);
  if (lhs.getBitWidth() == 1)
    return lhs & rhs;
  return isUnsignedCompute(op) ? llvm::APIntOps::umin(lhs, rhs)
                               : llvm::APIntOps::smin(lhs, rhs);
}

//===----------------------------------------------------------------------===//
// and, or, xor (integers only, by their operand types)
//===----------------------------------------------------------------------===//

Value AndOp::buildScalar(Operation *, OpBuilder &b, Location loc,
                         ValueRange args) {
  return arith::AndIOp::create(b, loc, args[0], args[1]);
}

std::optional<Scalar> AndOp::foldScalar(Operation *, ArrayRef<Scalar> args) {
  return getInt(args[0]) & getInt(args[1]);
}

Value OrOp::buildScalar(Operation *, OpBuilder &b, Location loc,
                        ValueRange args) {
  return arith::OrIOp::create(b, loc, args[0], args[1]);
}

std::optional<Scalar> OrOp::foldScalar(Operation *, ArrayRef<Scalar> args) {
  return getInt(args[0]) | getInt(args[1]);
}

Value XorOp::buildScalar(Operation *, OpBuilder &b, Location loc,
                         ValueRange args) {
  return arith::XOrIOp::create(b, loc, args[0], args[1]);
}

std::optional<Scalar> XorOp::foldScalar(Operation *, ArrayRef<Scalar> args) {
  return getInt(args[0]) ^ getInt(args[1]);
}

//===----------------------------------------------------------------------===//
// where
//===----------------------------------------------------------------------===//

Value WhereOp::buildScalar(Operation *, OpBuilder &b, Location loc,
                           ValueRange args) {
  return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
}

std::optional<Scalar> WhereOp::foldScalar(Operation *, ArrayRef<Scalar> args) {
  return getInt(args[0]).isZero() ? args[2] : args[1];
}
