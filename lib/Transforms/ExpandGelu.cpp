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
/// (1 + 2a) exp(a^2) erfc(a) = P(t), t = (a - K) / (a + K), as in
/// bcast-expand-erfc, with f32 coefficients (highest degree first) fitted
/// over a in [0, 10.7] by `utils/fit-erfc-coefficients.py --f32 --k 3
/// --degree 10 --max-argument 10.7`: relative error at most 2.4e-9 (0.04 of
/// an f32 ULP), counting the constant's remainder kConstantLow, which the
/// pass adds where it corrects the division by 1 + 2a.
constexpr float kK = 3.0f;
constexpr float kCoefficients[] = {
    -0.0002628250513225794f, -0.0007637556409463286f, 0.002010445110499859f,
    0.0025626516435295343f,  -0.02380336821079254f,   0.06829565018415451f,
    -0.11926990747451782f,   0.12964653968811035f,    -0.04756246134638786f,
    -0.13562114536762238f,   1.2530080080032349f};
constexpr float kConstantLow = 5.1729699634961435e-08f;
/// A negative x's |x| is clamped to 15 (a = 10.61, inside the fit): gelu(-15)
/// is about -1e-49, which rounds to -0 as it does from -14.4 down, and
/// erfc(10.61) moves x - 0.5 x erfc by nothing.
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

    // E = 0.5 |x| erfc(a), a = |x| / sqrt(2); gelu(x) is -E for x < 0 and
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

    // exp(-a^2) loses 2a^2 f32 ULPs (160 at a = 9) if a or a^2 is rounded:
    // both are kept as a sum of two floats, 1/sqrt(2) as well, and the low
    // part of a^2 joins exp's reduced argument.
    constexpr float kInvSqrt2High = static_cast<float>(M_SQRT1_2);
    Value invSqrt2High = f32(kInvSqrt2High);
    Value invSqrt2Low = f32(M_SQRT1_2 - double(kInvSqrt2High));
    Value one = f32(1.0), two = f32(2.0), k = f32(kK);
    Value aHigh = mul(magnitude, invSqrt2High);
    Value minusAHigh = neg(aHigh);
    Value aLow = fma(magnitude, invSqrt2High, minusAHigh);
    aLow = fma(magnitude, invSqrt2Low, aLow);
    Value squareHigh = mul(aHigh, aHigh);
    Value minusSquareHigh = neg(squareHigh);
    Value squareLow = fma(aHigh, aHigh, minusSquareHigh);
    Value twoAHigh = mul(aHigh, two);
    squareLow = fma(twoAHigh, aLow, squareLow);
    Value minusSquareLow = neg(squareLow);
    bcast::inline_exp::Parts exp = bcast::inline_exp::buildParts(
        rewriter, loc, minusSquareHigh, minusSquareLow);

    // t = u - 1 with u = 2a / (a + K): near a = 0, where dP/dt is 1.3, t
    // rounded from (a - K) / (a + K) would be off by 2 ULPs of 1. u's
    // residual (a + K as a sum by Fast2Sum, exact for a <= K, where it
    // matters, and a's low part) and the rounding of u - 1 make tLow.
    Value sum = add(aHigh, k);
    Value sumLow = sub(aHigh, sub(sum, k));
    Value sumReciprocal = div(one, sum);
    Value u = mul(twoAHigh, sumReciprocal);
    Value minusU = neg(u);
    Value residual = fma(minusU, sum, twoAHigh);
    residual = fma(minusU, sumLow, residual);
    residual = fma(two, aLow, residual);
    Value t = sub(u, one);
    Value tRounding = sub(u, add(t, one));
    Value tLow = add(tRounding, mul(residual, sumReciprocal));
    Value p = f32(kCoefficients[0]);
    for (float c : ArrayRef<float>(kCoefficients).drop_front()) {
      Value coefficient = f32(c);
      p = fma(p, t, coefficient);
    }

    // 1 + 2a as a sum of two floats (1 - rounded is exact for rounded >= 1),
    // and a first quotient q0 = P / (1 + 2a) ~ erfcx(a).
    Value onePlusTwoA = fma(aHigh, two, one);
    Value onePlusTwoALow = fma(aHigh, two, sub(one, onePlusTwoA));
    onePlusTwoALow = fma(aLow, two, onePlusTwoALow);
    Value reciprocal = div(one, onePlusTwoA);
    Value q0 = mul(p, reciprocal);
    // P(t + tLow) = P(t) + P'(t) tLow, with P'(t) = ((1 + 2a)(2a erfcx(a) -
    // 2 / sqrt(pi)) + 2 erfcx(a)) (a + K)^2 / (2K) from erfcx' = 2a erfcx -
    // 2 / sqrt(pi): tLow is a few ULPs of t, so a few digits suffice.
    Value twoQ0 = mul(q0, two);
    Value minusTwoOverSqrtPi = f32(-M_2_SQRTPI);
    Value slope =
        fma(onePlusTwoA, fma(twoAHigh, q0, minusTwoOverSqrtPi), twoQ0);
    Value halfOverK = f32(0.5 / kK);
    Value dadt = mul(mul(sum, sum), halfOverK);
    slope = mul(slope, dadt);
    p = fma(slope, tLow, p);

    // q + qLow = (P + kConstantLow) / (1 + 2a + its low part), the
    // residual of the quotient by two FMAs (the first exact).
    Value q = mul(p, reciprocal);
    Value minusQ = neg(q);
    Value quotientResidual = fma(minusQ, onePlusTwoA, p);
    quotientResidual = fma(minusQ, onePlusTwoALow, quotientResidual);
    quotientResidual = add(quotientResidual, f32(kConstantLow));
    Value qLow = mul(quotientResidual, reciprocal);
    // |x| erfcx(a) exp(r) as h + hLow times exp's polynomial, then one
    // scaling by 2^(n - 1) (the 0.5) that rounds once, so that a
    // subnormal E (x below -13.2) is rounded only there.
    Value h = mul(q, magnitude);
    Value hLow = fma(q, magnitude, neg(h));
    hLow = fma(qLow, magnitude, hLow);
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
    // ~90 vector ops per element: 16 f32 lanes on the AVX-512 route
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
