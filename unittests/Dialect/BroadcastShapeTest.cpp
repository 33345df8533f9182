//===- BroadcastShapeTest.cpp - Unit tests of the shape-rule module -------===//
//
// Tests every broadcasting rule both ways (accepted and rejected), the
// dimension numbering of the sentences, dynamic sizes, the expand, in-place
// and specify_shape rules, and the helpers the passes use.
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/Utils/BroadcastShape.h"

#include "gtest/gtest.h"

#include <vector>

using namespace mlir::bcast;
using llvm::SmallVector;

namespace {
constexpr int64_t Q = kDynamicSize;

SmallVector<int64_t> broadcastOk(llvm::ArrayRef<int64_t> a,
                                 llvm::ArrayRef<int64_t> b) {
  std::optional<SmallVector<int64_t>> result = broadcastShapes(a, b);
  EXPECT_TRUE(result.has_value());
  return result.value_or(SmallVector<int64_t>{-42});
}

/// Owns shapes and views them as the module takes them (an ArrayRef of a
/// braced list would dangle).
struct Shapes {
  Shapes(std::initializer_list<std::vector<int64_t>> list) : storage(list) {
    for (const std::vector<int64_t> &shape : storage)
      refs.push_back(shape);
  }
  operator llvm::ArrayRef<llvm::ArrayRef<int64_t>>() const { return refs; }
  std::vector<std::vector<int64_t>> storage;
  SmallVector<llvm::ArrayRef<int64_t>> refs;
};

std::string broadcastError(const Shapes &shapes) {
  SizeMismatch mismatch;
  std::optional<SmallVector<int64_t>> result =
      broadcastShapes(shapes, &mismatch);
  EXPECT_FALSE(result.has_value());
  return mismatch.message();
}

std::string broadcastError(std::vector<int64_t> a, std::vector<int64_t> b) {
  return broadcastError(Shapes{a, b});
}

TEST(BroadcastShapes, PyTorchNotesExamples) {
  EXPECT_EQ(broadcastOk({5, 7, 3}, {5, 7, 3}), (SmallVector<int64_t>{5, 7, 3}));
  EXPECT_EQ(broadcastOk({5, 3, 4, 1}, {3, 1, 1}),
            (SmallVector<int64_t>{5, 3, 4, 1}));
  EXPECT_EQ(broadcastOk({5, 1, 4, 1}, {3, 1, 1}),
            (SmallVector<int64_t>{5, 3, 4, 1}));
  EXPECT_EQ(broadcastOk({1}, {3, 1, 7}), (SmallVector<int64_t>{3, 1, 7}));
  EXPECT_EQ(broadcastError({5, 2, 4, 1}, {3, 1, 1}),
            "The size of tensor a (2) must match the size of tensor b (3) at "
            "non-singleton dimension 1");
}

TEST(BroadcastShapes, OperandOrderNamesTensors) {
  EXPECT_EQ(broadcastError({3, 1, 1}, {5, 2, 4, 1}),
            "The size of tensor a (3) must match the size of tensor b (2) at "
            "non-singleton dimension 1");
}

TEST(BroadcastShapes, TrailingMostMismatchIsReported) {
  EXPECT_EQ(broadcastError({2, 3}, {4, 5}),
            "The size of tensor a (3) must match the size of tensor b (5) at "
            "non-singleton dimension 1");
}

TEST(BroadcastShapes, RankZeroIsAScalar) {
  EXPECT_EQ(broadcastOk({}, {2, 3}), (SmallVector<int64_t>{2, 3}));
  EXPECT_EQ(broadcastOk({2, 3}, {}), (SmallVector<int64_t>{2, 3}));
  EXPECT_EQ(broadcastOk({}, {}), (SmallVector<int64_t>{}));
  EXPECT_EQ(broadcastOk({}, {0}), (SmallVector<int64_t>{0}));
}

TEST(BroadcastShapes, SizeZero) {
  EXPECT_EQ(broadcastOk({0}, {1}), (SmallVector<int64_t>{0}));
  EXPECT_EQ(broadcastOk({1}, {0}), (SmallVector<int64_t>{0}));
  EXPECT_EQ(broadcastOk({0, 3}, {3}), (SmallVector<int64_t>{0, 3}));
  EXPECT_EQ(broadcastError({0}, {2}),
            "The size of tensor a (0) must match the size of tensor b (2) at "
            "non-singleton dimension 0");
  // PyTorch's notes: (0,) with (2, 2) is not broadcastable.
  EXPECT_EQ(broadcastError({0}, {2, 2}),
            "The size of tensor a (0) must match the size of tensor b (2) at "
            "non-singleton dimension 1");
}

TEST(BroadcastShapes, DynamicSizes) {
  EXPECT_EQ(broadcastOk({Q}, {3}), (SmallVector<int64_t>{3}));
  EXPECT_EQ(broadcastOk({3}, {Q}), (SmallVector<int64_t>{3}));
  EXPECT_EQ(broadcastOk({Q}, {0}), (SmallVector<int64_t>{0}));
  EXPECT_EQ(broadcastOk({Q}, {1}), (SmallVector<int64_t>{Q}));
  EXPECT_EQ(broadcastOk({Q}, {Q}), (SmallVector<int64_t>{Q}));
  EXPECT_EQ(broadcastOk({Q, 2}, {2}), (SmallVector<int64_t>{Q, 2}));
  // A `?` is never the offending dimension.
  EXPECT_EQ(broadcastError({2, Q}, {3, 4}),
            "The size of tensor a (2) must match the size of tensor b (3) at "
            "non-singleton dimension 0");
}

// PyTorch folds the shapes pairwise: `a` is the broadcast shape so far, `b`
// the next operand, and the dimension is numbered in the pair's rank.
TEST(BroadcastShapes, ThreeOperandsFoldPairwise) {
  EXPECT_EQ(broadcastError(Shapes{{2}, {3}, {3}}),
            "The size of tensor a (2) must match the size of tensor b (3) at "
            "non-singleton dimension 0");
  EXPECT_EQ(broadcastError(Shapes{{2}, {1}, {3}}),
            "The size of tensor a (2) must match the size of tensor b (3) at "
            "non-singleton dimension 0");
  EXPECT_EQ(broadcastError(Shapes{{1}, {4, 2}, {3}}),
            "The size of tensor a (2) must match the size of tensor b (3) at "
            "non-singleton dimension 1");
  // The shape so far has rank 1 when the third operand, of rank 3, fails.
  EXPECT_EQ(broadcastError(Shapes{{5, 2}, {3}, {1, 1, 1}}),
            "The size of tensor a (2) must match the size of tensor b (3) at "
            "non-singleton dimension 1");
  EXPECT_EQ(broadcastError(Shapes{{2}, {3}, {1, 1, 1}}),
            "The size of tensor a (2) must match the size of tensor b (3) at "
            "non-singleton dimension 0");
  // Operand order decides, not the trailing-most dimension overall.
  EXPECT_EQ(broadcastError(Shapes{{1, 2}, {3, 1}, {4, 5}}),
            "The size of tensor a (2) must match the size of tensor b (5) at "
            "non-singleton dimension 1");
  EXPECT_EQ(broadcastError(Shapes{{1, 2}, {3, 1}, {4, 1}}),
            "The size of tensor a (3) must match the size of tensor b (4) at "
            "non-singleton dimension 0");
  std::optional<SmallVector<int64_t>> result =
      broadcastShapes(Shapes{{4, 1}, {3}, {}});
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(*result, (SmallVector<int64_t>{4, 3}));
}

TEST(Expand, AcceptsAndRejects) {
  EXPECT_FALSE(checkExpand({3, 1}, {4, 3, 5}));
  EXPECT_FALSE(checkExpand({}, {4, 3}));
  EXPECT_FALSE(checkExpand({Q}, {4}));
  EXPECT_FALSE(checkExpand({1}, {0}));
  std::optional<ExpandMismatch> sizes = checkExpand({3, 1, 7}, {1, 3, 1});
  ASSERT_TRUE(sizes);
  EXPECT_EQ(sizes->message({3, 1, 7}, {1, 3, 1}),
            "The expanded size of the tensor (1) must match the existing size "
            "(7) at non-singleton dimension 2.  Target sizes: [1, 3, 1].  "
            "Tensor sizes: [3, 1, 7]");
  std::optional<ExpandMismatch> zero = checkExpand({0}, {1});
  ASSERT_TRUE(zero);
  EXPECT_EQ(zero->existingSize, 0);
  std::optional<ExpandMismatch> rank = checkExpand({2, 2}, {2});
  ASSERT_TRUE(rank);
  EXPECT_EQ(rank->message({2, 2}, {2}),
            "the number of sizes provided (1) must be greater or equal to the "
            "number of dimensions in the tensor (2)");
}

TEST(Expand, DynamicTargetKeepsTheSourceSize) {
  EXPECT_FALSE(checkExpand({3}, {Q}, DynamicTarget::KeepsSourceSize));
  EXPECT_FALSE(checkExpand({3}, {4, Q}, DynamicTarget::KeepsSourceSize));
  std::optional<ExpandMismatch> leading =
      checkExpand({3}, {Q, 3}, DynamicTarget::KeepsSourceSize);
  ASSERT_TRUE(leading);
  EXPECT_EQ(leading->message({3}, {Q, 3}),
            "The expanded size of the tensor (-1) isn't allowed in a leading, "
            "non-existing dimension 0");
  EXPECT_FALSE(checkExpand({3}, {Q, 3}, DynamicTarget::Unknown));
}

TEST(InPlace, PyTorchNotesExamples) {
  EXPECT_FALSE(checkInPlace({5, 3, 4, 1}, {3, 1, 1}));
  std::optional<std::string> error = checkInPlace({1, 3, 1}, {3, 1, 7});
  ASSERT_TRUE(error);
  EXPECT_EQ(*error,
            "output with shape [1, 3, 1] doesn't match the broadcast shape "
            "[3, 3, 7]: The expanded size of the tensor (1) must match the "
            "existing size (7) at non-singleton dimension 2.  Target sizes: "
            "[1, 3, 1].  Tensor sizes: [3, 1, 7]");
}

TEST(InPlace, OtherHasMoreDims) {
  std::optional<std::string> error = checkInPlace({3}, {2, 3});
  ASSERT_TRUE(error);
  EXPECT_EQ(*error, "output with shape [3] doesn't match the broadcast shape "
                    "[2, 3]: the number of sizes provided (1) must be greater "
                    "or equal to the number of dimensions in the tensor (2)");
}

TEST(InPlace, DynamicSizesNeedSomeValidAssignment) {
  EXPECT_FALSE(checkInPlace({Q, 3}, {4, 3}));
  EXPECT_FALSE(checkInPlace({1, 3}, {Q, 3}));
  EXPECT_FALSE(checkInPlace({2, Q}, {Q, 5}));
  EXPECT_FALSE(checkInPlace({Q}, {}));
  std::optional<std::string> error = checkInPlace({1, Q}, {5, Q});
  ASSERT_TRUE(error);
  EXPECT_EQ(error->substr(0, 65), "output with shape [1, ?] doesn't match the "
                                  "broadcast shape [5, ?]");
  EXPECT_TRUE(checkInPlace({Q}, {Q, Q}));
}

TEST(Helpers, FormatShape) {
  EXPECT_EQ(formatShape({}), "[]");
  EXPECT_EQ(formatShape({1, Q, 3}), "[1, ?, 3]");
}

TEST(Helpers, CompatibleShapes) {
  EXPECT_TRUE(isCompatibleShape({4, Q}, {4, 3}));
  EXPECT_TRUE(isCompatibleShape({4, 3}, {Q, 3}));
  EXPECT_FALSE(isCompatibleShape({4, 3}, {4, 2}));
  EXPECT_FALSE(isCompatibleShape({4, 3}, {4, 3, 1}));
}

TEST(Helpers, NumElements) {
  EXPECT_EQ(getNumElements({2, 3}), 6);
  EXPECT_EQ(getNumElements({}), 1);
  EXPECT_FALSE(getNumElements({Q, 2}));
  EXPECT_FALSE(getNumElements({int64_t(1) << 40, int64_t(1) << 40}));
}

TEST(Helpers, Explain) {
  EXPECT_EQ(explainBroadcast(Shapes{{5, 3, 4, 1}, {3, 1, 1}}),
            "1st trailing dimension: both have size 1; 2nd: b has size 1 and "
            "is expanded to 4; 3rd: both have size 3; 4th: b's dimension "
            "doesn't exist");
}

TEST(Helpers, Backcompat) {
  EXPECT_TRUE(needsBackcompatWarning({4, 1}, {4}));
  EXPECT_FALSE(needsBackcompatWarning({4}, {4}));
  EXPECT_FALSE(needsBackcompatWarning({4, 4}, {4}));
  EXPECT_FALSE(needsBackcompatWarning({2, 2}, {4}));
}

TEST(Sentences, StaticPolicy) {
  EXPECT_EQ(formatStaticPolicyMismatch(1, 1, true),
            "Incompatible vectorized shapes for input 1 and axis 1. Input 1 "
            "has shape 1, but is not statically known to have shape 1, and "
            "thus not broadcastable.");
  EXPECT_EQ(formatStaticPolicyMismatch(0, 2, false),
            "Vectorized input 0 has an incompatible shape in axis 2.");
}

TEST(Sentences, SpecifyShape) {
  EXPECT_EQ(formatSpecifyShapeMismatch(1, "%ld", "1"),
            "SpecifyShape: dim 1 of input has shape %ld, expected 1.");
}

TEST(SpecifyShape, RefinesDynamicSizesOnly) {
  EXPECT_FALSE(checkSpecifyShape({Q, Q}, {Q, 1}));
  EXPECT_FALSE(checkSpecifyShape({Q, Q}, {Q, Q}));
  EXPECT_FALSE(checkSpecifyShape({2, Q}, {2, 0}));
  EXPECT_FALSE(checkSpecifyShape({}, {}));
  EXPECT_EQ(checkSpecifyShape({3, Q}, {1, Q}),
            "SpecifyShape: dim 0 of input has shape 3, expected 1.");
  EXPECT_EQ(checkSpecifyShape({Q, 1}, {Q, Q}),
            "dim 1 of input has static shape 1, but the result has ?: "
            "specify_shape only refines ? sizes (tensor.cast makes a size "
            "dynamic)");
  EXPECT_EQ(checkSpecifyShape({Q, Q}, {Q, Q, 1}),
            "Input `x` is 2-dimensional and will never match a shape of "
            "length 3.");
}

TEST(SpecifyShape, FirstOffendingDimFromTheLeft) {
  EXPECT_EQ(checkSpecifyShape({Q, 3, 4}, {Q, 1, 1}),
            "SpecifyShape: dim 1 of input has shape 3, expected 1.");
}
TEST(Permute, WrapsNegativeDims) {
  SmallVector<int64_t> dims;
  EXPECT_FALSE(normalizePermutation(3, {0, -1, 1}, dims));
  EXPECT_EQ(dims, (SmallVector<int64_t>{0, 2, 1}));
  EXPECT_FALSE(normalizePermutation(0, {}, dims));
  EXPECT_TRUE(dims.empty());
}

TEST(Permute, PyTorchOrderAndSentences) {
  SmallVector<int64_t> dims;
  // The length before the range: (5,) on rank 3 names the length.
  EXPECT_EQ(normalizePermutation(3, {5}, dims),
            "permute(sparse_coo): number of dimensions in the tensor input "
            "does not match the length of the desired ordering of dimensions "
            "i.e. input.dim() = 3 is not equal to len(dims) = 1");
  EXPECT_EQ(normalizePermutation(0, {0}, dims),
            "permute(sparse_coo): number of dimensions in the tensor input "
            "does not match the length of the desired ordering of dimensions "
            "i.e. input.dim() = 0 is not equal to len(dims) = 1");
  EXPECT_EQ(normalizePermutation(3, {1, 5, 1}, dims),
            "Dimension out of range (expected to be in range of [-3, 2], but "
            "got 5)");
  EXPECT_EQ(normalizePermutation(3, {0, 1, -4}, dims),
            "Dimension out of range (expected to be in range of [-3, 2], but "
            "got -4)");
  // A repeat before a later dim out of range is the repeat.
  EXPECT_EQ(normalizePermutation(3, {1, 1, 5}, dims),
            "permute(): duplicate dims are not allowed.");
  EXPECT_EQ(normalizePermutation(3, {-1, 2, 0}, dims),
            "permute(): duplicate dims are not allowed.");
}
} // namespace
