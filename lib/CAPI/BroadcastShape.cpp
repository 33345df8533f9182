//===- BroadcastShape.cpp - C API for the broadcasting rule ---------------===//
//
// Implements include/bcast-c/BroadcastShape.h by calling the shape-rule
// module (never re-deriving the rule). The C boundary is where untrusted
// arguments arrive, so they are checked here and a bad one becomes a failed
// result with a message rather than undefined behaviour.
//
//===----------------------------------------------------------------------===//

#include "bcast-c/BroadcastShape.h"

#include "bcast/Dialect/Bcast/Utils/BroadcastShape.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

using namespace mlir::bcast;

namespace {
/// What a BcastBroadcastResult points to.
struct BroadcastResult {
  llvm::SmallVector<int64_t> shape;
  std::string message;
  std::optional<SizeMismatch> mismatch;
  bool succeeded = false;
};
} // namespace

static BroadcastResult *unwrapResult(BcastBroadcastResult r) {
  return static_cast<BroadcastResult *>(r.ptr);
}

/// A failed result for invalid arguments.
static BcastBroadcastResult invalidArgument(std::string message) {
  auto *result = new BroadcastResult();
  result->message = "invalid argument to bcastBroadcastShapes: " + message;
  return BcastBroadcastResult{result};
}

int64_t bcastGetDynamicSize(void) { return kDynamicSize; }

BcastBroadcastResult bcastBroadcastShapes(intptr_t numShapes,
                                          const intptr_t *ranks,
                                          const int64_t *const *shapes) {
  if (numShapes < 0)
    return invalidArgument("negative number of shapes " +
                           std::to_string(numShapes));
  if (numShapes > 0 && (!ranks || !shapes))
    return invalidArgument("ranks and shapes must not be NULL");
  llvm::SmallVector<llvm::ArrayRef<int64_t>> arrays;
  for (intptr_t i = 0; i < numShapes; ++i) {
    std::string which = "shape " + std::to_string(i);
    if (ranks[i] < 0)
      return invalidArgument(which + " has negative rank " +
                             std::to_string(ranks[i]));
    if (ranks[i] > 0 && !shapes[i])
      return invalidArgument(which + " has rank " + std::to_string(ranks[i]) +
                             " but no sizes");
    llvm::ArrayRef<int64_t> shape(ranks[i] ? shapes[i] : nullptr, ranks[i]);
    for (auto [dim, size] : llvm::enumerate(shape))
      if (size < 0 && !isDynamicSize(size))
        return invalidArgument(which + " has size " + std::to_string(size) +
                               " at dimension " + std::to_string(dim));
    arrays.push_back(shape);
  }

  auto *result = new BroadcastResult();
  SizeMismatch mismatch;
  if (std::optional<llvm::SmallVector<int64_t>> shape =
          broadcastShapes(arrays, &mismatch)) {
    result->succeeded = true;
    result->shape = std::move(*shape);
  } else {
    result->mismatch = mismatch;
    result->message = mismatch.message();
  }
  return BcastBroadcastResult{result};
}

bool bcastBroadcastResultSucceeded(BcastBroadcastResult r) {
  return unwrapResult(r)->succeeded;
}

intptr_t bcastBroadcastResultGetRank(BcastBroadcastResult r) {
  return unwrapResult(r)->shape.size();
}

const int64_t *bcastBroadcastResultGetShape(BcastBroadcastResult r) {
  BroadcastResult *result = unwrapResult(r);
  return result->shape.empty() ? nullptr : result->shape.data();
}

MlirStringRef bcastBroadcastResultGetMessage(BcastBroadcastResult r) {
  const std::string &message = unwrapResult(r)->message;
  return MlirStringRef{message.data(), message.size()};
}

bool bcastBroadcastResultGetMismatch(BcastBroadcastResult r,
                                     BcastSizeMismatch *mismatch) {
  BroadcastResult *result = unwrapResult(r);
  if (!result->mismatch || !mismatch)
    return false;
  const SizeMismatch &m = *result->mismatch;
  *mismatch = BcastSizeMismatch{m.lhsOperand, m.rhsOperand, m.lhsSize,
                                m.rhsSize, m.dim};
  return true;
}

void bcastBroadcastResultDestroy(BcastBroadcastResult r) {
  delete unwrapResult(r);
}
