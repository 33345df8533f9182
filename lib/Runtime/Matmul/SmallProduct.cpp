//===- SmallProduct.cpp - f32 products too small for a BLAS call ----------===//
//
// One register holds 16 columns of a result row (AVX-512; 8 with AVX2).
// The result goes in panels of two registers' columns (one for the last
// where it holds what is left), each in blocks of rows whose accumulators
// stay in registers for the whole sum over k: per k, a panel's row of b is
// loaded once and each row's a[r][p] is broadcast into one fused
// multiply-add per register. b's panel (k x 32 floats) is read in place
// and stays in L1 for the products a BLAS does not do faster (without a
// BLAS it takes every product, its only rival a plain loop nest); a
// transposed b (attention's k^T) is packed a panel at a time, squares of
// 16 x 16 floats transposed in registers. Columns past n are masked off,
// in loads and stores alike. The kernel's source is
// SmallProductKernel.inc, compiled once per instruction set; the CPU picks
// one at run time.
//
//===----------------------------------------------------------------------===//

#include "SmallProduct.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BCAST_SMALL_PRODUCT_X86 1
#include <immintrin.h>
#endif

using namespace bcast::runtime;

namespace {
enum class Isa { None, Avx2, Avx512 };
} // namespace

/// The instruction set the kernel runs with: AVX-512F where the CPU has
/// it, else AVX2 with FMA; BCAST_MATMUL_SMALL_KERNEL=0 turns the kernel
/// off, =avx2 keeps it to AVX2 (the tests' way to run that one on any
/// host). Read once.
static Isa kernelIsa() {
  static const Isa isa = [] {
    const char *setting = std::getenv("BCAST_MATMUL_SMALL_KERNEL");
    if (setting && std::strcmp(setting, "0") == 0)
      return Isa::None;
#ifdef BCAST_SMALL_PRODUCT_X86
    __builtin_cpu_init();
    bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (__builtin_cpu_supports("avx512f") &&
        !(setting && std::strcmp(setting, "avx2") == 0))
      return Isa::Avx512;
    return avx2 ? Isa::Avx2 : Isa::None;
#else
    return Isa::None;
#endif
  }();
  return isa;
}

const char *bcast::runtime::smallProductKernel() {
  switch (kernelIsa()) {
  case Isa::Avx512:
    return "AVX-512";
  case Isa::Avx2:
    return "AVX2";
  default:
    return nullptr;
  }
}

bool bcast::runtime::isSmallProduct(int64_t m, int64_t n, int64_t k,
                                    BlasKind blas, bool transposed) {
  // Narrower than half an AVX-512 register, padding costs more than a
  // call saves (the AVX2 build keeps the bound: not measured there).
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
  // 64x64x64, 128x64x128 and 64x64x256, 1.0 from 100x100x100. Measured
  // with the AVX-512 build; the AVX2 build pads to its 8 lanes and ran
  // batches of 16x16x16 as fast on the same host.
  int64_t lanes = kernelIsa() == Isa::Avx2 ? 8 : 16;
  double padded = static_cast<double>(lanes * ((n + lanes - 1) / lanes));
  double work = static_cast<double>(m) * padded * static_cast<double>(k);
  if (!transposed)
    return work <= (blas == BlasKind::SmallKernels ? 16384 : 1 << 20);
  // A transposed b is packed once per call, a cost of k * n that fewer
  // than 8 rows do not repay. OpenBLAS packs it too, except in its
  // small-matrix kernels, which take it for results of at most 1200
  // elements: there the kernel's time over theirs was 0.5-0.75 with k up
  // to 32 but 1.5-2.0 with k = 64 (16x16x64, 32x32x64, 8x8x64); above
  // them, and beside packing kernels, 0.67-0.95 from 32x32x32 to 256^3
  // (0.8-0.9 at attention's 64x64x32 and 128x128x64), so it takes the
  // products the untransposed kernel would.
  if (m < 8)
    return false;
  if (blas == BlasKind::SmallKernels && m * n <= 1200)
    return k <= 32;
  return work <= 1 << 20;
}

#ifdef BCAST_SMALL_PRODUCT_X86
// GCC 12 reports the undefined pass-through operand inside its own
// unpack and shuffle intrinsics as maybe uninitialized where they are
// inlined: a false positive of its headers.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
namespace avx512 {
#define BCAST_KERNEL __attribute__((target("avx512f")))
struct Ops {
  using Vec = __m512;
  using Tail = __mmask16;
  static constexpr int kLanes = 16;
  BCAST_KERNEL static Vec zero() { return _mm512_setzero_ps(); }
  BCAST_KERNEL static Vec load(const float *p) { return _mm512_loadu_ps(p); }
  BCAST_KERNEL static Vec loadTail(Tail t, const float *p) {
    return _mm512_maskz_loadu_ps(t, p);
  }
  BCAST_KERNEL static void store(float *p, Vec v) { _mm512_storeu_ps(p, v); }
  BCAST_KERNEL static void storeTail(float *p, Tail t, Vec v) {
    _mm512_mask_storeu_ps(p, t, v);
  }
  BCAST_KERNEL static Vec broadcast(float x) { return _mm512_set1_ps(x); }
  BCAST_KERNEL static Vec fma(Vec a, Vec b, Vec c) {
    return _mm512_fmadd_ps(a, b, c);
  }
  static Tail tail(int64_t columns) {
    return static_cast<Tail>(columns >= 16 ? 0xffff : (1u << columns) - 1);
  }
  /// Rows of four, then quarters, in place (16 registers and 4
  /// temporaries: a copy of the square would spill). First, within each
  /// 128-bit quarter, four rows' columns by unpacks and shuffles: v[r + c]
  /// holds column c of each quarter of rows r..r+3. Then, for each c, the
  /// quarters of v[c], v[4 + c], v[8 + c], v[12 + c] make rows c, 4 + c,
  /// 8 + c and 12 + c of the transpose.
  BCAST_KERNEL static void transpose(Vec (&v)[16]) {
    for (int r = 0; r < 16; r += 4) {
      Vec t0 = _mm512_unpacklo_ps(v[r], v[r + 1]);
      Vec t1 = _mm512_unpackhi_ps(v[r], v[r + 1]);
      Vec t2 = _mm512_unpacklo_ps(v[r + 2], v[r + 3]);
      Vec t3 = _mm512_unpackhi_ps(v[r + 2], v[r + 3]);
      v[r] = _mm512_shuffle_ps(t0, t2, 0x44);
      v[r + 1] = _mm512_shuffle_ps(t0, t2, 0xee);
      v[r + 2] = _mm512_shuffle_ps(t1, t3, 0x44);
      v[r + 3] = _mm512_shuffle_ps(t1, t3, 0xee);
    }
    for (int c = 0; c < 4; ++c) {
      Vec x0 = _mm512_shuffle_f32x4(v[c], v[4 + c], 0x44);
      Vec x1 = _mm512_shuffle_f32x4(v[c], v[4 + c], 0xee);
      Vec x2 = _mm512_shuffle_f32x4(v[8 + c], v[12 + c], 0x44);
      Vec x3 = _mm512_shuffle_f32x4(v[8 + c], v[12 + c], 0xee);
      v[c] = _mm512_shuffle_f32x4(x0, x2, 0x88);
      v[4 + c] = _mm512_shuffle_f32x4(x0, x2, 0xdd);
      v[8 + c] = _mm512_shuffle_f32x4(x1, x3, 0x88);
      v[12 + c] = _mm512_shuffle_f32x4(x1, x3, 0xdd);
    }
  }
};
#include "SmallProductKernel.inc"
#undef BCAST_KERNEL
} // namespace avx512

namespace avx2 {
#define BCAST_KERNEL __attribute__((target("avx2,fma")))
struct Ops {
  using Vec = __m256;
  /// AVX2 masks lanes with the sign bits of a vector.
  using Tail = __m256i;
  static constexpr int kLanes = 8;
  BCAST_KERNEL static Vec zero() { return _mm256_setzero_ps(); }
  BCAST_KERNEL static Vec load(const float *p) { return _mm256_loadu_ps(p); }
  BCAST_KERNEL static Vec loadTail(Tail t, const float *p) {
    return _mm256_maskload_ps(p, t);
  }
  BCAST_KERNEL static void store(float *p, Vec v) { _mm256_storeu_ps(p, v); }
  BCAST_KERNEL static void storeTail(float *p, Tail t, Vec v) {
    _mm256_maskstore_ps(p, t, v);
  }
  BCAST_KERNEL static Vec broadcast(float x) { return _mm256_set1_ps(x); }
  BCAST_KERNEL static Vec fma(Vec a, Vec b, Vec c) {
    return _mm256_fmadd_ps(a, b, c);
  }
  BCAST_KERNEL static Tail tail(int64_t columns) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(columns)),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  /// Rows of four, then halves, in place (as the AVX-512 build's, with
  /// two 128-bit halves).
  BCAST_KERNEL static void transpose(Vec (&v)[8]) {
    for (int r = 0; r < 8; r += 4) {
      Vec t0 = _mm256_unpacklo_ps(v[r], v[r + 1]);
      Vec t1 = _mm256_unpackhi_ps(v[r], v[r + 1]);
      Vec t2 = _mm256_unpacklo_ps(v[r + 2], v[r + 3]);
      Vec t3 = _mm256_unpackhi_ps(v[r + 2], v[r + 3]);
      v[r] = _mm256_shuffle_ps(t0, t2, 0x44);
      v[r + 1] = _mm256_shuffle_ps(t0, t2, 0xee);
      v[r + 2] = _mm256_shuffle_ps(t1, t3, 0x44);
      v[r + 3] = _mm256_shuffle_ps(t1, t3, 0xee);
    }
    for (int c = 0; c < 4; ++c) {
      Vec low = _mm256_permute2f128_ps(v[c], v[4 + c], 0x20);
      v[4 + c] = _mm256_permute2f128_ps(v[c], v[4 + c], 0x31);
      v[c] = low;
    }
  }
};
#include "SmallProductKernel.inc"
#undef BCAST_KERNEL
} // namespace avx2
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

void bcast::runtime::smallProductF32(int64_t rows, int64_t n, int64_t k,
                                     const float *a, int64_t aRow,
                                     const float *b, int64_t bRow, float *c,
                                     int64_t cRow) {
#ifdef BCAST_SMALL_PRODUCT_X86
  if (kernelIsa() == Isa::Avx512)
    return avx512::product(rows, n, k, a, aRow, avx512::InPlace{b, bRow}, c,
                           cRow);
  if (kernelIsa() == Isa::Avx2)
    return avx2::product(rows, n, k, a, aRow, avx2::InPlace{b, bRow}, c, cRow);
#endif
  // Not reached (smallProductKernel() is null): the same product in
  // plain loops, so that the entry point means one thing everywhere.
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += a[r * aRow + p] * b[p * bRow + j];
      c[r * cRow + j] = sum;
    }
}

void bcast::runtime::smallProductTransposedF32(int64_t rows, int64_t n,
                                               int64_t k, const float *a,
                                               int64_t aRow, const float *bt,
                                               int64_t btRow, float *c,
                                               int64_t cRow) {
#ifdef BCAST_SMALL_PRODUCT_X86
  // One panel of b at a time: k rows of two AVX-512 registers. Kept per
  // thread (the runtime runs products side by side on its own threads).
  thread_local std::vector<float> pack;
  if (kernelIsa() != Isa::None && pack.size() < static_cast<size_t>(k) * 2 * 16)
    pack.resize(static_cast<size_t>(k) * 2 * 16);
  if (kernelIsa() == Isa::Avx512)
    return avx512::product(rows, n, k, a, aRow,
                           avx512::Transposed{k, bt, btRow, pack.data()}, c,
                           cRow);
  if (kernelIsa() == Isa::Avx2)
    return avx2::product(rows, n, k, a, aRow,
                         avx2::Transposed{k, bt, btRow, pack.data()}, c, cRow);
#endif
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += a[r * aRow + p] * bt[j * btRow + p];
      c[r * cRow + j] = sum;
    }
}
