/* The host side of bcast's GPU execution tests: main() runs the compiled
   module's @bcast_test_main, and printMemref{F32,F64,I32,I64} print results
   in the runner utilities' format (sizes, then the elements), so that the
   tests need neither mlir-runner nor LLVM on the GPU machine: only this
   file, the compiled module and libbcast_cuda_runtime.so. */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* The runner utilities' clock, for the GPU benchmark's kernels. */
double rtclock(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void bcast_test_main(void);

int main(void) {
  bcast_test_main();
  return 0;
}

/* A ranked memref descriptor: two pointers, the offset, sizes, strides. */
struct Descriptor {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizesAndStrides[];
};

static void print(int64_t rank, struct Descriptor *d, int kind) {
  const int64_t *sizes = d->sizesAndStrides;
  const int64_t *strides = sizes + rank;
  int64_t count = 1;
  printf("Unranked Memref rank = %lld sizes = [", (long long)rank);
  for (int64_t i = 0; i < rank; ++i) {
    printf(i ? ", %lld" : "%lld", (long long)sizes[i]);
    count *= sizes[i];
  }
  printf("] data = \n[");
  for (int64_t linear = 0; linear < count; ++linear) {
    int64_t rest = linear, offset = d->offset;
    for (int64_t i = rank - 1; i >= 0; --i) {
      offset += (rest % sizes[i]) * strides[i];
      rest /= sizes[i];
    }
    if (linear)
      printf(", ");
    switch (kind) {
    case 0:
      printf("%g", (double)((float *)d->aligned)[offset]);
      break;
    case 1:
      printf("%g", ((double *)d->aligned)[offset]);
      break;
    case 2:
      printf("%d", ((int32_t *)d->aligned)[offset]);
      break;
    default:
      printf("%lld", (long long)((int64_t *)d->aligned)[offset]);
      break;
    }
  }
  printf("]\n");
}

void printMemrefF32(int64_t rank, struct Descriptor *d) { print(rank, d, 0); }
void printMemrefF64(int64_t rank, struct Descriptor *d) { print(rank, d, 1); }
void printMemrefI32(int64_t rank, struct Descriptor *d) { print(rank, d, 2); }
void printMemrefI64(int64_t rank, struct Descriptor *d) { print(rank, d, 3); }
