//===- SmallProduct.h - f32 products too small for a BLAS call --*- C++ -*-===//
//
// A product kernel of the runtime's own for matrices so small that a BLAS
// call's fixed cost is a large part of its time ([4096,16,16] @
// [4096,16,16]: about 40 ns of OpenBLAS's 120 ns per matrix). Compiled for
// AVX-512 and for AVX2, one of them chosen at run time.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_LIB_RUNTIME_MATMUL_SMALLPRODUCT_H // NOLINT(llvm-header-guard)
#define BCAST_LIB_RUNTIME_MATMUL_SMALLPRODUCT_H

#include <cstdint>

namespace bcast::runtime {

/// The instruction set the kernel runs with ("AVX-512", "AVX2"), or null
/// where the CPU has neither or the environment turns the kernel off
/// (BCAST_MATMUL_SMALL_KERNEL=0; =avx2 keeps it to AVX2); read once.
const char *smallProductKernel();

/// Whether a product of an M x K and a K x N matrix is one the kernel runs
/// faster than a BLAS call (measured: docs/Benchmarks.md, "A product
/// kernel for small matrices"): fewer of them where the BLAS has kernels
/// for small matrices of its own (OpenBLAS's AVX-512 cores), any where
/// there is no BLAS. `transposed`: b is the transpose of a row-major
/// matrix (smallProductTransposedF32).
enum class BlasKind { None, Plain, SmallKernels };
bool isSmallProduct(int64_t m, int64_t n, int64_t k, BlasKind blas,
                    bool transposed = false);

/// c = a @ b for row-major f32 matrices with unit column strides: a is rows
/// x k (row stride aRow), b is k x n (bRow), c is rows x n (cRow).
void smallProductF32(int64_t rows, int64_t n, int64_t k, const float *a,
                     int64_t aRow, const float *b, int64_t bRow, float *c,
                     int64_t cRow);

/// c = a @ bt^T, bt an n x k row-major matrix with unit column stride and
/// row stride btRow; otherwise as smallProductF32.
void smallProductTransposedF32(int64_t rows, int64_t n, int64_t k,
                               const float *a, int64_t aRow, const float *bt,
                               int64_t btRow, float *c, int64_t cRow);

} // namespace bcast::runtime

#endif // BCAST_LIB_RUNTIME_MATMUL_SMALLPRODUCT_H
