//===- BufferizableOpInterfaceImpl.cpp - Bufferizing expand_view ---------===//
//
// `bcast.expand_view` bufferizes to a view of its source buffer whose
// strides are 0 on the dimensions that are 1 at run time: NumPy's dynamic
// broadcasting with no copy and no per-element select in the loops that
// read it. It reads nothing itself and its result aliases the source.
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/Transforms/BufferizableOpInterfaceImpl.h"
#include "bcast/Dialect/Bcast/IR/BcastOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::bcast;
using namespace mlir::bufferization;

namespace {
struct ExpandViewOpInterface
    : public BufferizableOpInterface::ExternalModel<ExpandViewOpInterface,
                                                    ExpandViewOp> {
  bool bufferizesToMemoryRead(Operation *, OpOperand &,
                              const AnalysisState &) const {
    return false;
  }

  bool bufferizesToMemoryWrite(Operation *, OpOperand &,
                               const AnalysisState &) const {
    return false;
  }

  /// Writing through the view would write one source element for many
  /// result elements (and into the source's buffer). A view that something
  /// may write into (e.g. `broadcast_to`'s result, once its copy folds
  /// away, as the `outs` of an in-place op or the dest of `tensor.insert`)
  /// is therefore not writable, and the write gets a buffer of its own. A
  /// view only read by linalg ops, as convert-bcast-to-linalg makes them, is
  /// left writable: the analysis checks writability over a whole alias set,
  /// so a read-only view would also cost a copy before every later in-place
  /// write into its source.
  bool isWritable(Operation *op, Value, const AnalysisState &) const {
    return isOnlyReadByLinalg(op->getResult(0));
  }

  static bool isOnlyReadByLinalg(Value value) {
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (auto cast = dyn_cast<tensor::CastOp>(user)) {
        if (!isOnlyReadByLinalg(cast.getResult()))
          return false;
        continue;
      }
      auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
      if (!linalgOp || !linalgOp.isDpsInput(&use))
        return false;
    }
    return true;
  }

  AliasingValueList getAliasingValues(Operation *op, OpOperand &,
                                      const AnalysisState &) const {
    // Not equivalent: elements repeat where a stride is 0.
    return {{op->getResult(0), BufferRelation::Unknown}};
  }

  /// A fully dynamic strided layout: strides are only known at run time.
  static MemRefType getViewType(RankedTensorType type, Attribute memorySpace) {
    SmallVector<int64_t> strides(type.getRank(), ShapedType::kDynamic);
    auto layout = StridedLayoutAttr::get(type.getContext(),
                                         ShapedType::kDynamic, strides);
    return MemRefType::get(type.getShape(), type.getElementType(), layout,
                           memorySpace);
  }

  FailureOr<BufferLikeType>
  getBufferType(Operation *op, Value value, const BufferizationOptions &options,
                const BufferizationState &state,
                SmallVector<Value> &invocationStack) const {
    auto view = cast<ExpandViewOp>(op);
    FailureOr<BufferLikeType> sourceType = bufferization::getBufferType(
        view.getSource(), options, state, invocationStack);
    if (failed(sourceType))
      return failure();
    auto sourceMemRef = dyn_cast<BaseMemRefType>(*sourceType);
    if (!sourceMemRef)
      return op->emitError("expected a memref buffer");
    return cast<BufferLikeType>(
        getViewType(view.getType(), sourceMemRef.getMemorySpace()));
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto view = cast<ExpandViewOp>(op);
    Location loc = op->getLoc();
    FailureOr<Value> source =
        getBuffer(rewriter, view.getSource(), options, state);
    if (failed(source))
      return failure();
    auto sourceType = cast<MemRefType>(source->getType());
    auto metadata =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, *source);
    RankedTensorType type = view.getType();
    SmallVector<OpFoldResult> sizes, strides;
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    unsigned next = 0;
    for (int64_t dim = 0; dim < type.getRank(); ++dim) {
      Value stride = metadata.getStrides()[dim];
      if (!type.isDynamicDim(dim)) {
        sizes.push_back(rewriter.getIndexAttr(type.getDimSize(dim)));
        strides.push_back(stride);
        continue;
      }
      Value isOne =
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                metadata.getSizes()[dim], one);
      sizes.push_back(view.getSizes()[next++]);
      strides.push_back(
          arith::SelectOp::create(rewriter, loc, isOne, zero, stride)
              .getResult());
    }
    MemRefType viewType = getViewType(type, sourceType.getMemorySpace());
    Value result = memref::ReinterpretCastOp::create(
        rewriter, loc, viewType, *source, metadata.getOffset(), sizes, strides);
    replaceOpWithBufferizedValues(rewriter, op, result);
    return success();
  }
};
} // namespace

void bcast::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, BcastDialect *) {
    ExpandViewOp::attachInterface<ExpandViewOpInterface>(*context);
  });
}
