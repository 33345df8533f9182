//===- MatmulRuntime.cpp - f32/f64 matrix products on a BLAS --------------===//
//
// libbcast_matmul_runtime.so: the entry points bcast-matmul-to-blas calls
// for the f32 and f64 contractions of `bcast.matmul`. Each takes the three
// memrefs (lhs, rhs, result) as unranked descriptors, walks the result's
// batch space with each operand's own strides (0 where its batch dim is
// broadcast: a broadcast operand is never copied), folds trailing batch
// dims that the rhs broadcasts into M where the strides allow (one large
// GEMM instead of many small ones, as JAX does), and calls `cblas_sgemm` /
// `cblas_dgemm` once per remaining batch element and block of rows.
//
// Two measured choices (docs/Benchmarks.md, "Broadcast batches side by
// side"): OpenBLAS's AVX-512 cores multiply without packing when M*N*K <=
// 1e6 (its `?gemm_small_kernel_permit`), 1.3-2x faster for the N and K of
// attention heads and broadcast batches, so the rows of a larger product
// with a small N*K go in blocks under that limit. And where there are
// several calls, they run side by side on the BLAS's threads, each on one,
// instead of each being split across all of them (OpenBLAS ran 256 calls
// of [256,100] @ [100,100] at 36% of one folded GEMM's rate on 2 threads
// that way, 84-115% side by side).
//
// Where bcast.torch asks for it and GCC's libgomp (PyTorch's OpenMP
// runtime) is loaded, calls side by side run on libgomp's team, and a
// product of fewer calls than OpenBLAS has threads is split into blocks of
// rows for it: OpenBLAS's own threads and the team's workers, which spin
// after each parallel region, took each other's cores (a product of 0.6 ms
// took 4 ms on 2 cores, both in bcast's kernels and in PyTorch's addmm).
//
// f32 products of matrices so small that a BLAS call's own cost is a large
// part of their time go to a kernel of the runtime's own instead
// (SmallProduct.h), where the CPU has AVX-512 or AVX2.
//
// The BLAS is found at first use with dlopen: libblas.so.3 (Debian's
// alternative, OpenBLAS once libopenblas0-pthread is installed), then
// libopenblas.so.0; without a cblas_sgemm in either (or with
// BCAST_MATMUL_BLAS=none), a plain loop nest computes the product
// (correct, slow), or the small-product kernel where it applies.
// bcastMatmulBlasName() says which, for the benchmarks.
//
//===----------------------------------------------------------------------===//

#include "SmallProduct.h"
#include "bcast/Runtime/Gomp.h"

#include <dlfcn.h>
#include <strings.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

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
using GetThreadsFn = int (*)();
using SetThreadsFn = void (*)(int);

struct Blas {
  SgemmFn sgemm = nullptr;
  DgemmFn dgemm = nullptr;
  /// OpenBLAS's thread count, where the BLAS is OpenBLAS.
  GetThreadsFn getThreads = nullptr;
  SetThreadsFn setThreads = nullptr;
  /// The largest M*N*K the BLAS multiplies without packing (0: none).
  double smallProduct = 0;
  char name[256] = "none (loops)";
};

/// OpenBLAS's `?gemm_small_kernel_permit` for these cores (0.3.16 and
/// later): no packing for M*N*K <= 100^3.
constexpr double kOpenBlasSmallProduct = 1e6;
} // namespace

/// Whether OpenBLAS picked kernels with a small-matrix path: SkylakeX's,
/// which Cooper Lake and Sapphire Rapids use too.
static bool hasSmallKernels(const char *core) {
  for (const char *name : {"skylakex", "cooperlake", "sapphirerapids"})
    if (strcasecmp(core, name) == 0)
      return true;
  return false;
}

static const Blas &getBlas() {
  static Blas blas;
  static std::once_flag once;
  std::call_once(once, [] {
    // The tests' way to run the products without a BLAS on any host.
    const char *setting = std::getenv("BCAST_MATMUL_BLAS");
    if (setting && std::strcmp(setting, "none") == 0)
      return;
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
      blas.getThreads = reinterpret_cast<GetThreadsFn>(
          dlsym(handle, "openblas_get_num_threads"));
      blas.setThreads = reinterpret_cast<SetThreadsFn>(
          dlsym(handle, "openblas_set_num_threads"));
      if (!blas.getThreads || !blas.setThreads)
        blas.getThreads = nullptr, blas.setThreads = nullptr;
      auto core =
          reinterpret_cast<ConfigFn>(dlsym(handle, "openblas_get_corename"));
      if (core && hasSmallKernels(core()))
        blas.smallProduct = kOpenBlasSmallProduct;
      // The tests' way to split products of any size, on any BLAS.
      if (const char *limit = std::getenv("BCAST_MATMUL_SMALL_PRODUCT"))
        blas.smallProduct = std::strtod(limit, nullptr);
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
/// The fewest rows a block of a split product gets.
constexpr int64_t kMinBlockRows = 16;

/// Whether products run on libgomp's team: asked for by bcast.torch
/// (bcastMatmulUseTeam), whose compiled models run their products here and
/// PyTorch's other ops on that team. Not by default: beside calls of the
/// BLAS's own threads (np.matmul, torch.matmul interleaved with bcast's
/// products), the two sets of spinning threads stalled each other
/// ([256,256] @ [256,256] on 2 cores: 0.24 ms alone, 3.9 ms a pair with
/// np.matmul). BCAST_MATMUL_TEAM=1 or 0 decides instead.
std::atomic<bool> teamRequested{false};

/// Products run in parts on libgomp's team so far (bcastMatmulTeamProducts).
std::atomic<int64_t> teamProducts{0};

/// The multiply-adds that repay starting a thread (about 15 us on one
/// core, several times what starting one costs).
constexpr double kThreadWork = 1 << 21;

} // namespace

static bool teamWanted() {
  static const int setting = [] {
    const char *text = std::getenv("BCAST_MATMUL_TEAM");
    if (text && std::strcmp(text, "0") == 0)
      return 0;
    if (text && std::strcmp(text, "1") == 0)
      return 1;
    return -1;
  }();
  return setting < 0 ? teamRequested.load(std::memory_order_relaxed)
                     : setting == 1;
}

/// libgomp's team where products run on it (teamWanted) and the process
/// has loaded it.
static const bcast::runtime::Gomp *loadedTeam() {
  return teamWanted() ? bcast::runtime::loadedGomp() : nullptr;
}

/// Runs part(0) .. part(parts - 1), each on a thread of its own where it
/// can: on libgomp's team, else on threads started here.
template <typename Part> static void runParts(int parts, const Part &part) {
  if (const bcast::runtime::Gomp *team = loadedTeam()) {
    teamProducts.fetch_add(1, std::memory_order_relaxed);
    struct Context {
      const bcast::runtime::Gomp *team;
      const Part *part;
      int parts;
    } context{team, &part, parts};
    team->parallel(
        [](void *data) {
          const auto &c = *static_cast<const Context *>(data);
          // A smaller team than asked (a nested region runs on one) takes
          // the parts in turn.
          int size = c.team->numThreads();
          for (int p = c.team->threadNum(); p < c.parts; p += size)
            (*c.part)(p);
        },
        &context, static_cast<unsigned>(parts), 0);
    return;
  }
  std::vector<std::thread> helpers;
  for (int p = 1; p < parts; ++p) {
    try {
      helpers.emplace_back(part, p);
    } catch (...) {
      // No thread to be had: this one does the part.
      part(p);
    }
  }
  part(0);
  for (std::thread &helper : helpers)
    helper.join();
}

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

  // Judged by the rows of one call, folded batch rows included: the BLAS
  // multiplies those at its rate for the whole call, which the kernel does
  // not reach past small products ([256,256,1,100] @ [256,100,100], 256
  // folded rows a call: 96-101% of the folded GEMM's rate on the BLAS,
  // 81-88% on the kernel when it was judged by each matrix's M of 1).
  using bcast::runtime::BlasKind;
  BlasKind kind = !useBlas                ? BlasKind::None
                  : blas.smallProduct > 0 ? BlasKind::SmallKernels
                                          : BlasKind::Plain;
  // A transposed rhs (b's columns are rows in memory, attention's
  // q @ k^T) goes to the kernel's transposing variant.
  bool useSmall = false, smallTransposed = false;
  if constexpr (std::is_same_v<T, float>) {
    bool kernel = bcast::runtime::smallProductKernel() &&
                  (k == 1 || aCol == 1) && cCol == 1;
    if (kernel && bCol == 1)
      useSmall = bcast::runtime::isSmallProduct(rows, n, k, kind);
    else if (kernel && bRow == 1)
      useSmall = smallTransposed =
          bcast::runtime::isSmallProduct(rows, n, k, kind, /*transposed=*/true);
  }

  int64_t walked = 1;
  for (int64_t i = 0; i < numWalked; ++i)
    walked *= sizes[walkedDims[i]];

  // Rows in blocks under the BLAS's small-product limit, where N*K leaves
  // blocks of kMinBlockRows or more (smaller ones measured slower than
  // the whole call). Only with an untransposed rhs: OpenBLAS's small
  // kernels take a transposed one (its A, column-major) only for tiny
  // results.
  int64_t blockRows = rows;
  double nk = static_cast<double>(n) * static_cast<double>(k);
  if (useBlas && !useSmall && blas.smallProduct > 0 && !tb &&
      rows * nk > blas.smallProduct &&
      kMinBlockRows * nk <= blas.smallProduct) {
    // As few blocks as the limit allows, of rows as even as they can be.
    int64_t most = static_cast<int64_t>(blas.smallProduct / nk);
    int64_t fewest = (rows + most - 1) / most;
    blockRows = (rows + fewest - 1) / fewest;
  }
  // Calls side by side, one BLAS thread each, where they divide evenly
  // enough among the BLAS's threads, on no more threads than the work
  // repays starting.
  int blasThreads = useBlas && blas.getThreads ? blas.getThreads() : 1;
  auto sideBySide = [&](int64_t tasks, int64_t rowsPerTask) {
    double work = static_cast<double>(tasks) * rowsPerTask * nk;
    int threads =
        static_cast<int>(std::min<double>(blasThreads, work / kThreadWork));
    if (threads <= 1 || tasks < threads ||
        (tasks % threads != 0 && tasks < 8 * threads))
      return 1;
    return threads;
  };
  // Blocks that would run one after the other on one thread lose to the
  // whole call on the BLAS's threads ([128,128] @ [128,128] on 2 threads:
  // 0.040 ms in three blocks, 0.032 ms in one call).
  if (blockRows < rows && blasThreads > 1 &&
      sideBySide(walked * ((rows + blockRows - 1) / blockRows), blockRows) <= 1)
    blockRows = rows;
  // On libgomp's team, fewer calls than threads are split into blocks of
  // rows, one call per thread, rather than left to the BLAS's own threads.
  if (useBlas && blasThreads > 1 &&
      walked * ((rows + blockRows - 1) / blockRows) < blasThreads &&
      loadedTeam()) {
    int64_t parts = (blasThreads + walked - 1) / walked;
    int64_t split = std::max((rows + parts - 1) / parts, kMinBlockRows);
    if (split < rows &&
        sideBySide(walked * ((rows + split - 1) / split), split) > 1)
      blockRows = split;
  }
  int64_t blocks = (rows + blockRows - 1) / blockRows;
  int64_t tasks = walked * blocks;

  // Tasks [begin, end): the batch index of the first from divisions, then
  // stepped as an odometer (divisions per task cost as much as a small
  // product's call: [4096,16,16] @ [4096,16,16] ran 5% behind NumPy's
  // loop of the same calls).
  auto runTasks = [&](int64_t begin, int64_t end) {
    if (begin >= end)
      return;
    int64_t index[kMaxBatchRank];
    int64_t offA = 0, offB = 0, offC = 0;
    int64_t rest = begin / blocks, block = begin % blocks;
    for (int64_t j = numWalked; j-- > 0;) {
      int64_t d = walkedDims[j];
      index[j] = rest % sizes[d];
      rest /= sizes[d];
      offA += index[j] * strideA[d];
      offB += index[j] * strideB[d];
      offC += index[j] * strideC[d];
    }
    for (int64_t task = begin; task < end; ++task) {
      int64_t first = block * blockRows;
      int64_t count = std::min(blockRows, rows - first);
      const T *pa = a.data + offA + first * aRow;
      const T *pb = b.data + offB;
      T *pc = c.data + offC + first * cRow;
      if (smallTransposed) {
        if constexpr (std::is_same_v<T, float>)
          bcast::runtime::smallProductTransposedF32(count, n, k, pa, aRow, pb,
                                                    bCol, pc, cRow);
      } else if (useSmall) {
        if constexpr (std::is_same_v<T, float>)
          bcast::runtime::smallProductF32(count, n, k, pa, aRow, pb, bRow, pc,
                                          cRow);
      } else if (useBlas) {
        gemm<T>(blas, ta, tb, count, n, k, pa, lda, pb, ldb, pc, ldc);
      } else {
        for (int64_t r = 0; r < count; ++r)
          for (int64_t j = 0; j < n; ++j) {
            T sum = 0;
            for (int64_t p = 0; p < k; ++p)
              sum += pa[r * aRow + p * aCol] * pb[p * bRow + j * bCol];
            pc[r * cRow + j * cCol] = sum;
          }
      }
      if (++block < blocks)
        continue;
      block = 0;
      for (int64_t j = numWalked; j-- > 0;) {
        int64_t d = walkedDims[j];
        offA += strideA[d];
        offB += strideB[d];
        offC += strideC[d];
        if (++index[j] < sizes[d])
          break;
        index[j] = 0;
        offA -= sizes[d] * strideA[d];
        offB -= sizes[d] * strideB[d];
        offC -= sizes[d] * strideC[d];
      }
    }
  };

  int threads = sideBySide(tasks, blockRows);
  if (threads <= 1) {
    runTasks(0, tasks);
    return;
  }
  // One product at a time sets the count, so that two running at once
  // cannot leave OpenBLAS on one thread. Other callers of the BLAS in the
  // process run on one thread meanwhile: slower, never wrong.
  static std::mutex threadCount;
  std::lock_guard<std::mutex> lock(threadCount);
  int before = blas.getThreads();
  blas.setThreads(1);
  runParts(threads, [&](int64_t part) {
    runTasks(tasks * part / threads, tasks * (part + 1) / threads);
  });
  blas.setThreads(before);
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
/// "none (loops)"), and whether small f32 products run on the runtime's own
/// kernel.
BCAST_MATMUL_EXPORT const char *bcastMatmulBlasName() {
  static char name[320];
  static std::once_flag once;
  std::call_once(once, [] {
    const char *kernel = bcast::runtime::smallProductKernel();
    std::snprintf(name, sizeof(name), "%s%s%s%s", getBlas().name,
                  kernel ? "; small f32 products: the runtime's " : "",
                  kernel ? kernel : "", kernel ? " kernel" : "");
  });
  return name;
}

/// Runs products on libgomp's team from now on (`on`), where the process
/// has loaded it, or not; bcast.torch asks for it.
BCAST_MATMUL_EXPORT void bcastMatmulUseTeam(int on) {
  teamRequested.store(on != 0, std::memory_order_relaxed);
}

/// How many products have run in parts on libgomp's team (the tests'
/// way to see that the team took them).
BCAST_MATMUL_EXPORT int64_t bcastMatmulTeamProducts() {
  return teamProducts.load(std::memory_order_relaxed);
}
