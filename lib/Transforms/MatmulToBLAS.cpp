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
// A product whose buffer only feeds the element-wise generic after it (its
// epilogue) is computed by the BLAS into the epilogue's output and finished
// there in place, and the product's buffer disappears (a temporary the size
// of the result, allocated on each call: on the benchmark host, a VM, the
// page faults of `(a @ b) * 2`'s 1.8 MiB buffer took 30 times the product's
// time before the Python JIT kept its temporaries). With `epilogue-rows`
// the two are tiled together, so that each block of rows is finished while
// it is in cache.
//
//===----------------------------------------------------------------------===//

#include "bcast/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

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

/// The buffer `value` is a view of (the value no view op defines).
static Value getViewRoot(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// The element-wise generic that finishes `matmul`'s product, if the product
/// can be computed block by block into that generic's output: the product's
/// buffer is an allocation; the generic is the next op with effects,
/// all-parallel over the result's shape, reads the product once through the
/// identity and writes one buffer of its type through the identity: either
/// the product's own buffer (in place: whatever reads it later reads the
/// finished blocks) or another one that it does not read and that no other
/// operand of either op views (the GEMM writes a block of it before the
/// epilogue reads its other inputs there), the product's buffer then used
/// by nothing else but its dealloc.
static linalg::GenericOp getEpilogue(linalg::GenericOp matmul,
                                     linalg::FillOp fill) {
  Value product = matmul.getDpsInits()[0];
  if (!product.getDefiningOp<memref::AllocOp>())
    return {};
  linalg::GenericOp epilogue;
  for (Operation *op = matmul->getNextNode(); op; op = op->getNextNode()) {
    if ((epilogue = dyn_cast<linalg::GenericOp>(op)))
      break;
    if (!isMemoryEffectFree(op))
      return {};
  }
  if (!epilogue || epilogue.getNumDpsInits() != 1 ||
      epilogue.getNumParallelLoops() != epilogue.getNumLoops() ||
      !epilogue.hasPureBufferSemantics() ||
      !epilogue.getBlock()->getOps<linalg::IndexOp>().empty())
    return {};
  auto productType = cast<MemRefType>(product.getType());
  OpOperand *output = epilogue.getDpsInitOperand(0);
  auto outputType = cast<MemRefType>(output->get().getType());
  bool inPlace = output->get() == product;
  if (outputType.getElementType() != productType.getElementType() ||
      outputType.getRank() != productType.getRank() ||
      epilogue.getNumLoops() != productType.getRank() ||
      !epilogue.getMatchingIndexingMap(output).isIdentity() ||
      (!inPlace && epilogue.payloadUsesValueFromOperand(output)))
    return {};
  for (Operation *user : product.getUsers()) {
    if (user == fill || user == matmul || user == epilogue ||
        isa<memref::DeallocOp>(user))
      continue;
    if (!inPlace || user->getBlock() != epilogue->getBlock() ||
        !epilogue->isBeforeInBlock(user))
      return {};
  }
  OpOperand *read = nullptr;
  for (OpOperand *input : epilogue.getDpsInputOperands())
    if (input->get() == product) {
      if (read)
        return {};
      read = input;
    }
  if (!read || !epilogue.getMatchingIndexingMap(read).isIdentity())
    return {};
  Value root = getViewRoot(output->get());
  SmallVector<Value> operands(matmul.getDpsInputs());
  llvm::append_range(operands, epilogue.getDpsInputs());
  for (Value operand : operands)
    if (operand != product && getViewRoot(operand) == root)
      return {};
  return epilogue;
}

/// Whether `matmul` must stay one call: the runtime folds a batch dim that
/// the rhs broadcasts into M (one large GEMM instead of one per matrix),
/// and a batch size known only at run time may be a broadcast 1.
static bool keepsWholeBatch(linalg::GenericOp matmul, int64_t batchRank,
                            bool hasM, bool hasN) {
  if (batchRank == 0)
    return false;
  if (!hasN)
    return true;
  auto resultType = cast<MemRefType>(matmul.getDpsInits()[0].getType());
  SmallVector<AffineMap> maps = matmul.getIndexingMapsArray();
  int64_t rhsBatch = maps[1].getNumResults() - 2;
  for (int64_t d = 0; d < batchRank; ++d) {
    if (resultType.isDynamicDim(d))
      return true;
    if (resultType.getDimSize(d) == 1)
      continue;
    int64_t rhsDim = d - (batchRank - rhsBatch);
    if (rhsDim < 0 || !isa<AffineDimExpr>(maps[1].getResult(rhsDim)))
      return true;
  }
  for (auto [input, tail] :
       llvm::zip(matmul.getDpsInputs(), std::array<int64_t, 2>{1 + hasM, 2})) {
    auto type = cast<MemRefType>(input.getType());
    for (int64_t d = 0; d < type.getRank() - tail; ++d)
      if (type.isDynamicDim(d))
        return true;
  }
  return false;
}

/// Tiles `matmul` (zero-filled by `fill`) with `epilogue`: loops over the
/// result's batch dims and blocks of `rowsPerTile` rows, each iteration
/// filling, multiplying into and finishing one block of the epilogue's
/// output. Returns the tiled product and its fill, which the caller turns
/// into a BLAS call as any other.
static std::pair<linalg::GenericOp, linalg::FillOp>
tileWithEpilogue(linalg::GenericOp matmul, linalg::FillOp fill,
                 linalg::GenericOp epilogue, int64_t batchRank, bool hasM,
                 int64_t rowsPerTile) {
  OpBuilder b(epilogue);
  Location loc = matmul.getLoc();
  Value product = matmul.getDpsInits()[0];
  Value output = epilogue.getDpsInits()[0];
  int64_t resultRank = epilogue.getNumLoops();

  // The loops: one per batch dim (step 1), then M (step rowsPerTile).
  SmallVector<Range> ranges =
      cast<linalg::LinalgOp>(epilogue.getOperation()).createLoopRanges(b, loc);
  SmallVector<OpFoldResult> ivs;
  SmallVector<OpFoldResult> resultTiles(resultRank, b.getIndexAttr(0));
  int64_t tiledLoops = batchRank + hasM;
  SmallVector<Value> lowers, uppers, steps;
  for (int64_t d = 0; d < tiledLoops; ++d) {
    int64_t step = d < batchRank ? 1 : rowsPerTile;
    resultTiles[d] = b.getIndexAttr(step);
    lowers.push_back(getValueOrCreateConstantIndexOp(b, loc, ranges[d].offset));
    uppers.push_back(getValueOrCreateConstantIndexOp(b, loc, ranges[d].size));
    steps.push_back(arith::ConstantIndexOp::create(b, loc, step));
  }
  for (int64_t d = 0; d < tiledLoops; ++d) {
    auto loop = scf::ForOp::create(b, loc, lowers[d], uppers[d], steps[d]);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    ivs.push_back(loop.getInductionVar());
  }
  SmallVector<OpFoldResult> resultBounds;
  for (Range range : ranges)
    resultBounds.push_back(range.size);

  // The epilogue's block, with the product's block read from its output.
  SmallVector<Value> epilogueOperands(epilogue->getOperands());
  for (Value &operand : epilogueOperands)
    if (operand == product)
      operand = output;
  SmallVector<Value> tiledEpilogueOperands = linalg::makeTiledShapes(
      b, loc, epilogue, epilogueOperands, ivs, resultTiles, resultBounds,
      /*omitPartialTileCheck=*/false);
  Value outputTile = tiledEpilogueOperands.back();

  // The product's block: its loops are the result's with K inserted after
  // M (or after the batch dims when there is no M).
  int64_t k = batchRank + hasM;
  SmallVector<OpFoldResult> matmulTiles(resultTiles);
  matmulTiles.insert(matmulTiles.begin() + k, b.getIndexAttr(0));
  SmallVector<OpFoldResult> matmulBounds;
  for (Range range :
       cast<linalg::LinalgOp>(matmul.getOperation()).createLoopRanges(b, loc))
    matmulBounds.push_back(range.size);
  SmallVector<Value> tiledMatmulOperands = linalg::makeTiledShapes(
      b, loc, matmul, matmul.getDpsInputs(), ivs, matmulTiles, matmulBounds,
      /*omitPartialTileCheck=*/false);
  tiledMatmulOperands.push_back(outputTile);

  auto tiledFill = cast<linalg::FillOp>(
      clone(b, fill, TypeRange(), {fill.getInputs()[0], outputTile}));
  auto tiledMatmul = cast<linalg::GenericOp>(
      clone(b, matmul, TypeRange(), tiledMatmulOperands));
  auto tiledEpilogue = cast<linalg::GenericOp>(
      clone(b, epilogue, TypeRange(), tiledEpilogueOperands));
  (void)tiledEpilogue;

  epilogue.erase();
  matmul.erase();
  fill.erase();
  if (output != product) {
    SmallVector<Operation *> deallocs(product.getUsers());
    for (Operation *dealloc : deallocs)
      dealloc->erase();
    product.getDefiningOp()->erase();
  }
  return {tiledMatmul, tiledFill};
}

/// Makes `matmul` (zero-filled by `fill`) compute into the output of its
/// `epilogue` (getEpilogue's), which then finishes the product there in
/// place; the product's buffer goes. Changes nothing where the output is
/// not a buffer of the product's shape with the identity layout, defined
/// before the fill.
static void computeIntoEpilogueOutput(linalg::GenericOp matmul,
                                      linalg::FillOp fill,
                                      linalg::GenericOp epilogue) {
  Value product = matmul.getDpsInits()[0];
  Value output = epilogue.getDpsInits()[0];
  if (output == product)
    return;
  auto productType = cast<MemRefType>(product.getType());
  auto outputType = cast<MemRefType>(output.getType());
  if (outputType.getShape() != productType.getShape() ||
      !outputType.getLayout().isIdentity())
    return;
  // Nothing with effects lies between the fill and the epilogue, so an
  // allocated output is allocated before the fill; anything else defining
  // it there is refused.
  Operation *definer = output.getDefiningOp();
  if (definer && definer->getBlock() == fill->getBlock() &&
      fill->isBeforeInBlock(definer))
    return;
  product.replaceUsesWithIf(output, [&](OpOperand &use) {
    Operation *owner = use.getOwner();
    return owner == fill || owner == matmul || owner == epilogue;
  });
  SmallVector<Operation *> deallocs(product.getUsers());
  for (Operation *dealloc : deallocs)
    dealloc->erase();
  product.getDefiningOp()->erase();
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
    for (Match &match : matmuls) {
      linalg::GenericOp &generic = match.generic;
      linalg::FillOp &fill = match.fill;
      linalg::GenericOp epilogue = getEpilogue(generic, fill);
      if (!epilogue)
        continue;
      auto resultType = cast<MemRefType>(generic.getDpsInits()[0].getType());
      SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
      bool hasM = maps[0].getNumResults() >= 2;
      bool hasN = maps[1].getNumResults() >= 2;
      int64_t batchRank = resultType.getRank() - hasM - hasN;
      if (epilogueRows > 0 && batchRank + hasM != 0 &&
          !keepsWholeBatch(generic, batchRank, hasM, hasN)) {
        std::tie(generic, fill) = tileWithEpilogue(
            generic, fill, epilogue, batchRank, hasM, epilogueRows);
        continue;
      }
      computeIntoEpilogueOutput(generic, fill, epilogue);
    }
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
