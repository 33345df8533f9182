//===- VectorizeReductions.cpp - Vector loops for reduction generics ------===//
//
// Lowers bufferized reduction linalg.generic ops (one result, a combiner
// such as arith.addf or arith.maximumf applied to the accumulator, the
// rest of the body element-wise) to explicit loops: vector accumulators
// along the contiguous innermost dimension, a horizontal reduce at the end
// of a row, and, for floating sums, a cascade of blocks so that rounding
// error grows with the logarithm of the length, not with the length; a
// float max or min takes the ordered maximum and redoes the rare rows where
// that differs from the IEEE one.
// Reductions over outer dimensions (innermost loop parallel) are
// vectorized across the kept innermost dimension, also in blocks. A row
// reduction that keeps one element (a full reduction) splits its reduced
// range into chunks, one per parallel task, whose partial results are
// combined in order after the parallel loop (with scalar loops for
// elements vectors cannot hold, such as odd integer widths). Bool inputs
// (i1, one byte each in a buffer) are read as byte vectors.
//
//===----------------------------------------------------------------------===//

#include "VectorizeCommon.h"
#include "bcast/Transforms/BroadcastMaps.h"
#include "bcast/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTVECTORIZEREDUCTIONS
#include "bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;
using mlir::bcast::vectorize::hasStaticUnitInnerStride;
using mlir::bcast::vectorize::isVectorElement;
using mlir::bcast::vectorize::readsInnerLoopLast;

using mlir::bcast::kMaxTasks;

/// A floating sum adds at most this many vectors (or blocks) into one
/// accumulator before the accumulator is added into the next level.
static constexpr int64_t kCascadeBlock = 64;

/// Levels of blocks below the final accumulator of a floating sum: a lane
/// of the final accumulator adds one block of kCascadeBlock^kCascadeLevels
/// vectors at a time.
static constexpr int64_t kCascadeLevels = 2;

/// A split floating sum adds its partials in blocks of this many.
static constexpr int64_t kPartialBlock = 16;

/// A row's vector loop keeps this many independent accumulators, so that
/// the combiner's latency (3 or 4 cycles for a floating add or maximum)
/// does not bound a reduction of data in cache: one accumulator would add
/// one vector every few cycles, where the core can load two per cycle.
static constexpr int64_t kAccumulators = 4;

/// Outer-dimension reductions: columns per task (rounded to vectors).
static constexpr int64_t kColumnChunk = 256;

/// Outer-dimension reductions: a row's vector loop prefetches the same
/// columns this many rows ahead.
static constexpr int64_t kPrefetchRows = 4;

/// `values` combined pairwise, level by level ((a b) (c d) ...), an odd one
/// carried to the next level: a tree of independent combines rather than a
/// chain.
static Value combinePairwise(SmallVector<Value> values,
                             function_ref<Value(Value, Value)> pair) {
  while (values.size() > 1) {
    SmallVector<Value> next;
    for (size_t k = 0; k + 1 < values.size(); k += 2)
      next.push_back(pair(values[k], values[k + 1]));
    if (values.size() % 2)
      next.push_back(values.back());
    values = std::move(next);
  }
  return values.front();
}

namespace {
/// One eligible reduction generic and what its lowering needs.
class ReductionLowering {
public:
  ReductionLowering(linalg::GenericOp op, int64_t vectorBytes, bool parallel,
                    int64_t grainSize)
      : op(op), vectorBytes(vectorBytes), parallel(parallel),
        grainSize(grainSize) {}

  /// Whether this lowering handles the generic: one init on buffers, a
  /// reduction loop, broadcast maps, contiguous rows, elements vectors can
  /// hold, and a body of element-wise arith/math ops whose yielded value
  /// is a combiner of the accumulator (read nowhere else) with a value of
  /// the inputs. Either the innermost loop is reduced (row reductions) or
  /// it is parallel and indexes the output's last dimension (outer
  /// reductions).
  bool isEligible();

  void lower(RewriterBase &rewriter);

private:
  bool usesInnerLoop(AffineMap map) const {
    return bcast::vectorize::usesInnerLoop(map, rank);
  }

  SmallVector<Value> indicesFor(AffineMap map, ArrayRef<Value> ivs) const {
    return bcast::vectorize::indicesFor(map, ivs, zero);
  }

  VectorType vectorType(Type type) const {
    return VectorType::get({vectorLength}, type);
  }

  /// Recovers the indices of `dims` (outermost first) from `flat`.
  SmallVector<Value> decode(OpBuilder &b, Value flat, ArrayRef<int64_t> dims);

  /// The row-invariant part of the body for outer indices `outer`: inputs
  /// that do not vary along the innermost loop, loaded once, and body ops
  /// that only depend on them. Fills `scalars`, and `splats` with their
  /// vectors.
  void prepareRow(OpBuilder &b, ArrayRef<Value> outer, IRMapping &scalars,
                  IRMapping &splats);

  /// The value combined into the accumulator at innermost index `j`, as a
  /// vector of `vectorLength` elements or as a scalar.
  Value emitElement(OpBuilder &b, ArrayRef<Value> outer, Value j, bool vector,
                    const IRMapping &invariants);

  /// Clones the combiner on `acc` and `value` (vectors or scalars).
  Value combine(OpBuilder &b, Value acc, Value value);

  Value identity(OpBuilder &b, bool vector);

  /// Row reductions: the reduction of the row at `outer` into the output.
  void emitRowReduction(OpBuilder &b, ArrayRef<Value> outer);
  /// The floating sum of the rows [lo, hi) of the reduced outer dims (rows
  /// that share one output element): blocks of kCascadeBlock^level rows,
  /// each summed from the identity, as a row's vectors are; `addRow` adds
  /// row `r` into an accumulator.
  Value emitRowLevels(OpBuilder &b, int64_t level, Value lo, Value hi,
                      function_ref<Value(OpBuilder &, Value, Value)> addRow);
  /// `acc` combined with the elements [lo, hi) of the row at `outer`:
  /// vectors (cascaded) reduced horizontally into `acc`, then a scalar
  /// tail.
  Value emitRowRange(OpBuilder &b, ArrayRef<Value> outer, Value lo, Value hi,
                     Value acc);
  /// lo + (hi - lo) / groupStep * groupStep: where the whole groups of
  /// kAccumulators vectors end.
  Value emitGroupsEnd(OpBuilder &b, Value lo, Value hi, Value groupStep) {
    Value length = arith::SubIOp::create(b, loc, hi, lo);
    Value groups = arith::DivUIOp::create(b, loc, length, groupStep);
    Value covered = arith::MulIOp::create(b, loc, groups, groupStep);
    return arith::AddIOp::create(b, loc, lo, covered);
  }

  /// The `k`th vector of the group of kAccumulators vectors at `j`.
  Value emitGroupElement(OpBuilder &b, ArrayRef<Value> outer, Value j,
                         int64_t k, const IRMapping &splats) {
    Value offset = arith::ConstantIndexOp::create(b, loc, k * vectorLength);
    Value at = arith::AddIOp::create(b, loc, j, offset);
    return emitElement(b, outer, at, /*vector=*/true, splats);
  }

  /// Vector accumulator of the vectors at [lo, hi) of a row, cascaded.
  Value emitVectorLevels(OpBuilder &b, ArrayRef<Value> outer, int64_t level,
                         Value lo, Value hi, const IRMapping &splats);
  /// The arith.maximumf or arith.minimumf of the vectors at [lo, hi) of a
  /// row, horizontally reduced to a scalar.
  Value emitMinMaxRow(OpBuilder &b, ArrayRef<Value> outer, Value lo, Value hi,
                      const IRMapping &splats);

  /// Outer reductions: the rows [klo, khi) of the reduced dimensions
  /// (flattened) for columns [c0, c0 + width) accumulated into `dest`.
  using DestIndices =
      std::function<SmallVector<Value>(OpBuilder &, Value column)>;
  void emitColumnLevels(OpBuilder &b, ArrayRef<Value> parallelIvs,
                        int64_t level, Value klo, Value khi, Value c0,
                        Value width, Value dest, const DestIndices &indices,
                        ArrayRef<Value> buffers);
  /// dest[c0 + jj] = combine(dest[...], value(jj)) for jj in [0, width).
  void emitColumnUpdate(
      OpBuilder &b, Value c0, Value width, Value dest,
      const DestIndices &indices,
      function_ref<Value(OpBuilder &, Value column, bool vector)> value);

  /// Full loop indices from the parallel and reduced outer indices.
  SmallVector<Value> mergeOuter(ArrayRef<Value> parallelIvs,
                                ArrayRef<Value> reducedIvs) const;

  /// Loops over tasks [0, extent) in blocks, in parallel when asked and,
  /// with `applyGrain`, when the op's loops hold at least grain-size
  /// elements (static sizes decide here, dynamic ones by one branch around
  /// a parallel and a sequential version); `prologue` runs once per
  /// parallel block, or once before sequential blocks (stack buffers a
  /// block's tasks share).
  void emitTasks(OpBuilder &b, Value extent, bool inParallel,
                 function_ref<void(OpBuilder &, Value task)> body,
                 function_ref<void(OpBuilder &)> prologue = nullptr,
                 bool applyGrain = true);

  void lowerRowReduction(OpBuilder &b);
  /// A row reduction whose kept extent is 1: the `total` reduced elements
  /// (rows of the reduced outer dims, flattened) in chunks, one per
  /// parallel task, each reduced into a slot of a stack buffer of partials;
  /// the partials are then combined into the output in task order.
  void emitSplitReduction(OpBuilder &b, Value total);
  void lowerOuterReduction(OpBuilder &b);

  linalg::GenericOp op;
  int64_t vectorBytes;
  bool parallel;
  int64_t grainSize;
  Location loc = op.getLoc();
  int64_t rank = 0;
  bool innerReduced = false;
  /// Some element is not a vector element (i1, odd widths): vectors of one.
  bool scalarOnly = false;
  Operation *combiner = nullptr;
  BlockArgument accArg;
  Value combined; ///< The body value the combiner adds to the accumulator.
  bool cascade = false;
  int64_t vectorLength = 1;
  Value zero, one, output;
  AffineMap outputMap;
  SmallVector<Value> sizes;
  SmallVector<int64_t> parallelDims; ///< Outer parallel loops.
  SmallVector<int64_t> reducedDims;  ///< Outer reduction loops.
  /// Outer reductions: the last row of the reduced dims (flattened), and
  /// the inputs read row by row, whose rows ahead are prefetched.
  Value lastRow;
  SmallVector<OpOperand *> streamedInputs;
};
} // namespace

bool ReductionLowering::isEligible() {
  if (op.getNumDpsInits() != 1 || !op.hasPureBufferSemantics() ||
      op.getNumReductionLoops() == 0)
    return false;
  rank = op.getNumLoops();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  innerReduced = iterators.back() == utils::IteratorType::reduction;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !type.getElementType().isSignlessIntOrFloat())
      return false;
    // Buffers hold i1 (any/all) and odd widths in whole bytes, while
    // vectors pack their bits: scalar loops only, except for bools, whose
    // vectors move as bytes (boolPointer).
    Type element = type.getElementType();
    scalarOnly |= !isVectorElement(element) && !element.isInteger(1);
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!bcast::isBroadcastIndexingMap(map) || !readsInnerLoopLast(map, rank))
      return false;
    if (usesInnerLoop(map) && !hasStaticUnitInnerStride(type))
      return false;
  }
  outputMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  for (auto [d, iterator] : llvm::enumerate(iterators))
    if (iterator == utils::IteratorType::reduction &&
        outputMap.isFunctionOfDim(d))
      return false;
  if (!innerReduced && !usesInnerLoop(outputMap))
    return false;

  Block *body = op.getBody();
  accArg = body->getArguments().back();
  Value yielded = body->getTerminator()->getOperand(0);
  combiner = yielded.getDefiningOp();
  if (!combiner || combiner->getBlock() != body ||
      combiner->getNumOperands() != 2 || !accArg.hasOneUse() ||
      accArg.getUses().begin()->getOwner() != combiner ||
      !linalg::getCombinerOpKind(combiner) ||
      !arith::getNeutralElement(combiner))
    return false;
  combined = combiner->getOperand(0) == accArg ? combiner->getOperand(1)
                                               : combiner->getOperand(0);
  if (combined == accArg)
    return false;
  for (Operation &bodyOp : body->without_terminator()) {
    if (bodyOp.getNumRegions() || bodyOp.getNumResults() != 1 ||
        !isa<arith::ArithDialect, math::MathDialect>(bodyOp.getDialect()))
      return false;
    if (!isa<arith::ConstantOp>(bodyOp) &&
        !bodyOp.hasTrait<OpTrait::Elementwise>())
      return false;
  }
  cascade =
      *linalg::getCombinerOpKind(combiner) == vector::CombiningKind::ADD &&
      isa<FloatType>(accArg.getType());
  if (!scalarOnly)
    return true;
  // Elements vectors cannot hold are taken only for the split of a full
  // reduction, which their scalar loops then share among the threads: a
  // row reduction whose kept extent may be 1 and whose reduced elements
  // may number grain-size. The rest stays with convert-linalg-to-loops.
  if (!parallel || !innerReduced)
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t reducedElements = 1;
  for (auto [size, iterator] : llvm::zip_equal(ranges, iterators)) {
    if (iterator == utils::IteratorType::parallel) {
      if (!ShapedType::isDynamic(size) && size != 1)
        return false;
    } else if (ShapedType::isDynamic(size) || reducedElements < 0) {
      reducedElements = -1;
    } else {
      reducedElements *= size;
    }
  }
  return grainSize <= 0 || reducedElements < 0 || reducedElements >= grainSize;
}

SmallVector<Value> ReductionLowering::decode(OpBuilder &b, Value flat,
                                             ArrayRef<int64_t> dims) {
  SmallVector<Value> indices(dims.size());
  Value rest = flat;
  for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i > 0; --i) {
    indices[i] = arith::RemUIOp::create(b, loc, rest, sizes[dims[i]]);
    rest = arith::DivUIOp::create(b, loc, rest, sizes[dims[i]]);
  }
  if (!dims.empty())
    indices[0] = rest;
  return indices;
}

SmallVector<Value>
ReductionLowering::mergeOuter(ArrayRef<Value> parallelIvs,
                              ArrayRef<Value> reducedIvs) const {
  SmallVector<Value> outer(rank - 1);
  for (auto [d, iv] : llvm::zip_equal(parallelDims, parallelIvs))
    if (d < rank - 1)
      outer[d] = iv;
  for (auto [d, iv] : llvm::zip_equal(reducedDims, reducedIvs))
    outer[d] = iv;
  return outer;
}

void ReductionLowering::prepareRow(OpBuilder &b, ArrayRef<Value> outer,
                                   IRMapping &scalars, IRMapping &splats) {
  Block *body = op.getBody();
  SmallVector<Value> rowIvs(outer);
  rowIvs.push_back(zero);
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (usesInnerLoop(map))
      continue;
    scalars.map(
        body->getArgument(input->getOperandNumber()),
        memref::LoadOp::create(b, loc, input->get(), indicesFor(map, rowIvs)));
  }
  auto isInvariant = [&](Value v) {
    return scalars.contains(v) || v.getParentBlock() != body;
  };
  for (Operation &bodyOp : body->without_terminator())
    if (&bodyOp != combiner && llvm::all_of(bodyOp.getOperands(), isInvariant))
      b.clone(bodyOp, scalars);
  if (vectorLength == 1)
    return;
  // Splats of every invariant a vector element uses.
  auto splat = [&](Value bodyValue) {
    if (splats.contains(bodyValue) || isa<IndexType>(bodyValue.getType()))
      return;
    Value scalar = scalars.lookupOrDefault(bodyValue);
    splats.map(bodyValue, vector::BroadcastOp::create(
                              b, loc, vectorType(scalar.getType()), scalar));
  };
  for (Operation &bodyOp : body->without_terminator()) {
    if (&bodyOp == combiner || isInvariant(bodyOp.getResult(0)))
      continue;
    for (Value operand : bodyOp.getOperands())
      if (isInvariant(operand))
        splat(operand);
  }
  if (isInvariant(combined))
    splat(combined);
}

/// The address of the element at `indices` of a bool buffer, which holds a
/// bool per byte (0 or 1) where vector.load and vector.store would read and
/// write packed bits: bool vectors move as bytes through this pointer.
static Value boolPointer(OpBuilder &b, Location loc, Value memref,
                         ValueRange indices) {
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value linear = metadata.getOffset();
  for (auto [index, stride] : llvm::zip_equal(indices, metadata.getStrides()))
    linear = arith::AddIOp::create(
        b, loc, linear, arith::MulIOp::create(b, loc, index, stride));
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value address = arith::IndexCastUIOp::create(
      b, loc, b.getI64Type(), arith::AddIOp::create(b, loc, base, linear));
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), address);
}

/// The i1 vector of type `type` at `indices` of a bool buffer.
static Value loadBoolVector(OpBuilder &b, Location loc, VectorType type,
                            Value memref, ValueRange indices) {
  Value bytes = LLVM::LoadOp::create(
      b, loc, VectorType::get(type.getShape(), b.getI8Type()),
      boolPointer(b, loc, memref, indices), /*alignment=*/1);
  return arith::TruncIOp::create(b, loc, type, bytes);
}

/// Stores the i1 vector `value` at `indices` of a bool buffer.
static void storeBoolVector(OpBuilder &b, Location loc, Value value,
                            Value memref, ValueRange indices) {
  auto type = cast<VectorType>(value.getType());
  Value bytes = arith::ExtUIOp::create(
      b, loc, VectorType::get(type.getShape(), b.getI8Type()), value);
  LLVM::StoreOp::create(b, loc, bytes, boolPointer(b, loc, memref, indices),
                        /*alignment=*/1);
}

Value ReductionLowering::emitElement(OpBuilder &b, ArrayRef<Value> outer,
                                     Value j, bool vector,
                                     const IRMapping &invariants) {
  Block *body = op.getBody();
  if (Value known = invariants.lookupOrNull(combined))
    return known;
  SmallVector<Value> ivs(outer);
  ivs.push_back(j);
  IRMapping mapping = invariants;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!usesInnerLoop(map))
      continue;
    BlockArgument arg = body->getArgument(input->getOperandNumber());
    SmallVector<Value> indices = indicesFor(map, ivs);
    Value loaded;
    if (!vector)
      loaded = memref::LoadOp::create(b, loc, input->get(), indices);
    else if (arg.getType().isInteger(1))
      loaded = loadBoolVector(b, loc, vectorType(arg.getType()), input->get(),
                              indices);
    else
      loaded = vector::LoadOp::create(b, loc, vectorType(arg.getType()),
                                      input->get(), indices);
    mapping.map(arg, loaded);
  }
  for (Operation &bodyOp : body->without_terminator()) {
    if (&bodyOp == combiner || mapping.contains(bodyOp.getResult(0)))
      continue;
    Operation *clone = b.clone(bodyOp, mapping);
    if (vector)
      clone->getResult(0).setType(vectorType(clone->getResult(0).getType()));
  }
  return mapping.lookupOrDefault(combined);
}

Value ReductionLowering::combine(OpBuilder &b, Value acc, Value value) {
  IRMapping mapping;
  mapping.map(accArg, acc);
  mapping.map(combined, value);
  Operation *clone = b.clone(*combiner, mapping);
  clone->getResult(0).setType(acc.getType());
  return clone->getResult(0);
}

Value ReductionLowering::identity(OpBuilder &b, bool vector) {
  TypedAttr neutral = *arith::getNeutralElement(combiner);
  if (!vector)
    return arith::ConstantOp::create(b, loc, neutral);
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(vectorType(neutral.getType()), neutral));
}

void ReductionLowering::emitTasks(
    OpBuilder &b, Value extent, bool inParallel,
    function_ref<void(OpBuilder &, Value task)> body,
    function_ref<void(OpBuilder &)> prologue, bool applyGrain) {
  if (inParallel && applyGrain && grainSize > 0) {
    // The elements the op's loops visit (its input's): below the grain
    // size, starting the threads costs more than they save.
    bcast::vectorize::emitSizeThresholdBranch(
        b, loc, sizes, /*scale=*/1, grainSize, [&](OpBuilder &bb, bool large) {
          emitTasks(bb, extent, large, body, prologue, /*applyGrain=*/false);
        });
    return;
  }
  Value block = arith::MaxUIOp::create(
      b, loc, one,
      arith::CeilDivUIOp::create(
          b, loc, extent, arith::ConstantIndexOp::create(b, loc, kMaxTasks)));
  auto emitBlock = [&](OpBuilder &tb, Value start) {
    Value end = arith::MinUIOp::create(
        tb, loc, arith::AddIOp::create(tb, loc, start, block), extent);
    scf::ForOp::create(tb, loc, start, end, one, ValueRange{},
                       [&](OpBuilder &fb, Location, Value task, ValueRange) {
                         body(fb, task);
                         scf::YieldOp::create(fb, loc);
                       });
  };
  if (inParallel) {
    scf::ParallelOp::create(b, loc, ValueRange{zero}, ValueRange{extent},
                            ValueRange{block},
                            [&](OpBuilder &pb, Location, ValueRange ivs) {
                              if (prologue)
                                prologue(pb);
                              emitBlock(pb, ivs.front());
                            });
    return;
  }
  if (prologue)
    prologue(b);
  scf::ForOp::create(b, loc, zero, extent, block, ValueRange{},
                     [&](OpBuilder &fb, Location, Value start, ValueRange) {
                       emitBlock(fb, start);
                       scf::YieldOp::create(fb, loc);
                     });
}

//===----------------------------------------------------------------------===//
// Row reductions (innermost loop reduced)
//===----------------------------------------------------------------------===//

Value ReductionLowering::emitVectorLevels(OpBuilder &b, ArrayRef<Value> outer,
                                          int64_t level, Value lo, Value hi,
                                          const IRMapping &splats) {
  Value init = identity(b, /*vector=*/true);
  if (level == 0) {
    // kAccumulators independent accumulators over groups of as many
    // vectors, combined pairwise, then the remaining vectors one by one.
    Value step = arith::ConstantIndexOp::create(b, loc, vectorLength);
    Value groupStep =
        arith::ConstantIndexOp::create(b, loc, vectorLength * kAccumulators);
    Value groupEnd = emitGroupsEnd(b, lo, hi, groupStep);
    SmallVector<Value> inits(kAccumulators, init);
    auto groups = scf::ForOp::create(
        b, loc, lo, groupEnd, groupStep, inits,
        [&](OpBuilder &nb, Location, Value j, ValueRange accs) {
          SmallVector<Value> next;
          for (int64_t k = 0; k < kAccumulators; ++k)
            next.push_back(combine(nb, accs[k],
                                   emitGroupElement(nb, outer, j, k, splats)));
          scf::YieldOp::create(nb, loc, next);
        });
    Value acc = combinePairwise(groups.getResults(), [&](Value x, Value y) {
      return combine(b, x, y);
    });
    auto rest = scf::ForOp::create(
        b, loc, groupEnd, hi, step, ValueRange{acc},
        [&](OpBuilder &nb, Location, Value j, ValueRange acc) {
          Value value = emitElement(nb, outer, j, /*vector=*/true, splats);
          scf::YieldOp::create(nb, loc, combine(nb, acc.front(), value));
        });
    return rest.getResult(0);
  }
  int64_t blockElements = vectorLength;
  for (int64_t l = 0; l < level; ++l)
    blockElements *= kCascadeBlock;
  Value step = arith::ConstantIndexOp::create(b, loc, blockElements);
  auto loop = scf::ForOp::create(
      b, loc, lo, hi, step, ValueRange{init},
      [&](OpBuilder &nb, Location, Value start, ValueRange acc) {
        Value end = arith::MinUIOp::create(
            nb, loc, arith::AddIOp::create(nb, loc, start, step), hi);
        Value inner =
            emitVectorLevels(nb, outer, level - 1, start, end, splats);
        scf::YieldOp::create(nb, loc, combine(nb, acc.front(), inner));
      });
  return loop.getResult(0);
}

Value ReductionLowering::emitMinMaxRow(OpBuilder &b, ArrayRef<Value> outer,
                                       Value lo, Value hi,
                                       const IRMapping &splats) {
  // An IEEE maximum orders -0 below +0 and propagates NaNs, which costs x86
  // five or six dependent instructions a vector where the ordered
  // `v > acc ? v : acc` is one (vmaxps), and the combiner's latency then
  // bounds a row in cache. The ordered form agrees with maximumf unless a
  // NaN was seen or the result is a zero (whose sign depends on the order
  // of the zeros): those rows are reduced again with the combiner.
  vector::CombiningKind kind = *linalg::getCombinerOpKind(combiner);
  arith::CmpFPredicate better = isa<arith::MaximumFOp>(combiner)
                                    ? arith::CmpFPredicate::OGT
                                    : arith::CmpFPredicate::OLT;
  auto ordered = [&](OpBuilder &nb, Value acc, Value value) -> Value {
    Value takes = arith::CmpFOp::create(nb, loc, better, value, acc);
    return arith::SelectOp::create(nb, loc, takes, value, acc);
  };
  auto isNaN = [&](OpBuilder &nb, Value value) -> Value {
    return arith::CmpFOp::create(nb, loc, arith::CmpFPredicate::UNO, value,
                                 value);
  };
  Value init = identity(b, /*vector=*/true);
  Value noNaN = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(vectorType(b.getI1Type()), b.getBoolAttr(false)));
  Value step = arith::ConstantIndexOp::create(b, loc, vectorLength);
  Value groupStep =
      arith::ConstantIndexOp::create(b, loc, vectorLength * kAccumulators);
  Value groupEnd = emitGroupsEnd(b, lo, hi, groupStep);
  // Iteration arguments: kAccumulators accumulators, then the NaN lanes.
  SmallVector<Value> inits(kAccumulators, init);
  inits.push_back(noNaN);
  auto groups = scf::ForOp::create(
      b, loc, lo, groupEnd, groupStep, inits,
      [&](OpBuilder &nb, Location, Value j, ValueRange args) {
        SmallVector<Value> next, nans;
        for (int64_t k = 0; k < kAccumulators; ++k) {
          Value value = emitGroupElement(nb, outer, j, k, splats);
          next.push_back(ordered(nb, args[k], value));
          nans.push_back(isNaN(nb, value));
        }
        Value nan = combinePairwise(nans, [&](Value x, Value y) -> Value {
          return arith::OrIOp::create(nb, loc, x, y);
        });
        next.push_back(arith::OrIOp::create(nb, loc, args[kAccumulators], nan));
        scf::YieldOp::create(nb, loc, next);
      });
  Value acc =
      combinePairwise(groups.getResults().take_front(kAccumulators),
                      [&](Value x, Value y) { return ordered(b, x, y); });
  auto rest = scf::ForOp::create(
      b, loc, groupEnd, hi, step,
      ValueRange{acc, groups.getResult(kAccumulators)},
      [&](OpBuilder &nb, Location, Value j, ValueRange args) {
        Value value = emitElement(nb, outer, j, /*vector=*/true, splats);
        scf::YieldOp::create(
            nb, loc,
            ValueRange{
                ordered(nb, args[0], value),
                arith::OrIOp::create(nb, loc, args[1], isNaN(nb, value))});
      });
  // The ordered accumulators hold no NaN: the horizontal reduce may use the
  // combiner's kind.
  Value fast = vector::ReductionOp::create(b, loc, kind, rest.getResult(0));
  Value sawNaN = vector::ReductionOp::create(b, loc, vector::CombiningKind::OR,
                                             rest.getResult(1));
  Value zeroResult = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OEQ, fast,
      arith::ConstantOp::create(b, loc, b.getZeroAttr(fast.getType())));
  Value again = arith::OrIOp::create(b, loc, sawNaN, zeroResult);
  auto redo = scf::IfOp::create(
      b, loc, again,
      [&](OpBuilder &tb, Location) {
        Value exact = emitVectorLevels(tb, outer, 0, lo, hi, splats);
        scf::YieldOp::create(
            tb, loc,
            vector::ReductionOp::create(tb, loc, kind, exact).getResult());
      },
      [&](OpBuilder &eb, Location) { scf::YieldOp::create(eb, loc, fast); });
  return redo.getResult(0);
}

void ReductionLowering::emitRowReduction(OpBuilder &b, ArrayRef<Value> outer) {
  SmallVector<Value> rowIvs(outer);
  rowIvs.push_back(zero);
  SmallVector<Value> outIndices = indicesFor(outputMap, rowIvs);
  Value acc = memref::LoadOp::create(b, loc, output, outIndices);
  acc = emitRowRange(b, outer, zero, sizes.back(), acc);
  memref::StoreOp::create(b, loc, acc, output, outIndices);
}

Value ReductionLowering::emitRowLevels(
    OpBuilder &b, int64_t level, Value lo, Value hi,
    function_ref<Value(OpBuilder &, Value, Value)> addRow) {
  int64_t span = 1;
  for (int64_t i = 0; i < level; ++i)
    span *= kCascadeBlock;
  Value step = arith::ConstantIndexOp::create(b, loc, span);
  auto loop = scf::ForOp::create(
      b, loc, lo, hi, step, ValueRange{identity(b, /*vector=*/false)},
      [&](OpBuilder &fb, Location, Value r, ValueRange accs) {
        Value acc;
        if (level == 0) {
          // The row's own sum first: its lanes are added in order, so into
          // the block's sum they would make it a running sum of 8 terms a
          // row.
          acc = combine(fb, accs.front(),
                        addRow(fb, r, identity(fb, /*vector=*/false)));
        } else {
          Value end = arith::MinUIOp::create(
              fb, loc, arith::AddIOp::create(fb, loc, r, step), hi);
          acc = combine(fb, accs.front(),
                        emitRowLevels(fb, level - 1, r, end, addRow));
        }
        scf::YieldOp::create(fb, loc, acc);
      });
  return loop.getResult(0);
}

Value ReductionLowering::emitRowRange(OpBuilder &b, ArrayRef<Value> outer,
                                      Value lo, Value hi, Value acc) {
  IRMapping scalars, splats;
  prepareRow(b, outer, scalars, splats);
  // A static length (a whole row of static size) decides here whether the
  // vector loop and the tail exist.
  std::optional<int64_t> staticLength;
  std::optional<int64_t> staticLo = getConstantIntValue(lo);
  std::optional<int64_t> staticHi = getConstantIntValue(hi);
  if (staticLo && staticHi)
    staticLength = *staticHi - *staticLo;
  Value vectorEnd = lo;
  if (vectorLength > 1 && (!staticLength || *staticLength >= vectorLength)) {
    // lo + (hi - lo) / v * v; hi / v * v from 0.
    Value v = arith::ConstantIndexOp::create(b, loc, vectorLength);
    bool fromZero = staticLo && *staticLo == 0;
    Value length = fromZero ? hi : arith::SubIOp::create(b, loc, hi, lo);
    vectorEnd = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, length, v), v);
    if (!fromZero)
      vectorEnd = arith::AddIOp::create(b, loc, lo, vectorEnd);
    for (auto [from, to] : scalars.getValueMap())
      if (!splats.contains(from))
        splats.map(from, to);
    if (isa<arith::MaximumFOp, arith::MinimumFOp>(combiner)) {
      acc = combine(b, acc, emitMinMaxRow(b, outer, lo, vectorEnd, splats));
    } else {
      Value vectorAcc = emitVectorLevels(b, outer, cascade ? kCascadeLevels : 0,
                                         lo, vectorEnd, splats);
      acc = vector::ReductionOp::create(
          b, loc, *linalg::getCombinerOpKind(combiner), vectorAcc, acc);
    }
  }
  if (!staticLength || *staticLength % vectorLength != 0 || vectorLength == 1) {
    auto tail = scf::ForOp::create(
        b, loc, vectorEnd, hi, one, ValueRange{acc},
        [&](OpBuilder &nb, Location, Value j, ValueRange accs) {
          Value value = emitElement(nb, outer, j, /*vector=*/false, scalars);
          scf::YieldOp::create(nb, loc, combine(nb, accs.front(), value));
        });
    acc = tail.getResult(0);
  }
  return acc;
}

void ReductionLowering::emitSplitReduction(OpBuilder &b, Value total) {
  // The partials, on the stack at the start of the function (never inside
  // a sequential loop, where each iteration would grow the stack; a split
  // reduction is never inside a parallel loop).
  Type accType = accArg.getType();
  Value partials;
  {
    OpBuilder::InsertionGuard guard(b);
    if (auto function = op->getParentOfType<FunctionOpInterface>())
      b.setInsertionPointToStart(&function.getFunctionBody().front());
    partials =
        memref::AllocaOp::create(b, loc, MemRefType::get({kMaxTasks}, accType));
  }
  // chunk = ceil(total / kMaxTasks) rounded up to whole vectors, so that at
  // most kMaxTasks chunks cover the range and a 1-D row's chunks start on
  // vector boundaries.
  Value v = arith::ConstantIndexOp::create(b, loc, vectorLength);
  Value perTask = arith::CeilDivUIOp::create(
      b, loc, total, arith::ConstantIndexOp::create(b, loc, kMaxTasks));
  Value chunk = arith::MulIOp::create(
      b, loc,
      arith::MaxUIOp::create(b, loc, one,
                             arith::CeilDivUIOp::create(b, loc, perTask, v)),
      v);
  Value chunks = arith::CeilDivUIOp::create(b, loc, total, chunk);
  Value length = sizes.back();
  SmallVector<Value> parallelIvs(parallelDims.size(), zero);
  auto emitChunk = [&](OpBuilder &tb, Value task) {
    Value start = arith::MulIOp::create(tb, loc, task, chunk);
    Value end = arith::MinUIOp::create(
        tb, loc, arith::AddIOp::create(tb, loc, start, chunk), total);
    Value acc = identity(tb, /*vector=*/false);
    if (reducedDims.empty()) {
      acc = emitRowRange(tb, mergeOuter(parallelIvs, {}), start, end, acc);
    } else {
      // The rows the chunk touches, each from the chunk's start or the
      // row's, to the chunk's end or the row's; cascaded for a floating sum.
      Value firstRow = arith::DivUIOp::create(tb, loc, start, length);
      Value endRow = arith::CeilDivUIOp::create(tb, loc, end, length);
      auto addRow = [&](OpBuilder &fb, Value r, Value rowAcc) {
        Value rowStart = arith::MulIOp::create(fb, loc, r, length);
        Value lo = arith::SubIOp::create(
            fb, loc, arith::MaxUIOp::create(fb, loc, start, rowStart),
            rowStart);
        Value hi = arith::SubIOp::create(
            fb, loc,
            arith::MinUIOp::create(
                fb, loc, end, arith::AddIOp::create(fb, loc, rowStart, length)),
            rowStart);
        return emitRowRange(fb,
                            mergeOuter(parallelIvs, decode(fb, r, reducedDims)),
                            lo, hi, rowAcc);
      };
      if (cascade) {
        acc = emitRowLevels(tb, kCascadeLevels, firstRow, endRow, addRow);
      } else {
        auto rows = scf::ForOp::create(
            tb, loc, firstRow, endRow, one, ValueRange{acc},
            [&](OpBuilder &fb, Location, Value r, ValueRange accs) {
              scf::YieldOp::create(fb, loc, addRow(fb, r, accs.front()));
            });
        acc = rows.getResult(0);
      }
    }
    memref::StoreOp::create(tb, loc, acc, partials, ValueRange{task});
  };
  // The split is taken only at grain-size elements or more.
  emitTasks(b, chunks, /*inParallel=*/true, emitChunk, nullptr,
            /*applyGrain=*/false);
  // The output's value (the init, combined in exactly once) and the
  // partials in task order. A floating sum adds the partials in blocks of
  // kPartialBlock first (a cascade, like the chunks' own loops), so that no
  // accumulator adds more than kMaxTasks / kPartialBlock of them.
  SmallVector<Value> outIvs =
      mergeOuter(parallelIvs, SmallVector<Value>(reducedDims.size(), zero));
  outIvs.push_back(zero);
  SmallVector<Value> outIndices = indicesFor(outputMap, outIvs);
  Value init = memref::LoadOp::create(b, loc, output, outIndices);
  auto combineRange = [&](OpBuilder &rb, Value lo, Value hi, Value acc) {
    auto loop = scf::ForOp::create(
        rb, loc, lo, hi, one, ValueRange{acc},
        [&](OpBuilder &fb, Location, Value t, ValueRange accs) {
          Value partial =
              memref::LoadOp::create(fb, loc, partials, ValueRange{t});
          scf::YieldOp::create(fb, loc, combine(fb, accs.front(), partial));
        });
    return loop.getResult(0);
  };
  Value result;
  if (!cascade) {
    result = combineRange(b, zero, chunks, init);
  } else {
    Value step = arith::ConstantIndexOp::create(b, loc, kPartialBlock);
    auto blocks = scf::ForOp::create(
        b, loc, zero, chunks, step, ValueRange{identity(b, false)},
        [&](OpBuilder &fb, Location, Value start, ValueRange accs) {
          Value end = arith::MinUIOp::create(
              fb, loc, arith::AddIOp::create(fb, loc, start, step), chunks);
          Value block =
              combineRange(fb, start, end, identity(fb, /*vector=*/false));
          scf::YieldOp::create(fb, loc, combine(fb, accs.front(), block));
        });
    result = combine(b, init, blocks.getResult(0));
  }
  memref::StoreOp::create(b, loc, result, output, outIndices);
}

void ReductionLowering::lowerRowReduction(OpBuilder &b) {
  Value parallelExtent = one, reducedExtent = one;
  for (int64_t d : parallelDims)
    parallelExtent = arith::MulIOp::create(b, loc, parallelExtent, sizes[d]);
  for (int64_t d : reducedDims)
    reducedExtent = arith::MulIOp::create(b, loc, reducedExtent, sizes[d]);
  auto emitParallelRow = [&](OpBuilder &pb, Value p) {
    SmallVector<Value> parallelIvs = decode(pb, p, parallelDims);
    if (reducedDims.empty()) {
      emitRowReduction(pb, mergeOuter(parallelIvs, {}));
      return;
    }
    if (cascade) {
      // A floating sum cascades the rows that share its output element as
      // it does a row's vectors: a running sum of N*H row sums (BatchNorm's
      // statistics) had 17x PyTorch's error.
      SmallVector<Value> outIvs =
          mergeOuter(parallelIvs, SmallVector<Value>(reducedDims.size(), zero));
      outIvs.push_back(zero);
      SmallVector<Value> outIndices = indicesFor(outputMap, outIvs);
      Value init = memref::LoadOp::create(pb, loc, output, outIndices);
      Value rows = emitRowLevels(
          pb, kCascadeLevels, zero, reducedExtent,
          [&](OpBuilder &fb, Value r, Value acc) {
            return emitRowRange(
                fb, mergeOuter(parallelIvs, decode(fb, r, reducedDims)), zero,
                sizes.back(), acc);
          });
      memref::StoreOp::create(pb, loc, combine(pb, init, rows), output,
                              outIndices);
      return;
    }
    // Rows that reduce into the same output element, one after another.
    scf::ForOp::create(
        pb, loc, zero, reducedExtent, one, ValueRange{},
        [&](OpBuilder &fb, Location, Value r, ValueRange) {
          emitRowReduction(fb,
                           mergeOuter(parallelIvs, decode(fb, r, reducedDims)));
          scf::YieldOp::create(fb, loc);
        });
  };
  auto emitRows = [&](OpBuilder &nb) {
    emitTasks(nb, parallelExtent, parallel && !parallelDims.empty(),
              emitParallelRow);
  };
  if (!parallel) {
    emitRows(b);
    return;
  }
  // One kept element (a full reduction, or kept dims of size 1) would be
  // one task: split the reduced range among the tasks instead, when it
  // holds at least grain-size elements. Static sizes decide here, dynamic
  // ones by one branch around the split and the row loops.
  // Kept extent: known to be 1, known not to be (a static size above 1),
  // or known at run time only.
  bool keptDynamic = false, keptOne = true;
  for (int64_t d : parallelDims) {
    std::optional<int64_t> size = getConstantIntValue(sizes[d]);
    keptDynamic |= !size;
    keptOne &= !size || *size == 1;
  }
  std::optional<int64_t> staticTotal = getConstantIntValue(sizes.back());
  for (int64_t d : reducedDims) {
    std::optional<int64_t> size = getConstantIntValue(sizes[d]);
    staticTotal = size && staticTotal ? std::optional(*staticTotal * *size)
                                      : std::nullopt;
  }
  bool largeEnough =
      grainSize <= 0 || !staticTotal || *staticTotal >= grainSize;
  if (!keptOne || !largeEnough) {
    emitRows(b);
    return;
  }
  Value total = arith::MulIOp::create(b, loc, reducedExtent, sizes.back());
  Value split;
  if (keptDynamic)
    split = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                  parallelExtent, one);
  if (grainSize > 0 && !staticTotal) {
    Value large = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::uge, total,
        arith::ConstantIndexOp::create(b, loc, grainSize));
    split = split ? Value(arith::AndIOp::create(b, loc, split, large)) : large;
  }
  if (!split) {
    emitSplitReduction(b, total);
    return;
  }
  scf::IfOp::create(
      b, loc, split,
      [&](OpBuilder &tb, Location tloc) {
        emitSplitReduction(tb, total);
        scf::YieldOp::create(tb, tloc);
      },
      [&](OpBuilder &eb, Location eloc) {
        emitRows(eb);
        scf::YieldOp::create(eb, eloc);
      });
}

//===----------------------------------------------------------------------===//
// Outer reductions (innermost loop parallel)
//===----------------------------------------------------------------------===//

void ReductionLowering::emitColumnUpdate(
    OpBuilder &b, Value c0, Value width, Value dest, const DestIndices &indices,
    function_ref<Value(OpBuilder &, Value column, bool vector)> value) {
  Value v = arith::ConstantIndexOp::create(b, loc, vectorLength);
  Value vectorWidth = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, width, v), v);
  Value vectorEnd = arith::AddIOp::create(b, loc, c0, vectorWidth);
  Value end = arith::AddIOp::create(b, loc, c0, width);
  Type accType = accArg.getType();
  if (vectorLength > 1)
    scf::ForOp::create(
        b, loc, c0, vectorEnd, v, ValueRange{},
        [&](OpBuilder &nb, Location, Value j, ValueRange) {
          SmallVector<Value> at = indices(nb, j);
          // Only the output holds bools here: a cascade's buffers are f32
          // or wider.
          bool bools = accType.isInteger(1);
          Value old =
              bools ? loadBoolVector(nb, loc, vectorType(accType), dest, at)
                    : Value(vector::LoadOp::create(nb, loc, vectorType(accType),
                                                   dest, at));
          Value updated = combine(nb, old, value(nb, j, /*vector=*/true));
          if (bools)
            storeBoolVector(nb, loc, updated, dest, at);
          else
            vector::StoreOp::create(nb, loc, updated, dest, at);
          scf::YieldOp::create(nb, loc);
        });
  scf::ForOp::create(
      b, loc, vectorLength > 1 ? vectorEnd : c0, end, one, ValueRange{},
      [&](OpBuilder &nb, Location, Value j, ValueRange) {
        SmallVector<Value> at = indices(nb, j);
        Value old = memref::LoadOp::create(nb, loc, dest, at);
        memref::StoreOp::create(
            nb, loc, combine(nb, old, value(nb, j, /*vector=*/false)), dest,
            at);
        scf::YieldOp::create(nb, loc);
      });
}

void ReductionLowering::emitColumnLevels(OpBuilder &b,
                                         ArrayRef<Value> parallelIvs,
                                         int64_t level, Value klo, Value khi,
                                         Value c0, Value width, Value dest,
                                         const DestIndices &indices,
                                         ArrayRef<Value> buffers) {
  if (level == 0) {
    scf::ForOp::create(
        b, loc, klo, khi, one, ValueRange{},
        [&](OpBuilder &fb, Location, Value k, ValueRange) {
          SmallVector<Value> outer =
              mergeOuter(parallelIvs, decode(fb, k, reducedDims));
          IRMapping scalars, splats;
          prepareRow(fb, outer, scalars, splats);
          for (auto [from, to] : scalars.getValueMap())
            if (!splats.contains(from))
              splats.map(from, to);
          SmallVector<Value> ahead;
          if (!streamedInputs.empty()) {
            Value row = arith::MinUIOp::create(
                fb, loc,
                arith::AddIOp::create(
                    fb, loc, k,
                    arith::ConstantIndexOp::create(fb, loc, kPrefetchRows)),
                lastRow);
            ahead = mergeOuter(parallelIvs, decode(fb, row, reducedDims));
          }
          emitColumnUpdate(
              fb, c0, width, dest, indices,
              [&](OpBuilder &vb, Value j, bool vector) {
                if (vector) {
                  SmallVector<Value> ivs(ahead);
                  ivs.push_back(j);
                  for (OpOperand *input : streamedInputs)
                    memref::PrefetchOp::create(
                        vb, loc, input->get(),
                        indicesFor(op.getMatchingIndexingMap(input), ivs),
                        /*isWrite=*/false, /*localityHint=*/3,
                        /*isDataCache=*/true);
                }
                return emitElement(vb, outer, j, vector,
                                   vector ? splats : scalars);
              });
          scf::YieldOp::create(fb, loc);
        });
    return;
  }
  // Blocks of kCascadeBlock^level rows, each accumulated into a buffer of
  // its own (starting from the identity) and then added into `dest`.
  int64_t blockRows = 1;
  for (int64_t l = 0; l < level; ++l)
    blockRows *= kCascadeBlock;
  Value step = arith::ConstantIndexOp::create(b, loc, blockRows);
  Value buffer = buffers[level - 1];
  DestIndices bufferIndices = [&](OpBuilder &ib, Value j) {
    return SmallVector<Value>{arith::SubIOp::create(ib, loc, j, c0)};
  };
  scf::ForOp::create(
      b, loc, klo, khi, step, ValueRange{},
      [&](OpBuilder &fb, Location, Value start, ValueRange) {
        Value end = arith::MinUIOp::create(
            fb, loc, arith::AddIOp::create(fb, loc, start, step), khi);
        auto bufferType = cast<MemRefType>(buffer.getType());
        Value v = arith::ConstantIndexOp::create(fb, loc, vectorLength);
        Value fill = identity(fb, vectorLength > 1);
        scf::ForOp::create(
            fb, loc, zero,
            arith::ConstantIndexOp::create(fb, loc, bufferType.getDimSize(0)),
            v, ValueRange{}, [&](OpBuilder &nb, Location, Value j, ValueRange) {
              if (vectorLength > 1)
                vector::StoreOp::create(nb, loc, fill, buffer, ValueRange{j});
              else
                memref::StoreOp::create(nb, loc, fill, buffer, ValueRange{j});
              scf::YieldOp::create(nb, loc);
            });
        emitColumnLevels(fb, parallelIvs, level - 1, start, end, c0, width,
                         buffer, bufferIndices, buffers);
        emitColumnUpdate(fb, c0, width, dest, indices,
                         [&](OpBuilder &vb, Value j, bool vector) -> Value {
                           SmallVector<Value> at = bufferIndices(vb, j);
                           if (vector)
                             return vector::LoadOp::create(
                                 vb, loc, vectorType(accArg.getType()), buffer,
                                 at);
                           return memref::LoadOp::create(vb, loc, buffer, at);
                         });
        scf::YieldOp::create(fb, loc);
      });
}

void ReductionLowering::lowerOuterReduction(OpBuilder &b) {
  int64_t chunk =
      std::max<int64_t>(1, kColumnChunk / vectorLength) * vectorLength;
  Value chunkValue = arith::ConstantIndexOp::create(b, loc, chunk);
  Value columns = sizes.back();
  Value columnChunks = arith::CeilDivUIOp::create(b, loc, columns, chunkValue);
  Value parallelExtent = columnChunks, reducedExtent = one;
  for (int64_t d : parallelDims)
    parallelExtent = arith::MulIOp::create(b, loc, parallelExtent, sizes[d]);
  for (int64_t d : reducedDims)
    reducedExtent = arith::MulIOp::create(b, loc, reducedExtent, sizes[d]);
  int64_t levels = cascade ? kCascadeLevels : 0;
  // A body with a math function (exp(x - m)) computes long enough per
  // vector that the out-of-order core no longer covers the latency of each
  // row's first loads (a row's chunk is a few cache lines, at a new page):
  // its input rows are prefetched ahead. Cheap bodies (sum, max) stream as
  // fast without, and slower with the extra instructions; so do bodies whose
  // math function reads only a per-row value, computed once per row.
  if (vectorLength > 1 && bcast::vectorize::hasVaryingCostlyMath(op))
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      if (usesInnerLoop(map) && llvm::any_of(reducedDims, [&](int64_t d) {
            return map.isFunctionOfDim(d);
          }))
        streamedInputs.push_back(input);
    }
  if (!streamedInputs.empty())
    lastRow = arith::SubIOp::create(b, loc, reducedExtent, one);
  SmallVector<Value> buffers;
  auto emitTask = [&](OpBuilder &tb, Value task) {
    Value p = arith::DivUIOp::create(tb, loc, task, columnChunks);
    Value c0 = arith::MulIOp::create(
        tb, loc, arith::RemUIOp::create(tb, loc, task, columnChunks),
        chunkValue);
    Value width = arith::MinUIOp::create(
        tb, loc, chunkValue, arith::SubIOp::create(tb, loc, columns, c0));
    SmallVector<Value> parallelIvs = decode(tb, p, parallelDims);
    DestIndices outIndices = [&](OpBuilder &ib, Value j) {
      SmallVector<Value> ivs =
          mergeOuter(parallelIvs, SmallVector<Value>(reducedDims.size(), zero));
      ivs.push_back(j);
      return indicesFor(outputMap, ivs);
    };
    emitColumnLevels(tb, parallelIvs, levels, zero, reducedExtent, c0, width,
                     output, outIndices, buffers);
  };
  // The cascade's block buffers, on the stack, shared by the tasks of a
  // parallel block (convert-scf-to-openmp scopes them) or by all tasks.
  // Never inside a sequential loop, where each iteration would grow the
  // stack: sequential tasks inside a parallel loop (bcast-fuse-rows' row
  // blocks) take them at the start of its body, others at the start of the
  // function.
  auto allocateBuffers = [&](OpBuilder &ab) {
    OpBuilder::InsertionGuard guard(ab);
    // Called once per version of the loop nest (the grain size's branch
    // builds two), each version's tasks using its own buffers.
    buffers.clear();
    if (!parallel) {
      if (auto outer = op->getParentOfType<scf::ParallelOp>())
        ab.setInsertionPointToStart(outer.getBody());
      else if (auto function = op->getParentOfType<FunctionOpInterface>())
        ab.setInsertionPointToStart(&function.getFunctionBody().front());
    }
    for (int64_t l = 0; l < levels; ++l)
      buffers.push_back(memref::AllocaOp::create(
          ab, loc, MemRefType::get({chunk}, accArg.getType())));
  };
  // The innermost loop is among the parallel dims; tasks cover the other
  // parallel dims and the column chunks.
  emitTasks(b, parallelExtent, parallel, emitTask, allocateBuffers);
}

void ReductionLowering::lower(RewriterBase &rewriter) {
  rewriter.setInsertionPoint(op);
  OpBuilder &b = rewriter;
  zero = arith::ConstantIndexOp::create(b, loc, 0);
  one = arith::ConstantIndexOp::create(b, loc, 1);
  output = op.getDpsInits()[0];
  int64_t widest = 8;
  for (OpOperand &operand : op->getOpOperands())
    widest = std::max<int64_t>(
        widest,
        cast<MemRefType>(operand.get().getType()).getElementTypeBitWidth());
  vectorLength =
      scalarOnly ? 1 : std::max<int64_t>(1, vectorBytes * 8 / widest);
  for (Range range :
       cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(b, loc))
    sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, range.size));
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (int64_t d = 0; d + 1 < rank; ++d)
    (iterators[d] == utils::IteratorType::parallel ? parallelDims : reducedDims)
        .push_back(d);
  if (innerReduced)
    lowerRowReduction(b);
  else
    lowerOuterReduction(b);
  rewriter.eraseOp(op);
}

namespace {
struct BcastVectorizeReductionsPass
    : public bcast::impl::BcastVectorizeReductionsBase<
          BcastVectorizeReductionsPass> {
  using Base::Base;

  bcast::vectorize::VectorWidths widths() const {
    return {vectorBytes, mathVectorBytes, inCacheVectorBytes, inCacheBytes};
  }

  void runOnOperation() override {
    FailureOr<SmallVector<linalg::GenericOp>> generics =
        bcast::vectorize::collectGenerics(getOperation(), widths());
    if (failed(generics))
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : *generics) {
      // Inside bcast-fuse-rows' row blocks (parallel, or kept on one thread
      // below the grain size), stay sequential.
      bool parallelLoops = parallel && !bcast::vectorize::isInsideRowTasks(op);
      ReductionLowering lowering(op,
                                 bcast::vectorize::vectorBytesFor(op, widths()),
                                 parallelLoops, grainSize);
      if (lowering.isEligible())
        lowering.lower(rewriter);
    }
  }
};
} // namespace
