//===- ProgramGenerator.cpp - Random bcast programs for fuzzing -----------===//
//
// Builds random bcast programs in memory and prints them. A program is one
// function whose arguments have random shapes drawn from one broadcast shape
// (sizes 0, 1, small, `?`, and now and then sizes whose product overflows)
// and random element types; ops are added one at a time on values already
// defined (arguments, constants with special values, `tensor.cast`s that
// make sizes dynamic, earlier results). Result types come from the op's own
// type inference, so well-typed programs reach the lowerings; ill-typed ones
// keep some ops that do not verify and perturb some result types, so they
// reach every verifier diagnostic.
//
// Teaching the generator a new op:
//   - an op with InferTypeOpInterface and a fixed number of tensor operands
//     (every element-wise op, and a reduction whose result type is
//     inferred) needs nothing: it is found in the dialect and built from the
//     value pool; its inherent attributes get values from kAttributes, by
//     attribute name, so a new attribute name needs one entry there (say
//     `dims`: lists with duplicates, negative and out-of-range dims);
//   - any other op needs one entry in kOps with a function that builds it.
// findUncoveredOps names every op and attribute the tables miss
// (bcast-fuzz-gen --check-coverage, run by the test suite).
//
//===----------------------------------------------------------------------===//

#include "ProgramGenerator.h"

#include "bcast/Dialect/Bcast/IR/BcastDialect.h"
#include "bcast/Dialect/Bcast/IR/BcastOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>

using namespace mlir;
using namespace mlir::bcast::fuzz;

namespace {

using Rng = std::mt19937_64;

/// A random index in [0, n).
size_t pick(Rng &rng, size_t n) { return n ? rng() % n : 0; }

/// True with the given probability in percent.
bool chance(Rng &rng, unsigned percent) { return rng() % 100 < percent; }

template <typename T> const T &pickFrom(Rng &rng, llvm::ArrayRef<T> items) {
  return items[pick(rng, items.size())];
}

//===----------------------------------------------------------------------===//
// Element types and shapes
//===----------------------------------------------------------------------===//

/// An element type bcast accepts: PyTorch's dtypes, and now and then an odd
/// integer width (which the dialect accepts too).
Type randomElementType(MLIRContext *ctx, Rng &rng) {
  Builder b(ctx);
  switch (pick(rng, 14)) {
  case 0:
    return b.getI1Type();
  case 1:
    return b.getI8Type();
  case 2:
    return b.getI16Type();
  case 3:
    return b.getI32Type();
  case 4:
    return b.getI64Type();
  case 5:
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case 6:
    return IntegerType::get(ctx, 16, IntegerType::Unsigned);
  case 7:
    return IntegerType::get(ctx, 32, IntegerType::Unsigned);
  case 8:
    return IntegerType::get(ctx, 64, IntegerType::Unsigned);
  case 9:
    return b.getF16Type();
  case 10:
    return b.getBF16Type();
  case 11:
    return b.getF32Type();
  case 12:
    return b.getF64Type();
  default:
    return b.getIntegerType(chance(rng, 50) ? 7 : 33);
  }
}

/// An element type bcast rejects (ill-typed programs only).
Type randomForeignElementType(MLIRContext *ctx, Rng &rng) {
  Builder b(ctx);
  switch (pick(rng, 6)) {
  case 0:
    return b.getIntegerType(128);
  case 1:
    return b.getIndexType();
  case 2:
    return ComplexType::get(b.getF32Type());
  case 3:
    return b.getType<Float8E5M2Type>();
  case 4:
    return IntegerType::get(ctx, 32, IntegerType::Signed);
  default:
    return b.getTF32Type();
  }
}

/// One size of a shape class: mostly small, sometimes 0, 1, `?` or a size
/// whose products overflow 64 bits.
int64_t randomSize(Rng &rng) {
  unsigned roll = pick(rng, 100);
  if (roll < 25)
    return 1;
  if (roll < 60)
    return 2 + static_cast<int64_t>(pick(rng, 4));
  if (roll < 68)
    return 0;
  if (roll < 88)
    return ShapedType::kDynamic;
  if (roll < 97)
    return 5 + static_cast<int64_t>(pick(rng, 60));
  const int64_t huge[] = {int64_t(1) << 31, (int64_t(1) << 32) + 1,
                          int64_t(1) << 62,
                          std::numeric_limits<int64_t>::max()};
  return huge[pick(rng, 4)];
}

/// The broadcast shape a program's operands are drawn from: rank 0 to 4,
/// now and then up to 9.
SmallVector<int64_t> randomBroadcastShape(Rng &rng) {
  size_t rank = chance(rng, 5) ? 5 + pick(rng, 5) : pick(rng, 5);
  SmallVector<int64_t> shape;
  for (size_t i = 0; i < rank; ++i)
    shape.push_back(randomSize(rng));
  return shape;
}

/// An operand shape that broadcasts to `full` (a suffix of it, some sizes
/// replaced by 1 or `?`), or, when `mismatch`, one that may not.
SmallVector<int64_t> operandShape(Rng &rng, ArrayRef<int64_t> full,
                                  bool mismatch) {
  size_t drop = chance(rng, 60) ? 0 : pick(rng, full.size() + 1);
  SmallVector<int64_t> shape(full.begin() + drop, full.end());
  for (int64_t &size : shape) {
    unsigned roll = pick(rng, 100);
    if (roll < 20)
      size = 1;
    else if (roll < 30)
      size = ShapedType::kDynamic;
    else if (mismatch && roll < 45)
      size = randomSize(rng);
  }
  if (mismatch && chance(rng, 20))
    shape.insert(shape.begin(), 2 + static_cast<int64_t>(pick(rng, 3)));
  return shape;
}

/// `type` with another shape or element type (an ill-typed result).
Type perturbType(MLIRContext *ctx, Rng &rng, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return type;
  SmallVector<int64_t> shape(tensor.getShape());
  switch (pick(rng, 5)) {
  case 0:
    return RankedTensorType::get(shape, randomElementType(ctx, rng));
  case 1:
    if (!shape.empty()) {
      shape[pick(rng, shape.size())] = randomSize(rng);
      return RankedTensorType::get(shape, tensor.getElementType());
    }
    [[fallthrough]];
  case 2:
    shape.push_back(randomSize(rng));
    return RankedTensorType::get(shape, tensor.getElementType());
  case 3:
    return UnrankedTensorType::get(tensor.getElementType());
  default:
    return RankedTensorType::get(shape, randomForeignElementType(ctx, rng));
  }
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

/// A special or ordinary value of an integer type of `width` bits: 0, 1,
/// -1, the extremes, shift amounts at and beyond the width.
APInt randomInteger(Rng &rng, unsigned width) {
  switch (pick(rng, 9)) {
  case 0:
    return APInt(width, 0);
  case 1:
    return APInt(width, 1);
  case 2:
    return APInt::getAllOnes(width);
  case 3:
    return APInt::getSignedMinValue(width);
  case 4:
    return APInt::getSignedMaxValue(width);
  case 5:
    return APInt(width, width, /*isSigned=*/false, /*implicitTrunc=*/true);
  case 6:
    return APInt(width, width + 1, /*isSigned=*/false,
                 /*implicitTrunc=*/true);
  default:
    return APInt(width, static_cast<uint64_t>(pick(rng, 19)) - 9,
                 /*isSigned=*/true, /*implicitTrunc=*/true);
  }
}

/// A special or ordinary value of a float type: NaN, the infinities, -0,
/// the largest and smallest values, halves.
APFloat randomFloat(Rng &rng, const llvm::fltSemantics &semantics) {
  switch (pick(rng, 10)) {
  case 0:
    return APFloat::getNaN(semantics);
  case 1:
    return APFloat::getInf(semantics, /*Negative=*/chance(rng, 50));
  case 2:
    return APFloat::getZero(semantics, /*Negative=*/true);
  case 3:
    return APFloat::getLargest(semantics, /*Negative=*/chance(rng, 50));
  case 4:
    return APFloat::getSmallest(semantics);
  default: {
    const double ordinary[] = {0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-3, 127.5};
    APFloat value(ordinary[pick(rng, 8)]);
    bool losesInfo = false;
    value.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
    return value;
  }
  }
}

/// The number of elements of a static shape, or -1 when it is over 2^32.
int64_t elementCount(RankedTensorType type) {
  constexpr int64_t kLimit = int64_t(1) << 32;
  int64_t count = 1;
  for (int64_t size : type.getShape()) {
    // Checked before multiplying: a count and a size of up to 2^32 each
    // overflow int64_t (UBSan found it in the custom mutator).
    if (size > kLimit || (size != 0 && count > kLimit / size))
      return -1;
    count *= size;
  }
  return count;
}

/// A dense constant of `type` (static sizes): element by element when it is
/// small, a splat otherwise (which may expand to a huge shape).
DenseElementsAttr randomConstant(Rng &rng, RankedTensorType type) {
  Type element = type.getElementType();
  int64_t count = elementCount(type);
  // A splat needs one element at least; an empty constant has none.
  bool splat = count != 0 && (count < 0 || count > 8 || chance(rng, 30));
  if (auto integer = dyn_cast<IntegerType>(element)) {
    SmallVector<APInt> values;
    for (int64_t i = 0, e = splat ? 1 : count; i < e; ++i)
      values.push_back(randomInteger(rng, integer.getWidth()));
    if (splat)
      return DenseElementsAttr::get(type, values.front());
    return DenseElementsAttr::get(type, values);
  }
  auto floating = cast<FloatType>(element);
  SmallVector<APFloat> values;
  for (int64_t i = 0, e = splat ? 1 : count; i < e; ++i)
    values.push_back(randomFloat(rng, floating.getFloatSemantics()));
  if (splat)
    return DenseElementsAttr::get(type, values.front());
  return DenseElementsAttr::get(type, values);
}

//===----------------------------------------------------------------------===//
// Attribute values, by inherent attribute name
//===----------------------------------------------------------------------===//

/// A string attribute: one of the accepted values, or (ill-typed) another.
Attribute oneOf(Builder &b, Rng &rng, bool wellTyped,
                ArrayRef<StringRef> accepted) {
  if (wellTyped || chance(rng, 50))
    return b.getStringAttr(pickFrom(rng, accepted));
  const StringRef wrong[] = {"", "ceil", "TRUNC", "none ", "tanh\n"};
  if (chance(rng, 20))
    return b.getI64IntegerAttr(1);
  return b.getStringAttr(pickFrom(rng, ArrayRef<StringRef>(wrong)));
}

/// addcmul's and addcdiv's `value`: ordinary scales, values at the edges of
/// the compute types (127.5 overflows i8, 65520 f16), NaN and the
/// infinities (which do not convert to an integer compute type).
Attribute scaleValue(Builder &b, Rng &rng, bool wellTyped, int64_t) {
  const double values[] = {1.0,
                           0.5,
                           -2.0,
                           0.0,
                           -0.0,
                           127.5,
                           -128.0,
                           255.0,
                           65504.0,
                           65520.0,
                           3.5e38,
                           1e308,
                           9.2233720368547758e18,
                           4.9e-324,
                           std::numeric_limits<double>::quiet_NaN(),
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity()};
  double value = pickFrom(rng, ArrayRef<double>(values));
  if (!wellTyped && chance(rng, 20))
    return b.getF32FloatAttr(static_cast<float>(value));
  return b.getF64FloatAttr(value);
}

/// A valid dim of an operand of rank `rank` (0 and -1 for rank 0, as
/// PyTorch), negative half the time.
int64_t validDim(Rng &rng, int64_t rank) {
  int64_t extent = std::max<int64_t>(rank, 1);
  auto dim = static_cast<int64_t>(pick(rng, extent));
  return chance(rng, 50) ? dim - extent : dim;
}

/// A reduction's `dims`: in well-typed programs mostly distinct valid dims
/// of the first operand (rank `rank`), each spelt positive or negative;
/// otherwise (ill-typed, or now and then) duplicates, negative dims, dims
/// beyond the rank and huge ones, or an empty list.
Attribute reductionDims(Builder &b, Rng &rng, bool wellTyped, int64_t rank) {
  SmallVector<int64_t> dims;
  if (wellTyped && !chance(rng, 10)) {
    int64_t extent = std::max<int64_t>(rank, 1);
    SmallVector<int64_t> order;
    for (int64_t dim = 0; dim < extent; ++dim)
      order.push_back(dim);
    std::shuffle(order.begin(), order.end(), rng);
    order.resize(1 + pick(rng, std::min<size_t>(order.size(), 3)));
    for (int64_t dim : order)
      dims.push_back(chance(rng, 50) ? dim - extent : dim);
    return b.getDenseI64ArrayAttr(dims);
  }
  for (size_t i = 0, e = pick(rng, 4); i < e; ++i) {
    if (wellTyped && !chance(rng, 10)) {
      dims.push_back(validDim(rng, rank));
      continue;
    }
    const int64_t absurd[] = {-1,
                              -4,
                              9,
                              64,
                              std::numeric_limits<int64_t>::max(),
                              std::numeric_limits<int64_t>::min(),
                              0,
                              0};
    dims.push_back(pickFrom(rng, ArrayRef<int64_t>(absurd)));
  }
  return b.getDenseI64ArrayAttr(dims);
}

/// How the generator fills in an inherent attribute, by its name. An op
/// that brings an attribute of a new name needs an entry here.
struct AttributeEntry {
  const char *name;
  /// `rank`: the first operand's (where dims refer to it).
  Attribute (*generate)(Builder &, Rng &, bool wellTyped, int64_t rank);
};

const AttributeEntry kAttributes[] = {
    {"rounding_mode",
     [](Builder &b, Rng &rng, bool wellTyped, int64_t) {
       return oneOf(b, rng, wellTyped, {"trunc", "floor"});
     }},
    {"approximate",
     [](Builder &b, Rng &rng, bool wellTyped, int64_t) {
       return oneOf(b, rng, wellTyped, {"none", "tanh"});
     }},
    {"value", scaleValue},
    // add's and sub's PyTorch `alpha=`: a Python bool, int or float, and
    // values no compute type holds.
    {"alpha",
     [](Builder &b, Rng &rng, bool wellTyped, int64_t) -> Attribute {
       if (wellTyped && !chance(rng, 20)) {
         const int64_t ints[] = {1, 2, -1, 0, 3};
         return b.getI64IntegerAttr(pickFrom(rng, ArrayRef<int64_t>(ints)));
       }
       if (chance(rng, 33))
         return b.getBoolAttr(chance(rng, 50));
       if (chance(rng, 50))
         return scaleValue(b, rng, wellTyped, 0);
       const int64_t ints[] = {std::numeric_limits<int64_t>::max(),
                               std::numeric_limits<int64_t>::min(), 128, -129,
                               65536};
       return b.getI64IntegerAttr(pickFrom(rng, ArrayRef<int64_t>(ints)));
     }},
    // The reductions' attributes (issue 17's absurd dims lists: duplicates,
    // negative and out-of-range dims, sizes beyond any rank), ready for the
    // reduction ops, which are found by inference once they are registered.
    {"dims", reductionDims},
    {"dim",
     [](Builder &b, Rng &rng, bool wellTyped, int64_t rank) -> Attribute {
       if (wellTyped && !chance(rng, 10))
         return b.getI64IntegerAttr(validDim(rng, rank));
       const int64_t dims[] = {0, 1, -1, 2, -3, 7, int64_t(1) << 40};
       return b.getI64IntegerAttr(pickFrom(rng, ArrayRef<int64_t>(dims)));
     }},
    {"keepdim",
     [](Builder &b, Rng &rng, bool, int64_t) -> Attribute {
       return b.getBoolAttr(chance(rng, 50));
     }},
    // lerp's Python-number weight: the op verifies only with a rank-0 f64,
    // i64 or i1 weight, so most draws reach its diagnostic.
    {"scalar_weight",
     [](Builder &b, Rng &, bool, int64_t) -> Attribute {
       return b.getUnitAttr();
     }},
    {"correction",
     [](Builder &b, Rng &rng, bool, int64_t) -> Attribute {
       const int64_t corrections[] = {0, 1, 2, -1, 1000};
       return b.getI64IntegerAttr(
           pickFrom(rng, ArrayRef<int64_t>(corrections)));
     }},
    // PyTorch's dtype= of sum, mean, prod and the softmaxes: a float in
    // well-typed programs (every one of them takes one), otherwise also
    // the integer and bool types mean and the softmaxes refuse.
    {"dtype",
     [](Builder &b, Rng &rng, bool wellTyped, int64_t) -> Attribute {
       Type floats[] = {b.getF32Type(), b.getF64Type(), b.getF16Type(),
                        b.getBF16Type()};
       Type others[] = {b.getI32Type(), b.getI1Type(), b.getI8Type(),
                        b.getIntegerType(8, /*isSigned=*/false)};
       if (wellTyped || chance(rng, 50))
         return TypeAttr::get(pickFrom(rng, ArrayRef<Type>(floats)));
       return TypeAttr::get(pickFrom(rng, ArrayRef<Type>(others)));
     }},
};

const AttributeEntry *findAttribute(StringRef name) {
  for (const AttributeEntry &entry : kAttributes)
    if (name == entry.name)
      return &entry;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// The program under construction
//===----------------------------------------------------------------------===//

struct Program {
  Program(MLIRContext *ctx, Rng &rng, const GeneratorOptions &options)
      : ctx(ctx), rng(rng), options(options), b(ctx),
        loc(UnknownLoc::get(ctx)) {}

  MLIRContext *ctx;
  Rng &rng;
  const GeneratorOptions &options;
  OpBuilder b;
  Location loc;
  /// The tensor values ops may use.
  SmallVector<Value> pool;
  /// The results of bcast ops, returned at the end.
  SmallVector<Value> results;

  /// A value of the pool (the last ones more often, so chains form).
  Value anyValue() {
    if (chance(rng, 40))
      return pool[pool.size() - 1 -
                  pick(rng, std::min<size_t>(pool.size(), 3))];
    return pool[pick(rng, pool.size())];
  }

  /// The pool's value of the highest rank (an in-place operand, which must
  /// have the broadcast shape).
  Value widestValue() {
    Value best = pool.front();
    for (Value v : pool)
      if (cast<RankedTensorType>(v.getType()).getRank() >
          cast<RankedTensorType>(best.getType()).getRank())
        best = v;
    return best;
  }

  /// Keeps `op` when it verifies (or, in an ill-typed program, sometimes
  /// when it does not) and adds its results to the pool.
  bool keep(Operation *op) {
    if (failed(verify(op, /*verifyRecursively=*/false)) &&
        (options.wellTyped || chance(rng, 50))) {
      op->erase();
      return false;
    }
    for (Value result : op->getResults()) {
      if (!isa<RankedTensorType>(result.getType()))
        continue;
      pool.push_back(result);
      results.push_back(result);
    }
    return true;
  }

  Value indexConstant(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }

  /// Adds a constant or a `tensor.cast` that makes sizes dynamic.
  void addValue() {
    auto type = cast<RankedTensorType>(anyValue().getType());
    Type element = type.getElementType();
    bool constantElement = isa<FloatType>(element) ||
                           (isa<IntegerType>(element) &&
                            cast<IntegerType>(element).getWidth() <= 64);
    if (chance(rng, 50) && type.hasStaticShape() && constantElement) {
      // A constant of a pool value's type (special values, splats of any
      // size) feeds the folders.
      int64_t count = elementCount(type);
      if ((count < 0 || count > 64) && !chance(rng, 20))
        return;
      Operation *op =
          arith::ConstantOp::create(b, loc, type, randomConstant(rng, type));
      keepValue(op->getResult(0));
      return;
    }
    Value source = anyValue();
    auto sourceType = cast<RankedTensorType>(source.getType());
    SmallVector<int64_t> shape(sourceType.getShape());
    for (int64_t &size : shape)
      if (chance(rng, 50))
        size = ShapedType::kDynamic;
    Operation *op = tensor::CastOp::create(
        b, loc, RankedTensorType::get(shape, sourceType.getElementType()),
        source);
    if (failed(verify(op, /*verifyRecursively=*/false))) {
      op->erase();
      return;
    }
    keepValue(op->getResult(0));
  }

  void keepValue(Value value) { pool.push_back(value); }

  /// An op found in the dialect: operands from the pool, attributes from
  /// kAttributes, the result type inferred.
  bool addInferredOp(RegisteredOperationName name, unsigned operandCount) {
    OperationState state(loc, name);
    bool inPlace = name.hasTrait<OpTrait::bcast::InPlace>();
    for (unsigned i = 0; i < operandCount; ++i)
      state.addOperands(i == 0 && inPlace && chance(rng, 70) ? widestValue()
                                                             : anyValue());
    int64_t rank =
        cast<RankedTensorType>(state.operands.front().getType()).getRank();
    for (StringAttr attrName : name.getAttributeNames())
      if (const AttributeEntry *entry = findAttribute(attrName.getValue()))
        if (chance(rng, 60))
          state.addAttribute(attrName,
                             entry->generate(b, rng, options.wellTyped, rank));
    state.addTypes(state.operands.front().getType());
    Operation *op = b.create(state);
    SmallVector<Type> inferred;
    auto infer = dyn_cast<InferTypeOpInterface>(op);
    if (infer &&
        succeeded(infer.inferReturnTypes(
            ctx, std::nullopt, op->getOperands(), op->getRawDictionaryAttrs(),
            op->getPropertiesStorage(), op->getRegions(), inferred)) &&
        inferred.size() == op->getNumResults()) {
      for (auto [result, type] : llvm::zip(op->getResults(), inferred))
        result.setType(type);
    } else if (options.wellTyped) {
      op->erase();
      return false;
    }
    if (!options.wellTyped && chance(rng, 25))
      op->getResult(0).setType(
          perturbType(ctx, rng, op->getResult(0).getType()));
    return keep(op);
  }
};

//===----------------------------------------------------------------------===//
// Ops that are not built from inference
//===----------------------------------------------------------------------===//

/// `bcast.cast`: the same shape, any element type.
bool buildCast(Program &p) {
  Value x = p.anyValue();
  auto type = cast<RankedTensorType>(x.getType());
  Type result =
      RankedTensorType::get(type.getShape(), randomElementType(p.ctx, p.rng));
  if (!p.options.wellTyped && chance(p.rng, 40))
    result = perturbType(p.ctx, p.rng, result);
  OperationState state(p.loc, "bcast.cast");
  state.addOperands(x);
  state.addTypes(result);
  return p.keep(p.b.create(state));
}

/// `bcast.broadcast_to`: leading sizes added, sizes 1 expanded, `?` kept or
/// made static.
bool buildBroadcastTo(Program &p) {
  Value x = p.anyValue();
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape;
  for (size_t i = 0, e = pick(p.rng, 3); i < e; ++i)
    shape.push_back(randomSize(p.rng));
  for (int64_t size : type.getShape()) {
    if (size == 1 || ShapedType::isDynamic(size) ||
        (!p.options.wellTyped && chance(p.rng, 20)))
      shape.push_back(chance(p.rng, 50) ? size : randomSize(p.rng));
    else
      shape.push_back(size);
  }
  OperationState state(p.loc, "bcast.broadcast_to");
  state.addOperands(x);
  state.addTypes(RankedTensorType::get(shape, type.getElementType()));
  return p.keep(p.b.create(state));
}

/// `bcast.specify_shape`: `?` sizes made static (or kept).
bool buildSpecifyShape(Program &p) {
  Value x = p.anyValue();
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t &size : shape)
    if (ShapedType::isDynamic(size) ||
        (!p.options.wellTyped && chance(p.rng, 20)))
      size = chance(p.rng, 60) ? static_cast<int64_t>(pick(p.rng, 4))
                               : ShapedType::kDynamic;
  OperationState state(p.loc, "bcast.specify_shape");
  state.addOperands(x);
  state.addTypes(RankedTensorType::get(shape, type.getElementType()));
  return p.keep(p.b.create(state));
}

/// `bcast.expand_view` (created by the lowering, accepted in input): one
/// index size per dynamic dimension.
bool buildExpandView(Program &p) {
  Value x = p.anyValue();
  auto type = cast<RankedTensorType>(x.getType());
  OperationState state(p.loc, "bcast.expand_view");
  state.addOperands(x);
  int64_t sizes = type.getNumDynamicDims();
  if (!p.options.wellTyped && chance(p.rng, 30))
    sizes += chance(p.rng, 50) ? 1 : -1;
  for (int64_t i = 0; i < sizes; ++i)
    state.addOperands(p.indexConstant(static_cast<int64_t>(pick(p.rng, 4))));
  state.addTypes(type);
  return p.keep(p.b.create(state));
}

/// `bcast.runtime_check` (created by the lowering, accepted in input): a
/// condition and a printf format whose `%ld`s take index values.
bool buildRuntimeCheck(Program &p) {
  const StringRef formats[] = {
      "size %ld is not %ld", "no values", "%ld%%", "bad %s", "%n %ld", "%ld"};
  StringRef format = pickFrom(p.rng, ArrayRef<StringRef>(formats));
  OperationState state(p.loc, "bcast.runtime_check");
  Value failed = arith::ConstantIntOp::create(p.b, p.loc, chance(p.rng, 50), 1);
  state.addOperands(failed);
  state.addAttribute("format", p.b.getStringAttr(format));
  size_t values = format.count("%ld");
  if (!p.options.wellTyped && chance(p.rng, 30))
    values = pick(p.rng, 3);
  for (size_t i = 0; i < values; ++i)
    state.addOperands(p.indexConstant(static_cast<int64_t>(pick(p.rng, 9))));
  return p.keep(p.b.create(state));
}

/// `bcast.sum_to_size`: the target (the result type) is the input's shape
/// with leading sizes dropped and sizes made 1 or `?` (every one a size the
/// input expands from, a static target against a `?` input checked at run
/// time), or, ill-typed, sizes that do not expand and other element types.
bool buildSumToSize(Program &p) {
  Value x = p.anyValue();
  auto type = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> input = type.getShape();
  SmallVector<int64_t> shape(input.drop_front(pick(p.rng, type.getRank() + 1)));
  for (int64_t &size : shape) {
    unsigned roll = pick(p.rng, 100);
    if (roll < 40)
      size = 1;
    else if (roll < 55)
      size = ShapedType::kDynamic;
    else if (roll < 65 && ShapedType::isDynamic(size))
      size = static_cast<int64_t>(pick(p.rng, 4));
  }
  Type element = type.getElementType();
  if (!p.options.wellTyped) {
    if (chance(p.rng, 30))
      shape.insert(shape.begin(), randomSize(p.rng));
    if (!shape.empty() && chance(p.rng, 30))
      shape[pick(p.rng, shape.size())] = randomSize(p.rng);
    if (chance(p.rng, 20))
      element = randomElementType(p.ctx, p.rng);
  }
  OperationState state(p.loc, "bcast.sum_to_size");
  state.addOperands(x);
  state.addTypes(RankedTensorType::get(shape, element));
  return p.keep(p.b.create(state));
}

/// The ops the generator cannot build from type inference, with the
/// function that builds each. Another such op needs an entry here.
struct OpEntry {
  const char *name;
  bool (*build)(Program &);
};

const OpEntry kOps[] = {
    {"bcast.cast", buildCast},
    {"bcast.broadcast_to", buildBroadcastTo},
    {"bcast.specify_shape", buildSpecifyShape},
    {"bcast.expand_view", buildExpandView},
    {"bcast.runtime_check", buildRuntimeCheck},
    {"bcast.sum_to_size", buildSumToSize},
};

const OpEntry *findOp(StringRef name) {
  for (const OpEntry &entry : kOps)
    if (name == entry.name)
      return &entry;
  return nullptr;
}

/// The ops the bcast dialect registers (loading it first).
SmallVector<RegisteredOperationName> bcastOps(MLIRContext &context) {
  context.getOrLoadDialect<bcast::BcastDialect>();
  SmallVector<RegisteredOperationName> ops;
  for (RegisteredOperationName name : context.getRegisteredOperations())
    if (name.getDialectNamespace() ==
        bcast::BcastDialect::getDialectNamespace())
      ops.push_back(name);
  return ops;
}

/// The number of operands of an op built from inference, or 0 when it has
/// no fixed count of one to three.
unsigned fixedOperandCount(RegisteredOperationName name) {
  if (name.hasTrait<OpTrait::OneOperand>())
    return 1;
  if (name.hasTrait<OpTrait::NOperands<2>::Impl>())
    return 2;
  if (name.hasTrait<OpTrait::NOperands<3>::Impl>())
    return 3;
  return 0;
}

/// The bcast ops built from inference: not in kOps, with InferTypeOpInterface
/// and a fixed operand count.
SmallVector<std::pair<RegisteredOperationName, unsigned>>
inferredOps(MLIRContext &context) {
  SmallVector<std::pair<RegisteredOperationName, unsigned>> ops;
  for (RegisteredOperationName name : bcastOps(context)) {
    if (findOp(name.getStringRef()) ||
        !name.hasInterface<InferTypeOpInterface>())
      continue;
    if (unsigned count = fixedOperandCount(name))
      ops.push_back({name, count});
  }
  return ops;
}

} // namespace

std::string bcast::fuzz::generateProgram(MLIRContext &context, uint64_t seed,
                                         const GeneratorOptions &options) {
  context.getOrLoadDialect<bcast::BcastDialect>();
  context.getOrLoadDialect<arith::ArithDialect>();
  context.getOrLoadDialect<func::FuncDialect>();
  context.getOrLoadDialect<tensor::TensorDialect>();
  Rng rng(seed);
  Program p(&context, rng, options);
  MLIRContext *ctx = &context;

  OwningOpRef<ModuleOp> module = ModuleOp::create(p.loc);
  p.b.setInsertionPointToEnd(module->getBody());
  SmallVector<int64_t> full = randomBroadcastShape(rng);
  SmallVector<Type> argTypes;
  for (size_t i = 0, e = 1 + pick(rng, 4); i < e; ++i) {
    bool mismatch = !options.wellTyped && chance(rng, 30);
    Type element = !options.wellTyped && chance(rng, 10)
                       ? randomForeignElementType(ctx, rng)
                       : randomElementType(ctx, rng);
    argTypes.push_back(
        RankedTensorType::get(operandShape(rng, full, mismatch), element));
  }
  auto func = func::FuncOp::create(p.b, p.loc, "fuzz",
                                   FunctionType::get(ctx, argTypes, {}));
  Block *body = func.addEntryBlock();
  p.b.setInsertionPointToEnd(body);
  for (BlockArgument arg : body->getArguments())
    p.pool.push_back(arg);

  auto inferred = inferredOps(context);
  // The reductions (ops with a dims, dim or keepdim attribute) are a tenth
  // of the inferred ops, and many of their draws do not verify (dims out of
  // range, float-only ops): drawn on their own now and then, they reach the
  // reduction lowerings and verifiers as often as the element-wise ops do.
  SmallVector<std::pair<RegisteredOperationName, unsigned>> reductions;
  for (const auto &entry : inferred)
    if (llvm::any_of(entry.first.getAttributeNames(), [](StringAttr attr) {
          return attr.getValue() == "dims" || attr.getValue() == "dim" ||
                 attr.getValue() == "keepdim";
        }))
      reductions.push_back(entry);
  size_t target = 1 + pick(rng, options.maxOps);
  size_t built = 0;
  for (size_t attempt = 0; built < target && attempt < 8 * target; ++attempt) {
    unsigned roll = pick(rng, 100);
    if (roll < 12) {
      p.addValue();
      continue;
    }
    bool ok;
    if (roll < 82 && !inferred.empty()) {
      const auto &[name, count] = roll < 32 && !reductions.empty()
                                      ? reductions[pick(rng, reductions.size())]
                                      : inferred[pick(rng, inferred.size())];
      ok = p.addInferredOp(name, count);
    } else {
      ok = kOps[pick(rng, std::size(kOps))].build(p);
    }
    built += ok;
  }

  // Return the last results (or an argument, when no op was kept).
  SmallVector<Value> returned;
  if (p.results.empty())
    returned.push_back(p.pool.front());
  for (size_t i = 0, e = std::min<size_t>(p.results.size(), 1 + pick(rng, 2));
       i < e; ++i)
    returned.push_back(p.results[p.results.size() - 1 - i]);
  func::ReturnOp::create(p.b, p.loc, returned);
  func.setType(
      FunctionType::get(ctx, argTypes, ValueRange(returned).getTypes()));

  // The printer falls back to the generic form for a module that does not
  // verify; a well-typed one is printed in the generic form now and then.
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  if (chance(rng, 5))
    flags.printGenericOpForm();
  module->print(os, flags);
  return text;
}

std::vector<std::string> bcast::fuzz::findUncoveredOps(MLIRContext &context) {
  context.getOrLoadDialect<bcast::BcastDialect>();
  std::vector<std::string> missing;
  for (RegisteredOperationName name : bcastOps(context)) {
    bool inferred = !findOp(name.getStringRef()) &&
                    name.hasInterface<InferTypeOpInterface>() &&
                    fixedOperandCount(name);
    if (!inferred && !findOp(name.getStringRef())) {
      missing.push_back("op '" + name.getStringRef().str() +
                        "' is neither inferred (InferTypeOpInterface, 1 to 3 "
                        "operands) nor in kOps");
      continue;
    }
    if (!inferred)
      continue;
    for (StringAttr attr : name.getAttributeNames())
      if (!findAttribute(attr.getValue()))
        missing.push_back("attribute '" + attr.getValue().str() + "' of '" +
                          name.getStringRef().str() +
                          "' has no entry in kAttributes");
  }
  for (const OpEntry &entry : kOps)
    if (!RegisteredOperationName::lookup(entry.name, &context))
      missing.push_back(std::string("kOps names '") + entry.name +
                        "', which the dialect does not register");
  return missing;
}

std::vector<std::string> bcast::fuzz::bcastOpNames(MLIRContext &context) {
  context.getOrLoadDialect<bcast::BcastDialect>();
  std::vector<std::string> names;
  for (RegisteredOperationName name : bcastOps(context))
    names.push_back(name.getStringRef().str());
  return names;
}

//===----------------------------------------------------------------------===//
// Text mutations
//===----------------------------------------------------------------------===//

namespace {

/// Start offsets of every occurrence of `needle` in `text`.
SmallVector<size_t> findAll(StringRef text, StringRef needle) {
  SmallVector<size_t> found;
  for (size_t at = text.find(needle); at != StringRef::npos;
       at = text.find(needle, at + 1))
    found.push_back(at);
  return found;
}

bool isIdentifierChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '.' || c == '$' || c == '-';
}

/// The sizes and element type of the `tensor<...>` whose `<` is at `open`:
/// the offsets of each size token and of the element type.
struct TensorSpelling {
  SmallVector<std::pair<size_t, size_t>> sizes; // offset, length
  size_t elementBegin = 0, elementEnd = 0;
};

std::optional<TensorSpelling> parseTensorSpelling(StringRef text, size_t open) {
  TensorSpelling spelling;
  size_t at = open + 1;
  while (at < text.size()) {
    size_t end = at;
    while (end < text.size() && (llvm::isDigit(text[end]) || text[end] == '?'))
      ++end;
    if (end == at || end >= text.size() || text[end] != 'x')
      break;
    spelling.sizes.push_back({at, end - at});
    at = end + 1;
  }
  size_t end = at;
  while (end < text.size() && (llvm::isAlnum(text[end]) || text[end] == '_'))
    ++end;
  if (end == at || end >= text.size() || text[end] != '>')
    return std::nullopt;
  spelling.elementBegin = at;
  spelling.elementEnd = end;
  return spelling;
}

} // namespace

bool bcast::fuzz::mutateText(std::string &text, uint64_t seed,
                             const std::vector<std::string> &opNames) {
  Rng rng(seed);
  const StringRef elements[] = {"i1",    "i8",   "i16",  "i32",  "i64",
                                "ui8",   "ui16", "ui32", "ui64", "f16",
                                "bf16",  "f32",  "f64",  "i7",   "i128",
                                "index", "si32", "f80",  "tf32", "f8E5M2"};
  const StringRef sizes[] = {"0",
                             "1",
                             "?",
                             "2",
                             "3",
                             "4294967296",
                             "9223372036854775807",
                             "4611686018427387904",
                             "17"};
  const StringRef values[] = {"\"trunc\"",
                              "\"floor\"",
                              "\"tanh\"",
                              "\"none\"",
                              "\"\"",
                              "0x7FF8000000000000 : f64",
                              "0x7FF0000000000000 : f64",
                              "0xFFF0000000000000 : f64",
                              "1.275000e+02 : f64",
                              "-0.0 : f64",
                              "1.0e+308 : f64",
                              "9.2233720368547758e+18 : f64",
                              "1 : i64",
                              "5.0e-01 : f32",
                              "[0, -1]",
                              "unit"};
  for (int tries = 0; tries < 8; ++tries) {
    switch (pick(rng, 6)) {
    case 0:
    case 1: { // an element type or a size of one tensor type
      SmallVector<size_t> tensors = findAll(text, "tensor<");
      if (tensors.empty())
        break;
      std::optional<TensorSpelling> spelling =
          parseTensorSpelling(text, tensors[pick(rng, tensors.size())] + 6);
      if (!spelling)
        break;
      if (chance(rng, 40) || spelling->sizes.empty()) {
        if (chance(rng, 30)) { // insert a size
          size_t at =
              spelling->sizes.empty()
                  ? spelling->elementBegin
                  : spelling->sizes[pick(rng, spelling->sizes.size())].first;
          text.insert(at,
                      (pickFrom(rng, ArrayRef<StringRef>(sizes)) + "x").str());
          return true;
        }
        text.replace(spelling->elementBegin,
                     spelling->elementEnd - spelling->elementBegin,
                     pickFrom(rng, ArrayRef<StringRef>(elements)).str());
        return true;
      }
      auto [at, length] = spelling->sizes[pick(rng, spelling->sizes.size())];
      if (chance(rng, 20))
        text.erase(at, length + 1); // drop the size and its 'x'
      else
        text.replace(at, length,
                     pickFrom(rng, ArrayRef<StringRef>(sizes)).str());
      return true;
    }
    case 2: { // an op name
      SmallVector<size_t> ops = findAll(text, "bcast.");
      if (ops.empty() || opNames.empty())
        break;
      size_t at = ops[pick(rng, ops.size())];
      size_t end = at + 6;
      while (end < text.size() && isIdentifierChar(text[end]))
        ++end;
      text.replace(at, end - at, opNames[pick(rng, opNames.size())]);
      return true;
    }
    case 3: { // an attribute value
      SmallVector<size_t> attrs;
      for (StringRef name :
           {"rounding_mode = ", "approximate = ", "value = ", "format = "})
        for (size_t at : findAll(text, name))
          attrs.push_back(at + name.size());
      if (attrs.empty())
        break;
      size_t at = attrs[pick(rng, attrs.size())];
      size_t end = text.find_first_of(",}", at);
      if (end == std::string::npos)
        break;
      text.replace(at, end - at,
                   pickFrom(rng, ArrayRef<StringRef>(values)).str());
      return true;
    }
    case 4: { // an SSA operand replaced by another value's name
      SmallVector<size_t> uses = findAll(text, "%");
      if (uses.size() < 2)
        break;
      auto nameAt = [&](size_t at) {
        size_t end = at + 1;
        while (end < text.size() && isIdentifierChar(text[end]))
          ++end;
        return end;
      };
      size_t from = uses[pick(rng, uses.size())];
      size_t other = uses[pick(rng, uses.size())];
      std::string name = text.substr(other, nameAt(other) - other);
      text.replace(from, nameAt(from) - from, name);
      return true;
    }
    default: { // drop a line
      SmallVector<size_t> lines = findAll(text, "\n");
      if (lines.size() < 3)
        break;
      size_t index = pick(rng, lines.size() - 1);
      size_t begin = lines[index] + 1, end = lines[index + 1];
      text.erase(begin, end - begin + 1);
      return true;
    }
    }
  }
  return false;
}
