//===- LowerRuntimeChecks.cpp - Code for bcast.runtime_check --------------===//
//
// Turns the run-time shape checks that convert-bcast-to-linalg leaves
// behind into code: in `exit` mode a failing check writes its message to
// stderr and calls exit(1) (the command-line behaviour, needing only libc);
// in `report` mode it hands the message to the embedder's bcastReportError
// and returns early from the function, so the caller decides what happens.
// The two modes differ only in what happens once the message is formatted.
//
//===----------------------------------------------------------------------===//

#include "bcast/Conversion/Passes.h"
#include "bcast/Dialect/Bcast/IR/BcastOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTLOWERRUNTIMECHECKS
#include "bcast/Conversion/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;
using namespace mlir::bcast;

/// The name of the function an embedder provides in `report` mode.
static constexpr StringLiteral kReportFunction = "bcastReportError";

/// Size of the stack buffer a message is formatted into in `report` mode.
static constexpr int64_t kMessageBufferSize = 1024;

namespace {
class CheckLowering {
public:
  explicit CheckLowering(ModuleOp module)
      : module(module),
        ptrType(LLVM::LLVMPointerType::get(module.getContext())),
        i32Type(IntegerType::get(module.getContext(), 32)),
        i64Type(IntegerType::get(module.getContext(), 64)) {}

  /// A pointer to a NUL-terminated global copy of `text`.
  Value globalString(OpBuilder &b, Location loc, StringRef text) {
    auto &global = strings[text];
    if (!global) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(module.getBody());
      std::string value = (text + Twine('\0')).str();
      auto type = LLVM::LLVMArrayType::get(IntegerType::get(b.getContext(), 8),
                                           value.size());
      std::string name = "bcast_runtime_error_" + std::to_string(counter++);
      global = LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                                      LLVM::Linkage::Internal, name,
                                      b.getStringAttr(value));
    }
    return LLVM::AddressOfOp::create(b, loc, global);
  }

  FailureOr<LLVM::LLVMFuncOp> function(OpBuilder &b, StringRef name,
                                       ArrayRef<Type> params, Type result,
                                       bool isVarArg = false) {
    return LLVM::lookupOrCreateFn(b, module, name, params, result, isVarArg);
  }

  /// The check's values as i64, for printf's %ld.
  SmallVector<Value> printfValues(OpBuilder &b, RuntimeCheckOp check) {
    SmallVector<Value> values;
    for (Value v : check.getValues()) {
      if (v.getType().isIndex())
        values.push_back(
            arith::IndexCastOp::create(b, check.getLoc(), i64Type, v));
      else if (v.getType().getIntOrFloatBitWidth() < 64)
        values.push_back(arith::ExtSIOp::create(b, check.getLoc(), i64Type, v));
      else
        values.push_back(v);
    }
    return values;
  }

  /// exit mode: `if (failed) { dprintf(2, "...\n", ...); exit(1); }`.
  LogicalResult lowerToExit(RuntimeCheckOp check) {
    OpBuilder b(check);
    Location loc = check.getLoc();
    FailureOr<LLVM::LLVMFuncOp> dprintf =
        function(b, "dprintf", {i32Type, ptrType}, i32Type, /*isVarArg=*/true);
    FailureOr<LLVM::LLVMFuncOp> exitFn =
        function(b, "exit", {i32Type}, LLVM::LLVMVoidType::get(b.getContext()));
    if (failed(dprintf) || failed(exitFn))
      return check.emitOpError()
             << "cannot declare dprintf/exit: the module defines them "
                "differently";
    auto ifOp = scf::IfOp::create(b, loc, check.getFailed(),
                                  /*withElseRegion=*/false);
    b.setInsertionPointToStart(ifOp.thenBlock());
    SmallVector<Value> args = {
        arith::ConstantOp::create(b, loc, i32Type, b.getI32IntegerAttr(2)),
        globalString(b, loc, (check.getFormat() + "\n").str())};
    llvm::append_range(args, printfValues(b, check));
    LLVM::CallOp::create(b, loc, *dprintf, args);
    Value one =
        arith::ConstantOp::create(b, loc, i32Type, b.getI32IntegerAttr(1));
    LLVM::CallOp::create(b, loc, *exitFn, ValueRange{one});
    check.erase();
    return success();
  }

  /// A value of `type` returned from a function whose check failed.
  Value placeholder(OpBuilder &b, Location loc, Type type) {
    if (auto memref = dyn_cast<MemRefType>(type)) {
      if (memref.getLayout().isIdentity()) {
        SmallVector<Value> zeros(memref.getNumDynamicDims(),
                                 arith::ConstantIndexOp::create(b, loc, 0));
        return memref::AllocOp::create(b, loc, memref, zeros);
      }
    }
    if (isa<IntegerType, IndexType, FloatType>(type))
      return arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
    return ub::PoisonOp::create(b, loc, type);
  }

  /// report mode: split the block at the check; on failure format the
  /// message, call bcastReportError and return early.
  LogicalResult lowerToReport(RuntimeCheckOp check) {
    auto func = dyn_cast<func::FuncOp>(check->getParentOp());
    if (!func)
      return check.emitOpError()
             << "reporting a failure to the caller needs the check at the top "
                "level of a func.func body (not inside a loop or region); use "
                "the exit mode for this function";
    Location loc = check.getLoc();
    OpBuilder b(check);
    FailureOr<LLVM::LLVMFuncOp> snprintf = function(
        b, "snprintf", {ptrType, i64Type, ptrType}, i32Type, /*isVarArg=*/true);
    FailureOr<LLVM::LLVMFuncOp> report = function(
        b, kReportFunction, {ptrType}, LLVM::LLVMVoidType::get(b.getContext()));
    if (failed(snprintf) || failed(report))
      return check.emitOpError()
             << "cannot declare snprintf/" << kReportFunction
             << ": the module defines them differently";

    Block *before = check->getBlock();
    Block *after = before->splitBlock(check->getNextNode());
    Block *failure = b.createBlock(after);
    b.setInsertionPointToEnd(before);
    cf::CondBranchOp::create(b, loc, check.getFailed(), failure, after);

    b.setInsertionPointToStart(failure);
    Value size = arith::ConstantOp::create(
        b, loc, i64Type, b.getI64IntegerAttr(kMessageBufferSize));
    auto buffer = LLVM::AllocaOp::create(
        b, loc, ptrType, IntegerType::get(b.getContext(), 8), size);
    SmallVector<Value> args = {buffer, size,
                               globalString(b, loc, check.getFormat())};
    llvm::append_range(args, printfValues(b, check));
    LLVM::CallOp::create(b, loc, *snprintf, args);
    LLVM::CallOp::create(b, loc, *report, ValueRange{buffer});
    SmallVector<Value> results;
    for (Type type : func.getResultTypes())
      results.push_back(placeholder(b, loc, type));
    func::ReturnOp::create(b, loc, results);
    check.erase();
    return success();
  }

private:
  ModuleOp module;
  Type ptrType, i32Type, i64Type;
  llvm::StringMap<LLVM::GlobalOp> strings;
  unsigned counter = 0;
};

struct BcastLowerRuntimeChecksPass
    : public bcast::impl::BcastLowerRuntimeChecksBase<
          BcastLowerRuntimeChecksPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<RuntimeCheckOp> checks;
    getOperation()->walk(
        [&](RuntimeCheckOp check) { checks.push_back(check); });
    CheckLowering lowering(getOperation());
    for (RuntimeCheckOp check : checks)
      if (failed(report ? lowering.lowerToReport(check)
                        : lowering.lowerToExit(check)))
        return signalPassFailure();
  }
};
} // namespace
