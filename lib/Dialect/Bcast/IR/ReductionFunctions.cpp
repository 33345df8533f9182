//===- ReductionFunctions.cpp - What each reduction computes --------------===//
//
// The reduction table: for every reduction op, side by side, its result
// element type rule (`inferElementType`, PyTorch's dtype rule and
// sentence), its loops (`buildReduction`: the identity its accumulator
// starts from, the combiner that folds each element in, and the finish
// step over the reduced tensor) and the same semantics on constants
// (`foldGroup`), so that the lowering and folding cannot drift apart. ODS
// (Bcast_ReductionOp) says the rest: the accumulator type, whether an
// element is picked, how shards combine. The shared rules (dims, shapes,
// the verifier's order, grouping constants) are in BcastReductions.cpp.
//
// Folding is exact for integers, bools, maxima, minima and indices. Float
// sums, means, variances and logsumexp are folded for f16, bf16 and f32
// inputs by computing in f64 and rounding once: at least as accurate as
// the run-time blocked sums, though not always bit-identical to them. f64
// inputs are folded only where the result is exact (maxima, minima,
// indices, any, all) or the group is empty.
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/IR/ReductionFunctions.h"
#include "bcast/Dialect/Bcast/IR/BcastOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::bcast;
using llvm::APFloat;
using llvm::APInt;

//===----------------------------------------------------------------------===//
// Shared pieces
//===----------------------------------------------------------------------===//

static bool isUnsignedOrBool(Type type) {
  auto integer = dyn_cast<IntegerType>(type);
  return integer && (integer.isUnsigned() || integer.getWidth() == 1);
}

static Type signless(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type))
    return IntegerType::get(type.getContext(), integer.getWidth());
  return type;
}

ReductionEmitter::~ReductionEmitter() = default;

Value ReductionEmitter::accumulate(TypedAttr identity, CombineFn combine) {
  Value init = fill(identity);
  return reduce(init, {},
                [&](OpBuilder &nb, Location nl, Value x, ValueRange,
                    ValueRange accs) -> SmallVector<Value> {
                  return {combine(nb, nl, accs[0], x)};
                })[0];
}

Value ReductionEmitter::load(OpBuilder &nb, Location nl, Value x) const {
  return buildConversion(nb, nl, x, input, accumulator);
}

Type ReductionEmitter::getAccumulatorScalar() const {
  return signless(accumulator);
}

Type bcast::getOpMathType(Type type) {
  if (isa<FloatType>(type) && type.getIntOrFloatBitWidth() == 16)
    return Float32Type::get(type.getContext());
  return type;
}

Type bcast::getReductionAccumulatorType(ReductionAccumulator rule, Type input,
                                        Type result) {
  switch (rule) {
  case ReductionAccumulator::Input:
    return input;
  case ReductionAccumulator::OpMath:
    // A null result (an input type the op rejects) has no accumulator.
    return result ? getOpMathType(result) : Type();
  }
  llvm_unreachable("unknown accumulator rule");
}

TypedAttr bcast::getZeroAttr(Type type) {
  Builder b(type.getContext());
  if (isa<FloatType>(type))
    return b.getFloatAttr(type, 0.0);
  return b.getIntegerAttr(signless(type),
                          APInt(type.getIntOrFloatBitWidth(), 0));
}

TypedAttr bcast::getOneAttr(Type type) {
  Builder b(type.getContext());
  if (isa<FloatType>(type))
    return b.getFloatAttr(type, 1.0);
  return b.getIntegerAttr(signless(type),
                          APInt(type.getIntOrFloatBitWidth(), 1));
}

TypedAttr bcast::getLowestAttr(Type type) {
  Builder b(type.getContext());
  if (auto floatType = dyn_cast<FloatType>(type))
    return b.getFloatAttr(type,
                          APFloat::getInf(floatType.getFloatSemantics(), true));
  unsigned width = type.getIntOrFloatBitWidth();
  return b.getIntegerAttr(
      signless(type), isUnsignedOrBool(type) ? APInt::getMinValue(width)
                                             : APInt::getSignedMinValue(width));
}

TypedAttr bcast::getHighestAttr(Type type) {
  Builder b(type.getContext());
  if (auto floatType = dyn_cast<FloatType>(type))
    return b.getFloatAttr(
        type, APFloat::getInf(floatType.getFloatSemantics(), false));
  unsigned width = type.getIntOrFloatBitWidth();
  return b.getIntegerAttr(
      signless(type), isUnsignedOrBool(type) ? APInt::getMaxValue(width)
                                             : APInt::getSignedMaxValue(width));
}

Value bcast::buildAdd(OpBuilder &b, Location loc, Type type, Value lhs,
                      Value rhs) {
  return isa<FloatType>(type) ? Value(arith::AddFOp::create(b, loc, lhs, rhs))
                              : Value(arith::AddIOp::create(b, loc, lhs, rhs));
}

static Value buildMul(OpBuilder &b, Location loc, Type type, Value lhs,
                      Value rhs) {
  return isa<FloatType>(type) ? Value(arith::MulFOp::create(b, loc, lhs, rhs))
                              : Value(arith::MulIOp::create(b, loc, lhs, rhs));
}

/// The maximum (`greater`) or minimum; NaN propagates.
static Value buildMaxOrMin(OpBuilder &b, Location loc, Type type, Value lhs,
                           Value rhs, bool greater) {
  if (isa<FloatType>(type))
    return greater ? Value(arith::MaximumFOp::create(b, loc, lhs, rhs))
                   : Value(arith::MinimumFOp::create(b, loc, lhs, rhs));
  if (isUnsignedOrBool(type))
    return greater ? Value(arith::MaxUIOp::create(b, loc, lhs, rhs))
                   : Value(arith::MinUIOp::create(b, loc, lhs, rhs));
  return greater ? Value(arith::MaxSIOp::create(b, loc, lhs, rhs))
                 : Value(arith::MinSIOp::create(b, loc, lhs, rhs));
}

Value bcast::reduceMaximum(ReductionEmitter &e, Value lowest) {
  return e.reduce(
      lowest, {},
      [&](OpBuilder &nb, Location nl, Value x, ValueRange,
          ValueRange accs) -> SmallVector<Value> {
        return {arith::MaximumFOp::create(nb, nl, accs[0], e.load(nb, nl, x))};
      })[0];
}

Value bcast::reduceShiftedExp(ReductionEmitter &e, Value zeros, Value shift) {
  return e.reduce(zeros, shift,
                  [&](OpBuilder &nb, Location nl, Value x, ValueRange stats,
                      ValueRange accs) -> SmallVector<Value> {
                    Value d = arith::SubFOp::create(nb, nl, e.load(nb, nl, x),
                                                    stats[0]);
                    Value exp = math::ExpOp::create(nb, nl, d);
                    return {arith::AddFOp::create(nb, nl, accs[0], exp)};
                  })[0];
}

/// `x != 0` (NaN counts as non-zero).
static Value isNonZero(OpBuilder &b, Location loc, Value x) {
  ScalarBuilder s{b, loc};
  if (isa<FloatType>(x.getType()))
    return s.cmpf(arith::CmpFPredicate::UNE, x, s.floatConst(x.getType(), 0.0));
  return s.cmpi(arith::CmpIPredicate::ne, x, s.intConst(x.getType(), 0));
}

/// An index value as a float of type `type`.
static Value indexToFloat(OpBuilder &b, Location loc, Value index, Type type) {
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  return arith::SIToFPOp::create(b, loc, type, i64);
}

//===----------------------------------------------------------------------===//
// Folding helpers
//===----------------------------------------------------------------------===//

/// PyTorch's name of `type` (`Long`), or MLIR's for types it lacks.
static std::string getTypeName(Type type) {
  if (std::optional<DType> dtype = getDType(type))
    return getTorchName(*dtype).str();
  std::string name;
  llvm::raw_string_ostream os(name);
  os << type;
  return name;
}

static const llvm::fltSemantics &getSemantics(Type type) {
  return cast<FloatType>(type).getFloatSemantics();
}

/// `value` (computed in f64) rounded once to the float type `type`.
static APFloat roundTo(double value, Type type) {
  APFloat result(value);
  bool losesInfo = false;
  result.convert(getSemantics(type), APFloat::rmNearestTiesToEven, &losesInfo);
  return result;
}

static double toDouble(const Scalar &value) {
  APFloat copy = std::get<APFloat>(value);
  bool losesInfo = false;
  copy.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &losesInfo);
  return copy.convertToDouble();
}

/// An integer element of type `type` widened to 64 bits (signless integers
/// are signed, i1 and unsigned integers zero-extended).
static APInt widenInteger(const APInt &value, Type type) {
  if (isUnsignedOrBool(type))
    return value.zext(64);
  return value.sext(64);
}

static bool isNonZero(const Scalar &value) {
  if (const auto *f = std::get_if<APFloat>(&value))
    return !f->isZero();
  return !std::get<APInt>(value).isZero();
}

/// Whether `candidate` should replace the current pick `current` of a
/// maximum (`greater`) or minimum of elements of type `type`: strictly
/// better, or the first NaN.
static bool isBetter(const Scalar &candidate, const Scalar &current, Type type,
                     bool greater) {
  if (const auto *c = std::get_if<APFloat>(&candidate)) {
    const APFloat &best = std::get<APFloat>(current);
    if (best.isNaN())
      return false;
    if (c->isNaN())
      return true;
    APFloat::cmpResult order = c->compare(best);
    return greater ? order == APFloat::cmpGreaterThan
                   : order == APFloat::cmpLessThan;
  }
  const APInt &c = std::get<APInt>(candidate);
  const APInt &best = std::get<APInt>(current);
  bool isUnsigned = isUnsignedOrBool(type);
  if (greater)
    return isUnsigned ? best.ult(c) : best.slt(c);
  return isUnsigned ? c.ult(best) : c.slt(best);
}

/// The position in `values` of the first greatest (`greater`) or least
/// element, NaN first; std::nullopt for no element.
static std::optional<size_t> pick(ArrayRef<Scalar> values, Type type,
                                  bool greater) {
  if (values.empty())
    return std::nullopt;
  size_t best = 0;
  for (size_t i = 1; i < values.size(); ++i)
    if (isBetter(values[i], values[best], type, greater))
      best = i;
  return best;
}

/// A float sum, mean or variance of a group, computed in f64 and rounded
/// once to `result`: `empty` for no element, std::nullopt for f64 results
/// (not reproduced: the run-time sums are blocked).
template <typename Fn>
static std::optional<Scalar> foldFloatStatistic(ArrayRef<Scalar> values,
                                                Type result, APFloat empty,
                                                Fn statistic) {
  if (values.empty())
    return empty;
  if (result.isF64())
    return std::nullopt;
  SmallVector<double> elements;
  for (const Scalar &value : values)
    elements.push_back(toDouble(value));
  return roundTo(statistic(ArrayRef<double>(elements)), result);
}

static double sumOf(ArrayRef<double> elements) {
  double sum = 0;
  for (double element : elements)
    sum += element;
  return sum;
}

//===----------------------------------------------------------------------===//
// sum, prod
//===----------------------------------------------------------------------===//

/// Integers and i1 give i64, or ui64 for the unsigned types PyTorch 1.13
/// lacks (ui8 is PyTorch's uint8, which sums to int64); floats keep their
/// type.
static Type getSumType(Type input) {
  auto integer = dyn_cast<IntegerType>(input);
  if (!integer)
    return input;
  MLIRContext *context = input.getContext();
  if (integer.isUnsigned() && integer.getWidth() > 8)
    return IntegerType::get(context, 64, IntegerType::Unsigned);
  return IntegerType::get(context, 64);
}

/// Integer sums and products wrap in 64 bits.
static std::optional<Scalar> foldIntegerSumOrProduct(ArrayRef<Scalar> values,
                                                     Type input, bool sum) {
  APInt acc(64, sum ? 0 : 1);
  for (const Scalar &value : values) {
    APInt element = widenInteger(std::get<APInt>(value), input);
    acc = sum ? acc + element : acc * element;
  }
  return acc;
}

/// A 64-bit integer sum or product as an element of the integer type
/// `result`: wrapped to its width, or, for i1 (`dtype = i1`), whether it is
/// non-zero (a bool sum is a logical or, a product a logical and).
static Scalar fitInteger(const Scalar &value, Type result) {
  const APInt &wide = std::get<APInt>(value);
  unsigned width = result.getIntOrFloatBitWidth();
  if (width == 1)
    return APInt(1, !wide.isZero());
  return wide.zextOrTrunc(width);
}

/// The element type the input is reduced in: `dtype`'s, or the input's.
static Type getReducedInputType(std::optional<Type> dtype, Type input) {
  return dtype ? *dtype : input;
}

Type SumOp::inferElementType(Adaptor adaptor, Type input, std::string *) {
  // PyTorch's `dtype=`: the input is converted to it, and summed in it.
  if (std::optional<Type> dtype = adaptor.getDtype())
    return *dtype;
  return getSumType(input);
}

Value SumOp::buildReduction(ReductionEmitter &e) {
  Type acc = e.getAccumulatorType();
  // Identity 0, combiner + (a logical or for an i1 `dtype`, as bcast.add);
  // the finish step rounds f16 and bf16 once.
  return e.accumulate(
      getZeroAttr(acc), [&](OpBuilder &nb, Location nl, Value sum, Value x) {
        Value element = e.load(nb, nl, x);
        if (acc.isInteger(1))
          return Value(arith::OrIOp::create(nb, nl, sum, element));
        return buildAdd(nb, nl, acc, sum, element);
      });
}

std::optional<Scalar> SumOp::foldGroup(ArrayRef<Scalar> values,
                                       ArrayRef<int64_t>) {
  Type input =
      getReducedInputType(getDtype(), getX().getType().getElementType());
  Type result = getType().getElementType();
  if (!isa<FloatType>(input))
    return fitInteger(*foldIntegerSumOrProduct(values, input, /*sum=*/true),
                      result);
  return foldFloatStatistic(values, result,
                            APFloat::getZero(getSemantics(result)), sumOf);
}

Type ProdOp::inferElementType(Adaptor adaptor, Type input, std::string *) {
  if (std::optional<Type> dtype = adaptor.getDtype())
    return *dtype;
  return getSumType(input);
}

Value ProdOp::buildReduction(ReductionEmitter &e) {
  Type acc = e.getAccumulatorType();
  // Identity 1, combiner * (a logical and for i1); the finish step rounds
  // f16 and bf16 once.
  return e.accumulate(
      getOneAttr(acc), [&](OpBuilder &nb, Location nl, Value product, Value x) {
        return buildMul(nb, nl, acc, product, e.load(nb, nl, x));
      });
}

std::optional<Scalar> ProdOp::foldGroup(ArrayRef<Scalar> values,
                                        ArrayRef<int64_t>) {
  Type input =
      getReducedInputType(getDtype(), getX().getType().getElementType());
  Type result = getType().getElementType();
  if (!isa<FloatType>(input))
    return fitInteger(*foldIntegerSumOrProduct(values, input, /*sum=*/false),
                      result);
  return foldFloatStatistic(values, result,
                            APFloat::getOne(getSemantics(result)),
                            [](ArrayRef<double> elements) {
                              double product = 1;
                              for (double element : elements)
                                product *= element;
                              return product;
                            });
}

/// sum_to_size is PyTorch's `sum` where it sums anything (its `sum_to`
/// returns the tensor itself otherwise): leading dims, a target 1 over a
/// size that is not 1, or a rank-0 target, which it always sums.
Type SumToSizeOp::inferElementType(RankedTensorType input,
                                   ArrayRef<int64_t> target, bool *atRunTime) {
  Type element = input.getElementType();
  Type sum = getSumType(element);
  if (atRunTime)
    *atRunTime = false;
  int64_t offset = input.getRank() - static_cast<int64_t>(target.size());
  // A longer target does not expand (the verifier's shape error).
  if (offset < 0)
    return element;
  if (target.empty() || offset > 0)
    return sum;
  bool dynamic = false;
  for (auto [dim, size] : llvm::enumerate(target)) {
    if (size != 1)
      continue;
    int64_t inputSize = input.getDimSize(dim + offset);
    if (ShapedType::isDynamic(inputSize))
      dynamic = true;
    else if (inputSize != 1)
      return sum;
  }
  if (!dynamic)
    return element;
  if (atRunTime)
    *atRunTime = true;
  return sum;
}

//===----------------------------------------------------------------------===//
// amax, amin
//===----------------------------------------------------------------------===//

/// The greatest or least element (NaN propagates), of the input type.
static Value buildPick(ReductionEmitter &e, bool greater) {
  Type acc = e.getAccumulatorType();
  return e.accumulate(greater ? getLowestAttr(acc) : getHighestAttr(acc),
                      [&](OpBuilder &nb, Location nl, Value best, Value x) {
                        return buildMaxOrMin(nb, nl, acc, best,
                                             e.load(nb, nl, x), greater);
                      });
}

static std::optional<Scalar> foldPick(ArrayRef<Scalar> values, Type input,
                                      bool greater) {
  std::optional<size_t> best = pick(values, input, greater);
  if (!best)
    return std::nullopt;
  return values[*best];
}

Type AmaxOp::inferElementType(Adaptor, Type input, std::string *) {
  return input;
}

Value AmaxOp::buildReduction(ReductionEmitter &e) {
  return buildPick(e, /*greater=*/true);
}

std::optional<Scalar> AmaxOp::foldGroup(ArrayRef<Scalar> values,
                                        ArrayRef<int64_t>) {
  return foldPick(values, getX().getType().getElementType(), true);
}

Type AminOp::inferElementType(Adaptor, Type input, std::string *) {
  return input;
}

Value AminOp::buildReduction(ReductionEmitter &e) {
  return buildPick(e, /*greater=*/false);
}

std::optional<Scalar> AminOp::foldGroup(ArrayRef<Scalar> values,
                                        ArrayRef<int64_t>) {
  return foldPick(values, getX().getType().getElementType(), false);
}

//===----------------------------------------------------------------------===//
// any, all
//===----------------------------------------------------------------------===//

/// Accumulators of truth values from `x != 0`: or from false (any), and
/// from true (all), in the accumulator type (i1, or ui8's 0 and 1).
static Value buildTruth(ReductionEmitter &e, bool any) {
  Type acc = e.getAccumulatorType();
  return e.accumulate(
      any ? getZeroAttr(acc) : getOneAttr(acc),
      [&](OpBuilder &nb, Location nl, Value truth, Value x) {
        Value nonZero = isNonZero(nb, nl, x);
        if (truth.getType() != nonZero.getType())
          nonZero = arith::ExtUIOp::create(nb, nl, truth.getType(), nonZero);
        if (any)
          return Value(arith::OrIOp::create(nb, nl, truth, nonZero));
        return Value(arith::AndIOp::create(nb, nl, truth, nonZero));
      });
}

/// any's and all's result: uint8 (0 or 1) for uint8 inputs, a legacy of
/// PyTorch's that 1.13 documents and keeps; bool for every other type.
static Type getTruthType(Type input) {
  if (auto integer = dyn_cast<IntegerType>(input))
    if (integer.isUnsigned() && integer.getWidth() == 8)
      return input;
  return IntegerType::get(input.getContext(), 1);
}

/// A folded truth value of the result type `result` (i1 or ui8).
static Scalar foldTruth(bool truth, Type result) {
  return APInt(result.getIntOrFloatBitWidth(), truth);
}

Type AnyOp::inferElementType(Adaptor, Type input, std::string *) {
  return getTruthType(input);
}

Value AnyOp::buildReduction(ReductionEmitter &e) {
  return buildTruth(e, /*any=*/true);
}

std::optional<Scalar> AnyOp::foldGroup(ArrayRef<Scalar> values,
                                       ArrayRef<int64_t>) {
  return foldTruth(
      llvm::any_of(values,
                   [](const Scalar &value) { return isNonZero(value); }),
      getType().getElementType());
}

Type AllOp::inferElementType(Adaptor, Type input, std::string *) {
  return getTruthType(input);
}

Value AllOp::buildReduction(ReductionEmitter &e) {
  return buildTruth(e, /*any=*/false);
}

std::optional<Scalar> AllOp::foldGroup(ArrayRef<Scalar> values,
                                       ArrayRef<int64_t>) {
  return foldTruth(
      llvm::all_of(values,
                   [](const Scalar &value) { return isNonZero(value); }),
      getType().getElementType());
}

//===----------------------------------------------------------------------===//
// mean, var, std
//===----------------------------------------------------------------------===//

/// The sum and the mean (the sum divided by the count, an index).
static std::pair<Value, Value> buildMean(ReductionEmitter &e, Value count,
                                         Value zeros) {
  Type acc = e.getAccumulatorScalar();
  Value sum = e.reduce(
      zeros, {},
      [&](OpBuilder &nb, Location nl, Value x, ValueRange,
          ValueRange accs) -> SmallVector<Value> {
        return {arith::AddFOp::create(nb, nl, accs[0], e.load(nb, nl, x))};
      })[0];
  Value mean =
      e.map(sum, acc, [&](OpBuilder &nb, Location nl, ValueRange args) {
        return arith::DivFOp::create(nb, nl, args[0],
                                     indexToFloat(nb, nl, count, acc));
      });
  return {sum, mean};
}

/// The variance in two passes (the mean, then the squared deviations from
/// it) divided by max(0, N - correction); its square root for std.
static Value buildVariance(ReductionEmitter &e, int64_t correction, bool sqrt) {
  OpBuilder &b = e.builder;
  Location loc = e.loc;
  Type acc = e.getAccumulatorScalar();
  Value count = e.count();
  Value zeros = e.fill(getZeroAttr(acc));
  Value mean = buildMean(e, count, zeros).second;
  Value squares =
      e.reduce(zeros, mean,
               [&](OpBuilder &nb, Location nl, Value x, ValueRange stats,
                   ValueRange accs) -> SmallVector<Value> {
                 Value d =
                     arith::SubFOp::create(nb, nl, e.load(nb, nl, x), stats[0]);
                 Value d2 = arith::MulFOp::create(nb, nl, d, d);
                 return {arith::AddFOp::create(nb, nl, accs[0], d2)};
               })[0];
  // max(0, N - correction), in i64 (a correction may be any i64).
  Value n = arith::IndexCastOp::create(b, loc, b.getI64Type(), count);
  Value c = arith::ConstantIntOp::create(b, loc, correction, 64);
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 64);
  Value dof = arith::SubIOp::create(b, loc, n, c);
  Value positive =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, n, c);
  dof = arith::SelectOp::create(b, loc, positive, dof, zero);
  Value divisor = arith::SIToFPOp::create(b, loc, acc, dof);
  return e.map(squares, acc, [&](OpBuilder &nb, Location nl, ValueRange args) {
    Value var = arith::DivFOp::create(nb, nl, args[0], divisor);
    return sqrt ? Value(math::SqrtOp::create(nb, nl, var)) : var;
  });
}

static std::optional<Scalar> foldVariance(ArrayRef<Scalar> values, Type result,
                                          int64_t correction, bool sqrt) {
  return foldFloatStatistic(
      values, result, APFloat::getNaN(getSemantics(result)),
      [&](ArrayRef<double> elements) {
        double n = elements.size();
        double mean = sumOf(elements) / n, squares = 0;
        for (double element : elements)
          squares += (element - mean) * (element - mean);
        double var = squares / std::max<double>(0, n - correction);
        return sqrt ? std::sqrt(var) : var;
      });
}

static Type requireFloat(Type input, std::string *error,
                         const Twine &sentence) {
  if (isa<FloatType>(input))
    return input;
  if (error)
    *error = sentence.str();
  return {};
}

Type MeanOp::inferElementType(Adaptor adaptor, Type input, std::string *error) {
  // PyTorch's `dtype=` converts any input; it must itself be a float.
  if (std::optional<Type> dtype = adaptor.getDtype())
    return requireFloat(*dtype, error,
                        "mean(): could not infer output dtype. Optional "
                        "dtype must be either a floating point or complex "
                        "dtype. Got: " +
                            getTypeName(*dtype));
  return requireFloat(input, error,
                      "mean(): could not infer output dtype. Input dtype "
                      "must be either a floating point or complex dtype. "
                      "Got: " +
                          getTypeName(input));
}

Value MeanOp::buildReduction(ReductionEmitter &e) {
  Value count = e.count();
  Value zeros = e.fill(getZeroAttr(e.getAccumulatorScalar()));
  return buildMean(e, count, zeros).second;
}

std::optional<Scalar> MeanOp::foldGroup(ArrayRef<Scalar> values,
                                        ArrayRef<int64_t>) {
  Type result = getType().getElementType();
  return foldFloatStatistic(values, result,
                            APFloat::getNaN(getSemantics(result)),
                            [](ArrayRef<double> elements) {
                              return sumOf(elements) / elements.size();
                            });
}

/// var's and std's `correction` (default 1: Bessel's correction).
static int64_t correctionOf(IntegerAttr attr) {
  return attr ? attr.getInt() : 1;
}

static constexpr const char *kVarianceSentence =
    "std and var only support floating point and complex dtypes";

Type VarOp::inferElementType(Adaptor, Type input, std::string *error) {
  return requireFloat(input, error, kVarianceSentence);
}

Value VarOp::buildReduction(ReductionEmitter &e) {
  return buildVariance(e, correctionOf(getCorrectionAttr()), /*sqrt=*/false);
}

std::optional<Scalar> VarOp::foldGroup(ArrayRef<Scalar> values,
                                       ArrayRef<int64_t>) {
  return foldVariance(values, getType().getElementType(),
                      correctionOf(getCorrectionAttr()), /*sqrt=*/false);
}

Type StdOp::inferElementType(Adaptor, Type input, std::string *error) {
  return requireFloat(input, error, kVarianceSentence);
}

Value StdOp::buildReduction(ReductionEmitter &e) {
  return buildVariance(e, correctionOf(getCorrectionAttr()), /*sqrt=*/true);
}

std::optional<Scalar> StdOp::foldGroup(ArrayRef<Scalar> values,
                                       ArrayRef<int64_t>) {
  return foldVariance(values, getType().getElementType(),
                      correctionOf(getCorrectionAttr()), /*sqrt=*/true);
}

//===----------------------------------------------------------------------===//
// logsumexp
//===----------------------------------------------------------------------===//

Type LogsumexpOp::inferElementType(Adaptor, Type input, std::string *) {
  return isa<FloatType>(input) ? input : Float32Type::get(input.getContext());
}

Value LogsumexpOp::buildReduction(ReductionEmitter &e) {
  Type acc = e.getAccumulatorType();
  Type accScalar = e.getAccumulatorScalar();
  Value lowest = e.fill(getLowestAttr(acc));
  Value max = reduceMaximum(e, lowest);
  // An infinite maximum is replaced by 0 (PyTorch), so that all -inf
  // gives -inf and +inf gives +inf rather than NaN.
  Value shift =
      e.map(max, accScalar, [&](OpBuilder &nb, Location nl, ValueRange args) {
        ScalarBuilder s{nb, nl};
        // |m| == inf (math.isinf has no LLVM lowering).
        Value isInf = s.cmpf(
            arith::CmpFPredicate::OEQ, math::AbsFOp::create(nb, nl, args[0]),
            arith::ConstantOp::create(nb, nl, getHighestAttr(acc)));
        return s.select(isInf, s.floatConst(accScalar, 0.0), args[0]);
      });
  Value zeros = e.fill(getZeroAttr(accScalar));
  Value sum = reduceShiftedExp(e, zeros, shift);
  return e.map(ValueRange{sum, shift}, accScalar,
               [&](OpBuilder &nb, Location nl, ValueRange args) {
                 Value log = math::LogOp::create(nb, nl, args[0]);
                 return arith::AddFOp::create(nb, nl, log, args[1]);
               });
}

std::optional<Scalar> LogsumexpOp::foldGroup(ArrayRef<Scalar> values,
                                             ArrayRef<int64_t>) {
  // Integers give f32, computed as for f32 at run time: not folded.
  if (!isa<FloatType>(getX().getType().getElementType()))
    return std::nullopt;
  Type result = getType().getElementType();
  return foldFloatStatistic(
      values, result, APFloat::getInf(getSemantics(result), /*Negative=*/true),
      [](ArrayRef<double> elements) {
        // The maximum propagates NaN; an infinite one is replaced by 0, as
        // PyTorch does, so that inf - inf does not make NaN.
        double max = -std::numeric_limits<double>::infinity();
        for (double element : elements)
          max = std::isnan(element) || std::isnan(max)
                    ? NAN
                    : std::fmax(max, element);
        if (std::isinf(max))
          max = 0;
        double exps = 0;
        for (double element : elements)
          exps += std::exp(element - max);
        return std::log(exps) + max;
      });
}

//===----------------------------------------------------------------------===//
// argmax, argmin
//===----------------------------------------------------------------------===//

/// The best element so far (of the input type) and its index: the first
/// greatest (`greater`) or least, or the first NaN, which nothing replaces.
static Value buildArgPick(ReductionEmitter &e, bool greater) {
  OpBuilder &b = e.builder;
  Type acc = e.getAccumulatorType();
  Value values = e.fill(greater ? getLowestAttr(acc) : getHighestAttr(acc));
  Value indices = e.fill(b.getI64IntegerAttr(0));
  bool isFloat = isa<FloatType>(acc);
  bool isUnsigned = isUnsignedOrBool(acc);
  SmallVector<Value> both = e.reduce(
      ValueRange{values, indices}, {},
      [&](OpBuilder &nb, Location nl, Value x, ValueRange,
          ValueRange accs) -> SmallVector<Value> {
        ScalarBuilder s{nb, nl};
        Value best = accs[0];
        Value better;
        if (isFloat) {
          // Strictly better, or the first NaN; nothing replaces a NaN.
          Value strictly = s.cmpf(greater ? arith::CmpFPredicate::OGT
                                          : arith::CmpFPredicate::OLT,
                                  x, best);
          Value xNaN = s.cmpf(arith::CmpFPredicate::UNO, x, x);
          Value bestNumber = s.cmpf(arith::CmpFPredicate::ORD, best, best);
          better =
              arith::OrIOp::create(nb, nl, strictly, s.andi(xNaN, bestNumber));
        } else {
          arith::CmpIPredicate pred =
              greater ? (isUnsigned ? arith::CmpIPredicate::ugt
                                    : arith::CmpIPredicate::sgt)
                      : (isUnsigned ? arith::CmpIPredicate::ult
                                    : arith::CmpIPredicate::slt);
          better = s.cmpi(pred, x, best);
        }
        Value index = e.reducedIndex(nb, nl);
        return {s.select(better, x, best), s.select(better, index, accs[1])};
      });
  return both[1];
}

static std::optional<Scalar> foldArgPick(ArrayRef<Scalar> values,
                                         ArrayRef<int64_t> indices, Type input,
                                         bool greater) {
  std::optional<size_t> best = pick(values, input, greater);
  if (!best)
    return std::nullopt;
  return APInt(64, indices[*best]);
}

/// PyTorch has no argmax or argmin kernel for bool.
static Type getIndexType(Type input, std::string *error, StringRef name) {
  if (input.isInteger(1)) {
    if (error)
      *error = ("\"" + name + "_cpu\" not implemented for 'Bool'").str();
    return {};
  }
  return IntegerType::get(input.getContext(), 64);
}

Type ArgmaxOp::inferElementType(Adaptor, Type input, std::string *error) {
  return getIndexType(input, error, "argmax");
}

Value ArgmaxOp::buildReduction(ReductionEmitter &e) {
  return buildArgPick(e, /*greater=*/true);
}

std::optional<Scalar> ArgmaxOp::foldGroup(ArrayRef<Scalar> values,
                                          ArrayRef<int64_t> indices) {
  return foldArgPick(values, indices, getX().getType().getElementType(), true);
}

Type ArgminOp::inferElementType(Adaptor, Type input, std::string *error) {
  return getIndexType(input, error, "argmin");
}

Value ArgminOp::buildReduction(ReductionEmitter &e) {
  return buildArgPick(e, /*greater=*/false);
}

std::optional<Scalar> ArgminOp::foldGroup(ArrayRef<Scalar> values,
                                          ArrayRef<int64_t> indices) {
  return foldArgPick(values, indices, getX().getType().getElementType(), false);
}
