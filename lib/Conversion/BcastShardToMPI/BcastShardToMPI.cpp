//===- BcastShardToMPI.cpp - Partition shard-annotated modules for MPI ----===//
//
// bcast-shard-to-mpi: the sharding stage of --bcast-to-llvm. It drives
// upstream's shard passes in the order that works in MLIR 22.1.8, guards
// them where they would silently compute wrong answers (indivisible dims,
// collectives left unlowered), and lowers the collectives bcast needs to
// calls of libbcast_mpi_runtime.so (lib/Runtime/MPI): upstream's lowering
// has no all-gather and creates a communicator per call that it never frees
// (5,000 calls exhaust MPICH), so bcast's runtime creates one per grid and
// axis list and keeps it. The process-index ops the slicing leaves are
// lowered by upstream's convert-shard-to-mpi.
//
//===----------------------------------------------------------------------===//

#include "bcast/Conversion/Passes.h"

#include "mlir/Conversion/ShardToMPI/ShardToMPI.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Transforms/Passes.h"
#include "mlir/Dialect/Shard/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTSHARDTOMPI
#include "bcast/Conversion/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;
using namespace mlir::bcast;

//===----------------------------------------------------------------------===//
// Utilities
//===----------------------------------------------------------------------===//

/// The grid rank and axis count the runtime's entry points take.
constexpr int64_t kMaxGridRank = 4;

constexpr StringLiteral kMPIImplementationKey = "MPI:Implementation";

/// `axis 0` or `axes 0, 1`, for diagnostics.
static std::string formatGridAxes(ArrayRef<shard::GridAxis> axes) {
  std::string text = axes.size() == 1 ? "grid axis " : "grid axes ";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(axes, os);
  return text;
}

/// The suffix of the runtime entry point for elements of `type`, or an empty
/// string when the runtime has none (unsigned integers keep their signedness
/// until bcast-signless-boundary; the runtime knows signless ones only).
static StringRef getRuntimeSuffix(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isF64())
    return "f64";
  if (type.isSignlessInteger(1))
    return "i1";
  if (type.isSignlessInteger(8))
    return "i8";
  if (type.isSignlessInteger(16))
    return "i16";
  if (type.isSignlessInteger(32))
    return "i32";
  if (type.isSignlessInteger(64))
    return "i64";
  return "";
}

/// The reduction codes of bcast_mpi_all_reduce_* (lib/Runtime/MPI).
static std::optional<int64_t>
getRuntimeReductionCode(shard::ReductionKind kind) {
  switch (kind) {
  case shard::ReductionKind::Sum:
    return 0;
  case shard::ReductionKind::Product:
    return 1;
  case shard::ReductionKind::Max:
    return 2;
  case shard::ReductionKind::Min:
    return 3;
  case shard::ReductionKind::Average:
    return 4;
  default:
    return std::nullopt;
  }
}

//===----------------------------------------------------------------------===//
// Resharding one dim at a time
//===----------------------------------------------------------------------===//

/// shard-partition reshards a value whose split changes on several dims in
/// one step along one of them only: on a 2x2 grid, `[8,16]` split
/// `[[0], [1]]` and resharded to replicated came back as tensor<8x8xf32>,
/// silently. One dim at a time it is right, so every such reshard is
/// rewritten as a chain of reshards that each change one dim.
static void reshardOneDimAtATime(ModuleOp module) {
  SmallVector<shard::ShardOp> targets;
  module.walk([&](shard::ShardOp target) {
    auto source = target.getSrc().getDefiningOp<shard::ShardOp>();
    if (target.getAnnotateForUsers() && source && !source.getAnnotateForUsers())
      targets.push_back(target);
  });
  for (shard::ShardOp target : targets) {
    auto source = target.getSrc().getDefiningOp<shard::ShardOp>();
    shard::Sharding from(source.getSharding());
    shard::Sharding to(target.getSharding());
    if (from.getGridAttr() != to.getGridAttr())
      continue;
    int64_t rank = target.getResult().getType().getRank();
    auto axesOf = [&](shard::Sharding sharding) {
      SmallVector<SmallVector<shard::GridAxis>> axes(rank);
      for (auto [dim, dimAxes] : llvm::enumerate(sharding.getSplitAxes()))
        if (static_cast<int64_t>(dim) < rank)
          axes[dim] = llvm::to_vector(dimAxes.asArrayRef());
      return axes;
    };
    SmallVector<SmallVector<shard::GridAxis>> current = axesOf(from);
    SmallVector<SmallVector<shard::GridAxis>> wanted = axesOf(to);
    // Dims that give up all their axes go first, so that each intermediate
    // sharding uses every grid axis at most once; where no order does (two
    // dims trading axes), the reshard is left to shard-partition.
    SmallVector<int64_t> changed;
    for (bool removals : {true, false})
      for (int64_t dim = 0; dim < rank; ++dim)
        if (current[dim] != wanted[dim] && wanted[dim].empty() == removals)
          changed.push_back(dim);
    if (changed.size() < 2)
      continue;
    SmallVector<SmallVector<SmallVector<shard::GridAxis>>> steps;
    SmallVector<SmallVector<shard::GridAxis>> step = current;
    bool valid = true;
    for (int64_t dim : ArrayRef<int64_t>(changed).drop_back()) {
      step[dim] = wanted[dim];
      llvm::SmallDenseSet<shard::GridAxis> used;
      for (const SmallVector<shard::GridAxis> &axes : step)
        for (shard::GridAxis axis : axes)
          valid &= used.insert(axis).second;
      steps.push_back(step);
    }
    if (!valid)
      continue;
    OpBuilder builder(target);
    MLIRContext *context = module.getContext();
    Value value = source.getResult();
    // Every step but the last; the original target op takes the last one.
    for (const SmallVector<SmallVector<shard::GridAxis>> &axesPerDim : steps) {
      SmallVector<shard::GridAxesAttr> splitAxes;
      for (const SmallVector<shard::GridAxis> &axes : axesPerDim)
        splitAxes.push_back(shard::GridAxesAttr::get(context, axes));
      Value sharding = shard::ShardingOp::create(builder, target.getLoc(),
                                                 from.getGridAttr(), splitAxes);
      Value forUsers =
          shard::ShardOp::create(builder, target.getLoc(), value, sharding,
                                 /*annotate_for_users=*/true);
      value = shard::ShardOp::create(builder, target.getLoc(), forUsers,
                                     sharding, /*annotate_for_users=*/false);
    }
    target.getSrcMutable().assign(value);
  }
}

//===----------------------------------------------------------------------===//
// Checks before partitioning
//===----------------------------------------------------------------------===//

/// Every split dim must be static and divide evenly over its grid axes:
/// shard-partition computes local sizes by integer division and would drop
/// the remainder.
static LogicalResult checkSplitDims(ModuleOp module,
                                    SymbolTableCollection &symbolTable) {
  WalkResult result = module.walk([&](shard::ShardOp shardOp) {
    shard::Sharding sharding(shardOp.getSharding());
    auto type = dyn_cast<RankedTensorType>(shardOp.getResult().getType());
    if (!type)
      return WalkResult::advance();
    shard::GridOp grid =
        shard::getGridOrNull(shardOp, sharding.getGridAttr(), symbolTable);
    if (!grid) {
      shardOp.emitOpError() << "refers to no shard.grid";
      return WalkResult::interrupt();
    }
    if (!sharding.getStaticHaloSizes().empty() ||
        !sharding.getDynamicHaloSizes().empty() ||
        !sharding.getStaticShardedDimsOffsets().empty() ||
        !sharding.getDynamicShardedDimsOffsets().empty()) {
      shardOp.emitOpError()
          << "has halo sizes or sharded dims offsets; bcast splits dims into "
             "equal contiguous blocks only";
      return WalkResult::interrupt();
    }
    for (auto [dim, axesAttr] : llvm::enumerate(sharding.getSplitAxes())) {
      ArrayRef<shard::GridAxis> axes = axesAttr.asArrayRef();
      if (axes.empty())
        continue;
      // Upstream verifies neither against the tensor nor the grid; an axis
      // beyond the grid would be read out of bounds, a dim beyond the
      // tensor silently ignored.
      if (static_cast<int64_t>(dim) >= type.getRank()) {
        shardOp.emitOpError() << "splits dim " << dim << " of a rank-"
                              << type.getRank() << " tensor";
        return WalkResult::interrupt();
      }
      int64_t processes = 1;
      for (shard::GridAxis axis : axes) {
        if (axis < 0 || axis >= grid.getRank()) {
          shardOp.emitOpError()
              << "splits dim " << dim << " over grid axis " << axis
              << ", which grid @" << grid.getSymName() << " of rank "
              << grid.getRank() << " does not have";
          return WalkResult::interrupt();
        }
        int64_t size = grid.getShape()[axis];
        if (ShapedType::isDynamic(size)) {
          shardOp.emitOpError()
              << "splits dim " << dim << " over grid axis " << axis
              << " of dynamic size; bcast shards over static grids only";
          return WalkResult::interrupt();
        }
        processes *= size;
      }
      int64_t size = type.getDimSize(dim);
      if (ShapedType::isDynamic(size)) {
        shardOp.emitOpError()
            << "dim " << dim << " of dynamic size cannot be split over "
            << formatGridAxes(axes) << "; bcast shards static sizes only";
        return WalkResult::interrupt();
      }
      if (size % processes != 0) {
        shardOp.emitOpError()
            << "dim " << dim << " of size " << size << " is not divisible by "
            << formatGridAxes(axes);
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// Collectives to runtime calls
//===----------------------------------------------------------------------===//

namespace {
/// Builds the calls of bcast_mpi_all_reduce_<T> and bcast_mpi_all_gather_<T>:
///   (memref<?xT> in, memref<?xT> out, i64 ..., i64 gridRank, i64 g0..g3,
///    i64 numAxes, i64 a0..a3)
/// where the leading i64s are the reduction code (all-reduce) or the outer
/// and inner block sizes (all-gather). Buffers go in as flat contiguous
/// memrefs; the result is a fresh allocation wrapped back into a tensor.
class CollectiveLowering {
public:
  CollectiveLowering(ModuleOp module, SymbolTableCollection &symbolTable)
      : module(module), symbolTable(symbolTable) {}

  LogicalResult lower(shard::AllReduceOp op) {
    auto inType = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto outType = dyn_cast<RankedTensorType>(op.getResult().getType());
    if (!inType || !outType || inType != outType)
      return op.emitOpError()
             << "is lowered for equal ranked tensor operand and result types "
                "only";
    std::optional<int64_t> code = getRuntimeReductionCode(op.getReduction());
    if (!code)
      return op.emitOpError()
             << "has reduction '"
             << shard::stringifyReductionKind(op.getReduction())
             << "', which bcast's MPI runtime does not implement";
    if (op.getReduction() == shard::ReductionKind::Average &&
        !isa<FloatType>(inType.getElementType()))
      return op.emitOpError() << "averages integers; bcast lowers averages of "
                                 "floating-point values only";
    OpBuilder builder(op);
    Value code64 = constant(builder, op.getLoc(), *code);
    return lowerCall(op, "all_reduce", inType, outType, {code64}, op.getGrid(),
                     op.getGridAxes());
  }

  LogicalResult lower(shard::AllGatherOp op) {
    auto inType = dyn_cast<RankedTensorType>(op.getInput().getType());
    auto outType = dyn_cast<RankedTensorType>(op.getResult().getType());
    if (!inType || !outType || !inType.hasStaticShape() ||
        !outType.hasStaticShape())
      return op.emitOpError()
             << "is lowered for statically shaped ranked tensors only";
    int64_t axis = op.getGatherAxis().getSExtValue();
    int64_t outer = 1;
    int64_t inner = 1;
    for (int64_t dim = 0; dim < inType.getRank(); ++dim)
      (dim < axis ? outer : inner) *= inType.getDimSize(dim);
    OpBuilder builder(op);
    Value outer64 = constant(builder, op.getLoc(), outer);
    Value inner64 = constant(builder, op.getLoc(), inner);
    return lowerCall(op, "all_gather", inType, outType, {outer64, inner64},
                     op.getGrid(), op.getGridAxes());
  }

private:
  static Value constant(OpBuilder &builder, Location loc, int64_t value) {
    return arith::ConstantIntOp::create(builder, loc, value, 64);
  }

  /// `value` as a flat memref<?xT>: rank 0 expands to one element, higher
  /// ranks collapse (the buffers have identity layouts).
  static Value flatten(OpBuilder &builder, Location loc, Value memref) {
    auto type = cast<MemRefType>(memref.getType());
    Value flat = memref;
    if (type.getRank() == 0) {
      flat = memref::ExpandShapeOp::create(
          builder, loc, MemRefType::get({1}, type.getElementType()), memref,
          ArrayRef<ReassociationIndices>{},
          ArrayRef<OpFoldResult>{builder.getIndexAttr(1)});
    } else if (type.getRank() > 1) {
      ReassociationIndices all =
          llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
      flat = memref::CollapseShapeOp::create(
          builder, loc, memref, ArrayRef<ReassociationIndices>{all});
    }
    return memref::CastOp::create(
        builder, loc,
        MemRefType::get({ShapedType::kDynamic}, type.getElementType()), flat);
  }

  LogicalResult lowerCall(Operation *op, StringRef name,
                          RankedTensorType inType, RankedTensorType outType,
                          ArrayRef<Value> leading, StringRef gridName,
                          ArrayRef<shard::GridAxis> axes) {
    StringRef suffix = getRuntimeSuffix(inType.getElementType());
    if (suffix.empty())
      return op->emitOpError()
             << "on elements of type " << inType.getElementType()
             << " has no lowering to bcast's MPI runtime (f32, f64, i1, i8, "
                "i16, i32, i64)";
    auto grid = symbolTable.lookupNearestSymbolFrom<shard::GridOp>(
        op, FlatSymbolRefAttr::get(op->getContext(), gridName));
    if (!grid)
      return op->emitOpError() << "refers to no shard.grid";
    ArrayRef<int64_t> gridShape = grid.getShape();
    if (static_cast<int64_t>(gridShape.size()) > kMaxGridRank ||
        llvm::any_of(gridShape, ShapedType::isDynamic))
      return op->emitOpError()
             << "uses a grid of rank " << gridShape.size()
             << " or of dynamic size; bcast lowers collectives on static "
                "grids of rank at most "
             << kMaxGridRank;

    OpBuilder builder(op);
    Location loc = op->getLoc();
    Value in = bufferization::ToBufferOp::create(
        builder, loc,
        MemRefType::get(inType.getShape(), inType.getElementType()),
        op->getOperand(0), /*read_only=*/true);
    auto outMemRefType =
        MemRefType::get(outType.getShape(), outType.getElementType());
    Value out = memref::AllocOp::create(builder, loc, outMemRefType);
    SmallVector<Value> args = {flatten(builder, loc, in),
                               flatten(builder, loc, out)};
    llvm::append_range(args, leading);
    args.push_back(constant(builder, loc, gridShape.size()));
    for (int64_t i = 0; i < kMaxGridRank; ++i)
      args.push_back(constant(
          builder, loc,
          i < static_cast<int64_t>(gridShape.size()) ? gridShape[i] : 1));
    args.push_back(constant(builder, loc, axes.size()));
    for (int64_t i = 0; i < kMaxGridRank; ++i)
      args.push_back(constant(
          builder, loc, i < static_cast<int64_t>(axes.size()) ? axes[i] : -1));

    std::string callee = ("bcast_mpi_" + name + "_" + suffix).str();
    func::FuncOp decl = getOrDeclare(callee, TypeRange(ValueRange(args)));
    func::CallOp::create(builder, loc, decl, args);
    Value result = bufferization::ToTensorOp::create(builder, loc, outType, out,
                                                     builder.getUnitAttr(),
                                                     builder.getUnitAttr());
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
    return success();
  }

  func::FuncOp getOrDeclare(StringRef name, TypeRange argTypes) {
    if (auto existing = module.lookupSymbol<func::FuncOp>(name))
      return existing;
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    auto decl =
        func::FuncOp::create(builder, module.getLoc(), name,
                             builder.getFunctionType(argTypes, TypeRange()));
    decl.setPrivate();
    return decl;
  }

  ModuleOp module;
  SymbolTableCollection &symbolTable;
};

} // namespace

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {

struct BcastShardToMPIPass
    : public bcast::impl::BcastShardToMPIBase<BcastShardToMPIPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (module.getOps<shard::GridOp>().empty())
      return;
    if (failed(checkImplementation(module)) ||
        failed(propagateAndPartition(module)) ||
        failed(lowerCollectives(module)) || failed(checkLeftovers(module)))
      return signalPassFailure();
  }

  /// MPICH unless the module says otherwise; the runtime speaks MPICH only.
  LogicalResult checkImplementation(ModuleOp module) {
    MLIRContext *context = module.getContext();
    FailureOr<Attribute> value =
        dlti::query(module, ArrayRef<StringRef>{kMPIImplementationKey});
    if (succeeded(value)) {
      auto name = dyn_cast<StringAttr>(*value);
      if (!name || name.getValue() != "MPICH")
        return module.emitError()
               << "MPI:Implementation is " << *value
               << "; bcast's MPI runtime (libbcast_mpi_runtime.so) is built "
                  "against MPICH, whose ABI is the only one supported";
      return success();
    }
    SmallVector<DataLayoutEntryInterface> entries;
    Attribute existing = module->getAttr(DLTIDialect::kMapAttrName);
    if (existing) {
      auto map = dyn_cast<MapAttr>(existing);
      if (!map)
        return module.emitError() << "has a " << DLTIDialect::kMapAttrName
                                  << " attribute that is not a #dlti.map";
      llvm::append_range(entries, map.getEntries());
    }
    entries.push_back(DataLayoutEntryAttr::get(
        StringAttr::get(context, kMPIImplementationKey),
        StringAttr::get(context, "MPICH")));
    module->setAttr(DLTIDialect::kMapAttrName, MapAttr::get(context, entries));
    return success();
  }

  /// Only functions that hold shard.shard ops are propagated and
  /// partitioned: upstream's propagation fails on every op without a
  /// sharding model (scf.for, vector.print), so a driver function beside
  /// the kernels would make the whole module fail.
  LogicalResult propagateAndPartition(ModuleOp module) {
    SmallVector<func::FuncOp> sharded;
    for (func::FuncOp func : module.getOps<func::FuncOp>())
      if (func->walk([](shard::ShardOp) { return WalkResult::interrupt(); })
              .wasInterrupted())
        sharded.push_back(func);

    // The annotations as written first: propagation reads split axes
    // without checking them against the grid or the tensor.
    SymbolTableCollection symbolTable;
    if (failed(checkSplitDims(module, symbolTable)))
      return failure();

    OpPassManager propagate(func::FuncOp::getOperationName());
    shard::ShardingPropagationOptions propagationOptions;
    propagationOptions.traversal = shard::TraversalOrder::ForwardBackward;
    propagate.addPass(shard::createShardingPropagation(propagationOptions));
    propagate.addPass(createCSEPass());
    for (func::FuncOp func : sharded)
      if (failed(runPipeline(propagate, func)))
        return failure();

    if (failed(checkSplitDims(module, symbolTable)))
      return failure();
    reshardOneDimAtATime(module);

    OpPassManager partition(func::FuncOp::getOperationName());
    partition.addPass(shard::createPartition());
    partition.addPass(createCanonicalizerPass());
    partition.addPass(createCSEPass());
    for (func::FuncOp func : sharded)
      if (failed(runPipeline(partition, func)))
        return failure();
    return success();
  }

  LogicalResult lowerCollectives(ModuleOp module) {
    MLIRContext *context = module.getContext();
    SymbolTableCollection symbolTable;
    // All-slice takes the local block: index arithmetic on the process's
    // grid coordinates, no communication.
    RewritePatternSet slicePatterns(context);
    shard::populateAllSliceOpLoweringPatterns(slicePatterns, symbolTable);
    shard::populateProcessMultiIndexOpLoweringPatterns(slicePatterns,
                                                       symbolTable);
    if (failed(applyPatternsGreedily(module, std::move(slicePatterns))))
      return module.emitError() << "lowering shard.all_slice did not converge";

    CollectiveLowering lowering(module, symbolTable);
    SmallVector<Operation *> collectives;
    module.walk([&](Operation *op) {
      if (isa<shard::AllReduceOp, shard::AllGatherOp>(op))
        collectives.push_back(op);
    });
    for (Operation *op : collectives) {
      LogicalResult lowered =
          TypeSwitch<Operation *, LogicalResult>(op)
              .Case<shard::AllReduceOp, shard::AllGatherOp>(
                  [&](auto op) { return lowering.lower(op); });
      if (failed(lowered))
        return failure();
    }

    OpPassManager toMPI(ModuleOp::getOperationName());
    toMPI.addPass(createConvertShardToMPIPass());
    toMPI.addNestedPass<func::FuncOp>(createCanonicalizerPass());
    return runPipeline(toMPI, module);
  }

  /// convert-shard-to-mpi reports an op it cannot lower, rolls back and
  /// still succeeds: a shard op left now would reach the LLVM conversion.
  LogicalResult checkLeftovers(ModuleOp module) {
    WalkResult result = module.walk([&](Operation *op) {
      if (isa<shard::ShardDialect>(op->getDialect()) &&
          !isa<shard::GridOp>(op)) {
        op->emitOpError() << "has no lowering to MPI in bcast (lowered: "
                             "all_slice, all_reduce, all_gather)";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return failure();
    // No use of a grid is left; the LLVM translation knows no shard.grid.
    for (shard::GridOp grid :
         llvm::make_early_inc_range(module.getOps<shard::GridOp>()))
      grid.erase();
    return success();
  }
};

} // namespace
