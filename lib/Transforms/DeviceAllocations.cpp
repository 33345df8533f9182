//===- DeviceAllocations.cpp - bcast-device-allocations -------------------===//
//
// Moves the buffers of host functions that launch GPU kernels to device
// memory (memref.alloc/dealloc to gpu.alloc/dealloc), and frees every
// gpu.alloc buffer on the device, also where buffer deallocation inserted a
// host memref.dealloc for it. Constants (memref.get_global) that kernels
// read are copied to device memory once per call: a kernel cannot read the
// host's globals.
//
//===----------------------------------------------------------------------===//

#include "bcast/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTDEVICEALLOCATIONS
#include "bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;

/// The buffer `value` is a view of (through casts, reinterpret_casts,
/// subviews and reshapes), or `value` itself.
static Value getRootBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// Whether `value` or a view of it leaves the function (returned or passed
/// to a call), where a device copy would not do.
static bool escapes(Value value) {
  for (Operation *user : value.getUsers()) {
    if (user->hasTrait<OpTrait::ReturnLike>() || isa<CallOpInterface>(user))
      return true;
    if (auto view = dyn_cast<ViewLikeOpInterface>(user))
      if (view.getViewSource() == value &&
          llvm::any_of(user->getResults(), escapes))
        return true;
  }
  return false;
}

/// Replaces each constant of `func` with a device copy made where it is
/// read, freed before every return.
static void copyGlobalsToDevice(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<memref::GetGlobalOp> globals;
  func.walk([&](memref::GetGlobalOp global) {
    if (!global.use_empty() && !escapes(global.getResult()))
      globals.push_back(global);
  });
  for (memref::GetGlobalOp global : globals) {
    Location loc = global.getLoc();
    rewriter.setInsertionPointAfter(global);
    auto device = gpu::AllocOp::create(
        rewriter, loc, global.getType(), /*asyncToken=*/Type(),
        /*asyncDependencies=*/ValueRange{}, /*dynamicSizes=*/ValueRange{},
        /*symbolOperands=*/ValueRange{}, /*hostShared=*/UnitAttr());
    auto copy = gpu::MemcpyOp::create(rewriter, loc, /*asyncToken=*/Type(),
                                      ValueRange{}, device.getMemref(),
                                      global.getResult());
    rewriter.replaceAllUsesExcept(global.getResult(), device.getMemref(), copy);
    func.walk([&](Operation *op) {
      if (!op->hasTrait<OpTrait::ReturnLike>() ||
          op->getParentOp() != func.getOperation())
        return;
      rewriter.setInsertionPoint(op);
      gpu::DeallocOp::create(rewriter, loc, /*asyncToken=*/Type(), ValueRange{},
                             device.getMemref());
    });
  }
}

namespace {
struct BcastDeviceAllocationsPass
    : public bcast::impl::BcastDeviceAllocationsBase<
          BcastDeviceAllocationsPass> {
  void runOnOperation() override {
    // Wherever a buffer was allocated with gpu.alloc (also in driver code),
    // the deallocations buffer-deallocation-pipeline inserts must free it on
    // the device: a host free() of a device pointer crashes.
    getOperation()->walk([](memref::DeallocOp dealloc) {
      if (!getRootBuffer(dealloc.getMemref()).getDefiningOp<gpu::AllocOp>())
        return;
      IRRewriter rewriter(dealloc);
      gpu::DeallocOp::create(rewriter, dealloc.getLoc(), /*asyncToken=*/Type(),
                             ValueRange{}, dealloc.getMemref());
      rewriter.eraseOp(dealloc);
    });
    getOperation()->walk([](func::FuncOp func) {
      bool launches = false;
      func.walk([&](gpu::LaunchOp) { launches = true; });
      if (!launches)
        return;
      IRRewriter rewriter(func.getContext());
      func.walk([&](memref::AllocOp alloc) {
        rewriter.setInsertionPoint(alloc);
        auto device = gpu::AllocOp::create(
            rewriter, alloc.getLoc(), alloc.getType(), /*asyncToken=*/Type(),
            /*asyncDependencies=*/ValueRange{}, alloc.getDynamicSizes(),
            alloc.getSymbolOperands(), /*hostShared=*/UnitAttr());
        rewriter.replaceOp(alloc, device.getMemref());
      });
      func.walk([&](memref::DeallocOp dealloc) {
        rewriter.setInsertionPoint(dealloc);
        gpu::DeallocOp::create(rewriter, dealloc.getLoc(),
                               /*asyncToken=*/Type(), ValueRange{},
                               dealloc.getMemref());
        rewriter.eraseOp(dealloc);
      });
      copyGlobalsToDevice(rewriter, func);
    });
  }
};
} // namespace
