//===- ReductionsToLinalg.cpp - Lower bcast reductions to linalg ----------===//
//
// Each reduction becomes linalg.generic ops with reduction iterators over
// the input's loops, writing into a tensor of the accumulator type filled
// with the reduction's identity; the reduced tensor is indexed by the
// input's loops through a map that keeps the kept dimensions, gives 0 to
// reduced dimensions kept as 1 and drops the others. Statistics that are
// broadcast back (the mean in `var`, the maximum in `logsumexp` and
// `softmax`) are read through that same map, so element-wise consumers
// and fusion see the `[M, 1]` broadcast shape that a written-out program
// has. Small element-wise generics over the reduced shape finish `mean`,
// `var`, `std` and `logsumexp`.
//
// Sizes known only at run time get bcast.runtime_check ops: a reduced size
// 0 where an element must be picked (amax, amin, argmax, argmin), a static
// result size, and sum_to_size's expandability.
//
//===----------------------------------------------------------------------===//

#include "SignlessCasts.h"

#include "bcast/Dialect/Bcast/IR/BcastOps.h"
#include "bcast/Dialect/Bcast/Utils/BroadcastShape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/StringExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::bcast;

namespace {
/// What happens to one input dimension in a reduction.
enum class DimRole {
  /// Not reduced.
  Kept,
  /// Reduced, kept with size 1 (keepdim).
  One,
  /// Reduced and removed.
  Dropped,
};

/// Builds the generics of one reduction at the rewriter's insertion point.
class ReductionBuilder {
public:
  ReductionBuilder(OpBuilder &b, Location loc, Value input,
                   ArrayRef<DimRole> roles)
      : b(b), loc(loc), input(input), roles(roles) {
    sizes = tensor::getMixedSizes(b, loc, input);
  }

  int64_t rank() const { return roles.size(); }

  /// The map from the input's loops to the reduced tensor.
  AffineMap reducedMap() const {
    SmallVector<AffineExpr> exprs;
    for (auto [dim, role] : llvm::enumerate(roles)) {
      if (role == DimRole::Kept)
        exprs.push_back(b.getAffineDimExpr(dim));
      else if (role == DimRole::One)
        exprs.push_back(b.getAffineConstantExpr(0));
    }
    return AffineMap::get(rank(), 0, exprs, b.getContext());
  }

  /// The sizes of the reduced tensor.
  SmallVector<OpFoldResult> reducedSizes() const {
    SmallVector<OpFoldResult> result;
    for (auto [dim, role] : llvm::enumerate(roles)) {
      if (role == DimRole::Kept)
        result.push_back(sizes[dim]);
      else if (role == DimRole::One)
        result.push_back(b.getIndexAttr(1));
    }
    return result;
  }

  /// The number of elements reduced into each result element, as an index.
  Value count() {
    Value result = arith::ConstantIndexOp::create(b, loc, 1);
    for (auto [dim, role] : llvm::enumerate(roles))
      if (role != DimRole::Kept)
        result = arith::MulIOp::create(
            b, loc, result,
            getValueOrCreateConstantIndexOp(b, loc, sizes[dim]));
    return result;
  }

  /// A reduced tensor of `type` filled with `identity`.
  Value filled(Type type, TypedAttr identity) {
    Value empty = tensor::EmptyOp::create(b, loc, reducedSizes(), type);
    Value value = arith::ConstantOp::create(b, loc, identity);
    return linalg::FillOp::create(b, loc, value, empty).getResult(0);
  }

  /// Reduces the input into `inits` (reduced tensors): `body(b, loc, x,
  /// stats, accs)` gets one input element, the elements of `stats` (reduced
  /// tensors, read through the reduced map) and the accumulators, and
  /// returns the new accumulators.
  ValueRange
  reduce(ValueRange inits, ValueRange stats,
         function_ref<SmallVector<Value>(OpBuilder &, Location, Value,
                                         ValueRange, ValueRange)>
             body) {
    AffineMap reduced = reducedMap();
    SmallVector<Value> inputs = {input};
    llvm::append_range(inputs, stats);
    SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank())};
    maps.append(stats.size() + inits.size(), reduced);
    SmallVector<utils::IteratorType> iterators;
    for (DimRole role : roles)
      iterators.push_back(role == DimRole::Kept
                              ? utils::IteratorType::parallel
                              : utils::IteratorType::reduction);
    auto generic = linalg::GenericOp::create(
        b, loc, inits.getTypes(), inputs, inits, maps, iterators,
        [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
          ValueRange statArgs = args.slice(1, stats.size());
          ValueRange accs = args.take_back(inits.size());
          linalg::YieldOp::create(
              nested, nestedLoc,
              body(nested, nestedLoc, args.front(), statArgs, accs));
        });
    return generic.getResults();
  }

  /// An element-wise generic over reduced tensors `args` (all of the
  /// reduced shape), with result elements of `type`.
  Value mapReduced(ValueRange args, Type type,
                   function_ref<Value(OpBuilder &, Location, ValueRange)> fn) {
    Value init = tensor::EmptyOp::create(b, loc, reducedSizes(), type);
    int64_t reducedRank = cast<RankedTensorType>(init.getType()).getRank();
    SmallVector<AffineMap> maps(args.size() + 1,
                                b.getMultiDimIdentityMap(reducedRank));
    SmallVector<utils::IteratorType> iterators(reducedRank,
                                               utils::IteratorType::parallel);
    return linalg::GenericOp::create(
               b, loc, TypeRange{init.getType()}, args, ValueRange{init}, maps,
               iterators,
               [&](OpBuilder &nested, Location nestedLoc,
                   ValueRange blockArgs) {
                 linalg::YieldOp::create(
                     nested, nestedLoc,
                     fn(nested, nestedLoc, blockArgs.drop_back()));
               })
        .getResult(0);
  }

  /// An element-wise generic over the input's shape, reading the input and
  /// the reduced tensors `stats` broadcast back over it, with result
  /// elements of `type`.
  Value
  mapInput(ValueRange stats, Type type,
           function_ref<Value(OpBuilder &, Location, Value, ValueRange)> fn) {
    Value init = tensor::EmptyOp::create(b, loc, sizes, type);
    SmallVector<Value> inputs = {input};
    llvm::append_range(inputs, stats);
    SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank())};
    maps.append(stats.size(), reducedMap());
    maps.push_back(b.getMultiDimIdentityMap(rank()));
    SmallVector<utils::IteratorType> iterators(rank(),
                                               utils::IteratorType::parallel);
    return linalg::GenericOp::create(
               b, loc, TypeRange{init.getType()}, inputs, ValueRange{init},
               maps, iterators,
               [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
                 linalg::YieldOp::create(nested, nestedLoc,
                                         fn(nested, nestedLoc, args.front(),
                                            args.slice(1, stats.size())));
               })
        .getResult(0);
  }

  OpBuilder &b;
  Location loc;
  Value input;
  SmallVector<DimRole> roles;
  SmallVector<OpFoldResult> sizes;
};
} // namespace

//===----------------------------------------------------------------------===//
// Scalar pieces of the bodies
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

/// The identity of `kind`'s combiner in `type` (with its signedness).
static TypedAttr getIdentity(OpBuilder &b, ReductionKind kind, Type type) {
  Type scalar = signless(type);
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
    switch (kind) {
    case ReductionKind::Prod:
      return b.getFloatAttr(scalar, 1.0);
    case ReductionKind::Amax:
    case ReductionKind::Argmax:
      return b.getFloatAttr(scalar, APFloat::getInf(semantics, true));
    case ReductionKind::Amin:
    case ReductionKind::Argmin:
      return b.getFloatAttr(scalar, APFloat::getInf(semantics, false));
    default:
      return b.getFloatAttr(scalar, 0.0);
    }
  }
  unsigned width = type.getIntOrFloatBitWidth();
  bool isUnsigned = isUnsignedOrBool(type);
  switch (kind) {
  case ReductionKind::Prod:
  case ReductionKind::All:
    return b.getIntegerAttr(scalar, APInt(width, 1));
  case ReductionKind::Amax:
  case ReductionKind::Argmax:
    return b.getIntegerAttr(scalar, isUnsigned
                                        ? APInt::getMinValue(width)
                                        : APInt::getSignedMinValue(width));
  case ReductionKind::Amin:
  case ReductionKind::Argmin:
    return b.getIntegerAttr(scalar, isUnsigned
                                        ? APInt::getMaxValue(width)
                                        : APInt::getSignedMaxValue(width));
  default:
    return b.getIntegerAttr(scalar, APInt(width, 0));
  }
}

/// `acc + x`, `acc * x`, the NaN-propagating maximum or minimum, in `type`.
static Value combine(OpBuilder &b, Location loc, ReductionKind kind, Type type,
                     Value acc, Value x) {
  bool isFloat = isa<FloatType>(type);
  bool isUnsigned = isUnsignedOrBool(type);
  switch (kind) {
  case ReductionKind::Prod:
    return isFloat ? Value(arith::MulFOp::create(b, loc, acc, x))
                   : Value(arith::MulIOp::create(b, loc, acc, x));
  case ReductionKind::Amax:
    if (isFloat)
      return arith::MaximumFOp::create(b, loc, acc, x);
    return isUnsigned ? Value(arith::MaxUIOp::create(b, loc, acc, x))
                      : Value(arith::MaxSIOp::create(b, loc, acc, x));
  case ReductionKind::Amin:
    if (isFloat)
      return arith::MinimumFOp::create(b, loc, acc, x);
    return isUnsigned ? Value(arith::MinUIOp::create(b, loc, acc, x))
                      : Value(arith::MinSIOp::create(b, loc, acc, x));
  default:
    return isFloat ? Value(arith::AddFOp::create(b, loc, acc, x))
                   : Value(arith::AddIOp::create(b, loc, acc, x));
  }
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
// Run-time checks
//===----------------------------------------------------------------------===//

static void emitCheck(OpBuilder &b, Location loc, Value failed,
                      const std::string &format, ValueRange values) {
  RuntimeCheckOp::create(b, loc, failed, b.getStringAttr(format), values);
}

static Value indexEq(OpBuilder &b, Location loc, Value lhs, int64_t rhs) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lhs,
                               arith::ConstantIndexOp::create(b, loc, rhs));
}

/// amax, amin, argmax and argmin of a dynamic size 0: PyTorch's sentences,
/// dims in the order written.
static void emitPickChecks(OpBuilder &b, Location loc, Value input,
                           const ReductionSpec &spec) {
  auto type = cast<RankedTensorType>(input.getType());
  StringRef name = getReductionName(spec.kind);
  if (!spec.dims) {
    if (type.hasStaticShape())
      return;
    Value empty = arith::ConstantIntOp::create(b, loc, 0, 1);
    for (int64_t dim = 0; dim < type.getRank(); ++dim)
      if (type.isDynamicDim(dim))
        empty = arith::OrIOp::create(
            b, loc, empty,
            indexEq(b, loc, tensor::DimOp::create(b, loc, input, dim), 0));
    std::string format =
        (name + "(): Expected reduction dim to be specified for input.numel() "
                "== 0.")
            .str();
    if (spec.kind == ReductionKind::Amax || spec.kind == ReductionKind::Amin)
      format += " Specify the reduction dim with the 'dim' argument.";
    emitCheck(b, loc, empty, format, {});
    return;
  }
  SmallVector<int64_t> dims;
  (void)normalizeReductionDims(type.getRank(), *spec.dims, dims);
  for (int64_t dim : dims) {
    if (!type.isDynamicDim(dim))
      continue;
    Value size = tensor::DimOp::create(b, loc, input, dim);
    emitCheck(b, loc, indexEq(b, loc, size, 0),
              (name + "(): Expected reduction dim " + Twine(dim) +
               " to have non-zero size.")
                  .str(),
              {});
  }
}

/// "[%ld, %ld, ...]" for `n` dimensions.
static std::string shapeFormat(int64_t n) {
  SmallVector<std::string> parts(n, "%ld");
  return "[" + llvm::join(parts, ", ") + "]";
}

/// Casts `value` (a signless tensor of the reduced shape) to the op's
/// declared result type, checking at run time each size the declared type
/// makes static.
static Value castToResult(OpBuilder &b, Location loc, Value value,
                          RankedTensorType resultType) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<Value> actual;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    actual.push_back(type.isDynamicDim(dim)
                         ? Value(tensor::DimOp::create(b, loc, value, dim))
                         : Value(arith::ConstantIndexOp::create(
                               b, loc, type.getDimSize(dim))));
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    if (!type.isDynamicDim(dim) || resultType.isDynamicDim(dim))
      continue;
    SmallVector<Value> values;
    for (int64_t d = 0; d < type.getRank(); ++d)
      values.push_back(resultType.isDynamicDim(d)
                           ? actual[d]
                           : arith::ConstantIndexOp::create(
                                 b, loc, resultType.getDimSize(d)));
    llvm::append_range(values, actual);
    Value failed = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, actual[dim],
        arith::ConstantIndexOp::create(b, loc, resultType.getDimSize(dim)));
    emitCheck(b, loc, failed,
              "result shape " + shapeFormat(type.getRank()) +
                  " is not compatible with the reduced shape " +
                  shapeFormat(type.getRank()),
              values);
  }
  RankedTensorType signlessResult = getSignlessType(resultType);
  if (value.getType() != signlessResult)
    value = tensor::CastOp::create(b, loc, signlessResult, value);
  return castFromSignless(b, loc, value, resultType);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// Converts an input element to the type the reduction computes in.
using LoadFn = llvm::function_ref<Value(OpBuilder &, Location, Value)>;

/// The maximum along the reduced dims, from `lowest`: logsumexp's and
/// softmax's shift.
static Value reduceMax(ReductionBuilder &rb, Value lowest, LoadFn load) {
  return rb.reduce(
      lowest, {},
      [&](OpBuilder &nb, Location nl, Value x, ValueRange,
          ValueRange accs) -> SmallVector<Value> {
        return {arith::MaximumFOp::create(nb, nl, accs[0], load(nb, nl, x))};
      })[0];
}

/// The sum along the reduced dims of `exp(x - shift)`, from `zeros`:
/// logsumexp's and softmax's denominator.
static Value sumShiftedExp(ReductionBuilder &rb, Value zeros, Value shift,
                           LoadFn load) {
  return rb.reduce(zeros, shift,
                   [&](OpBuilder &nb, Location nl, Value x, ValueRange stats,
                       ValueRange accs) -> SmallVector<Value> {
                     Value d = arith::SubFOp::create(nb, nl, load(nb, nl, x),
                                                     stats[0]);
                     Value e = math::ExpOp::create(nb, nl, d);
                     return {arith::AddFOp::create(nb, nl, accs[0], e)};
                   })[0];
}

/// Lowers the reduction `op` described by `spec` and returns its result.
static Value lowerReduction(OpBuilder &b, Operation *op,
                            const ReductionSpec &spec) {
  Location loc = op->getLoc();
  Value original = op->getOperand(0);
  auto inputType = cast<RankedTensorType>(original.getType());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Type element = inputType.getElementType();
  Type resultElement = resultType.getElementType();
  ReductionKind kind = spec.kind;
  bool isArg = kind == ReductionKind::Argmax || kind == ReductionKind::Argmin;

  if (kind == ReductionKind::Amax || kind == ReductionKind::Amin || isArg)
    emitPickChecks(b, loc, original, spec);

  Value input = castToSignless(b, loc, original);
  int64_t rank = inputType.getRank();
  // argmax without a dim indexes the flattened tensor.
  bool flatten = isArg && !spec.dims && rank > 1;
  if (flatten) {
    SmallVector<ReassociationIndices> all = {
        llvm::to_vector(llvm::seq<int64_t>(0, rank))};
    input = tensor::CollapseShapeOp::create(b, loc, input, all);
    rank = 1;
  }
  SmallVector<int64_t> dims =
      flatten ? SmallVector<int64_t>{0} : getReducedDims(spec, rank);
  SmallVector<DimRole> roles(rank, DimRole::Kept);
  for (int64_t dim : dims)
    roles[dim] = spec.keepdim && !flatten ? DimRole::One : DimRole::Dropped;
  ReductionBuilder rb(b, loc, input, roles);

  Type acc = getReductionAccumulatorType(kind, element);
  Type accScalar = signless(acc);
  Type resultScalar = signless(resultElement);
  // The input element converted to the accumulator type.
  auto load = [&](OpBuilder &nb, Location nl, Value x) {
    return buildConversion(nb, nl, x, element, acc);
  };
  auto finish = [&](OpBuilder &nb, Location nl, Value v) {
    return buildConversion(nb, nl, v, acc, resultElement);
  };

  Value result;
  switch (kind) {
  case ReductionKind::Sum:
  case ReductionKind::Prod:
  case ReductionKind::Amax:
  case ReductionKind::Amin: {
    Value init = rb.filled(accScalar, getIdentity(b, kind, acc));
    result = rb.reduce(
        init, {},
        [&](OpBuilder &nb, Location nl, Value x, ValueRange,
            ValueRange accs) -> SmallVector<Value> {
          return {combine(nb, nl, kind, acc, accs[0], load(nb, nl, x))};
        })[0];
    if (acc != resultElement)
      result = rb.mapReduced(result, resultScalar,
                             [&](OpBuilder &nb, Location nl, ValueRange args) {
                               return finish(nb, nl, args[0]);
                             });
    break;
  }
  case ReductionKind::Any:
  case ReductionKind::All: {
    Value init = rb.filled(accScalar, getIdentity(b, kind, acc));
    result =
        rb.reduce(init, {},
                  [&](OpBuilder &nb, Location nl, Value x, ValueRange,
                      ValueRange accs) -> SmallVector<Value> {
                    Value nonZero = isNonZero(nb, nl, x);
                    if (kind == ReductionKind::Any)
                      return {arith::OrIOp::create(nb, nl, accs[0], nonZero)};
                    return {arith::AndIOp::create(nb, nl, accs[0], nonZero)};
                  })[0];
    break;
  }
  case ReductionKind::Mean:
  case ReductionKind::Var:
  case ReductionKind::Std: {
    Value count = rb.count();
    Value zeros = rb.filled(accScalar, b.getFloatAttr(accScalar, 0.0));
    Value sum = rb.reduce(
        zeros, {},
        [&](OpBuilder &nb, Location nl, Value x, ValueRange,
            ValueRange accs) -> SmallVector<Value> {
          return {arith::AddFOp::create(nb, nl, accs[0], load(nb, nl, x))};
        })[0];
    Value mean = rb.mapReduced(
        sum, accScalar, [&](OpBuilder &nb, Location nl, ValueRange args) {
          return arith::DivFOp::create(nb, nl, args[0],
                                       indexToFloat(nb, nl, count, accScalar));
        });
    if (kind == ReductionKind::Mean) {
      result = mean;
      break;
    }
    // The second pass: squared deviations from the mean.
    Value squares = rb.reduce(
        zeros, mean,
        [&](OpBuilder &nb, Location nl, Value x, ValueRange stats,
            ValueRange accs) -> SmallVector<Value> {
          Value d = arith::SubFOp::create(nb, nl, load(nb, nl, x), stats[0]);
          Value d2 = arith::MulFOp::create(nb, nl, d, d);
          return {arith::AddFOp::create(nb, nl, accs[0], d2)};
        })[0];
    int64_t correction = 1;
    if (auto attr = op->getAttrOfType<IntegerAttr>("correction"))
      correction = attr.getInt();
    // max(0, N - correction), in i64 (a correction may be any i64).
    Value n = arith::IndexCastOp::create(b, loc, b.getI64Type(), count);
    Value c = arith::ConstantIntOp::create(b, loc, correction, 64);
    Value zero = arith::ConstantIntOp::create(b, loc, 0, 64);
    Value dof = arith::SubIOp::create(b, loc, n, c);
    Value positive =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, n, c);
    dof = arith::SelectOp::create(b, loc, positive, dof, zero);
    Value divisor = arith::SIToFPOp::create(b, loc, accScalar, dof);
    result = rb.mapReduced(
        squares, accScalar, [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value var = arith::DivFOp::create(nb, nl, args[0], divisor);
          return kind == ReductionKind::Var
                     ? var
                     : Value(math::SqrtOp::create(nb, nl, var));
        });
    break;
  }
  case ReductionKind::Logsumexp: {
    Value lowest =
        rb.filled(accScalar, getIdentity(b, ReductionKind::Amax, acc));
    Value max = reduceMax(rb, lowest, load);
    // An infinite maximum is replaced by 0 (PyTorch), so that all -inf
    // gives -inf and +inf gives +inf rather than NaN.
    Value shift = rb.mapReduced(
        max, accScalar, [&](OpBuilder &nb, Location nl, ValueRange args) {
          ScalarBuilder s{nb, nl};
          // |m| == inf (math.isinf has no LLVM lowering).
          Value isInf = s.cmpf(
              arith::CmpFPredicate::OEQ, math::AbsFOp::create(nb, nl, args[0]),
              arith::ConstantOp::create(
                  nb, nl, getIdentity(nb, ReductionKind::Amin, acc)));
          return s.select(isInf, s.floatConst(accScalar, 0.0), args[0]);
        });
    Value zeros = rb.filled(accScalar, b.getFloatAttr(accScalar, 0.0));
    Value sum = sumShiftedExp(rb, zeros, shift, load);
    result = rb.mapReduced(ValueRange{sum, shift}, accScalar,
                           [&](OpBuilder &nb, Location nl, ValueRange args) {
                             Value log = math::LogOp::create(nb, nl, args[0]);
                             return arith::AddFOp::create(nb, nl, log, args[1]);
                           });
    break;
  }
  case ReductionKind::Argmax:
  case ReductionKind::Argmin: {
    bool greater = kind == ReductionKind::Argmax;
    Value values = rb.filled(accScalar, getIdentity(b, kind, acc));
    Value indices = rb.filled(b.getI64Type(), b.getI64IntegerAttr(0));
    bool isFloat = isa<FloatType>(acc);
    bool isUnsigned = isUnsignedOrBool(acc);
    ValueRange both = rb.reduce(
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
            better = arith::OrIOp::create(nb, nl, strictly,
                                          s.andi(xNaN, bestNumber));
          } else {
            arith::CmpIPredicate pred =
                greater ? (isUnsigned ? arith::CmpIPredicate::ugt
                                      : arith::CmpIPredicate::sgt)
                        : (isUnsigned ? arith::CmpIPredicate::ult
                                      : arith::CmpIPredicate::slt);
            better = s.cmpi(pred, x, best);
          }
          Value index = arith::ConstantIntOp::create(nb, nl, 0, 64);
          if (!dims.empty())
            index = arith::IndexCastOp::create(
                nb, nl, nb.getI64Type(),
                linalg::IndexOp::create(nb, nl, dims.front()));
          return {s.select(better, x, best), s.select(better, index, accs[1])};
        });
    result = both[1];
    if (flatten && spec.keepdim) {
      // The flattened index, with every dimension kept as 1.
      SmallVector<int64_t> ones(inputType.getRank(), 1);
      auto onesType = RankedTensorType::get(ones, b.getI64Type());
      result = tensor::ExpandShapeOp::create(
          b, loc, onesType, result, SmallVector<ReassociationIndices>{});
    }
    break;
  }
  }
  // mean, var, std and logsumexp of f16 and bf16: rounded once, at the end.
  if (cast<RankedTensorType>(result.getType()).getElementType() != resultScalar)
    result = rb.mapReduced(result, resultScalar,
                           [&](OpBuilder &nb, Location nl, ValueRange args) {
                             return finish(nb, nl, args[0]);
                           });
  return castToResult(b, loc, result, resultType);
}

namespace {
/// Lowers one reduction op (those with a ReductionSpec).
template <typename OpTy>
struct ReductionToGeneric : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, lowerReduction(rewriter, op, op.getSpec()));
    return success();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// softmax, log_softmax
//===----------------------------------------------------------------------===//

namespace {
/// softmax and log_softmax: the maximum along `dim`, the sum of
/// `exp(x - max)`, then each element, as PyTorch computes them. softmax
/// writes the exponentials out as a tensor that the sum reads and the
/// division maps, the form of a written-out softmax: bcast-fuse-elementwise
/// then stores them once into the result (when they have the result's
/// element type) or recomputes them in both consumers (f16, bf16), rather
/// than this lowering deciding.
template <typename OpTy, bool log>
struct SoftmaxToGeneric : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Type element = type.getElementType();
    int64_t rank = type.getRank();
    SmallVector<DimRole> roles(rank, DimRole::Kept);
    if (rank > 0) {
      SmallVector<int64_t> dims;
      (void)normalizeReductionDims(rank, {static_cast<int64_t>(op.getDim())},
                                   dims);
      roles[dims.front()] = DimRole::One;
    }
    ReductionBuilder rb(rewriter, loc, op.getX(), roles);
    // f16 and bf16 are computed in f32 and rounded once.
    Type acc =
        element.getIntOrFloatBitWidth() == 16 ? rewriter.getF32Type() : element;
    auto load = [&](OpBuilder &nb, Location nl, Value x) {
      return buildConversion(nb, nl, x, element, acc);
    };
    Value lowest =
        rb.filled(acc, getIdentity(rewriter, ReductionKind::Amax, acc));
    Value max = reduceMax(rb, lowest, load);
    Value zeros = rb.filled(acc, rewriter.getFloatAttr(acc, 0.0));
    Value result;
    if (log) {
      Value sum = sumShiftedExp(rb, zeros, max, load);
      result = rb.mapInput(
          ValueRange{max, sum}, element,
          [&](OpBuilder &nb, Location nl, Value x, ValueRange stats) {
            Value d = arith::SubFOp::create(nb, nl, load(nb, nl, x), stats[0]);
            Value y = arith::SubFOp::create(
                nb, nl, d, math::LogOp::create(nb, nl, stats[1]));
            return buildConversion(nb, nl, y, acc, element);
          });
    } else {
      Value exps = rb.mapInput(
          max, acc, [&](OpBuilder &nb, Location nl, Value x, ValueRange stats) {
            Value d = arith::SubFOp::create(nb, nl, load(nb, nl, x), stats[0]);
            return math::ExpOp::create(nb, nl, d).getResult();
          });
      ReductionBuilder expRb(rewriter, loc, exps, roles);
      Value sum =
          expRb.reduce(zeros, {},
                       [&](OpBuilder &nb, Location nl, Value e, ValueRange,
                           ValueRange accs) -> SmallVector<Value> {
                         return {arith::AddFOp::create(nb, nl, accs[0], e)};
                       })[0];
      result = expRb.mapInput(
          sum, element,
          [&](OpBuilder &nb, Location nl, Value e, ValueRange stats) {
            Value y = arith::DivFOp::create(nb, nl, e, stats[0]);
            return buildConversion(nb, nl, y, acc, element);
          });
    }
    if (result.getType() != type)
      result = tensor::CastOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// sum_to_size
//===----------------------------------------------------------------------===//

namespace {
/// sum_to_size: the leading dimensions summed away, each target size 1
/// where the input's is not summed with keepdim, and a run-time check of
/// each static target size against a dynamic input size.
struct SumToSizeToGeneric : public OpRewritePattern<SumToSizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SumToSizeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType inputType = op.getX().getType();
    RankedTensorType targetType = op.getType();
    int64_t rank = inputType.getRank();
    int64_t offset = rank - targetType.getRank();
    Value original = op.getX();

    // The target as PyTorch's message prints it: a `?` target size keeps
    // the input's size.
    SmallVector<Value> inputSizes, targetSizes;
    for (int64_t dim = 0; dim < rank; ++dim)
      inputSizes.push_back(
          inputType.isDynamicDim(dim)
              ? Value(tensor::DimOp::create(rewriter, loc, original, dim))
              : Value(arith::ConstantIndexOp::create(
                    rewriter, loc, inputType.getDimSize(dim))));
    for (int64_t dim = 0; dim < targetType.getRank(); ++dim)
      targetSizes.push_back(
          targetType.isDynamicDim(dim)
              ? inputSizes[dim + offset]
              : arith::ConstantIndexOp::create(rewriter, loc,
                                               targetType.getDimSize(dim)));
    std::string format = formatSumToSizeMismatch(
        shapeFormat(targetType.getRank()), shapeFormat(rank));
    SmallVector<Value> values = targetSizes;
    llvm::append_range(values, inputSizes);

    SmallVector<DimRole> roles;
    for (int64_t dim = 0; dim < rank; ++dim) {
      if (dim < offset) {
        roles.push_back(DimRole::Dropped);
        continue;
      }
      int64_t target = targetType.getDimSize(dim - offset);
      int64_t size = inputType.getDimSize(dim);
      if (target == 1 && size != 1) {
        roles.push_back(DimRole::One);
        continue;
      }
      roles.push_back(DimRole::Kept);
      if (!ShapedType::isDynamic(target) && ShapedType::isDynamic(size)) {
        Value failed =
            arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne,
                                  inputSizes[dim], targetSizes[dim - offset]);
        emitCheck(rewriter, loc, failed, format, values);
      }
    }

    Type element = inputType.getElementType();
    Type acc = getReductionAccumulatorType(ReductionKind::Sum, element);
    // Integers wrap in their own width (the element type is kept).
    if (!isa<FloatType>(element))
      acc = element;
    Type accScalar = signless(acc);
    ReductionBuilder rb(rewriter, loc, castToSignless(rewriter, loc, original),
                        roles);
    Value init =
        rb.filled(accScalar, getIdentity(rewriter, ReductionKind::Sum, acc));
    Value result = rb.reduce(
        init, {},
        [&](OpBuilder &nb, Location nl, Value x, ValueRange,
            ValueRange accs) -> SmallVector<Value> {
          Value v = buildConversion(nb, nl, x, element, acc);
          // i1 sums as logical or, as bcast.add.
          if (acc.isInteger(1))
            return {arith::OrIOp::create(nb, nl, accs[0], v)};
          return {combine(nb, nl, ReductionKind::Sum, acc, accs[0], v)};
        })[0];
    if (acc != element)
      result =
          rb.mapReduced(result, signless(element),
                        [&](OpBuilder &nb, Location nl, ValueRange args) {
                          return buildConversion(nb, nl, args[0], acc, element);
                        });
    RankedTensorType signlessTarget = getSignlessType(targetType);
    if (result.getType() != signlessTarget)
      result = tensor::CastOp::create(rewriter, loc, signlessTarget, result);
    rewriter.replaceOp(op, castFromSignless(rewriter, loc, result, targetType));
    return success();
  }
};
} // namespace

void bcast::populateReductionToLinalgPatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ReductionToGeneric<SumOp>, ReductionToGeneric<MeanOp>,
               ReductionToGeneric<ProdOp>, ReductionToGeneric<AmaxOp>,
               ReductionToGeneric<AminOp>, ReductionToGeneric<AnyOp>,
               ReductionToGeneric<AllOp>, ReductionToGeneric<LogsumexpOp>,
               ReductionToGeneric<VarOp>, ReductionToGeneric<StdOp>,
               ReductionToGeneric<ArgmaxOp>, ReductionToGeneric<ArgminOp>,
               SoftmaxToGeneric<SoftmaxOp, false>,
               SoftmaxToGeneric<LogSoftmaxOp, true>, SumToSizeToGeneric>(
      context);
}
