//===- GuardDestinations.cpp - Keep live chains out of caller buffers -----===//
//
// eliminate-empty-tensors ties a tensor.empty to the caller's memref that a
// materialize_in_destination writes, and one-shot bufferization trusts the
// memref's `restrict`: it does not see the materialization as a write to the
// values that now live there. A value of that chain read after the write
// would read the materialized value instead (the pass description in
// Passes.td has the failing case).
//
//===----------------------------------------------------------------------===//

#include "bcast/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace bcast {
#define GEN_PASS_DEF_BCASTGUARDDESTINATIONS
#include "bcast/Transforms/Passes.h.inc"
} // namespace bcast
} // namespace mlir

using namespace mlir;

/// The use of a tensor.empty that eliminate-empty-tensors would replace by
/// `write`'s destination, and the values it would then place there: the
/// reverse chain from the materialized value through equivalent in-place
/// operands. Null when the chain does not start at a tensor.empty.
static OpOperand *tiedEmptyUse(bufferization::MaterializeInDestinationOp write,
                               const bufferization::AnalysisState &state,
                               SmallVectorImpl<Value> &chain) {
  Value value = write.getSource();
  while (true) {
    chain.push_back(value);
    if (!isa<OpResult>(value))
      return nullptr;
    bufferization::AliasingOpOperandList operands =
        state.getAliasingOpOperands(value);
    if (operands.getNumAliases() != 1 ||
        operands.getAliases()[0].relation !=
            bufferization::BufferRelation::Equivalent)
      return nullptr;
    OpOperand *operand = operands.getAliases()[0].opOperand;
    if (operand->get().getDefiningOp<tensor::EmptyOp>())
      return operand;
    value = operand->get();
  }
}

/// Whether `user` may run after `write`: not in `write`'s block before it.
static bool runsAfter(Operation *user, Operation *write) {
  Operation *ancestor = write->getBlock()->findAncestorOpInBlock(*user);
  return !ancestor || !ancestor->isBeforeInBlock(write);
}

/// Whether a value sharing the chain's buffer when every op bufferizes in
/// place, other than the materialized value, is read or written in place
/// after `write`.
static bool usedAfter(bufferization::MaterializeInDestinationOp write,
                      ArrayRef<Value> chain,
                      const bufferization::AnalysisState &state) {
  llvm::SetVector<Value> aliases(chain.begin(), chain.end());
  for (size_t i = 0; i < aliases.size(); ++i)
    for (OpOperand &use : aliases[i].getUses())
      for (bufferization::AliasingValue alias : state.getAliasingValues(use))
        aliases.insert(alias.value);
  for (Value value : aliases) {
    if (value == write.getSource())
      continue;
    for (Operation *user : value.getUsers())
      if (user != write && runsAfter(user, write))
        return true;
  }
  return false;
}

namespace {
struct BcastGuardDestinationsPass
    : public bcast::impl::BcastGuardDestinationsBase<
          BcastGuardDestinationsPass> {
  using Base::Base;

  void runOnOperation() override {
    bufferization::BufferizationOptions options;
    bufferization::AnalysisState state(options);
    // Collected first: a guarded use changes the chains of later writes.
    SmallVector<OpOperand *> guarded;
    getOperation()->walk([&](bufferization::MaterializeInDestinationOp write) {
      // A tensor destination is in one-shot bufferization's own analysis.
      if (!isa<BaseMemRefType>(write.getDest().getType()))
        return;
      SmallVector<Value> chain;
      OpOperand *use = tiedEmptyUse(write, state, chain);
      if (use && usedAfter(write, chain, state))
        guarded.push_back(use);
    });
    for (OpOperand *use : guarded) {
      auto empty = use->get().getDefiningOp<tensor::EmptyOp>();
      if (!empty)
        continue;
      OpBuilder b(use->getOwner());
      use->set(bufferization::AllocTensorOp::create(
          b, empty.getLoc(), empty.getType(), empty.getDynamicSizes()));
      if (empty->use_empty())
        empty.erase();
    }
  }
};
} // namespace
