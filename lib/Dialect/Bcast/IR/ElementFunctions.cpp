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
// Integer division never traps, in the compiled code or in folding: a zero
// divisor is replaced by 1 in the body (the lowering's run-time check has
// raised PyTorch's ZeroDivisionError before the body runs on CPU), and
// signed INT_MIN / -1 wraps to INT_MIN with remainder 0 (PyTorch's values at
// 8 and 16 bits; PyTorch 1.13 itself dies of SIGFPE at 32 and 64). Folding
// declines (std::nullopt) on a zero divisor, so that the check still runs,
// and where the result depends on rounding steps the compiler cannot
// reproduce exactly (floor division, remainder and pow on f16 and bf16).
// Float to integer conversions follow PyTorch's CPU code on every path (see
// buildConversion).
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

/// An integer division or remainder whose divisor cannot trap: a zero
/// divisor becomes 1 and, when signed, -1 becomes 1 too (the callers give
/// INT_MIN / -1 its wrapped value themselves). The lowering raises
/// ZeroDivisionError before a zero divisor reaches the body on CPU; on a GPU
/// (which does not check, like PyTorch's CUDA kernels) x / 0 is x and x % 0
/// is 0.
namespace {
struct SafeDivisor {
  Value divisor;
  /// i1: the original divisor is -1 (signed only; null when unsigned).
  Value isMinusOne;
};
} // namespace

static SafeDivisor buildSafeDivisor(ScalarBuilder &s, Value rhs,
                                    bool isUnsigned) {
  Type type = rhs.getType();
  Value one = s.intConst(type, 1);
  Value unsafe = s.cmpi(arith::CmpIPredicate::eq, rhs, s.intConst(type, 0));
  Value isMinusOne;
  if (!isUnsigned) {
    isMinusOne = s.cmpi(arith::CmpIPredicate::eq, rhs, s.intConst(type, -1));
    unsafe = arith::OrIOp::create(s.b, s.loc, unsafe, isMinusOne);
  }
  return {s.select(unsafe, one, rhs), isMinusOne};
}

/// `lhs / -1` as two's complement computes it: `0 - lhs`, INT_MIN wrapping
/// to itself.
static Value buildNegate(ScalarBuilder &s, Value lhs) {
  return arith::SubIOp::create(s.b, s.loc, s.intConst(lhs.getType(), 0), lhs);
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

/// The integer type PyTorch's CPU code converts a float to before it
/// truncates to `to` (the instruction gcc picks for a C++ static_cast on
/// x86): i32 for signed types up to 32 bits, i64 for 64-bit ones and for
/// the unsigned types (PyTorch's uint8 goes through int64: 2^32 + 5 gives 5;
/// ui64, which PyTorch 1.13 lacks, also takes [2^63, 2^64) exactly, as C's
/// conversion to uint64_t does). Widths over 64 convert directly.
static unsigned getFloatToIntegerWidth(Type to) {
  unsigned width = to.getIntOrFloatBitWidth();
  if (width > 64)
    return width;
  if (!isUnsignedInt(to) && width <= 32)
    return 32;
  return 64;
}

/// The float -> integer conversion of PyTorch's CPU code, the same on every
/// path (vector, scalar tail, fold, GPU): 16-bit floats widen to f32, the
/// value truncates towards zero to the intermediate width, where NaN and
/// values out of its range give its minimum (x86's cvttss2si), and the
/// result keeps the low bits. So -500.0 to int8 is 12, NaN and inf are 0,
/// and -3.0 to uint8 is 253. arith's fptosi would be poison out of range,
/// which LLVM resolves differently in vector and scalar code.
static Value buildFloatToInteger(ScalarBuilder &s, Value value, Type to) {
  OpBuilder &b = s.b;
  Location loc = s.loc;
  if (value.getType().getIntOrFloatBitWidth() < 32)
    value = arith::ExtFOp::create(b, loc, b.getF32Type(), value);
  auto floatType = cast<FloatType>(value.getType());
  unsigned width = getFloatToIntegerWidth(to);
  auto wide = IntegerType::get(b.getContext(), width);
  // [-2^(w-1), 2^(w-1)) is where the conversion is exact; both bounds are
  // powers of two, exact in f32 and f64 (inf for widths beyond the range of
  // f32, which every finite value is then below).
  APFloat upper = APFloat::getOne(floatType.getFloatSemantics());
  upper = llvm::scalbn(upper, width - 1, APFloat::rmNearestTiesToEven);
  APFloat lower = upper;
  lower.changeSign();
  Value inRange = s.andi(s.cmpf(arith::CmpFPredicate::OGE, value,
                                arith::ConstantOp::create(
                                    b, loc, b.getFloatAttr(floatType, lower))),
                         s.cmpf(arith::CmpFPredicate::OLT, value,
                                arith::ConstantOp::create(
                                    b, loc, b.getFloatAttr(floatType, upper))));
  Value safe = s.select(inRange, value, s.floatConst(floatType, 0.0));
  Value converted = arith::FPToSIOp::create(b, loc, wide, safe);
  Value minimum = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(wide, APInt::getSignedMinValue(width)));
  Value result = s.select(inRange, converted, minimum);
  if (isUnsignedInt(to) && to.getIntOrFloatBitWidth() == 64) {
    APFloat twice = upper;
    twice.add(upper, APFloat::rmNearestTiesToEven);
    Value high = s.andi(s.cmpf(arith::CmpFPredicate::OGE, value,
                               arith::ConstantOp::create(
                                   b, loc, b.getFloatAttr(floatType, upper))),
                        s.cmpf(arith::CmpFPredicate::OLT, value,
                               arith::ConstantOp::create(
                                   b, loc, b.getFloatAttr(floatType, twice))));
    Value highSafe = s.select(high, value, s.floatConst(floatType, 0.0));
    result =
        s.select(high, arith::FPToUIOp::create(b, loc, wide, highSafe), result);
  }
  unsigned toWidth = to.getIntOrFloatBitWidth();
  if (toWidth < width)
    result = arith::TruncIOp::create(
        b, loc, IntegerType::get(b.getContext(), toWidth), result);
  return result;
}

/// The same conversion on a constant.
static APInt foldFloatToInteger(const APFloat &value, Type to) {
  APFloat single = value;
  bool losesInfo;
  if (APFloat::semanticsSizeInBits(value.getSemantics()) < 32)
    single.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                   &losesInfo);
  unsigned width = getFloatToIntegerWidth(to);
  llvm::APSInt result(width, /*isUnsigned=*/false);
  bool isExact;
  if (single.convertToInteger(result, APFloat::rmTowardZero, &isExact) &
      APFloat::opInvalidOp) {
    result = APInt::getSignedMinValue(width);
    llvm::APSInt high(width, /*isUnsigned=*/true);
    if (isUnsignedInt(to) && to.getIntOrFloatBitWidth() == 64 &&
        !single.isNegative() &&
        !(single.convertToInteger(high, APFloat::rmTowardZero, &isExact) &
          APFloat::opInvalidOp))
      return high;
  }
  APInt wide = result;
  unsigned toWidth = to.getIntOrFloatBitWidth();
  return toWidth < width ? wide.trunc(toWidth) : wide;
}

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
  if (fromFloat)
    return buildFloatToInteger(s, value, to);
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
    return foldFloatToInteger(*f, to);
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

/// The `alpha` of add and sub in the compute type `type` (PyTorch's
/// `alpha_scalar.to<scalar_t>()`; the verifier has refused values that do
/// not fit), or std::nullopt when it is absent or 1, which leaves `rhs`
/// exactly as it is.
static std::optional<Scalar> getAlphaScalar(Operation *op, Type type) {
  Attribute attr = op->getAttr("alpha");
  if (!attr)
    return std::nullopt;
  std::optional<Scalar> alpha;
  MLIRContext *context = op->getContext();
  if (auto flag = dyn_cast<BoolAttr>(attr))
    alpha = foldConversion(APInt(1, flag.getValue()),
                           IntegerType::get(context, 1), type);
  else if (auto integer = dyn_cast<IntegerAttr>(attr))
    alpha =
        foldConversion(integer.getValue(), IntegerType::get(context, 64), type);
  else
    alpha = foldConversion(cast<FloatAttr>(attr).getValue(),
                           Float64Type::get(context), type);
  if (!alpha)
    return std::nullopt;
  if (const APFloat *f = getFloat(*alpha))
    return f->isExactlyValue(1.0) ? std::nullopt : alpha;
  return getInt(*alpha).isOne() ? std::nullopt : alpha;
}

/// Whether `lhs + alpha * rhs` is one fused multiply-add: in f32 and f64,
/// as PyTorch's CPU kernel computes it (`vec::fmadd`, and its scalar loop,
/// which the compiler contracts); 16-bit floats round the product first,
/// as c10's Half and BFloat16 arithmetic does.
static bool fusesAlpha(Type type) { return type.isF32() || type.isF64(); }

/// `lhs + sign * alpha * rhs` for a float alpha that fuses (fusesAlpha).
static Value buildFusedAlpha(Operation *op, OpBuilder &b, Location loc,
                             Value lhs, Value rhs, bool negate) {
  APFloat alpha = *getFloat(*getAlphaScalar(op, rhs.getType()));
  if (negate)
    alpha.changeSign();
  Value constant =
      arith::ConstantOp::create(b, loc, b.getFloatAttr(rhs.getType(), alpha));
  return math::FmaOp::create(b, loc, constant, rhs, lhs);
}

static APFloat foldFusedAlpha(Operation *op, const APFloat &lhs,
                              const APFloat &rhs, bool negate) {
  Type type = getElementTypes(op).compute;
  APFloat result = *getFloat(*getAlphaScalar(op, type));
  if (negate)
    result.changeSign();
  result.fusedMultiplyAdd(rhs, lhs, APFloat::rmNearestTiesToEven);
  return result;
}

/// `alpha * rhs` in the compute type (`rhs` itself without an alpha); on
/// i1, `rhs and alpha`.
static Value buildAlphaTimes(Operation *op, OpBuilder &b, Location loc,
                             Value rhs) {
  std::optional<Scalar> alpha = getAlphaScalar(op, rhs.getType());
  if (!alpha)
    return rhs;
  if (const APFloat *f = getFloat(*alpha)) {
    Value constant =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(rhs.getType(), *f));
    return arith::MulFOp::create(b, loc, constant, rhs);
  }
  Value constant = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(rhs.getType(), getInt(*alpha)));
  if (rhs.getType().isInteger(1))
    return arith::AndIOp::create(b, loc, constant, rhs);
  return arith::MulIOp::create(b, loc, constant, rhs);
}

static Scalar foldAlphaTimes(Operation *op, const Scalar &rhs, Type type) {
  std::optional<Scalar> alpha = getAlphaScalar(op, type);
  if (!alpha)
    return rhs;
  if (const APFloat *f = getFloat(*alpha)) {
    APFloat result = *f;
    result.multiply(*getFloat(rhs), APFloat::rmNearestTiesToEven);
    return result;
  }
  const APInt &a = getInt(*alpha);
  return a.getBitWidth() == 1 ? (a & getInt(rhs)) : a * getInt(rhs);
}

/// The compute type of a folded operand (the op's, as `args` are in it).
static Type getComputeType(Operation *op) {
  return getElementTypes(op).compute;
}

Value AddOp::buildScalar(Operation *op, OpBuilder &b, Location loc,
                         ValueRange args) {
  if (fusesAlpha(args[1].getType()) && getAlphaScalar(op, args[1].getType()))
    return buildFusedAlpha(op, b, loc, args[0], args[1], /*negate=*/false);
  Value rhs = buildAlphaTimes(op, b, loc, args[1]);
  if (isFloat(args))
    return arith::AddFOp::create(b, loc, args[0], rhs);
  if (isBool(args))
    return arith::OrIOp::create(b, loc, args[0], rhs);
  return arith::AddIOp::create(b, loc, args[0], rhs);
}

std::optional<Scalar> AddOp::foldScalar(Operation *op, ArrayRef<Scalar> args) {
  Type type = getComputeType(op);
  if (fusesAlpha(type) && getAlphaScalar(op, type))
    return foldFusedAlpha(op, *getFloat(args[0]), *getFloat(args[1]),
                          /*negate=*/false);
  Scalar rhs = foldAlphaTimes(op, args[1], type);
  if (const APFloat *lhs = getFloat(args[0])) {
    APFloat result = *lhs;
    result.add(*getFloat(rhs), APFloat::rmNearestTiesToEven);
    return result;
  }
  const APInt &lhs = getInt(args[0]), &r = getInt(rhs);
  return lhs.getBitWidth() == 1 ? (lhs | r) : lhs + r;
}

Value SubOp::buildScalar(Operation *op, OpBuilder &b, Location loc,
                         ValueRange args) {
  if (fusesAlpha(args[1].getType()) && getAlphaScalar(op, args[1].getType()))
    return buildFusedAlpha(op, b, loc, args[0], args[1], /*negate=*/true);
  Value rhs = buildAlphaTimes(op, b, loc, args[1]);
  if (isFloat(args))
    return arith::SubFOp::create(b, loc, args[0], rhs);
  return arith::SubIOp::create(b, loc, args[0], rhs);
}

std::optional<Scalar> SubOp::foldScalar(Operation *op, ArrayRef<Scalar> args) {
  Type type = getComputeType(op);
  if (fusesAlpha(type) && getAlphaScalar(op, type))
    return foldFusedAlpha(op, *getFloat(args[0]), *getFloat(args[1]),
                          /*negate=*/true);
  Scalar rhs = foldAlphaTimes(op, args[1], type);
  if (const APFloat *lhs = getFloat(args[0])) {
    APFloat result = *lhs;
    result.subtract(*getFloat(rhs), APFloat::rmNearestTiesToEven);
    return result;
  }
  return getInt(args[0]) - getInt(rhs);
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
  bool isUnsigned = hasUnsignedOrder(op, isBool(args));
  SafeDivisor safe = buildSafeDivisor(s, args[1], isUnsigned);
  if (isUnsigned)
    return arith::DivUIOp::create(b, loc, args[0], safe.divisor);
  Value quotient =
      mode == RoundingMode::Floor
          ? Value(arith::FloorDivSIOp::create(b, loc, args[0], safe.divisor))
          : Value(arith::DivSIOp::create(b, loc, args[0], safe.divisor));
  return s.select(safe.isMinusOne, buildNegate(s, args[0]), quotient);
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
  if (rhs.isZero())
    return std::nullopt;
  if (isUnsigned)
    return lhs.udiv(rhs);
  if (rhs.isAllOnes())
    return -lhs;
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
  // Unsigned remainders, like the divisor, are never negative. A divisor of
  // -1 leaves 0, as the safe divisor 1 does.
  bool isUnsigned = hasUnsignedOrder(op, isBool(args));
  SafeDivisor safe = buildSafeDivisor(s, rhs, isUnsigned);
  if (isUnsigned)
    return arith::RemUIOp::create(b, loc, lhs, safe.divisor);
  Value zero = s.intConst(lhs.getType(), 0);
  Value rem = arith::RemSIOp::create(b, loc, lhs, safe.divisor);
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
  if (rhs.isZero())
    return std::nullopt;
  if (isUnsigned)
    return lhs.urem(rhs);
  if (rhs.isAllOnes())
    return APInt::getZero(lhs.getBitWidth());
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
  ScalarBuilder s{b, loc};
  bool isUnsigned = isUnsignedCompute(op);
  Value divisor = buildSafeDivisor(s, args[1], isUnsigned).divisor;
  if (isUnsigned)
    return arith::RemUIOp::create(b, loc, args[0], divisor);
  return arith::RemSIOp::create(b, loc, args[0], divisor);
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
  if (rhs.isZero())
    return std::nullopt;
  if (isUnsigned)
    return lhs.urem(rhs);
  if (rhs.isAllOnes())
    return APInt::getZero(lhs.getBitWidth());
  return lhs.srem(rhs);
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
// maximum, minimum, clamp_min, clamp_max
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

// clamp_min and clamp_max compute what maximum and minimum do (PyTorch's
// kernels: NaN from either side, then max or min).
Value ClampMinOp::buildScalar(Operation *op, OpBuilder &b, Location loc,
                              ValueRange args) {
  return MaximumOp::buildScalar(op, b, loc, args);
}

std::optional<Scalar> ClampMinOp::foldScalar(Operation *op,
                                             ArrayRef<Scalar> args) {
  return MaximumOp::foldScalar(op, args);
}

Value ClampMaxOp::buildScalar(Operation *op, OpBuilder &b, Location loc,
                              ValueRange args) {
  return MinimumOp::buildScalar(op, b, loc, args);
}

std::optional<Scalar> ClampMaxOp::foldScalar(Operation *op,
                                             ArrayRef<Scalar> args) {
  return MinimumOp::foldScalar(op, args);
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
// Unary ops: sign, rounding and integer functions (exact)
//===----------------------------------------------------------------------===//

Value AbsOp::buildScalar(Operation *op, OpBuilder &b, Location loc,
                         ValueRange args) {
  if (isFloat(args))
    return math::AbsFOp::create(b, loc, args[0]);
  if (isUnsignedCompute(op))
    return args[0];
  return math::AbsIOp::create(b, loc, args[0]);
}

std::optional<Scalar> AbsOp::foldScalar(Operation *op, ArrayRef<Scalar> args) {
  if (const APFloat *x = getFloat(args[0]))
    return abs(*x);
  if (isUnsignedCompute(op))
    return args[0];
  return getInt(args[0]).abs();
}

Value NegOp::buildScalar(Operation *, OpBuilder &b, Location loc,
                         ValueRange args) {
  if (isFloat(args))
    return arith::NegFOp::create(b, loc, args[0]);
  ScalarBuilder s{b, loc};
  return arith::SubIOp::create(b, loc, s.intConst(args[0].getType(), 0),
                               args[0]);
}

std::optional<Scalar> NegOp::foldScalar(Operation *, ArrayRef<Scalar> args) {
  if (const APFloat *x = getFloat(args[0]))
    return neg(*x);
  return -getInt(args[0]);
}

Value SignOp::buildScalar(Operation *op, OpBuilder &b, Location loc,
                          ValueRange args) {
  ScalarBuilder s{b, loc};
  Value x = args[0];
  Type type = x.getType();
  if (isBool(args))
    return x;
  // (0 < x) - (x < 0) as two selects, built in that order.
  if (isFloat(args)) {
    Value zero = s.floatConst(type, 0.0);
    Value positive = s.cmpf(arith::CmpFPredicate::OGT, x, zero);
    Value negative = s.cmpf(arith::CmpFPredicate::OLT, x, zero);
    Value minusOne = s.select(negative, s.floatConst(type, -1.0), zero);
    return s.select(positive, s.floatConst(type, 1.0), minusOne);
  }
  Value zero = s.intConst(type, 0);
  Value one = s.intConst(type, 1);
  if (isUnsignedCompute(op))
    return s.select(s.cmpi(arith::CmpIPredicate::ne, x, zero), one, zero);
  Value positive = s.cmpi(arith::CmpIPredicate::sgt, x, zero);
  Value negative = s.cmpi(arith::CmpIPredicate::slt, x, zero);
  Value minusOne = s.select(negative, s.intConst(type, -1), zero);
  return s.select(positive, one, minusOne);
}

std::optional<Scalar> SignOp::foldScalar(Operation *op, ArrayRef<Scalar> args) {
  if (const APFloat *x = getFloat(args[0])) {
    const llvm::fltSemantics &semantics = x->getSemantics();
    if (x->isNaN() || x->isZero())
      return APFloat::getZero(semantics);
    APFloat one(semantics, 1);
    return x->isNegative() ? neg(one) : one;
  }
  const APInt &x = getInt(args[0]);
  unsigned width = x.getBitWidth();
  if (width == 1 || x.isZero())
    return x;
  if (isUnsignedCompute(op) || !x.isNegative())
    return APInt(width, 1);
  return APInt::getAllOnes(width);
}

std::optional<Scalar> bcast::foldRounding(ArrayRef<Scalar> args,
                                          llvm::RoundingMode mode) {
  const APFloat *x = getFloat(args[0]);
  if (!x)
    return args[0];
  APFloat result = *x;
  result.roundToIntegral(mode);
  return result;
}

Value ReluOp::buildScalar(Operation *op, OpBuilder &b, Location loc,
                          ValueRange args) {
  ScalarBuilder s{b, loc};
  Value x = args[0];
  if (isFloat(args)) {
    // x < 0 is false for NaN and -0, which PyTorch keeps.
    Value zero = s.floatConst(x.getType(), 0.0);
    return s.select(s.cmpf(arith::CmpFPredicate::OLT, x, zero), zero, x);
  }
  if (isUnsignedCompute(op))
    return x;
  return arith::MaxSIOp::create(b, loc, x, s.intConst(x.getType(), 0));
}

std::optional<Scalar> ReluOp::foldScalar(Operation *op, ArrayRef<Scalar> args) {
  if (const APFloat *x = getFloat(args[0])) {
    if (x->isNegative() && !x->isZero() && !x->isNaN())
      return APFloat::getZero(x->getSemantics());
    return *x;
  }
  const APInt &x = getInt(args[0]);
  if (!isUnsignedCompute(op) && x.isNegative())
    return APInt(x.getBitWidth(), 0);
  return x;
}

Value BitwiseNotOp::buildScalar(Operation *, OpBuilder &b, Location loc,
                                ValueRange args) {
  ScalarBuilder s{b, loc};
  return s.xori(args[0], s.intConst(args[0].getType(), -1));
}

std::optional<Scalar> BitwiseNotOp::foldScalar(Operation *,
                                               ArrayRef<Scalar> args) {
  return ~getInt(args[0]);
}

//===----------------------------------------------------------------------===//
// Unary ops with an i1 value: logical_not, isnan, isinf, isfinite
//===----------------------------------------------------------------------===//

Value LogicalNotOp::buildScalar(Operation *, OpBuilder &b, Location loc,
                                ValueRange args) {
  ScalarBuilder s{b, loc};
  Value x = args[0];
  if (isFloat(args))
    return s.cmpf(arith::CmpFPredicate::OEQ, x, s.floatConst(x.getType(), 0.0));
  return s.cmpi(arith::CmpIPredicate::eq, x, s.intConst(x.getType(), 0));
}

std::optional<Scalar> LogicalNotOp::foldScalar(Operation *,
                                               ArrayRef<Scalar> args) {
  if (const APFloat *x = getFloat(args[0]))
    return boolean(x->isZero());
  return boolean(getInt(args[0]).isZero());
}

/// `|x| <pred> inf` on floats; `forIntegers` on integers, which are finite.
static Value buildInfinityTest(ValueRange args, OpBuilder &b, Location loc,
                               arith::CmpFPredicate predicate,
                               bool forIntegers) {
  ScalarBuilder s{b, loc};
  if (!isFloat(args))
    return s.intConst(b.getI1Type(), forIntegers ? 1 : 0);
  Type type = args[0].getType();
  Value infinity = arith::ConstantOp::create(
      b, loc, type,
      b.getFloatAttr(
          type, APFloat::getInf(cast<FloatType>(type).getFloatSemantics())));
  return s.cmpf(predicate, math::AbsFOp::create(b, loc, args[0]), infinity);
}

Value IsnanOp::buildScalar(Operation *, OpBuilder &b, Location loc,
                           ValueRange args) {
  ScalarBuilder s{b, loc};
  if (!isFloat(args))
    return s.intConst(b.getI1Type(), 0);
  return s.cmpf(arith::CmpFPredicate::UNO, args[0], args[0]);
}

std::optional<Scalar> IsnanOp::foldScalar(Operation *, ArrayRef<Scalar> args) {
  const APFloat *x = getFloat(args[0]);
  return boolean(x && x->isNaN());
}

Value IsinfOp::buildScalar(Operation *, OpBuilder &b, Location loc,
                           ValueRange args) {
  return buildInfinityTest(args, b, loc, arith::CmpFPredicate::OEQ,
                           /*forIntegers=*/false);
}

std::optional<Scalar> IsinfOp::foldScalar(Operation *, ArrayRef<Scalar> args) {
  const APFloat *x = getFloat(args[0]);
  return boolean(x && x->isInfinity());
}

Value IsfiniteOp::buildScalar(Operation *, OpBuilder &b, Location loc,
                              ValueRange args) {
  // Ordered: NaN is not finite.
  return buildInfinityTest(args, b, loc, arith::CmpFPredicate::OLT,
                           /*forIntegers=*/true);
}

std::optional<Scalar> IsfiniteOp::foldScalar(Operation *,
                                             ArrayRef<Scalar> args) {
  const APFloat *x = getFloat(args[0]);
  return boolean(!x || x->isFinite());
}

//===----------------------------------------------------------------------===//
// Unary float functions written out: reciprocal, sigmoid, silu, gelu
//===----------------------------------------------------------------------===//
//
// The others are one math op each (Bcast_FloatFunctionPair in BcastOps.td).
// These run in the compute type, f32 or f64 (ComputeTypeRule::FloatFunction),
// and fold with the same formulas through the C library, which the compiled
// code calls too.

Value ReciprocalOp::buildScalar(Operation *, OpBuilder &b, Location loc,
                                ValueRange args) {
  ScalarBuilder s{b, loc};
  return arith::DivFOp::create(b, loc, s.floatConst(args[0].getType(), 1.0),
                               args[0]);
}

std::optional<Scalar> ReciprocalOp::foldScalar(Operation *,
                                               ArrayRef<Scalar> args) {
  return foldFloatFunction(args, [](auto x) { return decltype(x)(1) / x; });
}

/// The logistic function without overflow or cancellation: with
/// e = exp(-|x|) in (0, 1], 1 / (1 + e) for x >= 0 and e / (1 + e) below, so
/// that results down to the subnormals are exact to a few rounding errors.
template <typename T> static T stableSigmoid(T x) {
  T e = std::exp(-std::fabs(x));
  return x >= 0 ? T(1) / (T(1) + e) : e / (T(1) + e);
}

static Value buildStableSigmoid(OpBuilder &b, Location loc, Value x) {
  ScalarBuilder s{b, loc};
  Type type = x.getType();
  Value one = s.floatConst(type, 1.0);
  Value e = math::ExpOp::create(
      b, loc, arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x)));
  Value denominator = arith::AddFOp::create(b, loc, one, e);
  Value numerator = s.select(
      s.cmpf(arith::CmpFPredicate::OGE, x, s.floatConst(type, 0.0)), one, e);
  return arith::DivFOp::create(b, loc, numerator, denominator);
}

Value SigmoidOp::buildScalar(Operation *, OpBuilder &b, Location loc,
                             ValueRange args) {
  return buildStableSigmoid(b, loc, args[0]);
}

std::optional<Scalar> SigmoidOp::foldScalar(Operation *,
                                            ArrayRef<Scalar> args) {
  return foldFloatFunction(args, [](auto x) { return stableSigmoid(x); });
}

Value SiluOp::buildScalar(Operation *, OpBuilder &b, Location loc,
                          ValueRange args) {
  // f32 through f64, rounded once: below x = -87 sigmoid(x) is subnormal in
  // f32, and x * sigmoid(x) would keep only its few bits.
  Type type = args[0].getType();
  Type f64 = b.getF64Type();
  Value x = args[0];
  if (type != f64)
    x = arith::ExtFOp::create(b, loc, f64, x);
  Value result =
      arith::MulFOp::create(b, loc, x, buildStableSigmoid(b, loc, x));
  if (type != f64)
    result = arith::TruncFOp::create(b, loc, type, result);
  return result;
}

std::optional<Scalar> SiluOp::foldScalar(Operation *, ArrayRef<Scalar> args) {
  return foldFloatFunction(args, [](auto x) {
    auto wide = static_cast<double>(x);
    return decltype(x)(wide * stableSigmoid(wide));
  });
}

/// sqrt(2 / pi) and 1 / sqrt(2), to double precision.
static constexpr double kSqrt2OverPi = 0.7978845608028654;
static constexpr double kSqrtHalf = 0.7071067811865476;
static constexpr double kPi = 3.141592653589793;

/// GELU in double: x * Phi(x) = 0.5 * x * erfc(-x / sqrt(2)), or the tanh
/// form 0.5 * x * (1 + tanh(u)) = x * sigmoid(2u); neither cancels.
static double gelu(double x, bool tanhForm) {
  if (tanhForm) {
    double twiceU = (2 * kSqrt2OverPi) * (x + 0.044715 * (x * (x * x)));
    return x * stableSigmoid(twiceU);
  }
  return (0.5 * x) * std::erfc(x * -kSqrtHalf);
}

static bool isTanhGelu(Operation *op) {
  std::optional<StringRef> approximate = cast<GeluOp>(op).getApproximate();
  return approximate && *approximate == "tanh";
}

Value GeluOp::buildScalar(Operation *op, OpBuilder &b, Location loc,
                          ValueRange args) {
  // f32 is computed in f64 and rounded once: in f32, the rounding of the
  // argument of erfc or exp is amplified in the tails by up to 2x^2.
  ScalarBuilder s{b, loc};
  Type type = args[0].getType();
  Type f64 = b.getF64Type();
  Value x = args[0];
  if (type != f64)
    x = arith::ExtFOp::create(b, loc, f64, x);
  Value result;
  if (isTanhGelu(op)) {
    Value cube =
        arith::MulFOp::create(b, loc, x, arith::MulFOp::create(b, loc, x, x));
    Value inner = arith::AddFOp::create(
        b, loc, x,
        arith::MulFOp::create(b, loc, s.floatConst(f64, 0.044715), cube));
    Value twiceU = arith::MulFOp::create(
        b, loc, s.floatConst(f64, 2 * kSqrt2OverPi), inner);
    result =
        arith::MulFOp::create(b, loc, x, buildStableSigmoid(b, loc, twiceU));
  } else {
    Value scaled =
        arith::MulFOp::create(b, loc, x, s.floatConst(f64, -kSqrtHalf));
    Value halfX = arith::MulFOp::create(b, loc, s.floatConst(f64, 0.5), x);
    // Rounded to f32 or narrower, an erfc within 1e-10 of the value moves
    // the result by a thousandth of an ULP: `afn` lets bcast-expand-erfc
    // compute it inline instead of calling libmvec. f64 gelu keeps the
    // C library's.
    auto flags =
        type != f64 ? arith::FastMathFlags::afn : arith::FastMathFlags::none;
    result = arith::MulFOp::create(b, loc, halfX,
                                   math::ErfcOp::create(b, loc, scaled, flags));
  }
  if (type != f64)
    result = arith::TruncFOp::create(b, loc, type, result);
  return result;
}

std::optional<Scalar> GeluOp::foldScalar(Operation *op, ArrayRef<Scalar> args) {
  bool tanhForm = isTanhGelu(op);
  return foldFloatFunction(args, [tanhForm](auto x) {
    return decltype(x)(gelu(static_cast<double>(x), tanhForm));
  });
}

//===----------------------------------------------------------------------===//
// Binary float functions: atan2, copysign, hypot
//===----------------------------------------------------------------------===//
//
// atan2 and hypot run in the compute type, f32 or f64 (f16 and bf16 are
// widened to f32 by their compute type rules), and fold through the C
// library in that precision; copysign is exact in every float type.

Value Atan2Op::buildScalar(Operation *, OpBuilder &b, Location loc,
                           ValueRange args) {
  ScalarBuilder s{b, loc};
  Value y = args[0], x = args[1];
  Value atan2 = math::Atan2Op::create(b, loc, y, x);
  // Upstream's math.atan2 folder gives NaN for two zero constants, where C
  // gives +-0 or +-pi, and canonicalization makes constants of operands
  // that are zero only once fused (`atan2(a != a, a != a)`, the
  // differential fuzzer's seed 3007266): C's value is selected there.
  Type type = y.getType();
  Value zero = s.floatConst(type, 0.0);
  Value yZero = s.cmpf(arith::CmpFPredicate::OEQ, y, zero);
  Value xZero = s.cmpf(arith::CmpFPredicate::OEQ, x, zero);
  Value bothZero = s.andi(yZero, xZero);
  Value xSign = math::CopySignOp::create(b, loc, s.floatConst(type, 1.0), x);
  Value xNegative = s.cmpf(arith::CmpFPredicate::OLT, xSign, zero);
  Value pi = s.floatConst(type, kPi);
  Value base = s.select(xNegative, pi, zero);
  return s.select(bothZero, math::CopySignOp::create(b, loc, base, y), atan2);
}

std::optional<Scalar> Atan2Op::foldScalar(Operation *, ArrayRef<Scalar> args) {
  return foldNative(*getFloat(args[0]), *getFloat(args[1]),
                    [](auto y, auto x) { return std::atan2(y, x); });
}

Value CopysignOp::buildScalar(Operation *, OpBuilder &b, Location loc,
                              ValueRange args) {
  return math::CopySignOp::create(b, loc, args[0], args[1]);
}

std::optional<Scalar> CopysignOp::foldScalar(Operation *,
                                             ArrayRef<Scalar> args) {
  return APFloat::copySign(*getFloat(args[0]), *getFloat(args[1]));
}

/// Whether the float `x` is +inf or -inf.
static Value buildIsInf(ScalarBuilder &s, Value x) {
  Type type = x.getType();
  Value infinity = arith::ConstantOp::create(
      s.b, s.loc, type,
      s.b.getFloatAttr(
          type, APFloat::getInf(cast<FloatType>(type).getFloatSemantics())));
  return s.cmpf(arith::CmpFPredicate::OEQ, math::AbsFOp::create(s.b, s.loc, x),
                infinity);
}

/// sqrt(x^2 + y^2) in f64 within 1 ulp, without overflow or underflow
/// (musl's algorithm): the larger magnitude picks a power-of-two scale that
/// keeps the squares and their rounding errors normal, each square is split
/// exactly into a head and a tail with `fma`, and the four parts are summed
/// from the smallest. NaN if either operand is (infinities aside).
static Value buildHypotF64(ScalarBuilder &s, Value x, Value y) {
  OpBuilder &b = s.b;
  Location loc = s.loc;
  Type type = x.getType();
  auto constant = [&](double value) { return s.floatConst(type, value); };
  Value ax = math::AbsFOp::create(b, loc, x);
  Value ay = math::AbsFOp::create(b, loc, y);
  Value yLarger = s.cmpf(arith::CmpFPredicate::OLT, ax, ay);
  Value big = s.select(yLarger, ay, ax);
  Value small = s.select(yLarger, ax, ay);
  Value scaleDown = s.cmpf(arith::CmpFPredicate::OGT, big, constant(0x1p510));
  Value scaleUp = s.cmpf(arith::CmpFPredicate::OLT, big, constant(0x1p-450));
  // Built one value at a time, so that the order of the ops is fixed.
  Value one = constant(1.0);
  Value up = constant(0x1p700);
  Value down = constant(0x1p-700);
  Value scale = s.select(scaleDown, down, s.select(scaleUp, up, one));
  Value unscale = s.select(scaleDown, up, s.select(scaleUp, down, one));
  auto square = [&](Value v) -> std::pair<Value, Value> {
    Value head = arith::MulFOp::create(b, loc, v, v);
    Value tail =
        math::FmaOp::create(b, loc, v, v, arith::NegFOp::create(b, loc, head));
    return {head, tail};
  };
  auto [hx, lx] = square(arith::MulFOp::create(b, loc, big, scale));
  auto [hy, ly] = square(arith::MulFOp::create(b, loc, small, scale));
  Value sum = arith::AddFOp::create(b, loc, ly, lx);
  sum = arith::AddFOp::create(b, loc, sum, hy);
  sum = arith::AddFOp::create(b, loc, sum, hx);
  return arith::MulFOp::create(b, loc, unscale,
                               math::SqrtOp::create(b, loc, sum));
}

Value HypotOp::buildScalar(Operation *, OpBuilder &b, Location loc,
                           ValueRange args) {
  ScalarBuilder s{b, loc};
  Value x = args[0], y = args[1];
  Type type = x.getType();
  Value result;
  if (type.isF64()) {
    result = buildHypotF64(s, x, y);
  } else {
    // f32: the squares are exact in f64 and cannot overflow there; one
    // rounding of the sum, the square root's, and the final one.
    Type f64 = b.getF64Type();
    Value x64 = arith::ExtFOp::create(b, loc, f64, x);
    Value y64 = arith::ExtFOp::create(b, loc, f64, y);
    Value xx = arith::MulFOp::create(b, loc, x64, x64);
    Value yy = arith::MulFOp::create(b, loc, y64, y64);
    Value sum = arith::AddFOp::create(b, loc, xx, yy);
    result = arith::TruncFOp::create(b, loc, type,
                                     math::SqrtOp::create(b, loc, sum));
  }
  // C's hypot is +inf when either operand is infinite, even with a NaN.
  Value xInf = buildIsInf(s, x);
  Value yInf = buildIsInf(s, y);
  Value eitherInf = arith::OrIOp::create(b, loc, xInf, yInf);
  Value infinity = arith::ConstantOp::create(
      b, loc, type,
      b.getFloatAttr(
          type, APFloat::getInf(cast<FloatType>(type).getFloatSemantics())));
  return s.select(eitherInf, infinity, result);
}

std::optional<Scalar> HypotOp::foldScalar(Operation *, ArrayRef<Scalar> args) {
  return foldNative(*getFloat(args[0]), *getFloat(args[1]),
                    [](auto x, auto y) { return std::hypot(x, y); });
}

//===----------------------------------------------------------------------===//
// bitwise_left_shift, bitwise_right_shift (NumPy's out-of-range amounts)
//===----------------------------------------------------------------------===//

/// Whether a shift amount lies in [0, bit width): compared unsigned, so that
/// a negative amount is out of range too.
static Value buildShiftInRange(ScalarBuilder &s, Value amount) {
  Type type = amount.getType();
  return s.cmpi(arith::CmpIPredicate::ult, amount,
                s.intConst(type, type.getIntOrFloatBitWidth()));
}

Value BitwiseLeftShiftOp::buildScalar(Operation *, OpBuilder &b, Location loc,
                                      ValueRange args) {
  ScalarBuilder s{b, loc};
  Value zero = s.intConst(args[0].getType(), 0);
  Value inRange = buildShiftInRange(s, args[1]);
  // The amount is clamped first: arith.shli by the bit width is poison.
  Value amount = s.select(inRange, args[1], zero);
  return s.select(inRange, arith::ShLIOp::create(b, loc, args[0], amount),
                  zero);
}

std::optional<Scalar> BitwiseLeftShiftOp::foldScalar(Operation *,
                                                     ArrayRef<Scalar> args) {
  const APInt &x = getInt(args[0]), &amount = getInt(args[1]);
  unsigned width = x.getBitWidth();
  if (amount.uge(width))
    return APInt(width, 0);
  return x.shl(amount);
}

Value BitwiseRightShiftOp::buildScalar(Operation *op, OpBuilder &b,
                                       Location loc, ValueRange args) {
  ScalarBuilder s{b, loc};
  Value x = args[0];
  Type type = x.getType();
  Value inRange = buildShiftInRange(s, args[1]);
  if (isUnsignedCompute(op)) {
    Value zero = s.intConst(type, 0);
    Value amount = s.select(inRange, args[1], zero);
    return s.select(inRange, arith::ShRUIOp::create(b, loc, x, amount), zero);
  }
  // Shifting by width - 1 fills every bit with the sign, as an amount out of
  // range does in NumPy.
  Value amount = s.select(inRange, args[1],
                          s.intConst(type, type.getIntOrFloatBitWidth() - 1));
  return arith::ShRSIOp::create(b, loc, x, amount);
}

std::optional<Scalar> BitwiseRightShiftOp::foldScalar(Operation *op,
                                                      ArrayRef<Scalar> args) {
  const APInt &x = getInt(args[0]), &amount = getInt(args[1]);
  unsigned width = x.getBitWidth();
  bool inRange = amount.ult(width);
  if (isUnsignedCompute(op))
    return inRange ? x.lshr(amount) : APInt(width, 0);
  return x.ashr(inRange ? amount.getZExtValue() : width - 1);
}

//===----------------------------------------------------------------------===//
// logical_and, logical_or, logical_xor (any types, an i1 value)
//===----------------------------------------------------------------------===//

/// `x != 0` on one element of any type (NaN is nonzero).
static Value buildIsNonZero(ScalarBuilder &s, Value x) {
  Type type = x.getType();
  if (isa<FloatType>(type))
    return s.cmpf(arith::CmpFPredicate::UNE, x, s.floatConst(type, 0.0));
  if (type.isInteger(1))
    return x;
  return s.cmpi(arith::CmpIPredicate::ne, x, s.intConst(type, 0));
}

static bool isNonZero(const Scalar &x) {
  if (const APFloat *f = getFloat(x))
    return !f->isZero();
  return !getInt(x).isZero();
}

Value LogicalAndOp::buildScalar(Operation *, OpBuilder &b, Location loc,
                                ValueRange args) {
  ScalarBuilder s{b, loc};
  Value lhs = buildIsNonZero(s, args[0]);
  return s.andi(lhs, buildIsNonZero(s, args[1]));
}

std::optional<Scalar> LogicalAndOp::foldScalar(Operation *,
                                               ArrayRef<Scalar> args) {
  return boolean(isNonZero(args[0]) && isNonZero(args[1]));
}

Value LogicalOrOp::buildScalar(Operation *, OpBuilder &b, Location loc,
                               ValueRange args) {
  ScalarBuilder s{b, loc};
  Value lhs = buildIsNonZero(s, args[0]);
  return arith::OrIOp::create(b, loc, lhs, buildIsNonZero(s, args[1]));
}

std::optional<Scalar> LogicalOrOp::foldScalar(Operation *,
                                              ArrayRef<Scalar> args) {
  return boolean(isNonZero(args[0]) || isNonZero(args[1]));
}

Value LogicalXorOp::buildScalar(Operation *, OpBuilder &b, Location loc,
                                ValueRange args) {
  ScalarBuilder s{b, loc};
  Value lhs = buildIsNonZero(s, args[0]);
  return s.xori(lhs, buildIsNonZero(s, args[1]));
}

std::optional<Scalar> LogicalXorOp::foldScalar(Operation *,
                                               ArrayRef<Scalar> args) {
  return boolean(isNonZero(args[0]) != isNonZero(args[1]));
}

//===----------------------------------------------------------------------===//
// Three-operand ops: clamp, lerp, addcmul, addcdiv
//===----------------------------------------------------------------------===//

Value ClampOp::buildScalar(Operation *op, OpBuilder &b, Location loc,
                           ValueRange args) {
  Value x = args[0], lo = args[1], hi = args[2];
  if (isFloat(args))
    return arith::MinimumFOp::create(
        b, loc, arith::MaximumFOp::create(b, loc, x, lo), hi);
  if (isUnsignedCompute(op))
    return arith::MinUIOp::create(b, loc, arith::MaxUIOp::create(b, loc, x, lo),
                                  hi);
  return arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, x, lo),
                                hi);
}

std::optional<Scalar> ClampOp::foldScalar(Operation *op,
                                          ArrayRef<Scalar> args) {
  if (const APFloat *x = getFloat(args[0]))
    return llvm::minimum(llvm::maximum(*x, *getFloat(args[1])),
                         *getFloat(args[2]));
  const APInt &x = getInt(args[0]), &lo = getInt(args[1]),
              &hi = getInt(args[2]);
  if (isUnsignedCompute(op))
    return llvm::APIntOps::umin(llvm::APIntOps::umax(x, lo), hi);
  return llvm::APIntOps::smin(llvm::APIntOps::smax(x, lo), hi);
}

Value LerpOp::buildScalar(Operation *, OpBuilder &b, Location loc,
                          ValueRange args) {
  ScalarBuilder s{b, loc};
  Value start = args[0], end = args[1], weight = args[2];
  Type type = start.getType();
  Value diff = arith::SubFOp::create(b, loc, end, start);
  // PyTorch 1.13 compares the weight itself, not its magnitude: a weight
  // below -0.5 takes the first formula too.
  Value isSmall =
      s.cmpf(arith::CmpFPredicate::OLT, weight, s.floatConst(type, 0.5));
  Value fromStart = arith::AddFOp::create(
      b, loc, start, arith::MulFOp::create(b, loc, weight, diff));
  Value complement =
      arith::SubFOp::create(b, loc, s.floatConst(type, 1.0), weight);
  Value fromEnd = arith::SubFOp::create(
      b, loc, end, arith::MulFOp::create(b, loc, diff, complement));
  return s.select(isSmall, fromStart, fromEnd);
}

std::optional<Scalar> LerpOp::foldScalar(Operation *, ArrayRef<Scalar> args) {
  const APFloat &start = *getFloat(args[0]), &end = *getFloat(args[1]),
                &weight = *getFloat(args[2]);
  const llvm::fltSemantics &semantics = start.getSemantics();
  APFloat::roundingMode rounding = APFloat::rmNearestTiesToEven;
  APFloat diff = end;
  diff.subtract(start, rounding);
  if (weight.compare(APFloat(semantics, "0.5")) == APFloat::cmpLessThan) {
    APFloat result = weight;
    result.multiply(diff, rounding);
    result.add(start, rounding);
    return result;
  }
  APFloat complement(semantics, 1);
  complement.subtract(weight, rounding);
  diff.multiply(complement, rounding);
  APFloat result = end;
  result.subtract(diff, rounding);
  return result;
}

/// addcmul's and addcdiv's `value` rounded to the float compute type of
/// `semantics` (1 when the attribute is absent).
static APFloat getFloatScale(Operation *op,
                             const llvm::fltSemantics &semantics) {
  auto attr = op->getAttrOfType<FloatAttr>("value");
  APFloat value = attr ? attr.getValue() : APFloat(1.0);
  bool losesInfo;
  value.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
  return value;
}

/// The same `value` truncated towards zero to an integer compute type of
/// `width` bits (the verifier checked that it fits).
static APInt getIntScale(Operation *op, unsigned width) {
  auto attr = op->getAttrOfType<FloatAttr>("value");
  if (!attr)
    return APInt(width, 1);
  llvm::APSInt result(width, isUnsignedCompute(op));
  bool isExact;
  (void)attr.getValue().convertToInteger(result, APFloat::rmTowardZero,
                                         &isExact);
  return result;
}

/// `input + (value * tensor1) <op> tensor2` with `FloatOp` (mulf or divf) or
/// `IntOp` (muli), skipping the product by a `value` of 1 (exact).
template <typename FloatOp, typename IntOp>
static Value buildScaledUpdate(Operation *op, OpBuilder &b, Location loc,
                               ValueRange args) {
  Type type = args[0].getType();
  Value product = args[1];
  if (auto floatType = dyn_cast<FloatType>(type)) {
    APFloat scale = getFloatScale(op, floatType.getFloatSemantics());
    if (!scale.isExactlyValue(1.0)) {
      Value constant =
          arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, scale));
      product = arith::MulFOp::create(b, loc, constant, product);
    }
    product = FloatOp::create(b, loc, product, args[2]);
    return arith::AddFOp::create(b, loc, args[0], product);
  }
  APInt scale = getIntScale(op, type.getIntOrFloatBitWidth());
  if (!scale.isOne()) {
    Value constant =
        arith::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, scale));
    product = arith::MulIOp::create(b, loc, constant, product);
  }
  product = IntOp::create(b, loc, product, args[2]);
  return arith::AddIOp::create(b, loc, args[0], product);
}

/// The same on constant floats, with `combine` the product or quotient.
template <typename Combine>
static APFloat foldScaledUpdate(Operation *op, ArrayRef<Scalar> args,
                                Combine combine) {
  const APFloat &input = *getFloat(args[0]);
  APFloat scale = getFloatScale(op, input.getSemantics());
  APFloat update = *getFloat(args[1]);
  if (!scale.isExactlyValue(1.0))
    update.multiply(scale, APFloat::rmNearestTiesToEven);
  combine(update, *getFloat(args[2]));
  APFloat result = input;
  result.add(update, APFloat::rmNearestTiesToEven);
  return result;
}

Value AddcmulOp::buildScalar(Operation *op, OpBuilder &b, Location loc,
                             ValueRange args) {
  return buildScaledUpdate<arith::MulFOp, arith::MulIOp>(op, b, loc, args);
}

std::optional<Scalar> AddcmulOp::foldScalar(Operation *op,
                                            ArrayRef<Scalar> args) {
  if (getFloat(args[0]))
    return foldScaledUpdate(op, args, [](APFloat &lhs, const APFloat &rhs) {
      lhs.multiply(rhs, APFloat::rmNearestTiesToEven);
    });
  const APInt &input = getInt(args[0]);
  APInt scale = getIntScale(op, input.getBitWidth());
  return input + scale * getInt(args[1]) * getInt(args[2]);
}

Value AddcdivOp::buildScalar(Operation *op, OpBuilder &b, Location loc,
                             ValueRange args) {
  // The verifier made the compute type a float: no integer division here.
  return buildScaledUpdate<arith::DivFOp, arith::MulIOp>(op, b, loc, args);
}

std::optional<Scalar> AddcdivOp::foldScalar(Operation *op,
                                            ArrayRef<Scalar> args) {
  if (!getFloat(args[0]))
    return std::nullopt;
  return foldScaledUpdate(op, args, [](APFloat &lhs, const APFloat &rhs) {
    lhs.divide(rhs, APFloat::rmNearestTiesToEven);
  });
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
