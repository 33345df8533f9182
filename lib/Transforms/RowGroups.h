//===- RowGroups.h - Runs of linalg ops that share a row loop ---*- C++ -*-===//
//
// Private to lib/Transforms: which consecutive bufferized linalg ops may
// run row by row together (a keepdim reduction's [M,1] statistics and the
// rows that use them), shared by bcast-fuse-rows, which wraps a group in
// one loop over row blocks on the CPU, and bcast-map-reductions-to-gpu,
// which makes a group one kernel with a block per row, so that both fuse
// exactly the same ops.
//
//===----------------------------------------------------------------------===//

// A private header: llvm-header-guard would name the guard after the checkout's
// absolute path.
#ifndef BCAST_LIB_TRANSFORMS_ROWGROUPS_H // NOLINT(llvm-header-guard)
#define BCAST_LIB_TRANSFORMS_ROWGROUPS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <vector>

namespace mlir {
namespace bcast {
namespace rows {

/// The buffer a memref value is a view of.
Value getRoot(Value value);

/// Whether `map` indexes its first result by loop 0 and uses loop 0 nowhere
/// else: the operand is read or written one row at a time.
bool isRowIndexed(AffineMap map);

/// A candidate member: a linalg op on buffers with a parallel loop 0 that
/// indexes every result row by row, and no memory effects in its body.
bool isRowOp(linalg::LinalgOp op);

/// A run of consecutive row ops that can share one row loop.
class RowGroup {
public:
  /// Adds `op` if the group stays valid: the same number of rows, and no
  /// row of a buffer written in the group is read by another row's work.
  bool tryAdd(linalg::LinalgOp op);

  bool empty() const { return members.empty(); }
  bool hasReduction() const;
  /// Whether some member writes the buffer `root` (a getRoot value).
  bool writes(Value root) const;

  SmallVector<linalg::LinalgOp> members;
  /// Frees between the members, which must move after the fused form.
  SmallVector<Operation *> deferred;

private:
  /// What the group does with one buffer.
  struct RootUse {
    Value value;             ///< The memref value of the first access.
    bool oneValue = true;    ///< Every access goes through `value`.
    bool onlyRowwise = true; ///< Every access is row-indexed.
    bool written = false;    ///< Some member writes it.
  };
  std::optional<int64_t> staticExtent;
  /// The rows of every buffer the members index by row.
  llvm::SmallDenseSet<Value> rowKeys;
  llvm::SmallDenseMap<Value, RootUse> rootUses;
};

/// The maximal groups of every block under `root`, in order, that
/// `accept` takes. Between members there may be ops without memory effects
/// and allocations (they stay before the fused form, which replaces the
/// last member) and frees (`deferred`).
std::vector<RowGroup>
collectRowGroups(Operation *root,
                 llvm::function_ref<bool(const RowGroup &)> accept);

} // namespace rows
} // namespace bcast
} // namespace mlir

#endif // BCAST_LIB_TRANSFORMS_ROWGROUPS_H
