//===- MatmulRuntime.cpp - f32/f64 matrix products on a BLAS --------------===//
//
// libbcast_matmul_runtime.so: the entry points bcast-matmul-to-blas calls
// for the f32 and f64 contractions of `bcast.matmul`. Each takes the three
// memrefs (lhs, rhs, result) as unranked descriptors, walks the result's
// batch space with each operand's own strides (0 where its batch dim is
// broadcast: a broadcast operand is never copied), folds trailing batch
// dims that the rhs broadcasts into M where the strides allow (one large
// GEMM instead of many small ones, as JAX does), and calls `cblas_sgemm` /
// `cblas_dgemm` once per remaining batch element.
//
// The BLAS is found at first use with dlopen: libblas.so.3 (Debian's
// alternative, OpenBLAS once libopenblas0-pthread is installed), then
// libopenblas.so.0; without a cblas_sgemm in either, a plain loop nest
// computes the product (correct, slow). bcastMatmulBlasName() says which,
// for the benchmarks.
//
//===----------------------------------------------------------------------===//

#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#define BCAST_MATMUL_EXPORT extern "C" __attribute__((visibility("default")))

namespace {
/// CBLAS's enums (cblas.h), without the header: the BLAS is loaded at run
/// time.
enum { kRowMajor = 101, kNoTrans = 111, kTrans = 112 };

using SgemmFn = void (*)(int, int, int, int, int, int, float, const float *,
                         int, const float *, int, float, float *, int);
using DgemmFn = void (*)(int, int, int, int, int, int, double, const double *,
                         int, const double *, int, double, double *, int);
using ConfigFn = char *(*)();

struct Blas {
  SgemmFn sgemm = nullptr;
  DgemmFn dgemm = nullptr;
  char name[256] = "none (loops)";
};
} // namespace

static const Blas &getBlas() {
  static Blas blas;
  static std::once_flag once;
  std::call_once(once, [] {
    for (const char *library : {"libblas.so.3", "libopenblas.so.0"}) {
      void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
      if (!handle)
        continue;
      auto sgemm = reinterpret_cast<SgemmFn>(dlsym(handle, "cblas_sgemm"));
      auto dgemm = reinterpret_cast<DgemmFn>(dlsym(handle, "cblas_dgemm"));
      if (!sgemm || !dgemm) {
        dlclose(handle);
        continue;
      }
      blas.sgemm = sgemm;
      blas.dgemm = dgemm;
      auto config =
          reinterpret_cast<ConfigFn>(dlsym(handle, "openblas_get_config"));
      std::snprintf(blas.name, sizeof(blas.name), "%s (%s)", library,
                    config ? config() : "cblas");
      return;
    }
  });
  return blas;
}

/// An unranked memref as MLIR passes it to C: the rank and a pointer to
/// the ranked descriptor {allocated, aligned, offset, sizes[rank],
/// strides[rank]}.
namespace {
template <typename T> struct View {
  int64_t rank;
  T *data; ///< aligned + offset
  const int64_t *sizes;
  const int64_t *strides;

  View(int64_t rank, void *descriptor) : rank(rank) {
    auto *base = static_cast<char *>(descriptor);
    T *aligned;
    int64_t offset;
    std::memcpy(&aligned, base + sizeof(T *), sizeof(T *));
    std::memcpy(&offset, base + 2 * sizeof(T *), sizeof(int64_t));
    data = aligned + offset;
    sizes = reinterpret_cast<const int64_t *>(base + 2 * sizeof(T *) +
                                              sizeof(int64_t));
    strides = sizes + rank;
  }
};

constexpr int kMaxBatchRank = 16;

} // namespace

template <typename T>
static void gemm(const Blas &blas, bool transA, bool transB, int64_t m,
                 int64_t n, int64_t k, const T *a, int64_t lda, const T *b,
                 int64_t ldb, T *c, int64_t ldc);

template <>
void gemm<float>(const Blas &blas, bool transA, bool transB, int64_t m,
                 int64_t n, int64_t k, const float *a, int64_t lda,
                 const float *b, int64_t ldb, float *c, int64_t ldc) {
  blas.sgemm(kRowMajor, transA ? kTrans : kNoTrans, transB ? kTrans : kNoTrans,
             m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
}

template <>
void gemm<double>(const Blas &blas, bool transA, bool transB, int64_t m,
                  int64_t n, int64_t k, const double *a, int64_t lda,
                  const double *b, int64_t ldb, double *c, int64_t ldc) {
  blas.dgemm(kRowMajor, transA ? kTrans : kNoTrans, transB ? kTrans : kNoTrans,
             m, n, k, 1.0, a, lda, b, ldb, 0.0, c, ldc);
}

/// How a 2-D operand of a GEMM is laid out: its row and column strides,
/// and whether one of them is 1 (so that a BLAS can read it, transposed or
/// not).
namespace {
struct Matrix {
  int64_t rows, cols, rowStride, colStride;

  /// Whether a BLAS can read it, and how: the leading dimension and the
  /// transpose flag. A dimension of size 1 may have any stride.
  bool blasLayout(int64_t &ld, bool &trans) const {
    int64_t rs = rows == 1 ? std::max<int64_t>(cols, 1) : rowStride;
    int64_t cs = cols == 1 ? 1 : colStride;
    if (cs == 1 && rs >= std::max<int64_t>(cols, 1)) {
      ld = rs, trans = false;
      return true;
    }
    rs = rows == 1 ? 1 : rowStride;
    cs = cols == 1 ? std::max<int64_t>(rows, 1) : colStride;
    if (rs == 1 && cs >= std::max<int64_t>(rows, 1)) {
      ld = cs, trans = true;
      return true;
    }
    return false;
  }
};

} // namespace

template <typename T>
static void matmul(int64_t rankA, void *descA, int64_t rankB, void *descB,
                   int64_t rankC, void *descC) {
  View<T> a(rankA, descA), b(rankB, descB), c(rankC, descC);
  bool hasM = rankA >= 2, hasN = rankB >= 2;
  int64_t batchRank = rankC - hasM - hasN;
  int64_t batchA = rankA >= 3 ? rankA - 2 : 0;
  int64_t batchB = rankB >= 3 ? rankB - 2 : 0;
  if (batchRank > kMaxBatchRank) {
    std::fprintf(stderr, "bcast matmul runtime: more than %d batch dims\n",
                 kMaxBatchRank);
    std::abort();
  }

  int64_t m = hasM ? a.sizes[rankA - 2] : 1;
  int64_t k = a.sizes[rankA - 1];
  int64_t n = hasN ? b.sizes[rankB - 1] : 1;
  // Strides of the product's rows and columns in each operand.
  int64_t aRow = hasM ? a.strides[rankA - 2] : 0, aCol = a.strides[rankA - 1];
  int64_t bRow = b.strides[hasN ? rankB - 2 : 0];
  int64_t bCol = hasN ? b.strides[rankB - 1] : 0;
  int64_t cRow = hasM ? c.strides[batchRank] : 0;
  int64_t cCol = hasN ? c.strides[rankC - 1] : 0;

  // Per batch dim of the result: its size and each operand's stride there
  // (0 where the operand lacks the dim or broadcasts it).
  int64_t sizes[kMaxBatchRank], strideA[kMaxBatchRank], strideB[kMaxBatchRank],
      strideC[kMaxBatchRank];
  for (int64_t d = 0; d < batchRank; ++d) {
    sizes[d] = c.sizes[d];
    strideC[d] = c.strides[d];
    int64_t da = d - (batchRank - batchA), db = d - (batchRank - batchB);
    strideA[d] = da >= 0 && a.sizes[da] != 1 ? a.strides[da] : 0;
    strideB[d] = db >= 0 && b.sizes[db] != 1 ? b.strides[db] : 0;
  }

  int64_t total = 1;
  for (int64_t d = 0; d < batchRank; ++d)
    total *= sizes[d];
  if (total == 0 || m == 0 || n == 0)
    return;

  // Fold batch dims that rhs broadcasts into M, innermost first, where the
  // rows (d, ..., m) of lhs and of the result stay evenly strided; the
  // others are walked. With M = 1 ([B,T,1,K] @ [1,T,K,N]) any such dim
  // folds: its stride becomes the row stride.
  int64_t rows = m;
  bool walk[kMaxBatchRank];
  for (int64_t d = batchRank; d-- > 0;) {
    walk[d] = sizes[d] != 1;
    if (!walk[d] || strideB[d] != 0)
      continue;
    if (rows == 1) {
      aRow = strideA[d];
      cRow = strideC[d];
    } else if (strideA[d] != rows * aRow || strideC[d] != rows * cRow) {
      continue;
    }
    rows *= sizes[d];
    walk[d] = false;
  }
  int64_t walkedDims[kMaxBatchRank];
  int64_t numWalked = 0;
  for (int64_t d = 0; d < batchRank; ++d)
    if (walk[d])
      walkedDims[numWalked++] = d;

  const Blas &blas = getBlas();
  Matrix ma{rows, k, aRow, aCol}, mb{k, n, bRow, bCol}, mc{rows, n, cRow, cCol};
  int64_t lda = 0, ldb = 0, ldc = 0;
  bool ta = false, tb = false, tc = false;
  // BLAS sizes are C ints.
  auto fits = [](int64_t v) { return v <= INT_MAX; };
  bool useBlas = blas.sgemm && k > 0 && ma.blasLayout(lda, ta) &&
                 mb.blasLayout(ldb, tb) && mc.blasLayout(ldc, tc) && !tc &&
                 fits(rows) && fits(n) && fits(k) && fits(lda) && fits(ldb) &&
                 fits(ldc);

  int64_t index[kMaxBatchRank] = {};
  int64_t walked = 1;
  for (int64_t i = 0; i < numWalked; ++i)
    walked *= sizes[walkedDims[i]];
  for (int64_t i = 0; i < walked; ++i) {
    int64_t offA = 0, offB = 0, offC = 0;
    for (int64_t j = 0; j < numWalked; ++j) {
      int64_t d = walkedDims[j];
      offA += index[j] * strideA[d];
      offB += index[j] * strideB[d];
      offC += index[j] * strideC[d];
    }
    const T *pa = a.data + offA;
    const T *pb = b.data + offB;
    T *pc = c.data + offC;
    if (useBlas) {
      gemm<T>(blas, ta, tb, rows, n, k, pa, lda, pb, ldb, pc, ldc);
    } else {
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < n; ++j) {
          T sum = 0;
          for (int64_t p = 0; p < k; ++p)
            sum += pa[r * aRow + p * aCol] * pb[p * bRow + j * bCol];
          pc[r * cRow + j * cCol] = sum;
        }
    }
    for (int64_t j = numWalked; j-- > 0;) {
      if (++index[j] < sizes[walkedDims[j]])
        break;
      index[j] = 0;
    }
  }
}

/// result = lhs @ rhs (torch.matmul's layout: batch dims aligned right,
/// 1-D operands without M or N), overwriting the result.
BCAST_MATMUL_EXPORT void bcastMatmulF32(int64_t rankA, void *descA,
                                        int64_t rankB, void *descB,
                                        int64_t rankC, void *descC) {
  matmul<float>(rankA, descA, rankB, descB, rankC, descC);
}

BCAST_MATMUL_EXPORT void bcastMatmulF64(int64_t rankA, void *descA,
                                        int64_t rankB, void *descB,
                                        int64_t rankC, void *descC) {
  matmul<double>(rankA, descA, rankB, descB, rankC, descC);
}

/// Which BLAS the products run on ("libblas.so.3 (OpenBLAS 0.3.21 ...)" or
/// "none (loops)").
BCAST_MATMUL_EXPORT const char *bcastMatmulBlasName() { return getBlas().name; }
