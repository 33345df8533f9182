//===- ExpandExp.cpp - bcast-expand-exp -----------------------------------===//
//
// math.exp on vectors of f32 becomes inline arithmetic: a reduction of the
// argument by multiples of ln 2, a polynomial, and a scaling by a power of
// two (the pass description in Passes.td gives the accuracy and the
// measured speed). The emitter (InlineExp.h) also serves bcast-expand-gelu.
//
//===----------------------------------------------------------------------===//

#include "bcast/Transforms/Passes.h"

#include "InlineExp.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTEXPANDEXP
#include "bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;

//===----------------------------------------------------------------------===//
// The emitter (InlineExp.h), shared with bcast-expand-gelu
//===----------------------------------------------------------------------===//

Value bcast::inline_exp::constant(OpBuilder &b, Location loc, Type type,
                                  double value) {
  Type element = getElementTypeOrSelf(type);
  TypedAttr scalar =
      isa<FloatType>(element)
          ? TypedAttr(b.getFloatAttr(element, value))
          : TypedAttr(b.getIntegerAttr(element, static_cast<int64_t>(value)));
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc,
                                     DenseElementsAttr::get(vector, scalar));
  return arith::ConstantOp::create(b, loc, scalar);
}

/// exp(x) = 2^n * exp(r), with n = round(x / ln 2) and r = x - n ln 2 in
/// [-ln 2 / 2, ln 2 / 2].
bcast::inline_exp::Parts
bcast::inline_exp::buildParts(OpBuilder &b, Location loc, Value x, Value low) {
  Type type = x.getType();
  Type intType = getElementTypeOrSelf(type) == type
                     ? Type(b.getI32Type())
                     : cast<VectorType>(type).clone(b.getI32Type());
  auto f32 = [&](double value) { return constant(b, loc, type, value); };
  auto fma = [&](Value x, Value y, Value z) -> Value {
    return math::FmaOp::create(b, loc, x, y, z);
  };
  // Adding 1.5 * 2^23 rounds x / ln 2 (at most 260 in magnitude) to the
  // nearest integer, which then sits in the low bits of the sum: no
  // float-to-int conversion, whose result a NaN would make poison.
  Value magic = f32(12582912.0);
  Value shifted = fma(x, f32(1.44269504088896341), magic);
  Value n = arith::SubFOp::create(b, loc, shifted, magic);
  // ln 2 in two parts (the high one has 11 significant bits of 24), so
  // that r keeps its accuracy: the FMAs round once each.
  Value r = fma(n, f32(-0.693145751953125), x);
  r = fma(n, f32(-1.428606765330187045e-06), r);
  if (low)
    r = arith::AddFOp::create(b, loc, r, low);
  // exp(r) by its Taylor polynomial of degree 7: on |r| <= 0.347 the
  // truncation error is below 8e-9 of the value (r^8 / 8!).
  static constexpr float kCoefficients[] = {1.0f / 5040, 1.0f / 720, 1.0f / 120,
                                            1.0f / 24,   1.0f / 6,   0.5f,
                                            1.0f,        1.0f};
  Value p = f32(kCoefficients[0]);
  for (float c : ArrayRef<float>(kCoefficients).drop_front())
    p = fma(p, r, f32(c));
  // (Named steps: the order of the ops must not depend on the order in
  // which the compiler evaluates arguments.)
  Value shiftedBits = arith::BitcastOp::create(b, loc, intType, shifted);
  Value magicBits = arith::BitcastOp::create(b, loc, intType, magic);
  Value bits = arith::SubIOp::create(b, loc, shiftedBits, magicBits);
  return {p, bits};
}

Value bcast::inline_exp::buildScale(OpBuilder &b, Location loc, Value value,
                                    Value exponent) {
  Type type = value.getType();
  Type intType = exponent.getType();
  auto i32 = [&](int32_t v) { return constant(b, loc, intType, v); };
  // 2^n as 2^(n >> 1) times 2^(n - (n >> 1)), each a normal float.
  Value half = arith::ShRSIOp::create(b, loc, exponent, i32(1));
  Value rest = arith::SubIOp::create(b, loc, exponent, half);
  auto power = [&](Value e) -> Value {
    Value biased = arith::AddIOp::create(b, loc, e, i32(127));
    Value field = arith::ShLIOp::create(b, loc, biased, i32(23));
    return arith::BitcastOp::create(b, loc, type, field);
  };
  Value firstPower = power(half);
  Value scaled = arith::MulFOp::create(b, loc, value, firstPower);
  Value secondPower = power(rest);
  return arith::MulFOp::create(b, loc, scaled, secondPower);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct ExpandVectorExp : public OpRewritePattern<math::ExpOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(op.getType());
    if (!type || !type.getElementType().isF32())
      return failure();
    Location loc = op.getLoc();
    auto f32 = [&](double value) {
      return bcast::inline_exp::constant(rewriter, loc, type, value);
    };
    // Outside [-104, 89] exp rounds to 0 or overflows to inf as it does at
    // the bounds; clamping keeps n within the scaling's range. An ordered
    // compare is false for a NaN, so the select keeps x and the NaN
    // propagates (on x86 each select is one maxps or minps).
    Value x = op.getOperand();
    Value low = f32(-104.0), high = f32(89.0);
    Value clamped = arith::SelectOp::create(
        rewriter, loc,
        arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OGT, low, x),
        low, x);
    clamped = arith::SelectOp::create(
        rewriter, loc,
        arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OLT, high,
                              clamped),
        high, clamped);
    bcast::inline_exp::Parts parts =
        bcast::inline_exp::buildParts(rewriter, loc, clamped);
    rewriter.replaceOp(op, bcast::inline_exp::buildScale(rewriter, loc,
                                                         parts.polynomial,
                                                         parts.exponent));
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
