// Runs the kernels of sharded.mlir.in on one MPI rank: builds the global
// inputs by formula, passes this rank's local blocks (docs/Sharding.md: equal
// contiguous blocks, process r at the row-major coordinates of r), and writes
// every result to <prefix>.<rank> as "name v0 v1 ..." for check_sharded.py.
// Usage: sharded_driver <prefix> <loop iterations of loop_reduce>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
} M1;
typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} M2;

void _mlir_ciface_row(M2 *, M2 *, M1 *);
void _mlir_ciface_col(M2 *, M2 *, M2 *);
void _mlir_ciface_slice(M2 *, M2 *, M1 *);
void _mlir_ciface_gather(M2 *, M2 *, M1 *);
void _mlir_ciface_reduce(M1 *, M2 *);
void _mlir_ciface_amax(M2 *, M2 *);
void _mlir_ciface_grad(M2 *, M2 *);
void _mlir_ciface_chain(M2 *, M2 *, M1 *, M2 *, M2 *);
void _mlir_ciface_loop_reduce(M1 *, M2 *);
void _mlir_ciface_grid2(M2 *, M2 *, M1 *);
void _mlir_ciface_pin(M2 *, M2 *, M1 *);
void _mlir_ciface_view(M2 *, M2 *, int64_t, M2 *);

static float A[8][16], B[16], C[8], D[16];

/// The block (rowBlock of rowParts, colBlock of colParts) of an R x K global
/// matrix, as a fresh contiguous memref.
static M2 block2(const float *global, int64_t rows, int64_t cols, int rowParts,
                 int rowBlock, int colParts, int colBlock) {
  int64_t r = rows / rowParts, c = cols / colParts;
  float *data = malloc(sizeof(float) * r * c);
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j)
      data[i * c + j] = global[(rowBlock * r + i) * cols + colBlock * c + j];
  M2 m = {data, data, 0, {r, c}, {c, 1}};
  return m;
}

static M1 block1(const float *global, int64_t size, int parts, int index) {
  int64_t n = size / parts;
  float *data = malloc(sizeof(float) * n);
  for (int64_t i = 0; i < n; ++i)
    data[i] = global[index * n + i];
  M1 m = {data, data, 0, {n}, {1}};
  return m;
}

static void write2(FILE *out, const char *name, M2 m) {
  fprintf(out, "%s", name);
  for (int64_t i = 0; i < m.sizes[0]; ++i)
    for (int64_t j = 0; j < m.sizes[1]; ++j)
      fprintf(out, " %.9g",
              m.aligned[m.offset + i * m.strides[0] + j * m.strides[1]]);
  fprintf(out, "\n");
  free(m.allocated);
}

static void write1(FILE *out, const char *name, M1 m) {
  fprintf(out, "%s", name);
  for (int64_t i = 0; i < m.sizes[0]; ++i)
    fprintf(out, " %.9g", m.aligned[m.offset + i * m.strides[0]]);
  fprintf(out, "\n");
  free(m.allocated);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // The same formulas as check_sharded.py.
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 16; ++j)
      A[i][j] = (float)((i * 16 + j) % 23) * 0.25f - 2.0f;
  for (int j = 0; j < 16; ++j) {
    B[j] = (float)j * 0.5f - 3.0f;
    D[j] = (float)j * 0.125f;
  }
  for (int i = 0; i < 8; ++i)
    C[i] = (float)i - 2.5f;

  char path[4096];
  snprintf(path, sizeof(path), "%s.%d", argv[1], rank);
  FILE *out = fopen(path, "w");
  if (!out) {
    perror(path);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int half = size / 2, row2 = rank / half, col2 = rank % half;
  M2 r2;
  M1 r1;

  M2 a = block2(&A[0][0], 8, 16, size, rank, 1, 0);
  M1 b = block1(B, 16, 1, 0);
  _mlir_ciface_row(&r2, &a, &b);
  write2(out, "row", r2);
  _mlir_ciface_gather(&r2, &a, &b);
  write2(out, "gather", r2);
  _mlir_ciface_reduce(&r1, &a);
  write1(out, "reduce", r1);
  _mlir_ciface_amax(&r2, &a);
  write2(out, "amax", r2);
  _mlir_ciface_grad(&r2, &a);
  write2(out, "grad", r2);
  M2 c = block2(C, 8, 1, size, rank, 1, 0);
  M2 d = block2(D, 1, 16, 1, 0, 1, 0);
  _mlir_ciface_chain(&r2, &a, &b, &c, &d);
  write2(out, "chain", r2);
  _mlir_ciface_pin(&r2, &a, &b);
  write2(out, "pin", r2);
  _mlir_ciface_view(&r2, &c, 16, &a);
  write2(out, "view", r2);
  free(a.allocated);
  free(c.allocated);

  M2 cWhole = block2(C, 8, 1, 1, 0, 1, 0);
  M2 aCols = block2(&A[0][0], 8, 16, 1, 0, size, rank);
  _mlir_ciface_col(&r2, &cWhole, &aCols);
  write2(out, "col", r2);
  _mlir_ciface_slice(&r2, &aCols, &b);
  write2(out, "slice", r2);
  free(aCols.allocated);

  // 2-D grid 2 x half: this rank is (row2, col2).
  M2 aRows2 = block2(&A[0][0], 8, 16, 2, row2, 1, 0);
  int iterations = atoi(argv[2]);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    _mlir_ciface_loop_reduce(&r1, &aRows2);
    if (iteration + 1 < iterations)
      free(r1.allocated);
  }
  write1(out, "loop_reduce", r1);
  free(aRows2.allocated);
  M2 aBlocks = block2(&A[0][0], 8, 16, 2, row2, half, col2);
  M1 bCols = block1(B, 16, half, col2);
  _mlir_ciface_grid2(&r2, &aBlocks, &bCols);
  write2(out, "grid2", r2);
  free(aBlocks.allocated);
  free(bCols.allocated);
  free(b.allocated);
  free(cWhole.allocated);
  free(d.allocated);

  fclose(out);
  MPI_Finalize();
  return 0;
}
