//===- BcastToLinalg.cpp - Lower bcast ops to linalg.generic --------------===//
//
// One linalg.generic per bcast op, with broadcast indexing maps, the op's
// element function in the body (ElementwiseOpInterface, written in
// ElementFunctions.cpp), and bcast.runtime_check ops for the sizes
// that are only known at run time; specify_shape becomes its checks and a
// tensor.cast. Every linalg.generic is built on signless tensors: unsigned
// operands and results cross into it through builtin.unrealized_conversion_cast
// (bcast-signless-boundary removes them), while the body keeps the op's
// unsigned semantics. The design decisions (constant-0 maps
// rather than collapsing, stride-0 views for `?` sizes, the signless
// boundary) are recorded in the pass description in
// include/bcast/Conversion/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "bcast/Conversion/BcastToLinalg/BcastToLinalg.h"
#include "SignlessCasts.h"
#include "bcast/Dialect/Bcast/IR/BcastOps.h"
#include "bcast/Dialect/Bcast/Utils/BroadcastShape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_CONVERTBCASTTOLINALG
#include "bcast/Conversion/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;
using namespace mlir::bcast;

//===----------------------------------------------------------------------===//
// Run-time checks
//===----------------------------------------------------------------------===//

namespace {
/// The size of one operand at one dimension of the broadcast: static, or a
/// `tensor.dim` value.
struct OperandSize {
  unsigned operand;
  int64_t dim;        ///< In the operand's own rank.
  int64_t staticSize; ///< kDynamicSize if dynamic.
  Value value;        ///< An index value (constant or tensor.dim).

  bool isDynamic() const { return isDynamicSize(staticSize); }
  bool isStaticOne() const { return staticSize == 1; }
};

/// Emits the run-time shape checks of one bcast op, trailing dimension
/// first so that the first failure reported is the trailing-most, as at
/// compile time.
class CheckEmitter {
public:
  CheckEmitter(OpBuilder &b, Location loc, Operation *op)
      : b(b), loc(loc), s{b, loc} {
    operands.assign(op->getOperands().begin(), op->getOperands().end());
    rank = cast<RankedTensorType>(op->getResult(0).getType()).getRank();
  }

  /// The size of operand `k` at broadcast dimension `dim`, if it has one.
  std::optional<OperandSize> sizeAt(unsigned k, int64_t dim) {
    auto type = cast<RankedTensorType>(operands[k].getType());
    int64_t operandDim = dim - (rank - type.getRank());
    if (operandDim < 0)
      return std::nullopt;
    return OperandSize{k, operandDim, type.getDimSize(operandDim),
                       size(operands[k], operandDim)};
  }

  /// An index value for dimension `dim` of `tensor`, created once.
  Value size(Value tensor, int64_t dim) {
    Value &cached = sizes[{tensor, dim}];
    if (!cached) {
      auto type = cast<RankedTensorType>(tensor.getType());
      cached = type.isDynamicDim(dim)
                   ? Value(tensor::DimOp::create(b, loc, tensor, dim))
                   : Value(index(type.getDimSize(dim)));
    }
    return cached;
  }

  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value eq(Value lhs, Value rhs) {
    return s.cmpi(arith::CmpIPredicate::eq, lhs, rhs);
  }
  Value ne(Value lhs, Value rhs) {
    return s.cmpi(arith::CmpIPredicate::ne, lhs, rhs);
  }
  Value isOne(Value v) { return eq(v, index(1)); }
  Value notOne(Value v) { return ne(v, index(1)); }

  void check(Value failed, const std::string &format, ValueRange values) {
    RuntimeCheckOp::create(b, loc, failed, b.getStringAttr(format), values);
  }

  /// The run-time sizes of operand `k`, all dimensions.
  SmallVector<Value> shapeOf(Value tensor) {
    SmallVector<Value> result;
    for (int64_t d = 0, e = cast<RankedTensorType>(tensor.getType()).getRank();
         d < e; ++d)
      result.push_back(size(tensor, d));
    return result;
  }

  /// The broadcast size at `dim`, from the operands' sizes.
  Value broadcastSizeAt(int64_t dim) {
    SmallVector<OpFoldResult> operandSizes;
    for (unsigned k = 0, e = operands.size(); k < e; ++k)
      if (std::optional<OperandSize> os = sizeAt(k, dim))
        operandSizes.push_back(
            os->isDynamic() ? OpFoldResult(os->value)
                            : OpFoldResult(b.getIndexAttr(os->staticSize)));
    return getValueOrCreateConstantIndexOp(
        b, loc, buildBroadcastSize(b, loc, operandSizes));
  }

  /// "[%ld, %ld, ...]" for `n` dimensions.
  static std::string shapeFormat(int64_t n) {
    SmallVector<std::string> parts(n, "%ld");
    return "[" + llvm::join(parts, ", ") + "]";
  }

  OpBuilder &b;
  Location loc;
  ScalarBuilder s;
  SmallVector<Value> operands;
  int64_t rank;
  llvm::DenseMap<std::pair<Value, int64_t>, Value> sizes;
};
} // namespace

/// Calls `fn(i, j, dim, lhs, rhs)` for every pair of operands i < j whose
/// sizes at broadcast dimension `dim` need a run-time check (one of them is
/// dynamic, neither is statically 1), trailing dimension first.
static void forEachCheckedPair(
    CheckEmitter &c,
    llvm::function_ref<void(unsigned, unsigned, int64_t, const OperandSize &,
                            const OperandSize &)>
        fn) {
  for (int64_t dim = c.rank; dim-- > 0;) {
    for (unsigned i = 0, e = c.operands.size(); i < e; ++i) {
      for (unsigned j = i + 1; j < e; ++j) {
        std::optional<OperandSize> lhs = c.sizeAt(i, dim);
        std::optional<OperandSize> rhs = c.sizeAt(j, dim);
        if (!lhs || !rhs || (!lhs->isDynamic() && !rhs->isDynamic()) ||
            lhs->isStaticOne() || rhs->isStaticOne())
          continue;
        fn(i, j, dim, *lhs, *rhs);
      }
    }
  }
}

/// PyTorch's rule, checked as PyTorch folds the shapes: operand k (k >= 1)
/// against the broadcast size of the operands before it, all dimensions of
/// operand k (trailing first) before operand k + 1; the sentence calls them
/// `a` and `b` and numbers the dimension in the pair's rank. A pair is
/// checked where one side is dynamic and neither is statically 1 (static
/// pairs were checked at compile time).
static void emitNumPyChecks(CheckEmitter &c) {
  int64_t rankSoFar = 0;
  for (unsigned k = 0, e = c.operands.size(); k < e; ++k) {
    int64_t rankK = cast<RankedTensorType>(c.operands[k].getType()).getRank();
    int64_t pairRank = std::max(rankSoFar, rankK);
    for (int64_t dim = c.rank; k > 0 && dim-- > 0;) {
      std::optional<OperandSize> rhs = c.sizeAt(k, dim);
      if (!rhs || rhs->isStaticOne())
        continue;
      // The size so far: static where the earlier operands' sizes merge to
      // a static size (the earlier checks make the merge valid).
      int64_t staticSoFar = 1;
      SmallVector<OpFoldResult> earlier;
      for (unsigned j = 0; j < k; ++j) {
        std::optional<OperandSize> size = c.sizeAt(j, dim);
        if (!size)
          continue;
        staticSoFar =
            broadcastDimSizes(staticSoFar, size->staticSize).value_or(0);
        earlier.push_back(size->isDynamic() ? OpFoldResult(size->value)
                                            : OpFoldResult(c.b.getIndexAttr(
                                                  size->staticSize)));
      }
      if (staticSoFar == 1 ||
          (!isDynamicSize(staticSoFar) && !rhs->isDynamic()))
        continue;
      Value lhs = getValueOrCreateConstantIndexOp(
          c.b, c.loc, buildBroadcastSize(c.b, c.loc, earlier));
      Value failed = c.s.andi(c.ne(lhs, rhs->value),
                              c.s.andi(c.notOne(lhs), c.notOne(rhs->value)));
      c.check(failed,
              formatSizeMismatch("%ld", "%ld", dim - (c.rank - pairRank)),
              {lhs, rhs->value});
    }
    rankSoFar = pairRank;
  }
}

/// PyTensor's rule: sizes that are not statically 1 must be equal.
static void emitStaticPairChecks(CheckEmitter &c) {
  forEachCheckedPair(c, [&](unsigned i, unsigned j, int64_t dim,
                            const OperandSize &lhs, const OperandSize &rhs) {
    Value mismatch = c.ne(lhs.value, rhs.value);
    auto sizes = [&](unsigned blamed, unsigned other) {
      return " Input " + std::to_string(blamed) + " has size %ld and input " +
             std::to_string(other) + " has size %ld.";
    };
    // A dynamic size that is 1 at run time is the culprit: it would
    // broadcast under NumPy's rule but may not here.
    if (lhs.isDynamic())
      c.check(c.s.andi(mismatch, c.isOne(lhs.value)),
              formatStaticPolicyMismatch(i, dim, true) + sizes(i, j),
              {lhs.value, rhs.value});
    if (rhs.isDynamic())
      c.check(c.s.andi(mismatch, c.isOne(rhs.value)),
              formatStaticPolicyMismatch(j, dim, true) + sizes(j, i),
              {rhs.value, lhs.value});
    if (rhs.isDynamic())
      c.check(mismatch, formatStaticPolicyMismatch(j, dim, false) + sizes(j, i),
              {rhs.value, lhs.value});
    else
      c.check(mismatch, formatStaticPolicyMismatch(i, dim, false) + sizes(i, j),
              {lhs.value, rhs.value});
  });
}

/// PyTorch's in-place rule at run time: every other operand must expand to
/// operand 0's shape.
static void emitInPlaceChecks(CheckEmitter &c) {
  Value self = c.operands[0];
  for (unsigned k = 1, e = c.operands.size(); k < e; ++k) {
    Value other = c.operands[k];
    int64_t otherRank = cast<RankedTensorType>(other.getType()).getRank();
    for (int64_t dim = c.rank; dim-- > 0;) {
      std::optional<OperandSize> target = c.sizeAt(0, dim);
      std::optional<OperandSize> existing = c.sizeAt(k, dim);
      if (!existing || existing->isStaticOne() ||
          (!target->isDynamic() && !existing->isDynamic()))
        continue;
      Value failed = c.s.andi(c.notOne(existing->value),
                              c.ne(existing->value, target->value));
      SmallVector<Value> values = c.shapeOf(self);
      for (int64_t d = 0; d < c.rank; ++d)
        values.push_back(c.broadcastSizeAt(d));
      values.push_back(target->value);
      values.push_back(existing->value);
      llvm::append_range(values, c.shapeOf(self));
      llvm::append_range(values, c.shapeOf(other));
      std::string format =
          formatInPlaceMismatch(CheckEmitter::shapeFormat(c.rank),
                                CheckEmitter::shapeFormat(c.rank)) +
          ": " + formatExpandMismatch("%ld", "%ld", dim) +
          "  Target sizes: " + CheckEmitter::shapeFormat(c.rank) +
          ".  Tensor sizes: " + CheckEmitter::shapeFormat(otherRank);
      c.check(failed, format, values);
    }
  }
}

/// A static result size where the broadcast size is only known at run time
/// must match it.
static void emitResultChecks(CheckEmitter &c, Operation *op) {
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  RankedTensorType inferred =
      inferBroadcastType(op->getOperandTypes(), getElementwiseTypeRule(op));
  for (int64_t dim = c.rank; dim-- > 0;) {
    if (resultType.isDynamicDim(dim) || !inferred.isDynamicDim(dim))
      continue;
    Value actual = c.broadcastSizeAt(dim);
    Value failed = c.ne(actual, c.index(resultType.getDimSize(dim)));
    SmallVector<Value> values;
    for (int64_t d = 0; d < c.rank; ++d)
      values.push_back(resultType.isDynamicDim(d)
                           ? c.broadcastSizeAt(d)
                           : c.index(resultType.getDimSize(d)));
    for (int64_t d = 0; d < c.rank; ++d)
      values.push_back(c.broadcastSizeAt(d));
    c.check(failed,
            formatInPlaceMismatch(CheckEmitter::shapeFormat(c.rank),
                                  CheckEmitter::shapeFormat(c.rank)),
            values);
  }
}

//===----------------------------------------------------------------------===//
// The signless boundary
//===----------------------------------------------------------------------===//

RankedTensorType bcast::getSignlessType(RankedTensorType type) {
  auto integer = dyn_cast<IntegerType>(type.getElementType());
  if (!integer || !integer.isUnsigned())
    return type;
  return type.clone(IntegerType::get(type.getContext(), integer.getWidth()));
}

Value bcast::castToSignless(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  RankedTensorType signless = getSignlessType(type);
  if (signless == type)
    return value;
  return UnrealizedConversionCastOp::create(b, loc, signless, value)
      .getResult(0);
}

Value bcast::castFromSignless(OpBuilder &b, Location loc, Value value,
                              Type type) {
  if (value.getType() == type)
    return value;
  return UnrealizedConversionCastOp::create(b, loc, type, value).getResult(0);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// The indexing map of an operand of type `type` in a loop nest over
/// `resultType`: missing dimensions dropped, statically-1 dimensions that
/// broadcast index 0.
static AffineMap getBroadcastMap(RankedTensorType type,
                                 RankedTensorType resultType,
                                 MLIRContext *context) {
  int64_t rank = resultType.getRank();
  int64_t offset = rank - type.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    int64_t resultDim = offset + dim;
    if (type.getDimSize(dim) == 1 && resultType.getDimSize(resultDim) != 1)
      exprs.push_back(getAffineConstantExpr(0, context));
    else
      exprs.push_back(getAffineDimExpr(resultDim, context));
  }
  return AffineMap::get(rank, 0, exprs, context);
}

/// Wraps operand number `k` in a view (stride 0 where it is 1 at run time)
/// when one of its `?` sizes faces a result size that is not its own:
/// `resultSizes` are the result's sizes. Under the numpy policy the view
/// broadcasts a size that is 1 at run time. Under the static policy the
/// checks have made the size equal to the result's, and the view only keeps
/// it `?` for the generic: a producer that canonicalization later finds to
/// be static (and, past its always-failing check, contradicting) would
/// otherwise fold into the generic and leave it invalid (finding 15).
static Value expandIfNeeded(OpBuilder &b, Location loc, Operation *op,
                            unsigned k, ArrayRef<OpFoldResult> resultSizes) {
  Value operand = op->getOperand(k);
  auto type = cast<RankedTensorType>(operand.getType());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t offset = resultType.getRank() - type.getRank();
  SmallVector<Value> targets;
  bool needed = false;
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    if (!type.isDynamicDim(dim))
      continue;
    int64_t resultDim = offset + dim;
    // Nothing to broadcast where the result size is this operand's own
    // size: a `broadcast_to` target of `?` keeps the source size, and an
    // element-wise result takes it when no other operand has a size there
    // that is not statically 1.
    bool onlySource = resultType.getDimSize(resultDim) == 1;
    if (isa<BroadcastToOp>(op)) {
      onlySource |= resultType.isDynamicDim(resultDim);
    } else {
      bool othersAllOne = true;
      for (unsigned other = 0, e = op->getNumOperands(); other < e; ++other) {
        auto otherType =
            cast<RankedTensorType>(op->getOperand(other).getType());
        int64_t otherDim =
            resultDim - (resultType.getRank() - otherType.getRank());
        if (other != k && otherDim >= 0 && otherType.getDimSize(otherDim) != 1)
          othersAllOne = false;
      }
      onlySource |= othersAllOne;
    }
    if (onlySource) {
      targets.push_back(tensor::DimOp::create(b, loc, operand, dim));
      continue;
    }
    needed = true;
    targets.push_back(
        getValueOrCreateConstantIndexOp(b, loc, resultSizes[resultDim]));
  }
  if (!needed)
    return operand;
  return ExpandViewOp::create(b, loc, operand, targets);
}

/// Whether an operand of `op` has a `?` size that the tensor.cast ops
/// producing it know to be a static size other than the static result size
/// its map indexes it with (`inputs`, `maps`: the generic's). Its run-time
/// check fails on every run, and folding the cast into the generic would
/// leave a generic that does not verify (bcast-fuzz-llvm, finding 12).
static bool hasContradictedSize(Operation *op, ArrayRef<Value> inputs,
                                ArrayRef<AffineMap> maps,
                                RankedTensorType resultType) {
  for (unsigned k = 0, e = op->getNumOperands(); k < e; ++k) {
    if (inputs[k].getDefiningOp<ExpandViewOp>())
      continue; // a view whose sizes stay `?`: nothing folds into it
    Value operand = op->getOperand(k);
    auto type = cast<RankedTensorType>(operand.getType());
    Value known = operand;
    while (auto producer = known.getDefiningOp<tensor::CastOp>())
      known = producer.getSource();
    auto knownType = dyn_cast<RankedTensorType>(known.getType());
    if (!knownType || knownType.getRank() != type.getRank())
      continue;
    for (int64_t dim = 0; dim < type.getRank(); ++dim) {
      auto expr = dyn_cast<AffineDimExpr>(maps[k].getResult(dim));
      if (!expr || !type.isDynamicDim(dim) || knownType.isDynamicDim(dim))
        continue;
      int64_t resultSize = resultType.getDimSize(expr.getPosition());
      if (!ShapedType::isDynamic(resultSize) &&
          resultSize != knownType.getDimSize(dim))
        return true;
    }
  }
  return false;
}

/// PyTorch's integer division check (`TORCH_CHECK(b != 0,
/// "ZeroDivisionError")` in its CPU kernels): fails when the divisor, in the
/// integer type `compute` the op divides in, has a zero and the result has
/// elements (the kernel never runs on an empty result). A wider divisor is
/// truncated to `compute` first, as the division converts it (an int16 256
/// divides a uint8 tensor as 0). The divisor is read once, by a reduction
/// over its own shape, before the generic; a constant divisor is checked
/// here instead.
static void emitZeroDivisorCheck(CheckEmitter &c, Operation *op,
                                 unsigned divisorIndex, IntegerType compute,
                                 ArrayRef<OpFoldResult> resultSizes) {
  OpBuilder &b = c.b;
  Location loc = c.loc;
  Value divisor = op->getOperand(divisorIndex);
  auto type = cast<RankedTensorType>(divisor.getType());
  unsigned width = compute.getWidth();
  auto isZero = [&](const APInt &v) {
    return v.getBitWidth() > width ? v.trunc(width).isZero() : v.isZero();
  };
  DenseElementsAttr constant;
  if (matchPattern(divisor, m_Constant(&constant)) &&
      llvm::none_of(constant.getValues<APInt>(), isZero))
    return;
  // Nothing is computed where a result size is statically 0.
  Value nonEmpty;
  for (OpFoldResult size : resultSizes) {
    std::optional<int64_t> known = getConstantIntValue(size);
    if (known && *known == 0)
      return;
    if (known)
      continue;
    Value sizeNonZero =
        c.ne(getValueOrCreateConstantIndexOp(b, loc, size), c.index(0));
    nonEmpty = nonEmpty ? c.s.andi(nonEmpty, sizeNonZero) : sizeNonZero;
  }
  RankedTensorType signlessType = getSignlessType(type);
  Value input = castToSignless(b, loc, divisor);
  Type element = signlessType.getElementType();
  Type i1 = b.getI1Type();
  Value init = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, i1);
  Value noZero = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  init = linalg::FillOp::create(b, loc, noZero, init).getResult(0);
  MLIRContext *context = b.getContext();
  SmallVector<AffineMap> maps = {
      b.getMultiDimIdentityMap(type.getRank()),
      AffineMap::get(type.getRank(), 0, ArrayRef<AffineExpr>{}, context)};
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::reduction);
  auto any = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{input}, ValueRange{init},
      maps, iterators, [&](OpBuilder &nb, Location nestedLoc, ValueRange args) {
        ScalarBuilder s{nb, nestedLoc};
        Value value = args[0];
        Type valueType = element;
        if (element.getIntOrFloatBitWidth() > width) {
          valueType = nb.getIntegerType(width);
          value = arith::TruncIOp::create(nb, nestedLoc, valueType, value);
        }
        Value isZero =
            s.cmpi(arith::CmpIPredicate::eq, value, s.intConst(valueType, 0));
        linalg::YieldOp::create(
            nb, nestedLoc,
            ValueRange{arith::OrIOp::create(nb, nestedLoc, args[1], isZero)});
      });
  Value failed =
      tensor::ExtractOp::create(b, loc, any.getResult(0), ValueRange{});
  if (nonEmpty)
    failed = c.s.andi(failed, nonEmpty);
  c.check(failed, "ZeroDivisionError", {});
}

/// The result sizes of `op`, as its reification gives them.
static FailureOr<SmallVector<OpFoldResult>> getResultSizes(OpBuilder &b,
                                                           Operation *op) {
  ReifiedRankedShapedTypeDims reified;
  if (failed(reifyResultShapes(b, op, reified)) || reified.size() != 1)
    return failure();
  return reified.front();
}

namespace {
/// Lowers every element-wise bcast op (the BroadcastElementwise trait) to one
/// linalg.generic.
struct ElementwiseToGeneric : public RewritePattern {
  ElementwiseToGeneric(MLIRContext *context, BroadcastPolicy policy,
                       bool checkDivision)
      : RewritePattern(MatchTraitOpTypeTag(),
                       TypeID::get<OpTrait::bcast::BroadcastElementwise>(),
                       /*benefit=*/1, context),
        policy(policy), checkDivision(checkDivision) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    Location loc = op->getLoc();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    bool inPlace = isInPlace(op);

    FailureOr<SmallVector<OpFoldResult>> resultSizes =
        getResultSizes(rewriter, op);
    if (failed(resultSizes))
      return rewriter.notifyMatchFailure(op, "cannot reify the result sizes");

    CheckEmitter checks(rewriter, loc, op);
    if (policy == BroadcastPolicy::NumPy)
      emitNumPyChecks(checks);
    else
      emitStaticPairChecks(checks);
    if (inPlace)
      emitInPlaceChecks(checks);
    else
      emitResultChecks(checks, op);
    if (std::optional<unsigned> divisor =
            cast<ElementwiseOpInterface>(op).getIntegerDivisor();
        divisor && checkDivision)
      if (auto compute = dyn_cast<IntegerType>(getElementTypes(op).compute))
        emitZeroDivisorCheck(checks, op, *divisor, compute, *resultSizes);

    // Inputs: every operand. An in-place op's first operand is also the
    // init, but the body reads it as an input (the pass description says
    // why); bufferization still writes in place.
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (unsigned k = 0, e = op->getNumOperands(); k < e; ++k) {
      Value input = op->getOperand(k);
      if (!(inPlace && k == 0))
        input = expandIfNeeded(rewriter, loc, op, k, *resultSizes);
      input = castToSignless(rewriter, loc, input);
      inputs.push_back(input);
      maps.push_back(getBroadcastMap(cast<RankedTensorType>(input.getType()),
                                     resultType, getContext()));
    }
    maps.push_back(rewriter.getMultiDimIdentityMap(resultType.getRank()));
    RankedTensorType signlessType = getSignlessType(resultType);
    // A size that contradicts the result on every run: the checks above exit
    // (or return) first, so the result is never read; a tensor.empty stands
    // for it, as for a contradicted specify_shape.
    if (hasContradictedSize(op, inputs, maps, resultType)) {
      Value empty = tensor::EmptyOp::create(rewriter, loc, *resultSizes,
                                            signlessType.getElementType());
      rewriter.replaceOp(op,
                         castFromSignless(rewriter, loc, empty, resultType));
      return success();
    }
    Value init = inPlace
                     ? inputs.front()
                     : tensor::EmptyOp::create(rewriter, loc, *resultSizes,
                                               signlessType.getElementType())
                           .getResult();
    if (init.getType() != signlessType)
      init = tensor::CastOp::create(rewriter, loc, signlessType, init);

    // The body converts each value operand to the compute type (PyTorch's
    // promotion), applies the element function there, and converts its
    // result to the result element type (an in-place operand's type). Its
    // scalars are signless; `from`, the compute type and the result type
    // carry the signedness.
    auto elementwise = cast<ElementwiseOpInterface>(op);
    ElementTypes types = getElementTypes(op);
    unsigned firstValue = isa<WhereOp>(op) ? 1 : 0;
    SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{signlessType}, inputs, ValueRange{init}, maps,
        iterators, [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
          // Block arguments: the inputs, then the init (unused).
          SmallVector<Value> scalars;
          for (auto [index, arg] : llvm::enumerate(args.drop_back())) {
            Type from = getElementTypeOrSelf(op->getOperand(index).getType());
            scalars.push_back(
                index < firstValue
                    ? arg
                    : buildConversion(b, nestedLoc, arg, from, types.compute));
          }
          Value result = elementwise.buildElement(b, nestedLoc, scalars);
          result = buildConversion(b, nestedLoc, result, types.element,
                                   types.result);
          linalg::YieldOp::create(b, nestedLoc, result);
        });
    rewriter.replaceOp(
        op, castFromSignless(rewriter, loc, generic.getResult(0), resultType));
    return success();
  }

  BroadcastPolicy policy;
  bool checkDivision;
};

/// Lowers `bcast.broadcast_to` to a linalg.generic that copies with a
/// broadcast map (fused away into its consumers when it has any). An
/// explicit expansion, so a `?` size that is 1 at run time broadcasts under
/// either policy.
struct BroadcastToGeneric : public OpRewritePattern<BroadcastToOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BroadcastToOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    RankedTensorType sourceType = op.getX().getType();
    FailureOr<SmallVector<OpFoldResult>> resultSizes =
        getResultSizes(rewriter, op);
    if (failed(resultSizes))
      return rewriter.notifyMatchFailure(op, "cannot reify the result sizes");

    // A static target size where the source size is dynamic: the source must
    // be 1 or that size.
    CheckEmitter checks(rewriter, loc, op);
    for (int64_t dim = resultType.getRank(); dim-- > 0;) {
      std::optional<OperandSize> source = checks.sizeAt(0, dim);
      if (!source || !source->isDynamic() || resultType.isDynamicDim(dim))
        continue;
      Value target = checks.index(resultType.getDimSize(dim));
      Value failed = checks.s.andi(checks.notOne(source->value),
                                   checks.ne(source->value, target));
      SmallVector<Value> values = {target, source->value};
      for (int64_t d = 0; d < resultType.getRank(); ++d)
        values.push_back(
            getValueOrCreateConstantIndexOp(rewriter, loc, (*resultSizes)[d]));
      llvm::append_range(values, checks.shapeOf(op.getX()));
      checks.check(failed,
                   formatExpandMismatch("%ld", "%ld", dim) +
                       "  Target sizes: " +
                       CheckEmitter::shapeFormat(resultType.getRank()) +
                       ".  Tensor sizes: " +
                       CheckEmitter::shapeFormat(sourceType.getRank()),
                   values);
    }

    Value input = castToSignless(
        rewriter, loc, expandIfNeeded(rewriter, loc, op, 0, *resultSizes));
    SmallVector<AffineMap> maps = {
        getBroadcastMap(sourceType, resultType, getContext()),
        rewriter.getMultiDimIdentityMap(resultType.getRank())};
    RankedTensorType signlessType = getSignlessType(resultType);
    Value init = tensor::EmptyOp::create(rewriter, loc, *resultSizes,
                                         signlessType.getElementType());
    if (init.getType() != signlessType)
      init = tensor::CastOp::create(rewriter, loc, signlessType, init);
    SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{signlessType}, ValueRange{input},
        ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
          linalg::YieldOp::create(b, nestedLoc, args.front());
        });
    rewriter.replaceOp(
        op, castFromSignless(rewriter, loc, generic.getResult(0), resultType));
    return success();
  }
};

/// Lowers `bcast.specify_shape` to a run-time check of each refined size,
/// dimension 0 first (PyTensor's order and numbering), and a `tensor.cast`
/// to the result type, valid once the checks have passed.
struct SpecifyShapeToCast : public OpRewritePattern<SpecifyShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SpecifyShapeOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    CheckEmitter checks(rewriter, op.getLoc(), op);
    for (int64_t dim = 0, rank = type.getRank(); dim < rank; ++dim) {
      if (!op.isRefined(dim))
        continue;
      int64_t expected = type.getDimSize(dim);
      Value actual = checks.size(op.getX(), dim);
      checks.check(
          checks.ne(actual, checks.index(expected)),
          formatSpecifyShapeMismatch(dim, "%ld", std::to_string(expected)),
          {actual});
    }
    // A refined size that contradicts a size known through tensor.cast
    // producers fails its check on every run; a cast to the result type
    // would then fold into an invalid cast of the static source. The result
    // is never read (the check exits or returns first): give it a
    // tensor.empty instead.
    Value source = op.getX();
    while (auto cast = source.getDefiningOp<tensor::CastOp>())
      source = cast.getSource();
    auto sourceType = cast<RankedTensorType>(source.getType());
    if (!tensor::CastOp::areCastCompatible(sourceType, type)) {
      SmallVector<Value> dynamicSizes;
      for (int64_t dim = 0, rank = type.getRank(); dim < rank; ++dim)
        if (type.isDynamicDim(dim))
          dynamicSizes.push_back(checks.size(op.getX(), dim));
      rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, type, dynamicSizes);
      return success();
    }
    rewriter.replaceOpWithNewOp<tensor::CastOp>(op, type, op.getX());
    return success();
  }
};
} // namespace

AffineMap bcast::getPermuteSourceMap(ArrayRef<int64_t> permutation,
                                     MLIRContext *context) {
  SmallVector<AffineExpr> exprs(permutation.size());
  for (auto [loop, dim] : llvm::enumerate(permutation))
    exprs[dim] = getAffineDimExpr(loop, context);
  return AffineMap::get(permutation.size(), 0, exprs, context);
}

void bcast::lowerPermute(RewriterBase &rewriter, PermuteOp op) {
  Location loc = op.getLoc();
  RankedTensorType resultType = op.getType();
  SmallVector<int64_t> permutation = op.getPermutation();
  SmallVector<OpFoldResult> sizes;
  for (int64_t dim : permutation)
    sizes.push_back(tensor::getMixedSize(rewriter, loc, op.getX(), dim));
  RankedTensorType signlessType = getSignlessType(resultType);
  Value init = tensor::EmptyOp::create(rewriter, loc, sizes,
                                       signlessType.getElementType());
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps = {
      getPermuteSourceMap(permutation, rewriter.getContext()),
      rewriter.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{signlessType},
      ValueRange{castToSignless(rewriter, loc, op.getX())}, ValueRange{init},
      maps, iterators, [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(b, nestedLoc, args.front());
      });
  rewriter.replaceOp(
      op, castFromSignless(rewriter, loc, generic.getResult(0), resultType));
}

namespace {
/// Lowers `bcast.permute` to a generic whose input map is the permutation:
/// element-wise fusion folds it into its consumers' maps. A permute read
/// only by matmuls is left to the matmul lowering (the walk reaches the
/// permute first), which reads its source through the permutation too.
struct PermuteToGeneric : public OpRewritePattern<PermuteOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(PermuteOp op,
                                PatternRewriter &rewriter) const override {
    if (!op->use_empty() && llvm::all_of(op->getUsers(), [](Operation *user) {
          return isa<MatmulOp>(user);
        }))
      return rewriter.notifyMatchFailure(op, "read through by its matmuls");
    lowerPermute(rewriter, op);
    return success();
  }
};

/// Lowers `bcast.cast` to a linalg.generic with identity maps that converts
/// each element (on signless tensors: the conversion reads the signedness
/// from the op's types).
struct CastToGeneric : public OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    Type from = op.getX().getType().getElementType();
    Type to = resultType.getElementType();
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, op.getX());
    RankedTensorType signlessType = getSignlessType(resultType);
    Value init = tensor::EmptyOp::create(rewriter, loc, sizes,
                                         signlessType.getElementType());
    int64_t rank = resultType.getRank();
    SmallVector<AffineMap> maps(2, rewriter.getMultiDimIdentityMap(rank));
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{signlessType},
        ValueRange{castToSignless(rewriter, loc, op.getX())}, ValueRange{init},
        maps, iterators,
        [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
          linalg::YieldOp::create(
              b, nestedLoc,
              buildConversion(b, nestedLoc, args.front(), from, to));
        });
    rewriter.replaceOp(
        op, castFromSignless(rewriter, loc, generic.getResult(0), resultType));
    return success();
  }
};
} // namespace

void bcast::populateBcastToLinalgConversionPatterns(RewritePatternSet &patterns,
                                                    BroadcastPolicy policy,
                                                    bool checkDivision) {
  patterns.add<ElementwiseToGeneric>(patterns.getContext(), policy,
                                     checkDivision);
  patterns.add<BroadcastToGeneric, CastToGeneric, PermuteToGeneric,
               SpecifyShapeToCast>(patterns.getContext());
  populateReductionToLinalgPatterns(patterns);
  populateContractionToLinalgPatterns(patterns, policy);
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct ConvertBcastToLinalgPass
    : public bcast::impl::ConvertBcastToLinalgBase<ConvertBcastToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateBcastToLinalgConversionPatterns(patterns, policy, checkDivision);
    walkAndApplyPatterns(getOperation(), std::move(patterns));

    // Every user-facing bcast op must be gone; a pattern that declined
    // leaves its op behind with a diagnostic rather than crashing.
    WalkResult result = getOperation()->walk([](Operation *op) {
      if (isa<BcastDialect>(op->getDialect()) &&
          !isa<ExpandViewOp, RuntimeCheckOp>(op)) {
        op->emitOpError() << "could not be lowered to linalg";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
