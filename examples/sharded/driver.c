// The C driver of examples/sharded/sharded.mlir: each of the 2 ranks passes
// its local blocks (rows 4r..4r+3 of x and scale, the whole bias), gets the
// whole results back and prints them. See docs/Sharding.md.
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
} MemRef1D;
typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} MemRef2D;

// The partitioned functions keep their names and take the local shards.
void _mlir_ciface_scaled(MemRef2D *result, MemRef2D *x, MemRef1D *bias,
                         MemRef2D *scale);
void _mlir_ciface_colsum(MemRef1D *result, MemRef2D *x);

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv); // the caller owns MPI_Init and MPI_Finalize
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0)
      fprintf(stderr,
              "run with mpirun.mpich -n 2 (the grid has 2 processes)\n");
    MPI_Finalize();
    return 1;
  }

  // This rank's rows of x[i][j] = i + j / 16 and scale[i] = i + 1.
  float x[4][16], bias[16], scale[4];
  for (int i = 0; i < 4; ++i) {
    int row = rank * 4 + i;
    for (int j = 0; j < 16; ++j)
      x[i][j] = (float)row + (float)j / 16.0f;
    scale[i] = (float)(row + 1);
  }
  for (int j = 0; j < 16; ++j)
    bias[j] = (float)j;
  MemRef2D xRef = {&x[0][0], &x[0][0], 0, {4, 16}, {16, 1}};
  MemRef1D biasRef = {bias, bias, 0, {16}, {1}};
  MemRef2D scaleRef = {scale, scale, 0, {4, 1}, {1, 1}};

  MemRef2D scaled;
  _mlir_ciface_scaled(&scaled, &xRef, &biasRef, &scaleRef);
  MemRef1D sums;
  _mlir_ciface_colsum(&sums, &xRef);

  if (rank == 1) { // every rank holds the whole results; one prints them
    printf("scaled[7][0..3] = %g %g %g %g\n", scaled.aligned[7 * 16 + 0],
           scaled.aligned[7 * 16 + 1], scaled.aligned[7 * 16 + 2],
           scaled.aligned[7 * 16 + 3]);
    printf("colsum[0..3] = %g %g %g %g\n", sums.aligned[0], sums.aligned[1],
           sums.aligned[2], sums.aligned[3]);
  }
  free(scaled.allocated); // results are malloc'd; the caller frees them
  free(sums.allocated);
  MPI_Finalize();
  return 0;
}
