//===- MapMatmulToGPU.cpp - bcast-map-matmul-to-gpu -----------------------===//
//
// Turns the bufferized product generics of bcast.matmul into gpu.launch ops
// that compute the result in square tiles staged through workgroup memory:
// each block loads a tile of lhs and one of rhs per step along K, and each
// of its threads reads T values of each from workgroup memory per step
// instead of from global memory. The pass description in Passes.td records
// the mapping.
//
//===----------------------------------------------------------------------===//

#include "bcast/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTMAPMATMULTOGPU
#include "bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;

/// The attribute convert-bcast-to-linalg puts on the generic of a
/// bcast.matmul.
static constexpr llvm::StringLiteral kMatmulMarker = "bcast.matmul";
/// CUDA's largest grid y and z; grid-stride loops cover the rest.
static constexpr int64_t kMaxGridYZ = 65535;

/// Whether `map` reads a batch dim of the product's loops: the loop itself
/// or 0 (a broadcast dim of size 1).
static bool isBatchRead(AffineExpr expr, int64_t batchRank) {
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return constant.getValue() == 0;
  auto dim = dyn_cast<AffineDimExpr>(expr);
  return dim && dim.getPosition() < batchRank;
}

/// Whether `map`'s results are batch reads followed by the loops `tail`.
static bool isOperandMap(AffineMap map, int64_t batchRank,
                         ArrayRef<int64_t> tail) {
  int64_t batch = map.getNumResults() - tail.size();
  if (batch < 0)
    return false;
  for (int64_t i = 0; i < batch; ++i)
    if (!isBatchRead(map.getResult(i), batchRank))
      return false;
  for (auto [i, loop] : llvm::enumerate(tail)) {
    auto dim = dyn_cast<AffineDimExpr>(map.getResult(batch + i));
    if (!dim || dim.getPosition() != loop)
      return false;
  }
  return true;
}

/// The number of batch dims of `generic` if it is a product the lowering
/// built with a matrix on each side: loops (batch..., m, k, n), lhs read at
/// (batch reads, m, k), rhs at (batch reads, k, n), the result at
/// (batch..., m, n). Products with a 1-D operand are left to
/// bcast-map-reductions-to-gpu.
static std::optional<int64_t> getBatchRank(linalg::GenericOp generic) {
  if (!generic->hasAttr(kMatmulMarker) || !generic.hasPureBufferSemantics() ||
      generic.getNumDpsInputs() != 2 || generic.getNumDpsInits() != 1)
    return std::nullopt;
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  int64_t resultRank = maps[2].getNumResults();
  int64_t batchRank = resultRank - 2;
  if (batchRank < 0 || generic.getNumLoops() != resultRank + 1 ||
      maps[0].getNumResults() < 2 || maps[1].getNumResults() < 2)
    return std::nullopt;
  int64_t m = batchRank, k = batchRank + 1, n = batchRank + 2;
  for (auto [loop, iterator] : llvm::enumerate(generic.getIteratorTypesArray()))
    if ((iterator == utils::IteratorType::reduction) != ((int64_t)loop == k))
      return std::nullopt;
  for (int64_t i = 0; i < resultRank; ++i) {
    auto dim = dyn_cast<AffineDimExpr>(maps[2].getResult(i));
    if (!dim || dim.getPosition() != (i < k ? i : i + 1))
      return std::nullopt;
  }
  if (!isOperandMap(maps[0], batchRank, {m, k}) ||
      !isOperandMap(maps[1], batchRank, {k, n}))
    return std::nullopt;
  return batchRank;
}

/// The indices at which `map` reads an operand for the loop values `loops`.
static SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                                   ArrayRef<Value> loops, Value zero) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults())
    indices.push_back(isa<AffineDimExpr>(expr)
                          ? loops[cast<AffineDimExpr>(expr).getPosition()]
                          : zero);
  return indices;
}

/// A load of `buffer` at `indices` where `inBounds`, else zero (a padded
/// element of a partial tile: its products only reach results that are not
/// stored, or add 0 * 0).
static Value loadOrZero(OpBuilder &b, Location loc, Value inBounds,
                        Value buffer, ArrayRef<Value> indices) {
  Type element = cast<MemRefType>(buffer.getType()).getElementType();
  auto branch = scf::IfOp::create(
      b, loc, inBounds,
      [&](OpBuilder &tb, Location tl) {
        scf::YieldOp::create(
            tb, tl,
            ValueRange{memref::LoadOp::create(tb, tl, buffer, indices)});
      },
      [&](OpBuilder &eb, Location el) {
        scf::YieldOp::create(eb, el,
                             ValueRange{arith::ConstantOp::create(
                                 eb, el, element, eb.getZeroAttr(element))});
      });
  return branch.getResult(0);
}

static Value isBelow(OpBuilder &b, Location loc, Value index, Value bound) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index, bound);
}

/// Replaces `generic` by the tiled kernel (see Passes.td).
static void lowerMatmul(linalg::GenericOp generic, int64_t batchRank,
                        int64_t tile) {
  OpBuilder b(generic);
  Location loc = generic.getLoc();
  Value lhs = generic.getDpsInputs()[0], rhs = generic.getDpsInputs()[1];
  Value result = generic.getDpsInits()[0];
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  auto index = [&](int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value).getResult();
  };
  auto dim = [&](Value buffer, int64_t d) {
    return b.createOrFold<memref::DimOp>(loc, buffer, d);
  };

  // Sizes, read on the host.
  SmallVector<Value> batchSizes;
  Value batchTotal = index(1);
  for (int64_t d = 0; d < batchRank; ++d) {
    batchSizes.push_back(dim(result, d));
    batchTotal = arith::MulIOp::create(b, loc, batchTotal, batchSizes.back());
  }
  Value rows = dim(result, batchRank), columns = dim(result, batchRank + 1);
  Value depth = dim(lhs, cast<MemRefType>(lhs.getType()).getRank() - 1);
  Value one = index(1), t = index(tile);
  auto gridSize = [&](Value units, std::optional<int64_t> limit) {
    Value grid = units;
    if (limit)
      grid = arith::MinUIOp::create(b, loc, grid, index(*limit));
    return arith::MaxUIOp::create(b, loc, one, grid).getResult();
  };
  Value gridX =
      gridSize(arith::CeilDivUIOp::create(b, loc, columns, t), std::nullopt);
  Value gridY =
      gridSize(arith::CeilDivUIOp::create(b, loc, rows, t), kMaxGridYZ);
  Value gridZ = gridSize(batchTotal, kMaxGridYZ);
  Type lhsElement = cast<MemRefType>(lhs.getType()).getElementType();
  Type rhsElement = cast<MemRefType>(rhs.getType()).getElementType();
  auto workgroup = gpu::AddressSpaceAttr::get(
      b.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
  auto lhsTile =
      MemRefType::get({tile, tile}, lhsElement, AffineMap(), workgroup);
  auto rhsTile =
      MemRefType::get({tile, tile}, rhsElement, AffineMap(), workgroup);
  auto launch = gpu::LaunchOp::create(
      b, loc, gridX, gridY, gridZ, index(tile * tile), one, one,
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/{}, TypeRange{lhsTile, rhsTile});

  b.setInsertionPointToStart(&launch.getBody().front());
  Value lhsShared = launch.getWorkgroupAttributions()[0];
  Value rhsShared = launch.getWorkgroupAttributions()[1];
  // Constants inside the kernel, so that the tile loop's bounds are known
  // to the device compiler (an unrolled inner loop) rather than arguments.
  Value zero = index(0);
  one = index(1);
  t = index(tile);
  Value thread = launch.getThreadIds().x;
  Value ty = arith::DivUIOp::create(b, loc, thread, t);
  Value tx = arith::RemUIOp::create(b, loc, thread, t);
  Value column = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, launch.getBlockIds().x, t), tx);
  Value columnIn = isBelow(b, loc, column, columns);
  // Grid-stride loops over the batch (z) and the row tiles (y); every
  // thread of a block runs the same iterations, so all reach the barriers.
  auto batchLoop = scf::ForOp::create(b, loc, launch.getBlockIds().z,
                                      batchTotal, launch.getGridSize().z);
  b.setInsertionPoint(batchLoop.getBody()->getTerminator());
  SmallVector<Value> loops(batchRank + 3);
  Value linear = batchLoop.getInductionVar();
  for (int64_t d = batchRank - 1; d >= 0; --d) {
    loops[d] = arith::RemUIOp::create(b, loc, linear, batchSizes[d]);
    linear = arith::DivUIOp::create(b, loc, linear, batchSizes[d]);
  }
  Value rowStep = arith::MulIOp::create(b, loc, launch.getGridSize().y, t);
  auto rowLoop = scf::ForOp::create(
      b, loc, arith::MulIOp::create(b, loc, launch.getBlockIds().y, t), rows,
      rowStep);
  b.setInsertionPoint(rowLoop.getBody()->getTerminator());
  Value row = arith::AddIOp::create(b, loc, rowLoop.getInductionVar(), ty);
  Value rowIn = isBelow(b, loc, row, rows);
  Value stored = arith::AndIOp::create(b, loc, rowIn, columnIn);
  loops[batchRank] = row;
  loops[batchRank + 2] = column;
  loops[batchRank + 1] = zero;
  SmallVector<Value> resultIndices = applyMap(b, loc, maps[2], loops, zero);
  Value init = loadOrZero(b, loc, stored, result, resultIndices);

  // Along K in steps of one tile: thread (ty, tx) stages lhs[row, k0 + tx]
  // and rhs[k0 + ty, column], then accumulates over the tile.
  Block &body = generic.getRegion().front();
  auto accumulate = [&](OpBuilder &ib, Location il, Value kk, ValueRange acc) {
    Value a = memref::LoadOp::create(ib, il, lhsShared, ValueRange{ty, kk});
    Value c = memref::LoadOp::create(ib, il, rhsShared, ValueRange{kk, tx});
    IRMapping mapping;
    mapping.map(body.getArgument(0), a);
    mapping.map(body.getArgument(1), c);
    mapping.map(body.getArgument(2), acc[0]);
    for (Operation &op : body.without_terminator())
      ib.clone(op, mapping);
    scf::YieldOp::create(
        ib, il,
        ValueRange{mapping.lookup(
            cast<linalg::YieldOp>(body.getTerminator()).getOperand(0))});
  };
  auto stage = [&](OpBuilder &kb, Location kl, Value k0, Value offset,
                   Value inBounds, Value buffer, AffineMap map, Value shared) {
    SmallVector<Value> at(loops);
    at[batchRank + 1] = arith::AddIOp::create(kb, kl, k0, offset);
    Value in = arith::AndIOp::create(kb, kl, inBounds,
                                     isBelow(kb, kl, at[batchRank + 1], depth));
    Value value =
        loadOrZero(kb, kl, in, buffer, applyMap(kb, kl, map, at, zero));
    memref::StoreOp::create(kb, kl, value, shared, ValueRange{ty, tx});
  };
  auto kLoop = scf::ForOp::create(
      b, loc, zero, depth, t, ValueRange{init},
      [&](OpBuilder &kb, Location kl, Value k0, ValueRange acc) {
        stage(kb, kl, k0, tx, rowIn, lhs, maps[0], lhsShared);
        stage(kb, kl, k0, ty, columnIn, rhs, maps[1], rhsShared);
        gpu::BarrierOp::create(kb, kl);
        auto inner = scf::ForOp::create(kb, kl, zero, t, one, acc, accumulate);
        gpu::BarrierOp::create(kb, kl);
        scf::YieldOp::create(kb, kl, inner.getResults());
      });

  b.setInsertionPointAfter(kLoop);
  scf::IfOp::create(b, loc, stored, [&](OpBuilder &tb, Location tl) {
    memref::StoreOp::create(tb, tl, kLoop.getResult(0), result, resultIndices);
    scf::YieldOp::create(tb, tl);
  });
  b.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
  generic.erase();
}

namespace {
struct BcastMapMatmulToGPUPass
    : public bcast::impl::BcastMapMatmulToGPUBase<BcastMapMatmulToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    if (tile <= 0 || tile * tile > 1024) {
      getOperation()->emitError()
          << "tile must be positive with tile * tile <= 1024";
      return signalPassFailure();
    }
    SmallVector<std::pair<linalg::GenericOp, int64_t>> products;
    getOperation()->walk([&](linalg::GenericOp generic) {
      if (generic->getParentOfType<gpu::LaunchOp>())
        return;
      if (std::optional<int64_t> batchRank = getBatchRank(generic))
        products.push_back({generic, *batchRank});
    });
    for (auto [generic, batchRank] : products)
      lowerMatmul(generic, batchRank, tile);
  }
};
} // namespace
