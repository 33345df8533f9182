//===- ExpandGelu.cpp - bcast-expand-gelu ---------------------------------===//
//
// f32 gelu (erf form), which bcast.gelu's lowering computes in f64 and rounds
// once (0.5 x erfc(-x / sqrt(2)) with an `afn` erfc), becomes inline f32
// arithmetic, before the vectorizers, so that its vectors hold twice as many
// lanes (the pass description in Passes.td gives the method, the accuracy
// and the measured speed).
//
//===----------------------------------------------------------------------===//

#include "bcast/Transforms/Parallel.h"
#include "bcast/Transforms/Passes.h"

#include "InlineExp.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include <cmath>

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTEXPANDGELU
#include "bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;

namespace {
/// (1 + 2x) exp(x^2 / 2) erfc(x / sqrt(2)) = P(s), s = 2x / (x + K), for x
/// >= 0, with f32 coefficients (highest degree first) fitted over x in [0,
/// 15] by `utils/fit-erfc-coefficients.py --f32 --k 2.5 --degree 10
/// --max-argument 15`: relative error at most 5.4e-9 (0.09 of an f32 ULP).
/// In x itself, not in x / sqrt(2), so that x^2 / 2 is exact in two floats;
/// in s, not in s - 1, whose grid near x = 0 would be 2^-24 wide. Horner's
/// rule: Estrin's shorter chain measured 4 ULPs where Horner's gives 2.5.
constexpr float kK = 2.5f;
constexpr float kCoefficients[] = {-0.0003030706138815731f,
                                   0.00207646400667727f,
                                   -0.0046631088480353355f,
                                   0.004693142604082823f,
                                   -0.009571191854774952f,
                                   0.0046478682197630405f,
                                   0.059944942593574524f,
                                   0.0973358303308487f,
                                   -0.9608295559883118f,
                                   1.502644658088684f,
                                   1.0f};
/// A negative x's |x| is clamped to 15 (the fit's end): gelu(-15)
/// is about -1e-49, which rounds to -0 as it does from -14.4 down, and
/// erfc(15 / sqrt(2)) moves x - 0.5 x erfc by nothing.
constexpr float kMaxMagnitude = 15.0f;
/// A non-negative x is clamped to 6: from there on gelu(x) rounds to x (E
/// is below 1e-8, E(6) 7e-9 against half an ULP of 6, 2.4e-7), and E stays
/// normal. Clamped to 15 as well, E was subnormal from x = 13.2 on, and
/// arithmetic on subnormals is microcoded on x86: a [64,1024] input of
/// standard deviation 16 (a product with unscaled weights) took twice as
/// long.
constexpr float kMaxPositiveMagnitude = 6.0f;

} // namespace

/// The operand other than the constant `value` of a multiplication `v`,
/// or null.
static Value mulOperandBesides(Value v, double value) {
  auto mul = v.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return nullptr;
  auto isValue = [&](Value operand) {
    FloatAttr scalar;
    if (matchPattern(operand, m_Constant(&scalar)))
      return scalar.getValueAsDouble() == value;
    SplatElementsAttr splat;
    return matchPattern(operand, m_Constant(&splat)) &&
           isa<FloatType>(splat.getElementType()) &&
           splat.getSplatValue<APFloat>().convertToDouble() == value;
  };
  if (isValue(mul.getRhs()))
    return mul.getLhs();
  if (isValue(mul.getLhs()))
    return mul.getRhs();
  return nullptr;
}

namespace {
/// Matches truncf(mulf(mulf(e, 0.5), erfc[afn](mulf(e, -1/sqrt(2))))) to
/// f32 with e = extf(x) from f32, in either operand order: what
/// GeluOp::buildScalar emits for f32 (ElementFunctions.cpp).
struct ExpandF32Gelu : public OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(op.getType()).isF32())
      return failure();
    auto product = op.getIn().getDefiningOp<arith::MulFOp>();
    if (!product)
      return failure();
    math::ErfcOp erfc;
    Value halfX;
    for (auto [first, second] : {std::pair(product.getLhs(), product.getRhs()),
                                 std::pair(product.getRhs(), product.getLhs())})
      if (auto candidate = first.getDefiningOp<math::ErfcOp>()) {
        erfc = candidate;
        halfX = second;
      }
    if (!erfc ||
        !bitEnumContainsAll(erfc.getFastmath(), arith::FastMathFlags::afn))
      return failure();
    Value wide = mulOperandBesides(erfc.getOperand(), -M_SQRT1_2);
    if (!wide || mulOperandBesides(halfX, 0.5) != wide)
      return failure();
    auto extend = wide.getDefiningOp<arith::ExtFOp>();
    if (!extend || extend.getIn().getType() != op.getType())
      return failure();

    Location loc = op.getLoc();
    Value x = extend.getIn();
    Type type = x.getType();
    rewriter.setInsertionPoint(op);
    auto f32 = [&](double value) {
      return bcast::inline_exp::constant(rewriter, loc, type, value);
    };
    auto fma = [&](Value a, Value b, Value c) -> Value {
      return math::FmaOp::create(rewriter, loc, a, b, c);
    };
    auto mul = [&](Value a, Value b) -> Value {
      return arith::MulFOp::create(rewriter, loc, a, b);
    };
    auto add = [&](Value a, Value b) -> Value {
      return arith::AddFOp::create(rewriter, loc, a, b);
    };
    auto sub = [&](Value a, Value b) -> Value {
      return arith::SubFOp::create(rewriter, loc, a, b);
    };
    auto neg = [&](Value a) -> Value {
      return arith::NegFOp::create(rewriter, loc, a);
    };
    auto div = [&](Value a, Value b) -> Value {
      return arith::DivFOp::create(rewriter, loc, a, b);
    };

    // E = 0.5 |x| erfc(|x| / sqrt(2)); gelu(x) is -E for x < 0 and
    // x - E otherwise (in [x / 2, x]). The clamp's compare is false for a
    // NaN, which propagates; +inf gives inf.
    Value zero = f32(0.0);
    Value negative = arith::CmpFOp::create(rewriter, loc,
                                           arith::CmpFPredicate::OLT, x, zero);
    Value magnitude = math::AbsFOp::create(rewriter, loc, x);
    Value negativeCap = f32(kMaxMagnitude);
    Value positiveCap = f32(kMaxPositiveMagnitude);
    Value high = arith::SelectOp::create(rewriter, loc, negative, negativeCap,
                                         positiveCap);
    Value above = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::OLT, high, magnitude);
    magnitude = arith::SelectOp::create(rewriter, loc, above, high, magnitude);

    // s = 2|x| / (|x| + K) and 1 / (1 + 2|x|) from one division, of their
    // denominators' product (the residuals below absorb its rounding).
    Value one = f32(1.0), two = f32(2.0);
    Value sum = add(magnitude, f32(kK));
    Value denominator = fma(magnitude, two, one);
    // 1 - denominator is exact (a multiple of its ULP, below it).
    Value denominatorLow = fma(magnitude, two, sub(one, denominator));
    Value both = div(one, mul(sum, denominator));
    Value twoMagnitude = add(magnitude, magnitude);
    Value s = mul(twoMagnitude, mul(denominator, both));
    Value reciprocal = mul(sum, both);
    Value inner = f32(kCoefficients[0]);
    for (float c : ArrayRef<float>(kCoefficients).drop_front().drop_back()) {
      Value coefficient = f32(c);
      inner = fma(inner, s, coefficient);
    }
    // The last step's rounding (P in [1, 1.6]) is kept: without it the
    // tail measured 3.1 ULPs.
    Value constant = f32(ArrayRef<float>(kCoefficients).back());
    Value p = fma(inner, s, constant);
    Value pLow = fma(inner, s, sub(constant, p));
    // r + rLow = (P + pLow) / (1 + 2|x|) ~ exp(x^2 / 2) erfc(|x| /
    // sqrt(2)): the residual of the quotient by two FMAs (the first exact).
    Value r = mul(p, reciprocal);
    Value minusR = neg(r);
    Value residual = fma(minusR, denominator, p);
    residual = fma(minusR, denominatorLow, residual);
    residual = add(residual, pLow);
    Value rLow = mul(residual, reciprocal);

    // exp(-x^2 / 2) would lose x^2 / 2 f32 ULPs (50 at x = 10) if x^2 were
    // rounded: x^2 / 2 is kept as a sum of two floats (|x| / 2 is exact),
    // and the low part joins exp's reduced argument.
    Value halfMagnitude = mul(magnitude, f32(0.5));
    Value square = mul(halfMagnitude, magnitude);
    Value minusSquare = neg(square);
    Value squareLow = fma(halfMagnitude, magnitude, minusSquare);
    Value minusSquareLow = neg(squareLow);
    bcast::inline_exp::Parts exp = bcast::inline_exp::buildParts(
        rewriter, loc, minusSquare, minusSquareLow);

    // |x| (r + rLow) exp(reduced) as h + hLow times exp's polynomial, then
    // one scaling by 2^(n - 1) (the 0.5) that rounds once, so that a
    // subnormal E (x below -13.2) is rounded only there.
    Value h = mul(r, magnitude);
    Value hLow = fma(r, magnitude, neg(h));
    hLow = fma(rLow, magnitude, hLow);
    Value m = fma(exp.polynomial, h, mul(exp.polynomial, hLow));
    Value intOne =
        bcast::inline_exp::constant(rewriter, loc, exp.exponent.getType(), 1);
    Value exponent = arith::SubIOp::create(rewriter, loc, exp.exponent, intOne);
    Value e = bcast::inline_exp::buildScale(rewriter, loc, m, exponent);

    // gelu(-inf) is NaN, as PyTorch's (-inf times erfc(inf) = 0): x - x is
    // +0 for a finite x, which keeps -E's sign, and NaN for -inf.
    Value minusE = neg(e);
    Value negativeResult = sub(minusE, sub(x, x));
    Value positiveResult = sub(x, e);
    Value result = arith::SelectOp::create(rewriter, loc, negative,
                                           negativeResult, positiveResult);
    // ~70 vector ops per vector: 16 f32 lanes on the AVX-512 route
    // measured 1.5x 8 (docs/Benchmarks.md).
    result.getDefiningOp()->setAttr(bcast::kInlineMathAttrName,
                                    rewriter.getUnitAttr());
    rewriter.replaceOp(op, result);
    // The f64 ops, which the vectorizers would otherwise count.
    for (Operation *dead : {product.getOperation(), erfc.getOperation(),
                            erfc.getOperand().getDefiningOp(),
                            halfX.getDefiningOp(), extend.getOperation()})
      if (dead->use_empty())
        rewriter.eraseOp(dead);
    return success();
  }
};

struct BcastExpandGeluPass
    : public bcast::impl::BcastExpandGeluBase<BcastExpandGeluPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandF32Gelu>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace
