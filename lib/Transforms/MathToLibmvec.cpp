//===- MathToLibmvec.cpp - bcast-math-to-libmvec --------------------------===//
//
// Vector math ops become calls of glibc's vector math library, 256 or 512
// bits a call (the pass description in Passes.td says why and when).
//
//===----------------------------------------------------------------------===//

#include "bcast/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include "llvm/ADT/StringMap.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTMATHTOLIBMVEC
#include "bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;

/// The libmvec name of each math op: its C name (the f64 function; f32 adds
/// `f`).
static const llvm::StringMap<StringRef> &getLibmvecNames() {
  static const llvm::StringMap<StringRef> names = {
      {"math.exp", "exp"},     {"math.exp2", "exp2"},   {"math.expm1", "expm1"},
      {"math.log", "log"},     {"math.log2", "log2"},   {"math.log10", "log10"},
      {"math.log1p", "log1p"}, {"math.sin", "sin"},     {"math.cos", "cos"},
      {"math.tan", "tan"},     {"math.asin", "asin"},   {"math.acos", "acos"},
      {"math.atan", "atan"},   {"math.sinh", "sinh"},   {"math.cosh", "cosh"},
      {"math.tanh", "tanh"},   {"math.asinh", "asinh"}, {"math.acosh", "acosh"},
      {"math.atanh", "atanh"}, {"math.erf", "erf"},     {"math.erfc", "erfc"},
      {"math.powf", "pow"},    {"math.atan2", "atan2"},
  };
  return names;
}

namespace {
/// Replaces one math op on a 1-D f32 or f64 vector of a multiple of 256 bits
/// by libmvec calls on its 256-bit slices (AVX2), or, with `avx512`, on its
/// 512-bit slices when it has a multiple of 512 bits.
struct MathOpToLibmvec : public RewritePattern {
  MathOpToLibmvec(MLIRContext *context, bool avx512)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context),
        avx512(avx512) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    auto name = getLibmvecNames().find(op->getName().getStringRef());
    if (name == getLibmvecNames().end() || op->getNumResults() != 1)
      return failure();
    auto type = dyn_cast<VectorType>(op->getResult(0).getType());
    if (!type || type.getRank() != 1 || type.isScalable())
      return failure();
    Type element = type.getElementType();
    if (!element.isF32() && !element.isF64())
      return failure();
    int64_t width = element.getIntOrFloatBitWidth();
    int64_t size = type.getDimSize(0);
    bool wide = avx512 && size % (512 / width) == 0;
    int64_t lanes = (wide ? 512 : 256) / width;
    if (size % lanes != 0 ||
        llvm::any_of(op->getOperandTypes(), [&](Type t) { return t != type; }))
      return failure();

    // _ZGV d (AVX2) or e (AVX-512) N<lanes> v.. _<name>[f]: the vector
    // function ABI.
    std::string symbol = std::string(wide ? "_ZGVeN" : "_ZGVdN") +
                         std::to_string(lanes) +
                         std::string(op->getNumOperands(), 'v') + "_" +
                         name->second.str() + (element.isF32() ? "f" : "");
    auto slice = VectorType::get({lanes}, element);
    auto module = op->getParentOfType<ModuleOp>();
    auto callee = module.lookupSymbol<func::FuncOp>(symbol);
    if (!callee) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      SmallVector<Type> inputs(op->getNumOperands(), slice);
      callee = func::FuncOp::create(rewriter, op->getLoc(), symbol,
                                    rewriter.getFunctionType(inputs, slice));
      callee.setPrivate();
      // No side effects (as convert-math-to-libm marks the C library's).
      callee->setAttr("llvm.readnone", rewriter.getUnitAttr());
    }

    Location loc = op->getLoc();
    if (size == lanes) {
      rewriter.replaceOpWithNewOp<func::CallOp>(op, callee, op->getOperands());
      return success();
    }
    Value result = arith::ConstantOp::create(rewriter, loc, type,
                                             rewriter.getZeroAttr(type));
    for (int64_t offset = 0; offset < size; offset += lanes) {
      SmallVector<Value> args;
      for (Value operand : op->getOperands())
        args.push_back(vector::ExtractStridedSliceOp::create(
            rewriter, loc, operand, ArrayRef<int64_t>{offset},
            ArrayRef<int64_t>{lanes}, ArrayRef<int64_t>{1}));
      Value part =
          func::CallOp::create(rewriter, loc, callee, args).getResult(0);
      result = vector::InsertStridedSliceOp::create(rewriter, loc, part, result,
                                                    ArrayRef<int64_t>{offset},
                                                    ArrayRef<int64_t>{1});
    }
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  bool avx512;
};

struct BcastMathToLibmvecPass
    : public bcast::impl::BcastMathToLibmvecBase<BcastMathToLibmvecPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<MathOpToLibmvec>(&getContext(), avx512);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace
