// STREAM-style memory-bandwidth reference for the bcast benchmark: copy
// (c = a) and triad (a = b + s * c) over arrays far larger than the caches,
// with OpenMP on the threads the caller asks for. Prints the best GB/s of
// each, counting bytes as STREAM does (read + write, no write-allocate).
// Build: clang-22 -O3 -march=native -fopenmp stream.c -o stream
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static double now(void) { return omp_get_wtime(); }

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1L << 26; // 64 Mi floats: 256 MiB each
  int reps = argc > 2 ? atoi(argv[2]) : 10;
  float *a = aligned_alloc(64, n * sizeof(float));
  float *b = aligned_alloc(64, n * sizeof(float));
  float *c = aligned_alloc(64, n * sizeof(float));
  if (!a || !b || !c) {
    fprintf(stderr, "stream: out of memory\n");
    return 1;
  }
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    a[i] = 1.0f;
    b[i] = 2.0f;
    c[i] = 0.0f;
  }
  double bestCopy = 1e30, bestTriad = 1e30;
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i)
      c[i] = a[i];
    double t1 = now();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i)
      a[i] = b[i] + 3.0f * c[i];
    double t2 = now();
    if (t1 - t0 < bestCopy)
      bestCopy = t1 - t0;
    if (t2 - t1 < bestTriad)
      bestTriad = t2 - t1;
  }
  double gb = 1e-9 * sizeof(float) * (double)n;
  printf("threads %d copy_gbs %.3f triad_gbs %.3f check %g\n",
         omp_get_max_threads(), 2 * gb / bestCopy, 3 * gb / bestTriad,
         (double)a[n / 2]);
  free(a);
  free(b);
  free(c);
  return 0;
}
