//===- BroadcastShape.cpp - The broadcasting rules, in one place ----------===//
//
// Implements the broadcast, expand, in-place and specify_shape rules and their
// sentences. The broadcast and expand loops walk dimensions from the trailing
// one, as PyTorch's `infer_size` and `inferExpandGeometry` do, so the first
// failure found is the trailing-most one and the dimension numbers match
// PyTorch's; specify_shape's walks from the left, as PyTensor's does.
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/Utils/BroadcastShape.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::bcast;
using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::SmallVectorImpl;
using llvm::StringRef;

char bcast::operandLetter(unsigned index) {
  return index < 26 ? static_cast<char>('a' + index) : '?';
}

static std::string formatSize(int64_t size) {
  return isDynamicSize(size) ? std::string("?") : std::to_string(size);
}

std::string bcast::formatShape(ArrayRef<int64_t> shape) {
  std::string result = "[";
  llvm::raw_string_ostream os(result);
  llvm::interleave(
      shape, os, [&](int64_t size) { os << formatSize(size); }, ", ");
  os << "]";
  return result;
}

//===----------------------------------------------------------------------===//
// Sentences
//===----------------------------------------------------------------------===//

std::string bcast::formatSizeMismatch(StringRef lhsSize, StringRef rhsSize,
                                      int64_t dim) {
  std::string result;
  llvm::raw_string_ostream(result)
      << "The size of tensor a (" << lhsSize
      << ") must match the size of tensor b (" << rhsSize
      << ") at non-singleton dimension " << dim;
  return result;
}

std::string bcast::formatExpandMismatch(StringRef targetSize,
                                        StringRef existingSize, int64_t dim) {
  std::string result;
  llvm::raw_string_ostream(result)
      << "The expanded size of the tensor (" << targetSize
      << ") must match the existing size (" << existingSize
      << ") at non-singleton dimension " << dim << ".";
  return result;
}

std::string bcast::formatInPlaceMismatch(StringRef selfShape,
                                         StringRef broadcastShape) {
  return (llvm::Twine("output with shape ") + selfShape +
          " doesn't match the broadcast shape " + broadcastShape)
      .str();
}

std::string bcast::formatStaticPolicyMismatch(unsigned input, int64_t axis,
                                              bool runtimeSizeIsOne) {
  std::string result;
  llvm::raw_string_ostream os(result);
  if (runtimeSizeIsOne)
    os << "Incompatible vectorized shapes for input " << input << " and axis "
       << axis << ". Input " << input
       << " has shape 1, but is not statically known to have shape 1, and "
          "thus not broadcastable.";
  else
    os << "Vectorized input " << input << " has an incompatible shape in axis "
       << axis << ".";
  return result;
}

std::string bcast::formatSpecifyShapeMismatch(int64_t dim, StringRef actual,
                                              StringRef expected) {
  return (llvm::Twine("SpecifyShape: dim ") + llvm::Twine(dim) +
          " of input has shape " + actual + ", expected " + expected + ".")
      .str();
}

std::string SizeMismatch::message() const {
  return formatSizeMismatch(formatSize(lhsSize), formatSize(rhsSize), dim);
}

std::string ExpandMismatch::message(ArrayRef<int64_t> source,
                                    ArrayRef<int64_t> target) const {
  if (kind == Kind::LeadingDynamic)
    return "The expanded size of the tensor (-1) isn't allowed in a leading, "
           "non-existing dimension " +
           std::to_string(dim);
  if (kind == Kind::TooFewSizes)
    return "the number of sizes provided (" + std::to_string(targetRank) +
           ") must be greater or equal to the number of dimensions in the "
           "tensor (" +
           std::to_string(sourceRank) + ")";
  return formatExpandMismatch(formatSize(targetSize), formatSize(existingSize),
                              dim) +
         "  Target sizes: " + formatShape(target) +
         ".  Tensor sizes: " + formatShape(source);
}

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

std::optional<int64_t> bcast::broadcastDimSizes(int64_t lhs, int64_t rhs) {
  if (isDynamicSize(lhs))
    return (isDynamicSize(rhs) || rhs == 1) ? kDynamicSize : rhs;
  if (isDynamicSize(rhs))
    return lhs == 1 ? kDynamicSize : lhs;
  if (lhs == rhs || rhs == 1)
    return lhs;
  if (lhs == 1)
    return rhs;
  return std::nullopt;
}

std::optional<SmallVector<int64_t>>
bcast::broadcastShapes(ArrayRef<ArrayRef<int64_t>> shapes,
                       SizeMismatch *mismatch) {
  // PyTorch folds the shapes pairwise (TensorIterator's compute_shape calls
  // infer_size on the shape so far and the next operand's), checking the
  // trailing dimension first and numbering dimensions in the pair's rank:
  // the first operand that does not fit is reported, against the shape so
  // far. Sizes merge dimension by dimension in operand order, so the result
  // is the same as merging all operands at once.
  SmallVector<int64_t> soFar;
  for (auto [k, shape] : llvm::enumerate(shapes)) {
    size_t rank = std::max(soFar.size(), shape.size());
    SmallVector<int64_t> next(rank, 1);
    for (size_t offset = 0; offset < rank; ++offset) {
      size_t dim = rank - 1 - offset;
      int64_t lhs =
          offset < soFar.size() ? soFar[soFar.size() - 1 - offset] : 1;
      int64_t rhs =
          offset < shape.size() ? shape[shape.size() - 1 - offset] : 1;
      std::optional<int64_t> merged = broadcastDimSizes(lhs, rhs);
      if (merged) {
        next[dim] = *merged;
        continue;
      }
      if (mismatch) {
        // The operand that gave the shape so far its size here.
        unsigned source = 0;
        for (unsigned j = 0; j < k; ++j) {
          ArrayRef<int64_t> earlier = shapes[j];
          if (offset < earlier.size() &&
              earlier[earlier.size() - 1 - offset] == lhs) {
            source = j;
            break;
          }
        }
        *mismatch = SizeMismatch{source, static_cast<unsigned>(k), lhs, rhs,
                                 static_cast<int64_t>(dim)};
      }
      return std::nullopt;
    }
    soFar = std::move(next);
  }
  return soFar;
}

std::optional<SmallVector<int64_t>>
bcast::broadcastShapes(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                       SizeMismatch *mismatch) {
  ArrayRef<int64_t> shapes[] = {lhs, rhs};
  return broadcastShapes(shapes, mismatch);
}

//===----------------------------------------------------------------------===//
// Expand and in-place
//===----------------------------------------------------------------------===//

std::optional<ExpandMismatch> bcast::checkExpand(ArrayRef<int64_t> source,
                                                 ArrayRef<int64_t> target,
                                                 DynamicTarget dynamicTarget) {
  ExpandMismatch mismatch;
  if (source.size() > target.size()) {
    mismatch.kind = ExpandMismatch::Kind::TooFewSizes;
    mismatch.targetRank = target.size();
    mismatch.sourceRank = source.size();
    return mismatch;
  }
  size_t offset = target.size() - source.size();
  for (size_t dim = target.size(); dim-- > 0;) {
    int64_t wanted = target[dim];
    if (dim < offset) {
      if (isDynamicSize(wanted) &&
          dynamicTarget == DynamicTarget::KeepsSourceSize) {
        mismatch.kind = ExpandMismatch::Kind::LeadingDynamic;
        mismatch.dim = dim;
        return mismatch;
      }
      continue;
    }
    int64_t existing = source[dim - offset];
    if (isDynamicSize(existing) || isDynamicSize(wanted) || existing == 1 ||
        existing == wanted)
      continue;
    mismatch.kind = ExpandMismatch::Kind::SizeMismatch;
    mismatch.targetSize = wanted;
    mismatch.existingSize = existing;
    mismatch.dim = dim;
    return mismatch;
  }
  return std::nullopt;
}

std::optional<std::string> bcast::checkInPlace(ArrayRef<int64_t> self,
                                               ArrayRef<int64_t> other) {
  // The broadcast shape equals `self` for some assignment of the `?`s exactly
  // when `other` expands to `self`: dimensions are independent, and a `?` on
  // either side can take the value that makes its pair agree.
  std::optional<ExpandMismatch> expand = checkExpand(other, self);
  if (!expand)
    return std::nullopt;
  std::optional<SmallVector<int64_t>> broadcast = broadcastShapes(self, other);
  std::string broadcastText =
      broadcast ? formatShape(*broadcast) : std::string("(none)");
  return formatInPlaceMismatch(formatShape(self), broadcastText) + ": " +
         expand->message(other, self);
}

std::optional<std::string>
bcast::checkInPlaceOperands(ArrayRef<ArrayRef<int64_t>> shapes) {
  if (shapes.size() == 2)
    return checkInPlace(shapes[0], shapes[1]);
  ArrayRef<int64_t> self = shapes.front();
  for (ArrayRef<int64_t> other : shapes.drop_front()) {
    std::optional<ExpandMismatch> expand = checkExpand(other, self);
    if (!expand)
      continue;
    std::optional<SmallVector<int64_t>> broadcast = broadcastShapes(shapes);
    std::string broadcastText =
        broadcast ? formatShape(*broadcast) : std::string("(none)");
    return formatInPlaceMismatch(formatShape(self), broadcastText) + ": " +
           expand->message(other, self);
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Pinning static sizes
//===----------------------------------------------------------------------===//

// Dimensions are walked from the left, as PyTensor's SpecifyShape checks
// them, so the first failure found has the lowest dimension number.
std::optional<std::string> bcast::checkSpecifyShape(ArrayRef<int64_t> input,
                                                    ArrayRef<int64_t> result) {
  if (input.size() != result.size())
    return "Input `x` is " + std::to_string(input.size()) +
           "-dimensional and will never match a shape of length " +
           std::to_string(result.size()) + ".";
  for (auto [dim, sizes] : llvm::enumerate(llvm::zip_equal(input, result))) {
    auto [inputSize, resultSize] = sizes;
    if (isDynamicSize(inputSize) || inputSize == resultSize)
      continue;
    if (isDynamicSize(resultSize))
      return "dim " + std::to_string(dim) + " of input has static shape " +
             formatSize(inputSize) +
             ", but the result has ?: specify_shape only refines ? sizes "
             "(tensor.cast makes a size dynamic)";
    return formatSpecifyShapeMismatch(dim, formatSize(inputSize),
                                      formatSize(resultSize));
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Result types, explanations and warnings
//===----------------------------------------------------------------------===//

bool bcast::isCompatibleShape(ArrayRef<int64_t> inferred,
                              ArrayRef<int64_t> declared) {
  if (inferred.size() != declared.size())
    return false;
  for (auto [lhs, rhs] : llvm::zip_equal(inferred, declared))
    if (!isDynamicSize(lhs) && !isDynamicSize(rhs) && lhs != rhs)
      return false;
  return true;
}

std::optional<int64_t> bcast::getNumElements(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t size : shape) {
    if (isDynamicSize(size) || size < 0)
      return std::nullopt;
    if (llvm::MulOverflow(count, size, count))
      return std::nullopt;
  }
  return count;
}

static std::string ordinal(size_t n) {
  const char *suffix = "th";
  if (n % 100 < 11 || n % 100 > 13) {
    if (n % 10 == 1)
      suffix = "st";
    else if (n % 10 == 2)
      suffix = "nd";
    else if (n % 10 == 3)
      suffix = "rd";
  }
  return std::to_string(n) + suffix;
}

std::string bcast::explainBroadcast(ArrayRef<ArrayRef<int64_t>> shapes) {
  std::optional<SmallVector<int64_t>> result = broadcastShapes(shapes);
  if (!result)
    return "the shapes are not broadcastable";
  size_t rank = result->size();
  if (rank == 0)
    return "all operands are scalars (rank 0)";

  std::string text;
  llvm::raw_string_ostream os(text);
  for (size_t trailing = 1; trailing <= rank; ++trailing) {
    int64_t resultSize = (*result)[rank - trailing];
    os << (trailing == 1 ? "1st trailing dimension" : ordinal(trailing))
       << ": ";
    SmallVector<std::string> notes;
    for (auto [index, shape] : llvm::enumerate(shapes)) {
      std::string name(1, operandLetter(index));
      if (trailing > shape.size()) {
        notes.push_back(name + "'s dimension doesn't exist");
        continue;
      }
      int64_t size = shape[shape.size() - trailing];
      if (isDynamicSize(size))
        notes.push_back(name + " has size ? (known at run time)");
      else if (size == 1 && isDynamicSize(resultSize))
        notes.push_back(name +
                        " has size 1 and is expanded to the run-time size");
      else if (size == 1 && resultSize != 1)
        notes.push_back(name + " has size 1 and is expanded to " +
                        formatSize(resultSize));
    }
    if (notes.empty())
      os << (shapes.size() == 2 ? "both" : "all") << " have size "
         << formatSize(resultSize);
    else
      llvm::interleave(notes, os, ", ");
    if (trailing != rank)
      os << "; ";
  }
  return text;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// PyTorch's sentence for a dim outside [-rank, rank).
static std::string dimOutOfRange(int64_t dim, int64_t rank) {
  return "Dimension out of range (expected to be in range of [" +
         std::to_string(-rank) + ", " + std::to_string(rank - 1) +
         "], but got " + std::to_string(dim) + ")";
}

std::optional<std::string>
bcast::normalizeReductionDims(int64_t rank, ArrayRef<int64_t> dims,
                              SmallVectorImpl<int64_t> &normalized) {
  // A rank-0 tensor wraps dims as if it had rank 1.
  int64_t wrapRank = std::max<int64_t>(rank, 1);
  normalized.clear();
  for (int64_t dim : dims) {
    if (dim < -wrapRank || dim >= wrapRank)
      return dimOutOfRange(dim, wrapRank);
    int64_t wrapped = dim < 0 ? dim + wrapRank : dim;
    if (llvm::is_contained(normalized, wrapped))
      return "dim " + std::to_string(wrapped) +
             " appears multiple times in the list of dims";
    normalized.push_back(wrapped);
  }
  // Rank 0: the wrapped dim 0 reduces nothing.
  if (rank == 0)
    normalized.clear();
  return std::nullopt;
}

std::optional<std::string>
bcast::normalizePermutation(int64_t rank, ArrayRef<int64_t> dims,
                            SmallVectorImpl<int64_t> &normalized) {
  normalized.clear();
  if (static_cast<int64_t>(dims.size()) != rank)
    return "permute(sparse_coo): number of dimensions in the tensor input "
           "does not match the length of the desired ordering of dimensions "
           "i.e. input.dim() = " +
           std::to_string(rank) +
           " is not equal to len(dims) = " + std::to_string(dims.size());
  for (int64_t dim : dims) {
    if (dim < -rank || dim >= rank)
      return dimOutOfRange(dim, rank);
    int64_t wrapped = dim < 0 ? dim + rank : dim;
    if (llvm::is_contained(normalized, wrapped))
      return std::string("permute(): duplicate dims are not allowed.");
    normalized.push_back(wrapped);
  }
  return std::nullopt;
}

SmallVector<int64_t> bcast::reduceShape(ArrayRef<int64_t> shape,
                                        ArrayRef<int64_t> reducedDims,
                                        bool keepdim) {
  SmallVector<int64_t> result;
  for (auto [dim, size] : llvm::enumerate(shape)) {
    if (!llvm::is_contained(reducedDims, static_cast<int64_t>(dim)))
      result.push_back(size);
    else if (keepdim)
      result.push_back(1);
  }
  return result;
}

std::string bcast::formatSumToSizeMismatch(StringRef target, StringRef input) {
  return ("size {" + target + "} is not expandable to size {" + input + "}.")
      .str();
}

std::optional<std::string> bcast::checkSumToSize(ArrayRef<int64_t> input,
                                                 ArrayRef<int64_t> target) {
  if (!checkExpand(target, input))
    return std::nullopt;
  return formatSumToSizeMismatch(formatShape(target), formatShape(input));
}

bool bcast::needsBackcompatWarning(ArrayRef<int64_t> self,
                                   ArrayRef<int64_t> other) {
  if (self == other || !broadcastShapes(self, other))
    return false;
  std::optional<int64_t> selfCount = getNumElements(self);
  std::optional<int64_t> otherCount = getNumElements(other);
  return selfCount && otherCount && *selfCount == *otherCount;
}

StringRef bcast::getBackcompatWarning() {
  return "self and other do not have the same shape, but are broadcastable, "
         "and have the same number of elements. Changing behavior in a "
         "backwards incompatible manner to broadcasting rather than viewing "
         "as 1-dimensional.";
}
