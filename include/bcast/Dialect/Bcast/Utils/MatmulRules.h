//===- MatmulRules.h - torch.matmul's shape and dtype rules -----*- C++ -*-===//
//
// The rules of `bcast.matmul`, in one place: how operand ranks map to the
// product's dimensions (1-D operands as rows or columns, batch dims that
// broadcast), the result shape, the element types PyTorch 1.13's CPU
// kernels accept, and the sentences that explain a violation. The verifier,
// shape inference, the lowering's run-time checks and the Python package
// call this module. Like BroadcastShape.h it depends on LLVM's ADT only.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_DIALECT_BCAST_UTILS_MATMULRULES_H
#define BCAST_DIALECT_BCAST_UTILS_MATMULRULES_H

#include "bcast/Dialect/Bcast/Utils/BroadcastShape.h"
#include "bcast/Dialect/Bcast/Utils/TypePromotion.h"

#include <optional>
#include <string>

namespace mlir {
namespace bcast {

/// Where the dimensions of a matmul's operands and result are, for operand
/// ranks `lhsRank` and `rhsRank` (both at least 1). A 1-D lhs is a row
/// (`1xK`, no M), a 1-D rhs a column (`Kx1`, no N); the 1 is not in the
/// result. Batch dims are all but an operand's last two.
struct MatmulLayout {
  int64_t lhsRank = 0;
  int64_t rhsRank = 0;

  MatmulLayout(int64_t lhsRank, int64_t rhsRank)
      : lhsRank(lhsRank), rhsRank(rhsRank) {}

  int64_t lhsBatchRank() const { return lhsRank > 2 ? lhsRank - 2 : 0; }
  int64_t rhsBatchRank() const { return rhsRank > 2 ? rhsRank - 2 : 0; }
  int64_t batchRank() const { return std::max(lhsBatchRank(), rhsBatchRank()); }
  bool hasM() const { return lhsRank >= 2; }
  bool hasN() const { return rhsRank >= 2; }
  /// The contracted dimension of each operand.
  int64_t lhsK() const { return lhsRank - 1; }
  int64_t rhsK() const { return rhsRank == 1 ? 0 : rhsRank - 2; }
  /// The free dimensions, when present.
  int64_t lhsM() const { return lhsRank - 2; }
  int64_t rhsN() const { return rhsRank - 1; }
  /// The result's rank and its M and N positions, when present.
  int64_t resultRank() const { return batchRank() + hasM() + hasN(); }
  int64_t resultM() const { return batchRank(); }
  int64_t resultN() const { return batchRank() + hasM(); }
};

/// Why two shapes cannot be multiplied.
struct MatmulMismatch {
  enum class Kind {
    /// An operand of rank 0.
    Rank0,
    /// The batch dims do not broadcast; `batch` says where (numbered within
    /// the broadcast batch shape, as PyTorch's `infer_size` numbers them).
    Batch,
    /// The contracted sizes differ.
    Contracted,
  };
  Kind kind = Kind::Contracted;
  SizeMismatch batch;

  /// The sentence, with the operands' shapes where it names them.
  std::string message(llvm::ArrayRef<int64_t> lhs,
                      llvm::ArrayRef<int64_t> rhs) const;
};

/// "both arguments to matmul need to be at least 1D, but they are 0D and 1D"
std::string formatMatmulRankError(int64_t lhsRank, int64_t rhsRank);

/// A shape as the contraction sentence prints it: sizes joined by `x`
/// ("5x2x3", "4"), `?` for a dynamic one.
std::string formatMatmulShape(llvm::ArrayRef<int64_t> shape);

/// "mat1 and mat2 shapes cannot be multiplied (5x2x3 and 4)": PyTorch's
/// sentence for 2-D operands, used for every rank with the operands' own
/// shapes (as text, so that run-time checks can pass printf conversions).
std::string formatMatmulContractionMismatch(llvm::StringRef lhsShape,
                                            llvm::StringRef rhsShape);

/// The result shape of `torch.matmul` on shapes `lhs` and `rhs`: the
/// broadcast batch shape, then M (if lhs has rank 2 or more), then N (if
/// rhs has). Dynamic sizes are accepted wherever some run-time value fits.
/// On failure returns std::nullopt and fills in `mismatch` (when given)
/// with the first violation in PyTorch's order: rank 0, batch dims,
/// contracted sizes.
std::optional<llvm::SmallVector<int64_t>>
inferMatmulShape(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs,
                 MatmulMismatch *mismatch = nullptr);

/// The broadcast batch shape alone (the operands must multiply).
llvm::SmallVector<int64_t> getMatmulBatchShape(llvm::ArrayRef<int64_t> lhs,
                                               llvm::ArrayRef<int64_t> rhs);

/// The CPU kernel `torch.matmul` (PyTorch 1.13) reaches for operands of
/// ranks `lhsRank` and `rhsRank`. Its dtype checks and sentences are that
/// kernel's.
enum class MatmulKernel {
  /// 1-D x 1-D: `dot`.
  Dot,
  /// A matrix-vector product, `addmv_impl_cpu`: 2-D or folded N-D lhs with
  /// a 1-D rhs, or (transposed, rhs first) 1-D lhs with an N-D rhs.
  Mv,
  /// A matrix product, `addmm_impl_cpu_`: 1-D or 2-D lhs with a 2-D rhs,
  /// N-D lhs folded with a 2-D rhs, or (transposed, rhs first) 2-D lhs
  /// with an N-D rhs.
  Mm,
  /// Both operands of rank 3 or more: `bmm`.
  Bmm,
};

struct MatmulKernelChoice {
  MatmulKernel kernel;
  /// The kernel is called on the transposed product (rhs^T @ lhs^T), so
  /// its "first" operand, whose type it checks, is rhs.
  bool rhsFirst;
};

MatmulKernelChoice getMatmulKernel(int64_t lhsRank, int64_t rhsRank);

/// The kernel's name in PyTorch's dispatch messages ("addmm_impl_cpu_").
llvm::StringRef getMatmulKernelName(MatmulKernel kernel);

/// Whether `torch.matmul` on CPU has a kernel for `type` (both operands of
/// it): f32, f64, bf16, i8..i64 and ui8. Bool and Half are rejected by
/// PyTorch, and ui16..ui64, which PyTorch 1.13 lacks, by bcast.
bool isMatmulElementType(DType type);

/// PyTorch's verdict on operand element types `lhs` and `rhs` for operand
/// ranks `lhsRank` and `rhsRank`: std::nullopt if accepted, else its
/// sentence: `"addmm_impl_cpu_" not implemented for 'Bool'`, `expected
/// scalar type Float but found Double`, or for 1-D x 1-D `dot : expected
/// both vectors to have same dtype, but found Float and Double`. Matmul has
/// no type promotion.
std::optional<std::string>
checkMatmulElementTypes(DType lhs, DType rhs, int64_t lhsRank, int64_t rhsRank);

/// Whether PyTorch rejects mixed element types before it checks the
/// contracted sizes. Only `dot` does (a mixed-type dot of different lengths
/// reports the types); its Bool and Half check still follows the sizes.
inline bool checksTypesBeforeSizes(int64_t lhsRank, int64_t rhsRank) {
  return lhsRank == 1 && rhsRank == 1;
}

} // namespace bcast
} // namespace mlir

#endif // BCAST_DIALECT_BCAST_UTILS_MATMULRULES_H
