//===- BroadcastShape.h - The broadcasting rules, in one place --*- C++ -*-===//
//
// The NumPy/PyTorch broadcasting rules and the sentences that explain why a
// set of shapes breaks them. Everything in bcast that needs the rule (the op
// verifiers, shape inference, the lowering's run-time checks, the C API and
// the Python package) calls this module; nothing else re-derives it. It
// depends on LLVM's ADT only, so that it can be used without an MLIRContext.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_DIALECT_BCAST_UTILS_BROADCASTSHAPE_H
#define BCAST_DIALECT_BCAST_UTILS_BROADCASTSHAPE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace mlir {
namespace bcast {

/// A dimension whose size is unknown at compile time (`?`). Equal to
/// `mlir::ShapedType::kDynamic`.
inline constexpr int64_t kDynamicSize = std::numeric_limits<int64_t>::min();

inline bool isDynamicSize(int64_t size) { return size == kDynamicSize; }

/// The letter the diagnostics use for operand `index`: a, b, c, ...
char operandLetter(unsigned index);

/// Formats a shape as PyTorch prints sizes: `[1, 3, 1]`, with `?` for a
/// dynamic dimension and `[]` for rank 0.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

//===----------------------------------------------------------------------===//
// The sentences
//===----------------------------------------------------------------------===//
//
// Each sentence is built by one function that takes the sizes as text, so
// that the compile-time diagnostics (decimal sizes) and the lowering's
// run-time checks (printf conversions such as "%ld") share the wording.

/// "The size of tensor a (2) must match the size of tensor b (3) at
/// non-singleton dimension 1"
/// (PyTorch says `a` for the shape of the operands so far and `b` for the
/// next operand, whatever their positions.)
std::string formatSizeMismatch(llvm::StringRef lhsSize, llvm::StringRef rhsSize,
                               int64_t dim);

/// "The expanded size of the tensor (1) must match the existing size (7) at
/// non-singleton dimension 2"
std::string formatExpandMismatch(llvm::StringRef targetSize,
                                 llvm::StringRef existingSize, int64_t dim);

/// "output with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]"
std::string formatInPlaceMismatch(llvm::StringRef selfShape,
                                  llvm::StringRef broadcastShape);

/// PyTensor's run-time sentences for the `static` policy (0-based input and
/// axis, the axis counted in the result rank). `runtimeSizeIsOne` picks
/// "Incompatible vectorized shapes for input 1 and axis 1. Input 1 has shape
/// 1, but is not statically known to have shape 1, and thus not
/// broadcastable." over "Vectorized input 1 has an incompatible shape in axis
/// 1.".
std::string formatStaticPolicyMismatch(unsigned input, int64_t axis,
                                       bool runtimeSizeIsOne);

/// PyTensor's `SpecifyShape` sentence (`dim` counted from 0): "SpecifyShape:
/// dim 1 of input has shape 3, expected 1."
std::string formatSpecifyShapeMismatch(int64_t dim, llvm::StringRef actual,
                                       llvm::StringRef expected);

//===----------------------------------------------------------------------===//
// Broadcasting several shapes together
//===----------------------------------------------------------------------===//

/// Why operands do not broadcast, as PyTorch finds it folding the shapes
/// pairwise: operand `rhsOperand` does not fit the broadcast shape of the
/// operands before it (of which `lhsOperand` is the first with that size
/// there) at dimension `dim`, the trailing-most offending one, numbered from
/// the left in the rank of that pair; the two static sizes that disagree.
struct SizeMismatch {
  unsigned lhsOperand = 0;
  unsigned rhsOperand = 1;
  int64_t lhsSize = 0;
  int64_t rhsSize = 0;
  int64_t dim = 0;

  /// PyTorch's sentence: "The size of tensor a (2) must match the size of
  /// tensor b (3) at non-singleton dimension 1".
  std::string message() const;
};

/// The size that dimension sizes `lhs` and `rhs` broadcast to, or
/// std::nullopt if both are static, differ, and neither is 1. A dynamic size
/// is compatible with anything: `?` with static n != 1 (0 included) gives n;
/// `?` with 1 or `?` gives `?`. A missing dimension is passed as 1.
std::optional<int64_t> broadcastDimSizes(int64_t lhs, int64_t rhs);

/// Broadcasts `shapes` together (aligned at the trailing dimension). Rank-0
/// shapes are scalars and broadcast with anything. On failure returns
/// std::nullopt and, if `mismatch` is given, fills it in as PyTorch reports
/// it: the first operand whose shape does not broadcast with the broadcast
/// shape of the operands before it, at the trailing-most offending
/// dimension of that pair (SizeMismatch).
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes,
                SizeMismatch *mismatch = nullptr);

/// Convenience form for two shapes.
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs,
                SizeMismatch *mismatch = nullptr);

//===----------------------------------------------------------------------===//
// Expanding one shape to another (PyTorch's `expand`, `broadcast_to`)
//===----------------------------------------------------------------------===//

/// Why `source` cannot be expanded to `target`.
struct ExpandMismatch {
  enum class Kind {
    /// `source` has more dimensions than `target`.
    TooFewSizes,
    /// A dynamic target size ("keep the existing size", PyTorch's -1) in a
    /// leading dimension that `source` does not have.
    LeadingDynamic,
    /// A static source size differs from the target size and is not 1.
    SizeMismatch,
  };
  Kind kind = Kind::SizeMismatch;
  /// For TooFewSizes: the ranks.
  int64_t targetRank = 0;
  int64_t sourceRank = 0;
  /// For SizeMismatch and LeadingDynamic: the trailing-most offending
  /// dimension, numbered in the target rank, and the sizes there.
  int64_t targetSize = 0;
  int64_t existingSize = 0;
  int64_t dim = 0;

  /// PyTorch's sentences: "The expanded size of the tensor (1) must match
  /// the existing size (7) at non-singleton dimension 2.  Target sizes: ...
  /// Tensor sizes: ..." or "the number of sizes provided (1) must be greater
  /// or equal to the number of dimensions in the tensor (2)" or "The
  /// expanded size of the tensor (-1) isn't allowed in a leading,
  /// non-existing dimension 0".
  std::string message(llvm::ArrayRef<int64_t> source,
                      llvm::ArrayRef<int64_t> target) const;
};

/// What a dynamic size in the target of an expansion means.
enum class DynamicTarget {
  /// Some size known at run time (the in-place operand of an in-place op).
  Unknown,
  /// "Keep the existing size", as -1 in PyTorch's `expand`: there must be an
  /// aligned source dimension to keep (`broadcast_to`).
  KeepsSourceSize,
};

/// Checks that `source` can be expanded to `target` without changing
/// `target`: every aligned source size is 1 or equal to the target size.
/// Dynamic sizes on either side are accepted (some run-time value fits),
/// except where `dynamicTarget` forbids them.
std::optional<ExpandMismatch>
checkExpand(llvm::ArrayRef<int64_t> source, llvm::ArrayRef<int64_t> target,
            DynamicTarget dynamicTarget = DynamicTarget::Unknown);

//===----------------------------------------------------------------------===//
// In-place operations
//===----------------------------------------------------------------------===//

/// Checks PyTorch's in-place rule: broadcasting `self` with `other` must not
/// change `self`'s shape. With dynamic sizes the operation is accepted iff
/// some assignment of the `?`s makes the broadcast shape equal `self`'s
/// shape. Assumes `self` and `other` are broadcastable. Returns the full
/// diagnostic ("output with shape [1, 3, 1] doesn't match the broadcast shape
/// [3, 3, 7]: The expanded size of ...") on violation.
std::optional<std::string> checkInPlace(llvm::ArrayRef<int64_t> self,
                                        llvm::ArrayRef<int64_t> other);

/// The in-place rule over all operands of an in-place op (`shapes[0]` is
/// `self`): no other operand may expand it. Unary ops pass trivially; the
/// diagnostic names the broadcast shape of all operands and the first
/// operand that does not expand to `self`.
std::optional<std::string>
checkInPlaceOperands(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes);

//===----------------------------------------------------------------------===//
// Pinning static sizes (PyTensor's `specify_shape`)
//===----------------------------------------------------------------------===//

/// Checks that `result` is a shape `bcast.specify_shape` may give a tensor of
/// shape `input`: the same rank, and every static input size kept (a `?`
/// input size may become static or stay `?`). Returns the diagnostic on
/// violation: PyTensor's "Input `x` is 2-dimensional and will never match a
/// shape of length 3.", its run-time sentence "SpecifyShape: dim 1 of input
/// has shape 3, expected 1." for a static size that would change (it would
/// fail on every run), or "dim 1 of input has static shape 3, but the result
/// has ?: specify_shape only refines ? sizes (tensor.cast makes a size
/// dynamic)".
std::optional<std::string> checkSpecifyShape(llvm::ArrayRef<int64_t> input,
                                             llvm::ArrayRef<int64_t> result);

//===----------------------------------------------------------------------===//
// Reductions, and their broadcast back (`keepdim`, `sum_to_size`)
//===----------------------------------------------------------------------===//

/// Normalizes reduction dims for a tensor of rank `rank` as PyTorch's
/// `maybe_wrap_dim` and `dim_list_to_bitset` do: a dim may be negative
/// (counting from the end), a rank-0 tensor accepts 0 and -1, and no dim may
/// repeat. Returns the normalized dims in the given order, or PyTorch's
/// sentence: "Dimension out of range (expected to be in range of [-2, 1],
/// but got 2)" or "dim 1 appears multiple times in the list of dims".
std::optional<std::string>
normalizeReductionDims(int64_t rank, llvm::ArrayRef<int64_t> dims,
                       llvm::SmallVectorImpl<int64_t> &normalized);

/// Normalizes the dims of a permute of a tensor of rank `rank` as PyTorch
/// 1.13's `permute` checks them: as many dims as the rank, each in
/// `[-rank, rank - 1]` (wrapped to `[0, rank)`), none repeated; the length
/// first, then each dim in order. Returns the wrapped dims, or PyTorch's
/// sentence: "permute(sparse_coo): number of dimensions in the tensor input
/// does not match the length of the desired ordering of dimensions i.e.
/// input.dim() = 3 is not equal to len(dims) = 2", "Dimension out of range
/// (expected to be in range of [-3, 2], but got 3)" or "permute(): duplicate
/// dims are not allowed.".
std::optional<std::string>
normalizePermutation(int64_t rank, llvm::ArrayRef<int64_t> dims,
                     llvm::SmallVectorImpl<int64_t> &normalized);

/// The shape of a reduction of `shape` over `reducedDims` (normalized):
/// reduced dimensions become 1 with `keepdim`, or are dropped.
llvm::SmallVector<int64_t> reduceShape(llvm::ArrayRef<int64_t> shape,
                                       llvm::ArrayRef<int64_t> reducedDims,
                                       bool keepdim);

/// PyTorch's `sum_to_size` sentence: "size {[2, 3]} is not expandable to
/// size {[4, 3]}." (`target` the requested size, `input` the tensor's).
std::string formatSumToSizeMismatch(llvm::StringRef target,
                                    llvm::StringRef input);

/// Checks that `target` expands to `input` (PyTorch's `is_expandable_to`):
/// no more dimensions, and each aligned size 1 or equal; a `?` on either
/// side is accepted. Returns the sum_to_size sentence on violation.
std::optional<std::string> checkSumToSize(llvm::ArrayRef<int64_t> input,
                                          llvm::ArrayRef<int64_t> target);

//===----------------------------------------------------------------------===//
// Result types, explanations and warnings
//===----------------------------------------------------------------------===//

/// Whether a declared result shape is compatible with the inferred broadcast
/// shape: same rank, and equal wherever both are static.
bool isCompatibleShape(llvm::ArrayRef<int64_t> inferred,
                       llvm::ArrayRef<int64_t> declared);

/// The product of the static sizes, or std::nullopt if a size is dynamic or
/// the product overflows int64.
std::optional<int64_t> getNumElements(llvm::ArrayRef<int64_t> shape);

/// Explains, dimension by dimension from the trailing one, how `shapes`
/// align, in the words of PyTorch's notes: "1st trailing dimension: both have
/// size 1; 2nd: b has size 1 and is expanded to 4; ...". Requires the shapes
/// to be broadcastable.
std::string explainBroadcast(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes);

/// PyTorch's backwards-compatibility warning applies: the shapes differ, are
/// broadcastable, and have the same (static) number of elements.
bool needsBackcompatWarning(llvm::ArrayRef<int64_t> self,
                            llvm::ArrayRef<int64_t> other);

/// The text of that warning.
llvm::StringRef getBackcompatWarning();

} // namespace bcast
} // namespace mlir

#endif // BCAST_DIALECT_BCAST_UTILS_BROADCASTSHAPE_H
