//===- ContractionsToLinalg.cpp - Lower bcast.matmul to linalg ------------===//
//
// `bcast.matmul` becomes one linalg.generic over the result's loops and the
// contracted one: (batch..., m, k, n), with m or n absent for a 1-D operand.
// Each operand is read through a map that drops the batch dims it lacks and
// gives 0 to the batch dims where it is statically 1 and the result is not,
// as the element-wise lowering does: a broadcast operand is never copied to
// the broadcast shape. A `?` batch size that may be 1 at run time is
// broadcast by a stride-0 view (`bcast.expand_view`), under the `numpy`
// policy. An operand that a `bcast.permute` makes (`k.transpose(-1, -2)`)
// is read through the permutation: the generic reads the permute's source
// with the composed map. The init is a zero-filled tensor of the result shape;
// bf16 products accumulate in f32 (as PyTorch's CPU kernel does) and are
// rounded once by a second generic.
//
// Sizes known only at run time get bcast.runtime_check ops in PyTorch's
// order, with the real sizes: the batch dims, trailing-most first (PyTorch's
// sentence under `numpy`, PyTensor's under `static`), then the contracted
// sizes (`mat1 and mat2 shapes cannot be multiplied (%ldx%ld and %ld)`),
// then a static result size that the operands decide at run time.
//
// Later passes see an ordinary linalg contraction: bcast-matmul-to-blas
// turns the f32 and f64 ones into BLAS calls (docs/Pipelines.md says why).
//
//===----------------------------------------------------------------------===//

#include "SignlessCasts.h"

#include "bcast/Conversion/BcastToLinalg/BcastToLinalg.h"
#include "bcast/Dialect/Bcast/IR/BcastOps.h"
#include "bcast/Dialect/Bcast/Utils/MatmulRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::bcast;

//===----------------------------------------------------------------------===//
// Run-time checks
//===----------------------------------------------------------------------===//

namespace {
/// The sizes of both operands as index values (constants where static),
/// and the checks over them.
class MatmulChecks {
public:
  MatmulChecks(OpBuilder &b, Location loc, Value lhs, Value rhs)
      : b(b), loc(loc), lhs(lhs), rhs(rhs),
        layout(cast<RankedTensorType>(lhs.getType()).getRank(),
               cast<RankedTensorType>(rhs.getType()).getRank()) {}

  Value size(Value tensor, int64_t dim) {
    auto type = cast<RankedTensorType>(tensor.getType());
    if (!type.isDynamicDim(dim))
      return arith::ConstantIndexOp::create(b, loc, type.getDimSize(dim));
    return tensor::DimOp::create(b, loc, tensor, dim);
  }
  Value cmp(arith::CmpIPredicate pred, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, pred, x, y);
  }
  Value ne(Value x, Value y) { return cmp(arith::CmpIPredicate::ne, x, y); }
  Value ne(Value x, int64_t y) {
    return ne(x, arith::ConstantIndexOp::create(b, loc, y));
  }
  Value eq(Value x, int64_t y) {
    return cmp(arith::CmpIPredicate::eq, x,
               arith::ConstantIndexOp::create(b, loc, y));
  }
  Value andi(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  void check(Value failed, const std::string &format, ValueRange values) {
    RuntimeCheckOp::create(b, loc, failed, b.getStringAttr(format), values);
  }

  /// The batch dims, trailing-most first, under `policy`.
  void emitBatchChecks(BroadcastPolicy policy) {
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    int64_t batchRank = layout.batchRank();
    for (int64_t dim = batchRank; dim-- > 0;) {
      int64_t lhsDim = dim - (batchRank - layout.lhsBatchRank());
      int64_t rhsDim = dim - (batchRank - layout.rhsBatchRank());
      if (lhsDim < 0 || rhsDim < 0)
        continue;
      int64_t lhsSize = lhsType.getDimSize(lhsDim);
      int64_t rhsSize = rhsType.getDimSize(rhsDim);
      if (lhsSize == 1 || rhsSize == 1 ||
          (!ShapedType::isDynamic(lhsSize) && !ShapedType::isDynamic(rhsSize)))
        continue;
      Value l = size(lhs, lhsDim), r = size(rhs, rhsDim);
      if (policy == BroadcastPolicy::NumPy) {
        check(andi(ne(l, r), andi(ne(l, 1), ne(r, 1))),
              formatSizeMismatch("%ld", "%ld", dim), {l, r});
        continue;
      }
      // PyTensor's rule: a `?` size must equal the other; one that is 1 at
      // run time is named as the culprit.
      auto sizes = [&](unsigned blamed, unsigned other) {
        return " Input " + std::to_string(blamed) + " has size %ld and input " +
               std::to_string(other) + " has size %ld.";
      };
      Value mismatch = ne(l, r);
      if (ShapedType::isDynamic(lhsSize))
        check(andi(mismatch, eq(l, 1)),
              formatStaticPolicyMismatch(0, dim, true) + sizes(0, 1), {l, r});
      if (ShapedType::isDynamic(rhsSize))
        check(andi(mismatch, eq(r, 1)),
              formatStaticPolicyMismatch(1, dim, true) + sizes(1, 0), {r, l});
      if (ShapedType::isDynamic(rhsSize))
        check(mismatch, formatStaticPolicyMismatch(1, dim, false) + sizes(1, 0),
              {r, l});
      else
        check(mismatch, formatStaticPolicyMismatch(0, dim, false) + sizes(0, 1),
              {l, r});
    }
  }

  /// The contracted sizes, with both operands' shapes in the sentence.
  void emitContractionCheck() {
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    if (!lhsType.isDynamicDim(layout.lhsK()) &&
        !rhsType.isDynamicDim(layout.rhsK()))
      return;
    SmallVector<Value> values;
    for (int64_t d = 0; d < lhsType.getRank(); ++d)
      values.push_back(size(lhs, d));
    for (int64_t d = 0; d < rhsType.getRank(); ++d)
      values.push_back(size(rhs, d));
    Value failed =
        ne(values[layout.lhsK()], values[lhsType.getRank() + layout.rhsK()]);
    auto format = [](int64_t rank) {
      return llvm::join(SmallVector<std::string>(rank, "%ld"), "x");
    };
    check(failed,
          formatMatmulContractionMismatch(format(lhsType.getRank()),
                                          format(rhsType.getRank())),
          values);
  }

  /// A static result size where the operands decide it at run time.
  void emitResultChecks(RankedTensorType resultType,
                        ArrayRef<OpFoldResult> actual) {
    auto format = [](int64_t rank) {
      return "[" + llvm::join(SmallVector<std::string>(rank, "%ld"), ", ") +
             "]";
    };
    int64_t rank = resultType.getRank();
    for (int64_t dim = rank; dim-- > 0;) {
      // A size that folded to the declared one needs no check; one that
      // folded to another (a contradiction the verifier could not see
      // through a tensor.cast) fails on every run.
      std::optional<int64_t> known = getConstantIntValue(actual[dim]);
      if (resultType.isDynamicDim(dim) ||
          (known && *known == resultType.getDimSize(dim)))
        continue;
      SmallVector<Value> actualValues, values;
      for (int64_t d = 0; d < rank; ++d)
        actualValues.push_back(
            getValueOrCreateConstantIndexOp(b, loc, actual[d]));
      for (int64_t d = 0; d < rank; ++d)
        values.push_back(resultType.isDynamicDim(d)
                             ? actualValues[d]
                             : arith::ConstantIndexOp::create(
                                   b, loc, resultType.getDimSize(d)));
      llvm::append_range(values, actualValues);
      Value size = actualValues[dim];
      check(ne(size, resultType.getDimSize(dim)),
            formatInPlaceMismatch(format(rank), format(rank)), values);
    }
  }

  OpBuilder &b;
  Location loc;
  Value lhs, rhs;
  MatmulLayout layout;
};
} // namespace

//===----------------------------------------------------------------------===//
// The generic
//===----------------------------------------------------------------------===//

/// The loops are (batch..., m?, k, n?): k before n, so that the innermost
/// loop walks rows of rhs and of the result with unit stride (the loops
/// that integer and bf16 products run as; f32 and f64 go to the BLAS). The
/// loop of result dim `dim`, and the k loop:
static int64_t loopOf(const MatmulLayout &layout, int64_t dim) {
  return layout.hasN() && dim == layout.resultN() ? dim + 1 : dim;
}
static int64_t kLoop(const MatmulLayout &layout) {
  return layout.batchRank() + layout.hasM();
}

/// The map of operand `type` in the loops: its batch dims aligned right with
/// the result's, 0 where it is statically 1 and the result is not; then its
/// own m or n, and k.
static AffineMap getOperandMap(RankedTensorType type, bool isLhs,
                               const MatmulLayout &layout,
                               RankedTensorType resultType,
                               MLIRContext *context) {
  int64_t batchRank = layout.batchRank();
  int64_t operandBatchRank =
      isLhs ? layout.lhsBatchRank() : layout.rhsBatchRank();
  int64_t numLoops = layout.resultRank() + 1;
  AffineExpr k = getAffineDimExpr(kLoop(layout), context);
  SmallVector<AffineExpr> exprs;
  for (int64_t dim = 0; dim < operandBatchRank; ++dim) {
    int64_t resultDim = dim + (batchRank - operandBatchRank);
    if (type.getDimSize(dim) == 1 && resultType.getDimSize(resultDim) != 1)
      exprs.push_back(getAffineConstantExpr(0, context));
    else
      exprs.push_back(getAffineDimExpr(resultDim, context));
  }
  if (isLhs) {
    if (layout.hasM())
      exprs.push_back(getAffineDimExpr(layout.resultM(), context));
    exprs.push_back(k);
  } else {
    exprs.push_back(k);
    if (layout.hasN())
      exprs.push_back(
          getAffineDimExpr(loopOf(layout, layout.resultN()), context));
  }
  return AffineMap::get(numLoops, 0, exprs, context);
}

/// The map of the result in the loops: all but k.
static AffineMap getOutputMap(const MatmulLayout &layout,
                              MLIRContext *context) {
  SmallVector<AffineExpr> exprs;
  for (int64_t dim = 0; dim < layout.resultRank(); ++dim)
    exprs.push_back(getAffineDimExpr(loopOf(layout, dim), context));
  return AffineMap::get(layout.resultRank() + 1, 0, exprs, context);
}

/// `source` wrapped in a stride-0 view where one of its `?` batch sizes
/// faces a result size that may differ from its own (the other operand has
/// a size there that is not statically 1). The operand is `source` read
/// through `permutation` (operand dim `i` is source dim `permutation[i]`;
/// empty: the identity), of type `type`.
static Value expandBatchIfNeeded(OpBuilder &b, Location loc, Value source,
                                 ArrayRef<int64_t> permutation,
                                 RankedTensorType type,
                                 RankedTensorType otherType, bool isLhs,
                                 const MatmulLayout &layout,
                                 ArrayRef<OpFoldResult> resultSizes) {
  auto sourceType = cast<RankedTensorType>(source.getType());
  int64_t batchRank = layout.batchRank();
  int64_t operandBatchRank =
      isLhs ? layout.lhsBatchRank() : layout.rhsBatchRank();
  int64_t otherBatchRank =
      isLhs ? layout.rhsBatchRank() : layout.lhsBatchRank();
  SmallVector<Value> targets;
  bool needed = false;
  for (int64_t sourceDim = 0; sourceDim < type.getRank(); ++sourceDim) {
    if (!sourceType.isDynamicDim(sourceDim))
      continue;
    int64_t dim = permutation.empty() ? sourceDim
                                      : llvm::find(permutation, sourceDim) -
                                            permutation.begin();
    int64_t resultDim = dim + (batchRank - operandBatchRank);
    int64_t otherDim = resultDim - (batchRank - otherBatchRank);
    bool broadcasts = dim < operandBatchRank && otherDim >= 0 &&
                      otherType.getDimSize(otherDim) != 1;
    if (!broadcasts) {
      targets.push_back(tensor::DimOp::create(b, loc, source, sourceDim));
      continue;
    }
    needed = true;
    targets.push_back(
        getValueOrCreateConstantIndexOp(b, loc, resultSizes[resultDim]));
  }
  if (!needed)
    return source;
  return ExpandViewOp::create(b, loc, source, targets);
}

/// `map` (over the loops, reading a permute's result) as the map that reads
/// the permute's source: source dim `permutation[i]` gets result `i`.
static AffineMap readThroughPermutation(AffineMap map,
                                        ArrayRef<int64_t> permutation) {
  if (permutation.empty())
    return map;
  SmallVector<AffineExpr> exprs(permutation.size());
  for (auto [i, dim] : llvm::enumerate(permutation))
    exprs[dim] = map.getResult(i);
  return AffineMap::get(map.getNumDims(), 0, exprs, map.getContext());
}

/// The shape of `value` as the tensor.cast ops producing it know it (the
/// most static one).
static ArrayRef<int64_t> getKnownShape(Value value) {
  while (auto cast = value.getDefiningOp<tensor::CastOp>())
    value = cast.getSource();
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// Whether the sizes the operands' producers know contradict each other or
/// the declared result type: the run-time checks fail on every run, and
/// folding those casts into the generic would leave one that does not
/// verify (as the element-wise lowering's hasContradictedSize).
static bool hasContradictedSizes(Value lhs, Value rhs,
                                 RankedTensorType resultType) {
  ArrayRef<int64_t> knownLhs = getKnownShape(lhs);
  ArrayRef<int64_t> knownRhs = getKnownShape(rhs);
  if (static_cast<int64_t>(knownLhs.size()) !=
          cast<RankedTensorType>(lhs.getType()).getRank() ||
      static_cast<int64_t>(knownRhs.size()) !=
          cast<RankedTensorType>(rhs.getType()).getRank())
    return false;
  std::optional<SmallVector<int64_t>> shape =
      inferMatmulShape(knownLhs, knownRhs);
  return !shape || !isCompatibleShape(*shape, resultType.getShape());
}

namespace {
struct MatmulToGeneric : public OpRewritePattern<MatmulOp> {
  MatmulToGeneric(MLIRContext *context, BroadcastPolicy policy)
      : OpRewritePattern(context), policy(policy) {}

  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    Value lhs = op.getLhs(), rhs = op.getRhs();
    MatmulLayout layout(op.getLhs().getType().getRank(),
                        op.getRhs().getType().getRank());

    // The sizes the operands give (the declared result type's static sizes
    // are checked against them, not trusted).
    SmallVector<OpFoldResult> actualSizes =
        buildMatmulResultSizes(rewriter, loc, lhs, rhs);
    SmallVector<OpFoldResult> resultSizes;
    for (auto [dim, size] : llvm::enumerate(actualSizes))
      resultSizes.push_back(
          resultType.isDynamicDim(dim)
              ? size
              : rewriter.getIndexAttr(resultType.getDimSize(dim)));

    MatmulChecks checks(rewriter, loc, lhs, rhs);
    checks.emitBatchChecks(policy);
    checks.emitContractionCheck();
    checks.emitResultChecks(resultType, actualSizes);

    RankedTensorType signlessType = getSignlessType(resultType);
    Type element = signlessType.getElementType();
    if (hasContradictedSizes(lhs, rhs, resultType)) {
      // The checks above stop the program (or return) first: the result is
      // never read.
      Value empty =
          tensor::EmptyOp::create(rewriter, loc, resultSizes, element);
      rewriter.replaceOp(op,
                         castFromSignless(rewriter, loc, empty, resultType));
      erasePermutesReadThrough(rewriter, lhs, rhs);
      return success();
    }

    // A permuted operand (`k.transpose(-1, -2)`) is read through the
    // permutation: its source feeds the generic, and no tensor of the
    // permuted shape exists (bcast-matmul-to-blas gives the BLAS a
    // transposed view of the source).
    auto permuteOf = [](Value operand) {
      return operand.getDefiningOp<PermuteOp>();
    };
    auto sourceOf = [&](Value operand) {
      PermuteOp permute = permuteOf(operand);
      return permute ? permute.getX() : operand;
    };
    SmallVector<int64_t> lhsPermutation, rhsPermutation;
    if (PermuteOp permute = permuteOf(lhs))
      lhsPermutation = permute.getPermutation();
    if (PermuteOp permute = permuteOf(rhs))
      rhsPermutation = permute.getPermutation();
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    Value lhsInput = castToSignless(
        rewriter, loc,
        expandBatchIfNeeded(rewriter, loc, sourceOf(lhs), lhsPermutation,
                            lhsType, rhsType, true, layout, resultSizes));
    Value rhsInput = castToSignless(
        rewriter, loc,
        expandBatchIfNeeded(rewriter, loc, sourceOf(rhs), rhsPermutation,
                            rhsType, lhsType, false, layout, resultSizes));
    // The maps are those of the operands' own types (a batch dim statically
    // 1 reads index 0), then read through the permutation.
    SmallVector<AffineMap> maps = {
        readThroughPermutation(
            getOperandMap(lhsType, true, layout, resultType, getContext()),
            lhsPermutation),
        readThroughPermutation(
            getOperandMap(rhsType, false, layout, resultType, getContext()),
            rhsPermutation),
        getOutputMap(layout, getContext())};

    // bf16 accumulates in f32 and is rounded once, as PyTorch's CPU kernel
    // does.
    Type accumulator = element.isBF16() ? rewriter.getF32Type() : element;
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, resultSizes, accumulator);
    Value zero = arith::ConstantOp::create(rewriter, loc, accumulator,
                                           rewriter.getZeroAttr(accumulator));
    Value init =
        linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);

    SmallVector<utils::IteratorType> iterators(layout.resultRank() + 1,
                                               utils::IteratorType::parallel);
    iterators[kLoop(layout)] = utils::IteratorType::reduction;
    bool isFloat = isa<FloatType>(accumulator);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()},
        ValueRange{lhsInput, rhsInput}, ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
          Value x = args[0], y = args[1];
          if (x.getType() != accumulator) {
            x = arith::ExtFOp::create(b, nestedLoc, accumulator, x);
            y = arith::ExtFOp::create(b, nestedLoc, accumulator, y);
          }
          Value sum = isFloat ? Value(arith::AddFOp::create(
                                    b, nestedLoc, args[2],
                                    arith::MulFOp::create(b, nestedLoc, x, y)))
                              : Value(arith::AddIOp::create(
                                    b, nestedLoc, args[2],
                                    arith::MulIOp::create(b, nestedLoc, x, y)));
          linalg::YieldOp::create(b, nestedLoc, sum);
        });
    // For bcast-matmul-to-blas, which takes only the generics made here.
    generic->setAttr("bcast.matmul", rewriter.getUnitAttr());
    Value result = generic.getResult(0);
    if (accumulator != element) {
      Value rounded =
          tensor::EmptyOp::create(rewriter, loc, resultSizes, element);
      int64_t rank = layout.resultRank();
      AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
      result =
          linalg::GenericOp::create(
              rewriter, loc, TypeRange{rounded.getType()}, ValueRange{result},
              ValueRange{rounded}, ArrayRef<AffineMap>{identity, identity},
              SmallVector<utils::IteratorType>(rank,
                                               utils::IteratorType::parallel),
              [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
                linalg::YieldOp::create(
                    b, nestedLoc,
                    arith::TruncFOp::create(b, nestedLoc, element, args[0])
                        .getResult());
              })
              .getResult(0);
    }
    if (result.getType() != signlessType)
      result = tensor::CastOp::create(rewriter, loc, signlessType, result);
    rewriter.replaceOp(op, castFromSignless(rewriter, loc, result, resultType));
    erasePermutesReadThrough(rewriter, lhs, rhs);
    return success();
  }

  /// The permutes this matmul read through: the sizes the run-time checks
  /// took of them become the source's, and a permute nothing else reads
  /// is erased (the permute lowering left it to the matmuls); one still
  /// read by another matmul waits for it.
  static void erasePermutesReadThrough(PatternRewriter &rewriter, Value lhs,
                                       Value rhs) {
    SmallVector<PermuteOp, 2> permutes;
    for (Value operand : {lhs, rhs})
      if (auto permute = operand.getDefiningOp<PermuteOp>())
        if (!llvm::is_contained(permutes, permute))
          permutes.push_back(permute);
    for (PermuteOp permute : permutes) {
      SmallVector<int64_t> permutation = permute.getPermutation();
      for (Operation *user : llvm::make_early_inc_range(permute->getUsers())) {
        auto dim = dyn_cast<tensor::DimOp>(user);
        std::optional<int64_t> index =
            dim ? dim.getConstantIndex() : std::nullopt;
        if (!index)
          continue;
        rewriter.setInsertionPoint(dim);
        rewriter.replaceOpWithNewOp<tensor::DimOp>(dim, permute.getX(),
                                                   permutation[*index]);
      }
      if (permute->use_empty())
        rewriter.eraseOp(permute);
    }
  }

  BroadcastPolicy policy;
};
} // namespace

void bcast::populateContractionToLinalgPatterns(RewritePatternSet &patterns,
                                                BroadcastPolicy policy) {
  patterns.add<MatmulToGeneric>(patterns.getContext(), policy);
}
