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
// What each reduction computes is its entry in ReductionFunctions.cpp,
// reached through ReductionOpInterface: this file gives the entries their
// emitter (ReductionBuilder: the generics) and does what every reduction
// shares (the run-time checks, argmax's flattening, the final conversion to
// the result type).
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
/// `types` are the input, accumulator and result element types.
class ReductionBuilder : public ReductionEmitter {
public:
  ReductionBuilder(OpBuilder &b, Location loc, Value input,
                   ArrayRef<DimRole> roles, Type inputElement, Type accumulator,
                   Type resultElement)
      : ReductionEmitter(b, loc, inputElement, accumulator, resultElement),
        b(b), input(input), roles(roles) {
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
  Value count() override {
    Value result = arith::ConstantIndexOp::create(b, loc, 1);
    for (auto [dim, role] : llvm::enumerate(roles))
      if (role != DimRole::Kept)
        result = arith::MulIOp::create(
            b, loc, result,
            getValueOrCreateConstantIndexOp(b, loc, sizes[dim]));
    return result;
  }

  /// A reduced tensor filled with `value`.
  Value fill(TypedAttr value) override {
    Value empty =
        tensor::EmptyOp::create(b, loc, reducedSizes(), value.getType());
    Value constant = arith::ConstantOp::create(b, loc, value);
    return linalg::FillOp::create(b, loc, constant, empty).getResult(0);
  }

  /// Reduces the input into `inits` (reduced tensors): `body(b, loc, x,
  /// stats, accs)` gets one input element, the elements of `stats` (reduced
  /// tensors, read through the reduced map) and the accumulators, and
  /// returns the new accumulators.
  SmallVector<Value> reduce(ValueRange inits, ValueRange stats,
                            BodyFn body) override {
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
    return SmallVector<Value>(generic.getResults());
  }

  /// An element-wise generic over reduced tensors `args` (all of the
  /// reduced shape), with result elements of `type`.
  Value map(ValueRange args, Type type, MapFn fn) override {
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

  /// Inside a reduce body: the index along the first reduced dimension, as
  /// an i64 (0 where none is reduced).
  Value reducedIndex(OpBuilder &nested, Location nestedLoc) override {
    Value index = arith::ConstantIntOp::create(nested, nestedLoc, 0, 64);
    const auto *reduced = llvm::find_if(
        roles, [](DimRole role) { return role != DimRole::Kept; });
    if (reduced != roles.end())
      index = arith::IndexCastOp::create(
          nested, nestedLoc, nested.getI64Type(),
          linalg::IndexOp::create(nested, nestedLoc, reduced - roles.begin()));
    return index;
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
  Value input;
  SmallVector<DimRole> roles;
  SmallVector<OpFoldResult> sizes;
};
} // namespace

/// The signless type arith computes `type` in.
static Type signless(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type))
    return IntegerType::get(type.getContext(), integer.getWidth());
  return type;
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

/// A reduction that picks an element (amax, argmax) of a dynamic size 0:
/// PyTorch's sentences, dims in the order written.
static void emitPickChecks(OpBuilder &b, Location loc, Value input,
                           ReductionOpInterface op) {
  auto type = cast<RankedTensorType>(input.getType());
  ReductionSpec spec = op.getSpec();
  StringRef name = op.getReductionName();
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
    format += op.getUnspecifiedDimHint();
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

/// `input` (a signless tensor of `from` elements) converted element by
/// element to `to` (PyTorch's `dtype=`: the conversion bcast.cast makes).
static Value convertElements(OpBuilder &b, Location loc, Value input, Type from,
                             Type to) {
  auto type = cast<RankedTensorType>(input.getType());
  Value init = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, input), signless(to));
  SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(type.getRank()));
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, input, ValueRange{init}, maps,
             iterators,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(
                   nb, nl, buildConversion(nb, nl, args[0], from, to));
             })
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// Lowers the reduction `op` and returns its result: the op's entry builds
/// the loops; the rest is what every reduction shares.
static Value lowerReduction(OpBuilder &b, ReductionOpInterface op) {
  Location loc = op->getLoc();
  Value original = op->getOperand(0);
  auto inputType = cast<RankedTensorType>(original.getType());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Type element = inputType.getElementType();
  Type resultElement = resultType.getElementType();
  ReductionSpec spec = op.getSpec();

  if (op.picksElement())
    emitPickChecks(b, loc, original, op);

  Value input = castToSignless(b, loc, original);
  if (Type conversion = op.getInputConversion()) {
    input = convertElements(b, loc, input, element, conversion);
    element = conversion;
  }
  int64_t rank = inputType.getRank();
  // argmax without a dim indexes the flattened tensor.
  bool flatten = op.flattensWithoutDims() && !spec.dims && rank > 1;
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
  Type acc = op.getAccumulatorType(element);
  ReductionBuilder rb(b, loc, input, roles, element, acc, resultElement);

  Value result = op.buildReduction(rb);
  if (flatten && spec.keepdim) {
    // The flattened index, with every dimension kept as 1.
    SmallVector<int64_t> ones(inputType.getRank(), 1);
    auto onesType = RankedTensorType::get(ones, b.getI64Type());
    result = tensor::ExpandShapeOp::create(b, loc, onesType, result,
                                           SmallVector<ReassociationIndices>{});
  }
  // The finish step every reduction shares: f16 and bf16 sums, means,
  // variances and logsumexp computed in f32 are rounded once, at the end.
  Type resultScalar = signless(resultElement);
  if (cast<RankedTensorType>(result.getType()).getElementType() != resultScalar)
    result = rb.map(
        result, resultScalar, [&](OpBuilder &nb, Location nl, ValueRange args) {
          return buildConversion(nb, nl, args[0], acc, resultElement);
        });
  return castToResult(b, loc, result, resultType);
}

namespace {
/// Lowers every reduction op (ReductionOpInterface).
struct ReductionToGeneric
    : public OpInterfaceRewritePattern<ReductionOpInterface> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(ReductionOpInterface op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, lowerReduction(rewriter, op));
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
    // `dtype`: the input converted first.
    Value input = op.getX();
    Type inputElement = op.getX().getType().getElementType();
    if (inputElement != element)
      input =
          convertElements(rewriter, loc, castToSignless(rewriter, loc, input),
                          inputElement, element);
    // f16 and bf16 are computed in f32 and rounded once.
    Type acc = getOpMathType(element);
    ReductionBuilder rb(rewriter, loc, input, roles, element, acc, element);
    auto load = [&](OpBuilder &nb, Location nl, Value x) {
      return rb.load(nb, nl, x);
    };
    Value lowest = rb.fill(getLowestAttr(acc));
    Value max = reduceMaximum(rb, lowest);
    Value zeros = rb.fill(getZeroAttr(acc));
    Value result;
    if (log) {
      Value sum = reduceShiftedExp(rb, zeros, max);
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
      ReductionBuilder expRb(rewriter, loc, exps, roles, acc, acc, element);
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
    // The declared element type (the sum's, or the input's where nothing
    // is summed or the op keeps it over a dynamic size): integers wrap in
    // it, f16 and bf16 are accumulated in f32.
    Type resultElement = targetType.getElementType();
    Type acc = getOpMathType(resultElement);
    ReductionBuilder rb(rewriter, loc, castToSignless(rewriter, loc, original),
                        roles, element, acc, resultElement);
    Value init = rb.fill(getZeroAttr(acc));
    Value result =
        rb.reduce(init, {},
                  [&](OpBuilder &nb, Location nl, Value x, ValueRange,
                      ValueRange accs) -> SmallVector<Value> {
                    Value v = buildConversion(nb, nl, x, element, acc);
                    // i1 sums as logical or, as bcast.add.
                    if (acc.isInteger(1))
                      return {arith::OrIOp::create(nb, nl, accs[0], v)};
                    return {buildAdd(nb, nl, acc, accs[0], v)};
                  })[0];
    if (acc != resultElement)
      result =
          rb.map(result, signless(resultElement),
                 [&](OpBuilder &nb, Location nl, ValueRange args) {
                   return buildConversion(nb, nl, args[0], acc, resultElement);
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
  patterns.add<ReductionToGeneric, SoftmaxToGeneric<SoftmaxOp, false>,
               SoftmaxToGeneric<LogSoftmaxOp, true>, SumToSizeToGeneric>(
      context);
}
