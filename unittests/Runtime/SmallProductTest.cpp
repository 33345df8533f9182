//===- SmallProductTest.cpp - The runtime's small-product kernel ---------===//
//
// Both entry points against a product summed in double, over the kernel's
// edges: blocks of rows and what is left below them, panels of one and two
// registers with masked columns, depths that are not whole squares of the
// transposing pack, and row strides wider than the rows (what a strided
// memref passes; Python's calls pass contiguous buffers). The padding
// between rows must stay untouched: columns past n are masked off.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Runtime/Matmul/SmallProduct.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using namespace bcast::runtime;

namespace {

constexpr float kPadding = 12345.0f;

struct Shape {
  int64_t rows, n, k;
};

std::vector<Shape> shapes() {
  std::vector<Shape> out;
  for (int64_t rows : {1, 5, 6, 7, 8, 9, 13, 20})
    for (int64_t n : {8, 9, 16, 17, 24, 31, 32, 33, 40, 47, 64})
      for (int64_t k : {1, 3, 15, 16, 17, 37})
        out.push_back({rows, n, k});
  return out;
}

/// Runs `product` (c = a @ b, b given as `b` row-major k x n, or as its
/// transpose n x k) with row strides wider than the rows, and checks every
/// element against a double sum and every padding float unchanged.
template <typename Product>
void check(const Shape &s, bool transposed, Product product) {
  std::mt19937 rng(static_cast<unsigned>(s.rows * 10007 + s.n * 101 + s.k));
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  int64_t aRow = s.k + 3, cRow = s.n + 2;
  int64_t bRows = transposed ? s.n : s.k, bCols = transposed ? s.k : s.n;
  int64_t bRow = bCols + 5;
  std::vector<float> a(s.rows * aRow), b(bRows * bRow);
  for (float &x : a)
    x = value(rng);
  for (float &x : b)
    x = value(rng);
  std::vector<float> c(s.rows * cRow, kPadding);
  product(s.rows, s.n, s.k, a.data(), aRow, b.data(), bRow, c.data(), cRow);
  for (int64_t r = 0; r < s.rows; ++r) {
    for (int64_t j = 0; j < s.n; ++j) {
      double sum = 0, magnitude = 0;
      for (int64_t p = 0; p < s.k; ++p) {
        double bv = transposed ? b[j * bRow + p] : b[p * bRow + j];
        sum += static_cast<double>(a[r * aRow + p]) * bv;
        magnitude += std::fabs(static_cast<double>(a[r * aRow + p]) * bv);
      }
      ASSERT_NEAR(c[r * cRow + j], sum, 1e-6 * magnitude + 1e-7)
          << "rows " << s.rows << " n " << s.n << " k " << s.k << " at (" << r
          << ", " << j << ")";
    }
    for (int64_t j = s.n; j < cRow; ++j)
      ASSERT_EQ(c[r * cRow + j], kPadding)
          << "rows " << s.rows << " n " << s.n << " k " << s.k
          << ": padding written at (" << r << ", " << j << ")";
  }
}

TEST(SmallProductTest, InPlaceOperand) {
  for (const Shape &s : shapes())
    check(s, /*transposed=*/false, smallProductF32);
}

TEST(SmallProductTest, TransposedOperand) {
  for (const Shape &s : shapes())
    check(s, /*transposed=*/true, smallProductTransposedF32);
}

TEST(SmallProductTest, TransposedOperandDeeperThanTheFirstPack) {
  // A later call with a deeper product grows the pack it reuses.
  check({9, 40, 5}, /*transposed=*/true, smallProductTransposedF32);
  check({9, 40, 300}, /*transposed=*/true, smallProductTransposedF32);
}

TEST(SmallProductTest, TransposedRule) {
  if (!smallProductKernel())
    GTEST_SKIP() << "no kernel on this CPU";
  // Fewer than 8 rows do not repay packing b.
  EXPECT_FALSE(isSmallProduct(7, 64, 64, BlasKind::Plain, true));
  EXPECT_TRUE(isSmallProduct(8, 64, 64, BlasKind::Plain, true));
  // Beside OpenBLAS's small-matrix kernels: results of at most 1200
  // elements only with k up to 32; larger results up to 2^20 padded
  // multiply-adds (attention's 128x128x64 exactly).
  EXPECT_TRUE(isSmallProduct(16, 16, 32, BlasKind::SmallKernels, true));
  EXPECT_FALSE(isSmallProduct(16, 16, 64, BlasKind::SmallKernels, true));
  EXPECT_TRUE(isSmallProduct(128, 128, 64, BlasKind::SmallKernels, true));
  EXPECT_FALSE(isSmallProduct(128, 128, 65, BlasKind::SmallKernels, true));
  // Narrower than half an AVX-512 register: never.
  EXPECT_FALSE(isSmallProduct(1000, 4, 4, BlasKind::None, true));
}

} // namespace
