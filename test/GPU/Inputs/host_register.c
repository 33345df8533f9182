/* mgpuMemHostRegisterMemRef / mgpuMemHostUnregisterMemRef on the memrefs
   the lowering can hand them: a negative stride (a reversed view, whose
   offset points at its last element in memory), a stride-0 broadcast
   dimension, and an empty memref (nothing to register). Any driver error
   ends the process with status 1 and a message; success prints "ok". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct Descriptor2 {
  char *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
};

void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementSizeBytes);
void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementSizeBytes);

int main(void) {
  enum { N = 1 << 18 };
  float *data = malloc(N * sizeof(float));
  /* data[N-1], data[N-2], ..., data[0]. */
  struct Descriptor2 reversed = {
      (char *)data, (char *)data, N - 1, {1, N}, {N, -1}};
  mgpuMemHostRegisterMemRef(2, &reversed, sizeof(float));
  mgpuMemHostUnregisterMemRef(2, &reversed, sizeof(float));
  /* A row broadcast to 4 rows: the rows share the same N elements. */
  struct Descriptor2 rows = {(char *)data, (char *)data, 0, {4, N}, {0, 1}};
  mgpuMemHostRegisterMemRef(2, &rows, sizeof(float));
  mgpuMemHostUnregisterMemRef(2, &rows, sizeof(float));
  struct Descriptor2 empty = {(char *)data, (char *)data, 0, {0, N}, {N, 1}};
  mgpuMemHostRegisterMemRef(2, &empty, sizeof(float));
  mgpuMemHostUnregisterMemRef(2, &empty, sizeof(float));
  free(data);
  printf("ok\n");
  return 0;
}
