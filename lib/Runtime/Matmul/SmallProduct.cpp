//===- SmallProduct.cpp - f32 products too small for a BLAS call ----------===//
//
// One register holds 16 columns of a result row (AVX-512; 8 with AVX2).
// The result goes in panels of two registers' columns (one for the last
// where it holds what is left), each in blocks of rows whose accumulators
// stay in registers for the whole sum over k: per k, a panel's row of b is
// loaded once and each row's a[r][p] is broadcast into one fused
// multiply-add per register. Nothing is packed: b's panel (k x 32 floats)
// stays in L1 for the products a BLAS does not do faster (without a BLAS
// it takes every product, its only rival a plain loop nest). Columns past
// n are masked off, in loads and stores alike. The kernel's source is
// SmallProductKernel.inc, compiled once per instruction set; the CPU picks
// one at run time.
//
//===----------------------------------------------------------------------===//

#include "SmallProduct.h"

#include <cstdlib>
#include <cstring>

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
                                    BlasKind blas) {
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
  return work <= (blas == BlasKind::SmallKernels ? 16384 : 1 << 20);
}

#ifdef BCAST_SMALL_PRODUCT_X86
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
};
#include "SmallProductKernel.inc"
#undef BCAST_KERNEL
} // namespace avx2
#endif

void bcast::runtime::smallProductF32(int64_t rows, int64_t n, int64_t k,
                                     const float *a, int64_t aRow,
                                     const float *b, int64_t bRow, float *c,
                                     int64_t cRow) {
#ifdef BCAST_SMALL_PRODUCT_X86
  if (kernelIsa() == Isa::Avx512)
    return avx512::product(rows, n, k, a, aRow, b, bRow, c, cRow);
  if (kernelIsa() == Isa::Avx2)
    return avx2::product(rows, n, k, a, aRow, b, bRow, c, cRow);
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
