//===- MatmulRulesTest.cpp - Unit tests of torch.matmul's rules -----------===//
//
// Tests the result shapes of every rank combination, batch broadcasting,
// sizes 0 and `?`, the order and wording of the shape sentences, and the
// kernel whose type checks PyTorch reaches for each rank pair, both ways.
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/Utils/MatmulRules.h"

#include "gtest/gtest.h"

using namespace mlir::bcast;
using llvm::SmallVector;

namespace {
constexpr int64_t Q = kDynamicSize;

SmallVector<int64_t> shapeOk(llvm::ArrayRef<int64_t> a,
                             llvm::ArrayRef<int64_t> b) {
  std::optional<SmallVector<int64_t>> result = inferMatmulShape(a, b);
  EXPECT_TRUE(result.has_value());
  return result.value_or(SmallVector<int64_t>{-42});
}

std::string shapeError(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b) {
  MatmulMismatch mismatch;
  EXPECT_FALSE(inferMatmulShape(a, b, &mismatch).has_value());
  return mismatch.message(a, b);
}

using V = SmallVector<int64_t>;

TEST(MatmulRules, EveryRankCombination) {
  EXPECT_EQ(shapeOk({3}, {3}), V{});
  EXPECT_EQ(shapeOk({2, 3}, {3}), V{2});
  EXPECT_EQ(shapeOk({3}, {3, 4}), V{4});
  EXPECT_EQ(shapeOk({2, 3}, {3, 4}), (V{2, 4}));
  EXPECT_EQ(shapeOk({5, 2, 3}, {3}), (V{5, 2}));
  EXPECT_EQ(shapeOk({3}, {5, 3, 4}), (V{5, 4}));
  EXPECT_EQ(shapeOk({5, 2, 3}, {3, 4}), (V{5, 2, 4}));
  EXPECT_EQ(shapeOk({2, 3}, {5, 3, 4}), (V{5, 2, 4}));
  EXPECT_EQ(shapeOk({5, 2, 3}, {5, 3, 4}), (V{5, 2, 4}));
}

TEST(MatmulRules, BatchBroadcast) {
  EXPECT_EQ(shapeOk({2, 1, 4, 3}, {5, 3, 6}), (V{2, 5, 4, 6}));
  EXPECT_EQ(shapeOk({512, 1, 32, 32}, {1, 512, 32, 32}), (V{512, 512, 32, 32}));
  EXPECT_EQ(shapeOk({1, 2, 3}, {0, 3, 4}), (V{0, 2, 4}));
  EXPECT_EQ(shapeError({3, 2, 3}, {4, 3, 6}),
            "The size of tensor a (3) must match the size of tensor b (4) at "
            "non-singleton dimension 0");
  // Numbered within the broadcast batch shape, trailing-most first.
  EXPECT_EQ(shapeError({5, 3, 2, 3}, {4, 3, 6}),
            "The size of tensor a (3) must match the size of tensor b (4) at "
            "non-singleton dimension 1");
  EXPECT_EQ(shapeError({3, 2, 2, 3}, {4, 3, 3, 6}),
            "The size of tensor a (2) must match the size of tensor b (3) at "
            "non-singleton dimension 1");
}

TEST(MatmulRules, Contraction) {
  EXPECT_EQ(shapeError({3}, {4}),
            "mat1 and mat2 shapes cannot be multiplied (3 and 4)");
  EXPECT_EQ(shapeError({5, 2, 3}, {4}),
            "mat1 and mat2 shapes cannot be multiplied (5x2x3 and 4)");
  EXPECT_EQ(shapeError({2, 3}, {4, 4}),
            "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x4)");
  EXPECT_EQ(shapeError({Q, 3}, {4, Q}),
            "mat1 and mat2 shapes cannot be multiplied (?x3 and 4x?)");
  // The batch dims are checked first.
  EXPECT_EQ(shapeError({3, 2, 3}, {4, 4, 6}),
            "The size of tensor a (3) must match the size of tensor b (4) at "
            "non-singleton dimension 0");
  EXPECT_EQ(shapeOk({2, 0}, {0, 3}), (V{2, 3}));
  EXPECT_EQ(shapeOk({0}, {0}), V{});
}

TEST(MatmulRules, Rank0) {
  EXPECT_EQ(shapeError({}, {3}), "both arguments to matmul need to be at "
                                 "least 1D, but they are 0D and 1D");
  EXPECT_EQ(shapeError({3}, {}), "both arguments to matmul need to be at "
                                 "least 1D, but they are 1D and 0D");
}

TEST(MatmulRules, DynamicSizes) {
  EXPECT_EQ(shapeOk({Q, 4, Q}, {3, Q, 5}), (V{3, 4, 5}));
  EXPECT_EQ(shapeOk({Q, 4, 3}, {1, 3, 5}), (V{Q, 4, 5}));
  EXPECT_EQ(shapeOk({Q, 2, 3}, {Q, 3, 4}), (V{Q, 2, 4}));
  EXPECT_EQ(shapeOk({2, Q}, {3}), V{2});
}

TEST(MatmulRules, Kernels) {
  auto kernel = [](int64_t a, int64_t b) {
    MatmulKernelChoice choice = getMatmulKernel(a, b);
    return getMatmulKernelName(choice.kernel).str() +
           (choice.rhsFirst ? " rhs" : "");
  };
  EXPECT_EQ(kernel(1, 1), "dot");
  EXPECT_EQ(kernel(2, 1), "addmv_impl_cpu");
  EXPECT_EQ(kernel(4, 1), "addmv_impl_cpu");
  EXPECT_EQ(kernel(1, 3), "addmv_impl_cpu rhs");
  EXPECT_EQ(kernel(1, 2), "addmm_impl_cpu_");
  EXPECT_EQ(kernel(2, 2), "addmm_impl_cpu_");
  EXPECT_EQ(kernel(3, 2), "addmm_impl_cpu_");
  EXPECT_EQ(kernel(2, 4), "addmm_impl_cpu_ rhs");
  EXPECT_EQ(kernel(3, 3), "bmm");
}

TEST(MatmulRules, ElementTypes) {
  EXPECT_FALSE(checkMatmulElementTypes(DType::Float32, DType::Float32, 2, 2));
  EXPECT_FALSE(checkMatmulElementTypes(DType::UInt8, DType::UInt8, 3, 3));
  EXPECT_FALSE(checkMatmulElementTypes(DType::BFloat16, DType::BFloat16, 1, 1));
  EXPECT_EQ(*checkMatmulElementTypes(DType::Bool, DType::Bool, 2, 2),
            "\"addmm_impl_cpu_\" not implemented for 'Bool'");
  EXPECT_EQ(*checkMatmulElementTypes(DType::Float16, DType::Float16, 1, 1),
            "\"dot\" not implemented for 'Half'");
  EXPECT_EQ(*checkMatmulElementTypes(DType::Float32, DType::Float64, 2, 2),
            "expected scalar type Float but found Double");
  // A transposed fold checks rhs first.
  EXPECT_EQ(*checkMatmulElementTypes(DType::Float32, DType::Float64, 1, 3),
            "expected scalar type Double but found Float");
  EXPECT_EQ(*checkMatmulElementTypes(DType::Float32, DType::Float16, 2, 3),
            "\"addmm_impl_cpu_\" not implemented for 'Half'");
  EXPECT_EQ(*checkMatmulElementTypes(DType::Int32, DType::Int64, 1, 1),
            "dot : expected both vectors to have same dtype, but found Int "
            "and Long");
  EXPECT_EQ(*checkMatmulElementTypes(DType::UInt16, DType::UInt16, 3, 3),
            "\"bmm\" not implemented for 'UInt16'");
}
} // namespace
