//===- ExpandErfc.cpp - bcast-expand-erfc ---------------------------------===//
//
// math.erfc with the `afn` flag on vectors of f64 becomes inline arithmetic:
// erfc(a) = exp(-a^2) * P(t) / (1 + 2a) for a = |z|, with P a polynomial of
// t = (a - K) / (a + K), and an inline exp (the pass description in
// Passes.td gives the accuracy and the measured speed).
//
//===----------------------------------------------------------------------===//

#include "bcast/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTEXPANDERFC
#include "bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;

namespace {
/// The form of Shepherd and Laframboise (Math. Comp. 36, 1981): (1 + 2a)
/// exp(a^2) erfc(a) is smooth and bounded on [0, inf) (from 1 to 2/sqrt(pi)),
/// and as a function of t = (a - K) / (a + K) one polynomial fits all of
/// [0, kMaxArgument] with no branch. The coefficients (highest degree first)
/// are a weighted least-squares fit of degree 13 with K = 3 to SciPy's erfcx
/// over t in [-1, 0.802] (a in [0, 27.3]), by utils/fit-erfc-coefficients.py:
/// relative error at most 6.8e-11, a thousandth of an f32 ULP (degree 16
/// reaches 4.5e-13 and costs 3 more FMAs than afn's users need).
constexpr double kK = 3.0;
constexpr double kCoefficients[] = {
    -1.0030587098161694e-05, 5.442473010208726e-06,  0.0001116881771311473,
    -0.00010720238588694381, -0.0007706971037382944, 0.0018903415837032858,
    0.0025260771846074195,   -0.023771074903013428,  0.06830864455842107,
    -0.11927358135942663,    0.12964510773434967,    -0.04756229857423317,
    -0.13562110489430138,    1.2530080583031074};
/// Beyond 27.3, erfc is below half the smallest f64 subnormal: clamping there
/// keeps exp's scaling in range and gives 0 (exp(-745.29) times P / 55.6).
constexpr double kMaxArgument = 27.3;

struct ExpandVectorErfc : public OpRewritePattern<math::ErfcOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::ErfcOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(op.getType());
    if (!type || !type.getElementType().isF64() ||
        !bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn))
      return failure();
    Location loc = op.getLoc();
    auto intType = type.clone(rewriter.getI64Type());
    auto f64 = [&](double value) -> Value {
      return arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(type, rewriter.getF64FloatAttr(value)));
    };
    auto i64 = [&](int64_t value) -> Value {
      return arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(intType, rewriter.getI64IntegerAttr(value)));
    };
    auto fma = [&](Value a, Value b, Value c) -> Value {
      return math::FmaOp::create(rewriter, loc, a, b, c);
    };
    auto mul = [&](Value a, Value b) -> Value {
      return arith::MulFOp::create(rewriter, loc, a, b);
    };
    // A polynomial (coefficients highest degree first) by Horner's rule.
    // (Estrin's scheme, shorter chains of FMAs, measured the same.)
    auto horner = [&](ArrayRef<double> highestFirst, Value x) -> Value {
      Value sum = f64(highestFirst.front());
      for (double c : highestFirst.drop_front())
        sum = fma(sum, x, f64(c));
      return sum;
    };
    // erfc(z) for z < 0 is 2 - erfc(-z), which is in [1, 2]: an absolute
    // error of erfc(-z) stays as small. The clamp's compare is false for a
    // NaN, so the NaN propagates; +-inf becomes kMaxArgument, whose erfc is 0.
    Value z = op.getOperand();
    Value a = math::AbsFOp::create(rewriter, loc, z);
    Value high = f64(kMaxArgument);
    a = arith::SelectOp::create(rewriter, loc,
                                arith::CmpFOp::create(rewriter, loc,
                                                      arith::CmpFPredicate::OLT,
                                                      high, a),
                                high, a);

    // One division gives both t = (a - K) / (a + K) and 1 / (1 + 2a):
    // q = 1 / ((a + K)(1 + 2a)), each a few roundings from exact. (An f32
    // division and a Newton step instead measured the same.)
    Value sum = arith::AddFOp::create(rewriter, loc, a, f64(kK));
    Value difference = arith::SubFOp::create(rewriter, loc, a, f64(kK));
    Value onePlusTwoA = fma(a, f64(2.0), f64(1.0));
    Value q =
        arith::DivFOp::create(rewriter, loc, f64(1.0), mul(sum, onePlusTwoA));
    Value t = mul(mul(difference, onePlusTwoA), q);
    Value reciprocal = mul(sum, q);
    Value p = horner(kCoefficients, t);

    // exp(-a^2) as bcast-expand-exp computes exp of f32, in f64: the
    // argument in [-745.3, 0]; the rounding of a^2 (relative 1.1e-16) moves
    // exp by at most 745 times that, 8e-14 (for f32 gelu, a <= 10.3: 1e-14). n
    // = round(w / ln 2) by adding 1.5 * 2^52, r = w - n ln 2 with ln 2 in two
    // parts (the high one has 32 significant bits, so n * high is exact for |n|
    // < 2^21).
    Value w = arith::NegFOp::create(rewriter, loc, mul(a, a));
    Value magic = f64(6755399441055744.0);
    Value shifted = fma(w, f64(1.4426950408889634), magic);
    Value n = arith::SubFOp::create(rewriter, loc, shifted, magic);
    Value r = fma(n, f64(-6.93147180369123816490e-01), w);
    r = fma(n, f64(-1.90821492927058770002e-10), r);
    // exp(r) on |r| <= 0.347 by its Taylor polynomial of degree 9: the
    // truncation error is below 6e-12 of the value (r^10 / 10!).
    static constexpr double kExpCoefficients[] = {
        1.0 / 362880, 1.0 / 40320, 1.0 / 5040, 1.0 / 720, 1.0 / 120,
        1.0 / 24,     1.0 / 6,     0.5,        1.0,       1.0};
    Value e = horner(kExpCoefficients, r);
    // 2^n, n in [-1076, 0], as two factors 2^(n >> 1) and 2^(n - (n >> 1)),
    // each a normal double: the first product is exact and the second
    // rounds once, so that subnormal results round once.
    Value shiftedBits =
        arith::BitcastOp::create(rewriter, loc, intType, shifted);
    Value magicBits = arith::BitcastOp::create(rewriter, loc, intType, magic);
    Value bits = arith::SubIOp::create(rewriter, loc, shiftedBits, magicBits);
    Value half = arith::ShRSIOp::create(rewriter, loc, bits, i64(1));
    Value rest = arith::SubIOp::create(rewriter, loc, bits, half);
    auto power = [&](Value exponent) -> Value {
      Value biased = arith::AddIOp::create(rewriter, loc, exponent, i64(1023));
      Value field = arith::ShLIOp::create(rewriter, loc, biased, i64(52));
      return arith::BitcastOp::create(rewriter, loc, type, field);
    };
    // P / (1 + 2a) before the scaling, so that only the last product can
    // be subnormal.
    Value quotient = mul(p, reciprocal);
    Value firstPower = power(half);
    Value scaled = mul(mul(quotient, e), firstPower);
    Value secondPower = power(rest);
    Value positive = mul(scaled, secondPower);

    Value negative = arith::SubFOp::create(rewriter, loc, f64(2.0), positive);
    Value isNegative = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::OLT, z, f64(0.0));
    Value result =
        arith::SelectOp::create(rewriter, loc, isNegative, negative, positive);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct BcastExpandErfcPass
    : public bcast::impl::BcastExpandErfcBase<BcastExpandErfcPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandVectorErfc>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace
