//===- MatmulToBLAS.cpp - f32/f64 matrix products as BLAS calls -----------===//
//
// After bufferization, replaces each f32 or f64 matmul generic that
// convert-bcast-to-linalg made (marked `bcast.matmul`) and that still has
// its shape (two inputs read through torch.matmul's maps, a zero-filled
// output, a multiply-add body) by a call of libbcast_matmul_runtime.so's
// `bcastMatmulF32`/`bcastMatmulF64` on the three memrefs, unranked (an
// operand the lowering reads through a bcast.permute, such as
// `k.transpose(-1, -2)`, as a `memref.transpose` view of its buffer). The
// runtime walks the batch space with the operands' strides (0 for a
// broadcast operand: no copy) and calls the BLAS; the zero fill goes, since
// the BLAS overwrites the result. Anything else (integers, bf16, a generic
// that fusion changed) stays for the loops. docs/Pipelines.md records the
// measurements behind the choice.
//
//===----------------------------------------------------------------------===//

#include "bcast/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTMATMULTOBLAS
#include "bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;

/// The attribute convert-bcast-to-linalg puts on the generic of a
/// bcast.matmul.
static constexpr llvm::StringLiteral kMatmulMarker = "bcast.matmul";

/// How `map` reads an operand of a matmul whose loops are (batch..., m?, k,
/// n?), if it does: the order of the operand's dims that makes its results
/// batch loops aligned right with the result's (or 0 where broadcast), then
/// `tail` (m and k, or k and n). View dim `i` is operand dim `order[i]`:
/// the identity for the maps convert-bcast-to-linalg builds, another
/// permutation where the operand was a bcast.permute read through.
static std::optional<SmallVector<int64_t>>
getOperandOrder(AffineMap map, int64_t batchRank, ArrayRef<int64_t> tail) {
  int64_t rank = map.getNumResults();
  int64_t operandBatch = rank - tail.size();
  if (operandBatch < 0 || operandBatch > batchRank)
    return std::nullopt;
  SmallVector<int64_t> order(rank, -1);
  SmallVector<int64_t> broadcast;
  for (int64_t dim = 0; dim < rank; ++dim) {
    AffineExpr expr = map.getResult(dim);
    if (auto constant = dyn_cast<AffineConstantExpr>(expr)) {
      if (constant.getValue() != 0)
        return std::nullopt;
      broadcast.push_back(dim);
      continue;
    }
    auto loop = dyn_cast<AffineDimExpr>(expr);
    if (!loop)
      return std::nullopt;
    int64_t position = loop.getPosition();
    int64_t slot = -1;
    if (const int64_t *it = llvm::find(tail, position); it != tail.end())
      slot = operandBatch + (it - tail.begin());
    else if (position < batchRank && position >= batchRank - operandBatch)
      slot = position - (batchRank - operandBatch);
    if (slot < 0 || order[slot] != -1)
      return std::nullopt;
    order[slot] = dim;
  }
  // A broadcast dim (size 1) takes any batch slot left; the tail slots must
  // all be loops.
  auto *next = broadcast.begin();
  for (int64_t slot = 0; slot < rank; ++slot) {
    if (order[slot] != -1)
      continue;
    if (slot >= operandBatch || next == broadcast.end())
      return std::nullopt;
    order[slot] = *next++;
  }
  return order;
}

/// Whether `generic` is still the matmul the lowering built: f32 or f64,
/// out += lhs * rhs over (batch..., m?, k, n?) with the maps of
/// torch.matmul, on memrefs, each operand possibly read in another order of
/// its dims (`orders`, set on success: getOperandOrder's, lhs and rhs).
static bool isBlasMatmul(linalg::GenericOp generic,
                         SmallVector<SmallVector<int64_t>> &orders) {
  if (!generic->hasAttr(kMatmulMarker) || !generic.hasPureBufferSemantics() ||
      generic.getNumDpsInputs() != 2 || generic.getNumDpsInits() != 1)
    return false;
  auto outType = cast<MemRefType>(generic.getDpsInits()[0].getType());
  Type element = outType.getElementType();
  if (!element.isF32() && !element.isF64())
    return false;
  for (Value input : generic.getDpsInputs())
    if (cast<MemRefType>(input.getType()).getElementType() != element)
      return false;

  // The body: yield(out + lhs * rhs).
  Block &body = generic.getRegion().front();
  if (body.getOperations().size() != 3)
    return false;
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add || add.getLhs() != body.getArgument(2))
    return false;
  auto mul = add.getRhs().getDefiningOp<arith::MulFOp>();
  if (!mul || mul.getLhs() != body.getArgument(0) ||
      mul.getRhs() != body.getArgument(1))
    return false;

  // The loops (batch..., m?, k, n?) and the maps.
  SmallVector<utils::IteratorType> iterators = generic.getIteratorTypesArray();
  int64_t numLoops = iterators.size();
  int64_t resultRank = outType.getRank();
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  int64_t lhsRank = maps[0].getNumResults(), rhsRank = maps[1].getNumResults();
  bool hasM = lhsRank >= 2, hasN = rhsRank >= 2;
  int64_t batchRank = resultRank - hasM - hasN;
  int64_t k = batchRank + hasM;
  if (numLoops != resultRank + 1 || batchRank < 0 ||
      llvm::count(iterators, utils::IteratorType::reduction) != 1 ||
      iterators[k] != utils::IteratorType::reduction)
    return false;
  // The result: every loop but k, in order.
  if (maps[2].getNumResults() != resultRank ||
      !maps[2].isProjectedPermutation() ||
      llvm::any_of(llvm::enumerate(maps[2].getResults()), [&](auto e) {
        int64_t loop = e.index() < (size_t)k ? e.index() : e.index() + 1;
        return cast<AffineDimExpr>(e.value()).getPosition() != loop;
      }))
    return false;
  SmallVector<int64_t> lhsTail, rhsTail;
  if (hasM)
    lhsTail.push_back(batchRank);
  lhsTail.push_back(k);
  rhsTail.push_back(k);
  if (hasN)
    rhsTail.push_back(k + 1);
  std::optional<SmallVector<int64_t>> lhsOrder =
      getOperandOrder(maps[0], batchRank, lhsTail);
  std::optional<SmallVector<int64_t>> rhsOrder =
      getOperandOrder(maps[1], batchRank, rhsTail);
  if (!lhsOrder || !rhsOrder)
    return false;
  orders.assign({std::move(*lhsOrder), std::move(*rhsOrder)});
  return true;
}

/// The zero fill of `generic`'s output, if it is the op right before it
/// (nothing in between may read or write the buffer).
static linalg::FillOp getZeroFill(linalg::GenericOp generic) {
  Value out = generic.getDpsInits()[0];
  for (Operation *op = generic->getPrevNode(); op; op = op->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      if (fill.getDpsInits()[0] != out)
        return {};
      if (!matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
        return {};
      return fill;
    }
    // Views and index arithmetic between them are harmless; anything else
    // may touch the buffer.
    if (!isMemoryEffectFree(op))
      return {};
  }
  return {};
}

namespace {
struct BcastMatmulToBLASPass
    : public bcast::impl::BcastMatmulToBLASBase<BcastMatmulToBLASPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    struct Match {
      linalg::GenericOp generic;
      linalg::FillOp fill;
      SmallVector<SmallVector<int64_t>> orders;
    };
    SmallVector<Match> matmuls;
    module.walk([&](linalg::GenericOp generic) {
      SmallVector<SmallVector<int64_t>> orders;
      if (!isBlasMatmul(generic, orders))
        return;
      if (linalg::FillOp fill = getZeroFill(generic))
        matmuls.push_back({generic, fill, std::move(orders)});
    });
    SymbolTable symbols(module);
    for (auto &[generic, fill, orders] : matmuls) {
      OpBuilder b(generic);
      Location loc = generic.getLoc();
      Type element =
          cast<MemRefType>(generic.getDpsInits()[0].getType()).getElementType();
      StringRef name = element.isF32() ? "bcastMatmulF32" : "bcastMatmulF64";
      auto unranked = UnrankedMemRefType::get(element, 0);
      auto callee = symbols.lookup<func::FuncOp>(name);
      if (!callee) {
        OpBuilder moduleBuilder = OpBuilder::atBlockBegin(module.getBody());
        callee = func::FuncOp::create(
            moduleBuilder, loc, name,
            moduleBuilder.getFunctionType({unranked, unranked, unranked}, {}));
        callee.setPrivate();
        symbols.insert(callee);
      }
      // An operand read in another order of its dims is handed over as a
      // transposed view (its strides permuted, no copy): the runtime's
      // strides then pick the BLAS's trans flag.
      SmallVector<Value> args;
      for (auto [i, operand] : llvm::enumerate(generic->getOperands())) {
        Value view = operand;
        if (i < 2 &&
            !llvm::equal(orders[i], llvm::seq<int64_t>(0, orders[i].size())))
          view = memref::TransposeOp::create(
              b, loc, operand,
              AffineMapAttr::get(
                  AffineMap::getPermutationMap(orders[i], b.getContext())));
        args.push_back(memref::CastOp::create(b, loc, unranked, view));
      }
      func::CallOp::create(b, loc, callee, args);
      generic.erase();
      fill.erase();
    }
  }
};
} // namespace
