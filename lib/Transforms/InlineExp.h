//===- InlineExp.h - exp of f32 as inline arithmetic ------------*- C++ -*-===//
//
// Private to lib/Transforms: the f32 exp of bcast-expand-exp in two parts, a
// polynomial near 1 and a power of two, so that bcast-expand-gelu can
// multiply other factors in before the one rounding to a subnormal, and add
// a low-order part to the argument. Works on f32 and on vectors of f32.
//
//===----------------------------------------------------------------------===//

// A private header: llvm-header-guard would name the guard after the checkout's
// absolute path.
#ifndef BCAST_LIB_TRANSFORMS_INLINEEXP_H // NOLINT(llvm-header-guard)
#define BCAST_LIB_TRANSFORMS_INLINEEXP_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace mlir {
namespace bcast {
namespace inline_exp {

/// A constant of `type` (f32, i32, or a vector of either) holding `value`.
Value constant(OpBuilder &b, Location loc, Type type, double value);

/// exp(x + low) = polynomial * 2^exponent, for x of f32 type (or vectors of
/// f32) in [-180, 89] and |low| at most 2^-10 (none when null): the
/// polynomial, in [0.7, 1.42], is exp(r) for the reduced r = x - exponent
/// ln 2 + low, and exponent (i32, or vectors of i32) is round(x / ln 2).
/// No clamp: NaN gives a NaN polynomial, and the caller bounds x.
struct Parts {
  Value polynomial;
  Value exponent;
};
Parts buildParts(OpBuilder &b, Location loc, Value x, Value low = nullptr);

/// value * 2^exponent for exponent in [-252, 254], as two products by
/// normal powers of two: the first is exact (for a value in [0.5, 2]) and
/// the second rounds once, to a subnormal, a normal or inf.
Value buildScale(OpBuilder &b, Location loc, Value value, Value exponent);

} // namespace inline_exp
} // namespace bcast
} // namespace mlir

#endif // BCAST_LIB_TRANSFORMS_INLINEEXP_H
