//===- VectorizeElementwise.cpp - Vector loops for broadcast generics -----===//
//
// Lowers the element-wise linalg.generic ops that bcast's conversion and
// fusion produce, once bufferized, to explicit loops: parallel blocks of
// rows, a vector loop along the contiguous innermost dimension with a
// scalar tail, row-invariant operands and sub-expressions computed once per
// row, and, if asked, non-temporal stores for large results. Broadcast
// element-wise work is memory-bound; these are the pieces that let it run at
// the memory bandwidth (docs/Benchmarks.md has the measurements).
//
//===----------------------------------------------------------------------===//

#include "bcast/Transforms/BroadcastMaps.h"
#include "bcast/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTVECTORIZEELEMENTWISE
#include "bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;

/// At most this many parallel tasks share the rows (each task a block of
/// ceil(rows / kMaxTasks) rows): enough to balance the cores, few enough
/// that a task's start-up is small next to its rows.
static constexpr int64_t kMaxTasks = 256;

namespace {
/// How an input is read along the innermost dimension.
enum class InnerAccess {
  /// Its map does not use the innermost loop: one scalar per row.
  Invariant,
  /// Unit stride, known statically.
  Contiguous,
  /// Stride only known at run time (0 or 1 for the numpy policy's views).
  DynamicStride,
};

struct InputInfo {
  Value memref;
  AffineMap map;
  InnerAccess access;
  Value stride;         ///< DynamicStride: the run-time inner stride.
  Value contiguousView; ///< DynamicStride: the same view with stride 1.
};

/// One eligible generic and what its lowering needs.
class GenericLowering {
public:
  GenericLowering(linalg::GenericOp op, int64_t vectorBytes, bool parallel,
                  int64_t nontemporalThreshold)
      : op(op), vectorBytes(vectorBytes), parallel(parallel),
        nontemporalThreshold(nontemporalThreshold) {}

  /// Whether the generic is an element-wise broadcast this lowering handles:
  /// besides the form of bcast's generics, at least one loop, a contiguous
  /// output, elements vectors can hold, and a body of element-wise ops.
  bool isEligible() {
    if (!bcast::isElementwiseBroadcastGeneric(op))
      return false;
    rank = op.getNumLoops();
    if (rank == 0)
      return false;
    if (!hasStaticUnitInnerStride(
            cast<MemRefType>(op.getDpsInits()[0].getType())))
      return false;
    for (OpOperand &operand : op->getOpOperands())
      if (!isVectorElement(
              cast<MemRefType>(operand.get().getType()).getElementType()))
        return false;
    // Only element-wise arith/math ops, which map one to one onto vectors.
    for (Operation &bodyOp : op.getBody()->without_terminator()) {
      if (bodyOp.getNumRegions() ||
          !isa<arith::ArithDialect, math::MathDialect>(bodyOp.getDialect()))
        return false;
      if (!isa<arith::ConstantOp>(bodyOp) &&
          !bodyOp.hasTrait<OpTrait::Elementwise>())
        return false;
    }
    return true;
  }

  void lower(RewriterBase &rewriter);

private:
  static bool isVectorElement(Type type) {
    // Buffers hold each element in whole bytes (i1 and i4 in one byte, i24
    // in four), while vector loads and stores pack the elements' bits: only
    // widths of 8, 16, 32 and 64 bits agree.
    if (!isa<FloatType>(type) && !type.isSignlessInteger())
      return false;
    unsigned width = type.getIntOrFloatBitWidth();
    return width >= 8 && width <= 64 && llvm::isPowerOf2_32(width);
  }

  static bool hasStaticUnitInnerStride(MemRefType type) {
    if (type.getRank() == 0)
      return true;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)))
      return false;
    return strides.back() == 1;
  }

  /// Indices into an operand with `map` at loop indices `ivs`.
  SmallVector<Value> indicesFor(OpBuilder &b, AffineMap map,
                                ArrayRef<Value> ivs) {
    SmallVector<Value> indices;
    for (AffineExpr expr : map.getResults()) {
      if (auto dim = dyn_cast<AffineDimExpr>(expr))
        indices.push_back(ivs[dim.getPosition()]);
      else
        indices.push_back(zero);
    }
    return indices;
  }

  bool usesInnerLoop(AffineMap map) {
    return map.getNumResults() &&
           map.getResults().back() ==
               getAffineDimExpr(rank - 1, op.getContext());
  }

  /// Emits the per-row work for outer indices `outer` (rank - 1 values),
  /// over innermost indices [lo, hi).
  void emitRow(OpBuilder &b, ArrayRef<Value> outer, Value lo, Value hi);

  /// The scalar loop over [from, hi) for one row.
  void emitScalarLoop(OpBuilder &b, ArrayRef<Value> outer, Value from, Value hi,
                      IRMapping invariants);

  linalg::GenericOp op;
  int64_t vectorBytes;
  bool parallel;
  int64_t nontemporalThreshold;
  int64_t rank = 0;
  Location loc = op.getLoc();
  Value zero, one;
  SmallVector<InputInfo> inputs;
  Value output;
  Value fastPath; ///< All dynamic inner strides are 0 or 1.
  int64_t vectorLength = 1;
  bool nontemporal = false;
};
} // namespace

void GenericLowering::emitScalarLoop(OpBuilder &b, ArrayRef<Value> outer,
                                     Value from, Value hi,
                                     IRMapping invariants) {
  Block *body = op.getBody();
  scf::ForOp::create(
      b, loc, from, hi, one, ValueRange{},
      [&](OpBuilder &nb, Location nloc, Value j, ValueRange) {
        SmallVector<Value> ivs(outer);
        ivs.push_back(j);
        IRMapping mapping = invariants;
        for (auto [index, input] : llvm::enumerate(inputs)) {
          BlockArgument arg = body->getArgument(index);
          if (mapping.contains(arg))
            continue;
          mapping.map(arg,
                      memref::LoadOp::create(nb, nloc, input.memref,
                                             indicesFor(nb, input.map, ivs)));
        }
        BlockArgument outArg = body->getArguments().back();
        if (!outArg.use_empty())
          mapping.map(outArg, memref::LoadOp::create(nb, nloc, output, ivs));
        for (Operation &bodyOp : body->without_terminator())
          if (!mapping.contains(bodyOp.getResult(0)))
            nb.clone(bodyOp, mapping);
        // The yielded value may be defined outside the body (a generic
        // that fills its output with a constant): not in the mapping.
        Value result =
            mapping.lookupOrDefault(body->getTerminator()->getOperand(0));
        memref::StoreOp::create(nb, nloc, result, output, ivs);
        scf::YieldOp::create(nb, nloc);
      });
}

void GenericLowering::emitRow(OpBuilder &b, ArrayRef<Value> outer, Value lo,
                              Value hi) {
  Block *body = op.getBody();
  SmallVector<Value> rowIvs(outer);
  rowIvs.push_back(zero); // Placeholder for the inner index.

  // Row-invariant operands, loaded once; body ops that only use them (and
  // values from outside the body), computed once.
  IRMapping invariants;
  for (auto [index, input] : llvm::enumerate(inputs))
    if (input.access == InnerAccess::Invariant)
      invariants.map(body->getArgument(index),
                     memref::LoadOp::create(b, loc, input.memref,
                                            indicesFor(b, input.map, rowIvs)));
  auto isInvariant = [&](Value v) {
    if (invariants.contains(v))
      return true;
    return v.getParentBlock() != body;
  };
  for (Operation &bodyOp : body->without_terminator())
    if (llvm::all_of(bodyOp.getOperands(), isInvariant))
      b.clone(bodyOp, invariants);

  // Vector loop over the multiple-of-V part, then the scalar tail.
  Value v = arith::ConstantIndexOp::create(b, loc, vectorLength);
  Value count = arith::SubIOp::create(b, loc, hi, lo);
  Value vectorCount = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, count, v), v);
  Value vectorEnd = arith::AddIOp::create(b, loc, lo, vectorCount);
  // Rows of a static length need no vector loop when shorter than a vector,
  // and no scalar tail when a multiple of it.
  std::optional<int64_t> staticCount;
  if (std::optional<int64_t> l = getConstantIntValue(lo))
    if (std::optional<int64_t> h = getConstantIntValue(hi))
      staticCount = *h - *l;

  auto emitVectorLoop = [&](OpBuilder &vb) {
    if (staticCount && *staticCount < vectorLength) {
      emitScalarLoop(vb, outer, lo, hi, invariants);
      return;
    }
    // Splats of the invariants, outside the loop.
    IRMapping splats;
    auto vectorType = [&](Type t) {
      return VectorType::get({vectorLength}, t);
    };
    auto splat = [&](OpBuilder &sb, Value scalar) -> Value {
      return vector::BroadcastOp::create(sb, loc, vectorType(scalar.getType()),
                                         scalar);
    };
    auto vectorOf = [&](OpBuilder &sb, Value bodyValue) -> Value {
      if (Value mapped = splats.lookupOrNull(bodyValue))
        return mapped;
      Value scalar = invariants.lookupOrDefault(bodyValue);
      Value result = splat(sb, scalar);
      splats.map(bodyValue, result);
      return result;
    };
    // Splat every invariant the vector body uses.
    for (Operation &bodyOp : body->without_terminator())
      for (Value operand : bodyOp.getOperands())
        if (isInvariant(operand) && !isa<IndexType>(operand.getType()))
          (void)vectorOf(vb, operand);
    Value yielded = body->getTerminator()->getOperand(0);
    if (isInvariant(yielded))
      (void)vectorOf(vb, yielded);

    scf::ForOp::create(
        vb, loc, lo, vectorEnd, v, ValueRange{},
        [&](OpBuilder &nb, Location nloc, Value j, ValueRange) {
          SmallVector<Value> ivs(outer);
          ivs.push_back(j);
          IRMapping mapping = splats;
          for (auto [index, inputInfo] : llvm::enumerate(inputs)) {
            // A reference the branch builders below can capture (C++17
            // lambdas cannot capture structured bindings).
            const InputInfo &input = inputInfo;
            BlockArgument arg = body->getArgument(index);
            if (input.access == InnerAccess::Invariant)
              continue;
            VectorType type = vectorType(arg.getType());
            SmallVector<Value> indices = indicesFor(nb, input.map, ivs);
            if (input.access == InnerAccess::Contiguous) {
              mapping.map(arg, vector::LoadOp::create(nb, nloc, type,
                                                      input.memref, indices));
              continue;
            }
            // Stride 0: one element, splat; stride 1: a vector load
            // through the unit-stride view. The condition is loop
            // invariant, so LLVM unswitches it out of the loop.
            Value isZero = arith::CmpIOp::create(
                nb, nloc, arith::CmpIPredicate::eq, input.stride, zero);
            auto ifOp = scf::IfOp::create(
                nb, nloc, isZero,
                [&](OpBuilder &tb, Location tloc) {
                  Value scalar =
                      memref::LoadOp::create(tb, tloc, input.memref, indices);
                  scf::YieldOp::create(tb, tloc,
                                       ValueRange{vector::BroadcastOp::create(
                                           tb, tloc, type, scalar)});
                },
                [&](OpBuilder &eb, Location eloc) {
                  scf::YieldOp::create(
                      eb, eloc,
                      ValueRange{vector::LoadOp::create(
                          eb, eloc, type, input.contiguousView, indices)});
                });
            mapping.map(arg, ifOp.getResult(0));
          }
          BlockArgument outArg = body->getArguments().back();
          if (!outArg.use_empty())
            mapping.map(outArg, vector::LoadOp::create(
                                    nb, nloc, vectorType(outArg.getType()),
                                    output, ivs));
          for (Operation &bodyOp : body->without_terminator()) {
            if (invariants.contains(bodyOp.getResult(0)))
              continue;
            Operation *clone = nb.clone(bodyOp, mapping);
            for (Value result : clone->getResults())
              result.setType(vectorType(result.getType()));
          }
          Value result = mapping.lookup(yielded);
          vector::StoreOp::create(nb, nloc, result, output, ivs, nontemporal);
          scf::YieldOp::create(nb, nloc);
        });
    if (!staticCount || *staticCount % vectorLength != 0)
      emitScalarLoop(vb, outer, vectorEnd, hi, invariants);
  };

  if (!fastPath) {
    emitVectorLoop(b);
    return;
  }
  scf::IfOp::create(
      b, loc, fastPath,
      [&](OpBuilder &tb, Location tloc) {
        emitVectorLoop(tb);
        scf::YieldOp::create(tb, tloc);
      },
      [&](OpBuilder &eb, Location eloc) {
        emitScalarLoop(eb, outer, lo, hi, invariants);
        scf::YieldOp::create(eb, eloc);
      });
}

void GenericLowering::lower(RewriterBase &rewriter) {
  rewriter.setInsertionPoint(op);
  OpBuilder &b = rewriter;
  zero = arith::ConstantIndexOp::create(b, loc, 0);
  one = arith::ConstantIndexOp::create(b, loc, 1);
  output = op.getDpsInits()[0];
  auto outType = cast<MemRefType>(output.getType());

  int64_t widest = outType.getElementTypeBitWidth();
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = cast<MemRefType>(input->get().getType());
    widest = std::max<int64_t>(widest, type.getElementTypeBitWidth());
    InputInfo info{input->get(),
                   op.getMatchingIndexingMap(input),
                   InnerAccess::Contiguous,
                   {},
                   {}};
    if (!usesInnerLoop(info.map)) {
      info.access = InnerAccess::Invariant;
    } else if (!hasStaticUnitInnerStride(type)) {
      info.access = InnerAccess::DynamicStride;
      auto metadata =
          memref::ExtractStridedMetadataOp::create(b, loc, input->get());
      info.stride = metadata.getStrides().back();
      // The same view with a static unit inner stride, used only where the
      // run-time stride is 1.
      SmallVector<int64_t> strides(type.getRank(), ShapedType::kDynamic);
      strides.back() = 1;
      auto viewType = MemRefType::get(
          type.getShape(), type.getElementType(),
          StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, strides),
          type.getMemorySpace());
      SmallVector<OpFoldResult> sizes, viewStrides;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        sizes.push_back(type.isDynamicDim(d)
                            ? OpFoldResult(metadata.getSizes()[d])
                            : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
        viewStrides.push_back(d + 1 == type.getRank()
                                  ? OpFoldResult(b.getIndexAttr(1))
                                  : OpFoldResult(metadata.getStrides()[d]));
      }
      info.contiguousView = memref::ReinterpretCastOp::create(
          b, loc, viewType, input->get(), metadata.getOffset(), sizes,
          viewStrides);
      Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           info.stride, zero);
      Value isOne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          info.stride, one);
      Value ok = arith::OrIOp::create(b, loc, isZero, isOne);
      fastPath =
          fastPath ? Value(arith::AndIOp::create(b, loc, fastPath, ok)) : ok;
    }
    inputs.push_back(info);
  }
  vectorLength = std::max<int64_t>(1, vectorBytes * 8 / widest);
  // Non-temporal stores skip reading the destination into the cache; an
  // output the body also reads (in place) is in the cache anyway, and
  // evicting it would only cost. (bcast's in-place ops read the output
  // buffer as an input.)
  bool outputRead = !op.getBody()->getArguments().back().use_empty() ||
                    llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *in) {
                      return in->get() == output;
                    });
  bool mayUseNontemporal = nontemporalThreshold > 0 && !outputRead;

  SmallVector<Value> sizes;
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(outType.isDynamicDim(d)
                        ? Value(memref::DimOp::create(b, loc, output, d))
                        : Value(arith::ConstantIndexOp::create(
                              b, loc, outType.getDimSize(d))));

  // Tasks are blocks of rows, counted over all outer dimensions together
  // (a [1, 4096, 4096] or [8, 1024, 1024] result has as many rows to share
  // among the cores as a [4096, 4096] one), or blocks of the row itself for
  // rank 1. A task recovers a row's outer indices from its number.
  Value extent = rank == 1 ? sizes.front() : Value();
  for (int64_t d = 0; d + 1 < rank; ++d)
    extent = extent ? Value(arith::MulIOp::create(b, loc, extent, sizes[d]))
                    : sizes[d];
  Value maxTasks = arith::ConstantIndexOp::create(b, loc, kMaxTasks);
  // block = ceil(extent / kMaxTasks), at least 1.
  Value block = arith::MaxUIOp::create(
      b, loc, one, arith::CeilDivUIOp::create(b, loc, extent, maxTasks));
  if (rank == 1) {
    // Keep row blocks a multiple of the vector length.
    Value v = arith::ConstantIndexOp::create(b, loc, vectorLength);
    block = arith::MulIOp::create(
        b, loc, arith::CeilDivUIOp::create(b, loc, block, v), v);
  }
  auto emitTask = [&](OpBuilder &tb, Value start) {
    Value end = arith::MinUIOp::create(
        tb, loc, arith::AddIOp::create(tb, loc, start, block), extent);
    if (rank == 1) {
      emitRow(tb, {}, start, end);
    } else {
      scf::ForOp::create(
          tb, loc, start, end, one, ValueRange{},
          [&](OpBuilder &fb, Location, Value row, ValueRange) {
            // Row number to outer indices, innermost outer dimension first.
            SmallVector<Value> outer(rank - 1);
            Value rest = row;
            for (int64_t d = rank - 2; d > 0; --d) {
              outer[d] = arith::RemUIOp::create(fb, loc, rest, sizes[d]);
              rest = arith::DivUIOp::create(fb, loc, rest, sizes[d]);
            }
            outer[0] = rest;
            emitRow(fb, outer, zero, sizes.back());
            scf::YieldOp::create(fb, loc);
          });
    }
    // Non-temporal stores are weakly ordered: make them visible before the
    // task ends.
    if (nontemporal)
      LLVM::FenceOp::create(tb, loc, LLVM::AtomicOrdering::seq_cst);
  };
  auto emitNest = [&](OpBuilder &nb) {
    if (parallel) {
      scf::ParallelOp::create(nb, loc, ValueRange{zero}, ValueRange{extent},
                              ValueRange{block},
                              [&](OpBuilder &pb, Location, ValueRange ivs) {
                                emitTask(pb, ivs.front());
                              });
      return;
    }
    scf::ForOp::create(nb, loc, zero, extent, block, ValueRange{},
                       [&](OpBuilder &fb, Location, Value iv, ValueRange) {
                         emitTask(fb, iv);
                         scf::YieldOp::create(fb, loc);
                       });
  };

  int64_t elementBytes = outType.getElementTypeBitWidth() / 8;
  if (!mayUseNontemporal) {
    nontemporal = false;
    emitNest(b);
  } else if (outType.hasStaticShape()) {
    nontemporal =
        outType.getNumElements() * elementBytes >= nontemporalThreshold;
    emitNest(b);
  } else {
    // Dynamic sizes: decide at run time, with one branch around the whole
    // loop nest.
    Value bytes = arith::ConstantIndexOp::create(b, loc, elementBytes);
    for (Value size : sizes)
      bytes = arith::MulIOp::create(b, loc, bytes, size);
    Value large = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::uge, bytes,
        arith::ConstantIndexOp::create(b, loc, nontemporalThreshold));
    scf::IfOp::create(
        b, loc, large,
        [&](OpBuilder &tb, Location tloc) {
          nontemporal = true;
          emitNest(tb);
          scf::YieldOp::create(tb, tloc);
        },
        [&](OpBuilder &eb, Location eloc) {
          nontemporal = false;
          emitNest(eb);
          scf::YieldOp::create(eb, eloc);
        });
  }
  rewriter.eraseOp(op);
}

namespace {
struct BcastVectorizeElementwisePass
    : public bcast::impl::BcastVectorizeElementwiseBase<
          BcastVectorizeElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    if (vectorBytes <= 0) {
      getOperation()->emitError() << "vector-bytes must be positive";
      return signalPassFailure();
    }
    SmallVector<linalg::GenericOp> generics;
    getOperation()->walk([&](linalg::GenericOp op) { generics.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : generics) {
      GenericLowering lowering(op, vectorBytes, parallel, nontemporalThreshold);
      if (lowering.isEligible())
        lowering.lower(rewriter);
    }
  }
};
} // namespace
