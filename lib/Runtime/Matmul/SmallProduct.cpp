//===- SmallProduct.cpp - f32 products too small for a BLAS call ----------===//
//
// One AVX-512 register holds 16 columns of a result row. The result goes in
// panels of 32 columns (16 or fewer for the last), each in blocks of rows
// whose accumulators stay in registers for the whole sum over k: per k, a
// panel's row of b is loaded once and each row's a[r][p] is broadcast into
// one fused multiply-add per register. Nothing is packed: b's panel (k x 32
// floats) stays in L1 for the products a BLAS does not do faster (without
// a BLAS it takes every product, its only rival a plain loop nest).
// Columns past n are masked off, in loads and stores alike.
//
// Block heights: 8 rows of one register (8 independent sums cover the
// fused multiply-add's latency on two pipes), 6 rows of two (12 sums, and
// loads within what a cycle issues).
//
//===----------------------------------------------------------------------===//

#include "SmallProduct.h"

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BCAST_SMALL_PRODUCT_AVX512 1
#include <immintrin.h>
#endif

using namespace bcast::runtime;

bool bcast::runtime::hasSmallProductKernel() {
  static const bool has = [] {
    const char *setting = std::getenv("BCAST_MATMUL_SMALL_KERNEL");
    if (setting && std::strcmp(setting, "0") == 0)
      return false;
#ifdef BCAST_SMALL_PRODUCT_AVX512
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") != 0;
#else
    return false;
#endif
  }();
  return has;
}

bool bcast::runtime::isSmallProduct(int64_t m, int64_t n, int64_t k,
                                    BlasKind blas) {
  // Narrower than half a register, padding costs more than a call saves.
  if (n < 8 || m <= 0 || k <= 0)
    return false;
  if (blas == BlasKind::None)
    return true;
  // The work the kernel does, columns padded to whole registers. Its time
  // over OpenBLAS's (one thread): beside OpenBLAS's small-matrix kernels
  // 0.5-0.8 from 8x8x8 to 16x16x64, 0.9-1.0 for 32x32x16 or 16x32x32, but
  // 1.0-1.2 at 32x32x32 and 64x64x64 and where n = 8 or 24 (half a
  // register padded) with more work; beside its packed kernels
  // (OPENBLAS_CORETYPE=Haswell) 0.3-0.5 up to 32x32x32, 0.85-0.87 at
  // 64x64x64, 128x64x128 and 64x64x256, 1.0 from 100x100x100.
  double padded = 16.0 * static_cast<double>((n + 15) / 16);
  double work = static_cast<double>(m) * padded * static_cast<double>(k);
  return work <= (blas == BlasKind::SmallKernels ? 16384 : 1 << 20);
}

#ifdef BCAST_SMALL_PRODUCT_AVX512
#define BCAST_AVX512 __attribute__((target("avx512f")))

/// Rows [0, RB) of a panel of NV registers: `last` masks the columns of the
/// panel's last register. The loops over registers are unrolled by pragma:
/// without it GCC 12 keeps the accumulators in memory as well, storing each
/// on every step over k (twice the time).
template <int NV, int RB>
BCAST_AVX512 static inline void block(int64_t k, const float *a, int64_t aRow,
                                      const float *b, int64_t bRow, float *c,
                                      int64_t cRow, __mmask16 last) {
  __m512 acc[RB][NV];
#pragma GCC unroll 16
  for (int r = 0; r < RB; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      acc[r][v] = _mm512_setzero_ps();
  for (int64_t p = 0; p < k; ++p) {
    __m512 row[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      row[v] = v + 1 < NV ? _mm512_loadu_ps(b + p * bRow + 16 * v)
                          : _mm512_maskz_loadu_ps(last, b + p * bRow + 16 * v);
#pragma GCC unroll 16
    for (int r = 0; r < RB; ++r) {
      __m512 x = _mm512_set1_ps(a[r * aRow + p]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v)
        acc[r][v] = _mm512_fmadd_ps(x, row[v], acc[r][v]);
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < RB; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      float *to = c + r * cRow + 16 * v;
      if (v + 1 < NV)
        _mm512_storeu_ps(to, acc[r][v]);
      else
        _mm512_mask_storeu_ps(to, last, acc[r][v]);
    }
}

/// The rows below the last full block, in one block of their height (the
/// height is a template argument, so that the accumulators stay registers).
template <int NV, int RB>
BCAST_AVX512 static void rest(int rows, int64_t k, const float *a, int64_t aRow,
                              const float *b, int64_t bRow, float *c,
                              int64_t cRow, __mmask16 last) {
  if constexpr (RB > 1) {
    if (rows == RB - 1)
      return block<NV, RB - 1>(k, a, aRow, b, bRow, c, cRow, last);
    rest<NV, RB - 1>(rows, k, a, aRow, b, bRow, c, cRow, last);
  }
}

template <int NV, int RB>
BCAST_AVX512 static void panel(int64_t rows, int64_t k, const float *a,
                               int64_t aRow, const float *b, int64_t bRow,
                               float *c, int64_t cRow, __mmask16 last) {
  int64_t i = 0;
  for (; i + RB <= rows; i += RB)
    block<NV, RB>(k, a + i * aRow, aRow, b, bRow, c + i * cRow, cRow, last);
  if (i < rows)
    rest<NV, RB>(static_cast<int>(rows - i), k, a + i * aRow, aRow, b, bRow,
                 c + i * cRow, cRow, last);
}

BCAST_AVX512 static void product(int64_t rows, int64_t n, int64_t k,
                                 const float *a, int64_t aRow, const float *b,
                                 int64_t bRow, float *c, int64_t cRow) {
  auto mask = [](int64_t columns) {
    return static_cast<__mmask16>(columns >= 16 ? 0xffff : (1u << columns) - 1);
  };
  int64_t j = 0;
  for (; j + 32 <= n; j += 32)
    panel<2, 6>(rows, k, a, aRow, b + j, bRow, c + j, cRow, mask(16));
  if (n - j > 16)
    panel<2, 6>(rows, k, a, aRow, b + j, bRow, c + j, cRow, mask(n - j - 16));
  else if (n > j)
    panel<1, 8>(rows, k, a, aRow, b + j, bRow, c + j, cRow, mask(n - j));
}
#endif

void bcast::runtime::smallProductF32(int64_t rows, int64_t n, int64_t k,
                                     const float *a, int64_t aRow,
                                     const float *b, int64_t bRow, float *c,
                                     int64_t cRow) {
#ifdef BCAST_SMALL_PRODUCT_AVX512
  product(rows, n, k, a, aRow, b, bRow, c, cRow);
#else
  // Never chosen (hasSmallProductKernel() is false): the same product in
  // plain loops, so that the entry point means one thing everywhere.
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += a[r * aRow + p] * b[p * bRow + j];
      c[r * cRow + j] = sum;
    }
#endif
}
