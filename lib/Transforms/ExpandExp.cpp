//===- ExpandExp.cpp - bcast-expand-exp -----------------------------------===//
//
// math.exp on vectors of f32 becomes inline arithmetic: a reduction of the
// argument by multiples of ln 2, a polynomial, and a scaling by a power of
// two (the pass description in Passes.td gives the accuracy and the
// measured speed).
//
//===----------------------------------------------------------------------===//

#include "bcast/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTEXPANDEXP
#include "bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;

namespace {
/// exp(x) = 2^n * exp(r), with n = round(x / ln 2) and r = x - n ln 2 in
/// [-ln 2 / 2, ln 2 / 2].
struct ExpandVectorExp : public OpRewritePattern<math::ExpOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(op.getType());
    if (!type || !type.getElementType().isF32())
      return failure();
    Location loc = op.getLoc();
    auto intType = type.clone(rewriter.getI32Type());
    auto f32 = [&](float value) -> Value {
      return arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(type, rewriter.getF32FloatAttr(value)));
    };
    auto i32 = [&](int32_t value) -> Value {
      return arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(intType, rewriter.getI32IntegerAttr(value)));
    };
    auto fma = [&](Value a, Value b, Value c) -> Value {
      return math::FmaOp::create(rewriter, loc, a, b, c);
    };
    // Outside [-104, 89] exp rounds to 0 or overflows to inf as it does at
    // the bounds; clamping keeps n within the scaling's range. An ordered
    // compare is false for a NaN, so the select keeps x and the NaN
    // propagates (on x86 each select is one maxps or minps).
    Value x = op.getOperand();
    Value low = f32(-104.0f), high = f32(89.0f);
    Value clamped = arith::SelectOp::create(
        rewriter, loc,
        arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OGT, low, x),
        low, x);
    clamped = arith::SelectOp::create(
        rewriter, loc,
        arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OLT, high,
                              clamped),
        high, clamped);
    // Adding 1.5 * 2^23 rounds x / ln 2 (at most 151 in magnitude) to the
    // nearest integer, which then sits in the low bits of the sum: no
    // float-to-int conversion, whose result a NaN would make poison.
    Value magic = f32(12582912.0f);
    Value shifted = fma(clamped, f32(1.44269504088896341f), magic);
    Value n = arith::SubFOp::create(rewriter, loc, shifted, magic);
    // ln 2 in two parts (the high one has 11 significant bits of 24), so
    // that r keeps its accuracy: the FMAs round once each.
    Value r = fma(n, f32(-0.693145751953125f), clamped);
    r = fma(n, f32(-1.428606765330187045e-06f), r);
    // exp(r) by its Taylor polynomial of degree 7: on |r| <= 0.347 the
    // truncation error is below 8e-9 of the value (r^8 / 8!).
    static constexpr float kCoefficients[] = {
        1.0f / 5040, 1.0f / 720, 1.0f / 120, 1.0f / 24,
        1.0f / 6,    0.5f,       1.0f,       1.0f};
    Value p = f32(kCoefficients[0]);
    for (float c : ArrayRef<float>(kCoefficients).drop_front())
      p = fma(p, r, f32(c));
    // 2^n as two factors 2^(n >> 1) and 2^(n - (n >> 1)), each a normal
    // float for n in [-150, 129]: the first product is exact and the second
    // rounds once, to a subnormal, a normal or inf.
    // (Named steps: the order of the ops must not depend on the order in
    // which the compiler evaluates arguments.)
    Value shiftedBits =
        arith::BitcastOp::create(rewriter, loc, intType, shifted);
    Value magicBits = arith::BitcastOp::create(rewriter, loc, intType, magic);
    Value bits = arith::SubIOp::create(rewriter, loc, shiftedBits, magicBits);
    Value half = arith::ShRSIOp::create(rewriter, loc, bits, i32(1));
    Value rest = arith::SubIOp::create(rewriter, loc, bits, half);
    auto power = [&](Value exponent) -> Value {
      Value biased = arith::AddIOp::create(rewriter, loc, exponent, i32(127));
      Value field = arith::ShLIOp::create(rewriter, loc, biased, i32(23));
      return arith::BitcastOp::create(rewriter, loc, type, field);
    };
    Value firstPower = power(half);
    Value scaled = arith::MulFOp::create(rewriter, loc, p, firstPower);
    Value secondPower = power(rest);
    Value result = arith::MulFOp::create(rewriter, loc, scaled, secondPower);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct BcastExpandExpPass
    : public bcast::impl::BcastExpandExpBase<BcastExpandExpPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandVectorExp>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace
