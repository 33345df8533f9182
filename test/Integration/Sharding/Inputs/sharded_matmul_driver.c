// Runs the kernels of sharded_matmul.mlir.in on one MPI rank: builds the
// global inputs by formula, passes this rank's local blocks (docs/Sharding.md:
// equal contiguous blocks, process r at the row-major coordinates of r), and
// writes every result to <prefix>.<rank> as "name v0 v1 ..." for
// check_sharded_matmul.py.
// Usage: sharded_matmul_driver <prefix>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/// An f32 memref descriptor of any rank R up to 3: the C interface's
/// {allocated, aligned, offset, sizes[R], strides[R]} laid out in `fields`
/// (offset, then the sizes, then the strides), so that one builder serves
/// every rank of argument.
typedef struct {
  float *allocated, *aligned;
  int64_t fields[7];
} F32Ref;
typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} F32Ref2;
typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
} F32Ref3;
typedef struct {
  int8_t *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
} I8Ref1;
typedef struct {
  int8_t *allocated, *aligned;
  int64_t offset;
} I8Ref0;

// The inputs are F32Ref of the argument's rank.
void _mlir_ciface_mlp(F32Ref2 *, F32Ref *, F32Ref *, F32Ref *, F32Ref *,
                      F32Ref *);
void _mlir_ciface_batch_bcast(F32Ref3 *, F32Ref *, F32Ref *);
void _mlir_ciface_batch_and_k(F32Ref3 *, F32Ref *, F32Ref *);
void _mlir_ciface_dot_i8(I8Ref0 *, I8Ref1 *, I8Ref1 *);

/// The block of a row-major global f32 array of shape `shape` (rank 1 to 3)
/// that has index `index[d]` of `parts[d]` equal blocks along each dim d, as
/// a fresh contiguous array; its local shape goes to `local`.
static float *block(const float *global, int rank, const int64_t *shape,
                    const int *parts, const int *index, int64_t *local) {
  int64_t s[3] = {1, 1, 1}, p[3] = {1, 1, 1}, k[3] = {0, 0, 0};
  int64_t off = 3 - rank;
  for (int d = 0; d < rank; ++d) {
    s[off + d] = shape[d];
    p[off + d] = parts[d];
    k[off + d] = index[d];
    local[d] = shape[d] / parts[d];
  }
  int64_t n0 = s[0] / p[0], n1 = s[1] / p[1], n2 = s[2] / p[2];
  float *data = malloc(sizeof(float) * n0 * n1 * n2);
  for (int64_t i = 0; i < n0; ++i)
    for (int64_t j = 0; j < n1; ++j)
      for (int64_t l = 0; l < n2; ++l)
        data[(i * n1 + j) * n2 + l] =
            global[((k[0] * n0 + i) * s[1] + k[1] * n1 + j) * s[2] + k[2] * n2 +
                   l];
  return data;
}

/// Fills a contiguous descriptor of rank `rank` for `data` of shape `local`.
static void describe(F32Ref *ref, float *data, int rank, const int64_t *local) {
  ref->allocated = ref->aligned = data;
  ref->fields[0] = 0;
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    ref->fields[1 + d] = local[d];
    ref->fields[1 + rank + d] = stride;
    stride *= local[d];
  }
}

/// Writes a result (of any rank up to 3; rank 0 has no sizes) and frees it.
static void writeF32(FILE *out, const char *name, float *allocated,
                     const float *aligned, int64_t offset, int rank,
                     const int64_t *sizes, const int64_t *strides) {
  int64_t n[3] = {1, 1, 1}, st[3] = {0, 0, 0};
  for (int d = 0; d < rank; ++d) {
    n[3 - rank + d] = sizes[d];
    st[3 - rank + d] = strides[d];
  }
  fprintf(out, "%s", name);
  for (int64_t i = 0; i < n[0]; ++i)
    for (int64_t j = 0; j < n[1]; ++j)
      for (int64_t l = 0; l < n[2]; ++l)
        fprintf(out, " %.9g",
                aligned[offset + i * st[0] + j * st[1] + l * st[2]]);
  fprintf(out, "\n");
  free(allocated);
}

// The global inputs (the same formulas as check_sharded_matmul.py).
static float X[4][8], W1[8][16], B1[16], W2[16][8], B2[8];
static float A3[4][3][8], B3[1][8][5], A4[4][2][8], Bk[8][3];
static int8_t V8[16], U8[16];

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j)
      X[i][j] = (float)((i * 8 + j) % 7) * 0.5f - 1.5f;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 16; ++j)
      W1[i][j] = (float)((i * 16 + j) % 11) * 0.125f - 0.5f;
  for (int j = 0; j < 16; ++j)
    B1[j] = (float)j * 0.25f - 2.0f;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j)
      W2[i][j] = (float)((i * 8 + j) % 5) * 0.25f - 0.5f;
  for (int j = 0; j < 8; ++j)
    B2[j] = (float)j * 0.5f;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 8; ++k)
        A3[i][j][k] = (float)((i * 24 + j * 8 + k) % 13) * 0.25f - 1.5f;
  for (int k = 0; k < 8; ++k)
    for (int n = 0; n < 5; ++n)
      B3[0][k][n] = (float)((k * 5 + n) % 7) * 0.5f - 1.0f;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 8; ++k)
        A4[i][j][k] = (float)((i * 16 + j * 8 + k) % 9) * 0.5f - 2.0f;
  for (int k = 0; k < 8; ++k)
    for (int n = 0; n < 3; ++n)
      Bk[k][n] = (float)((k * 3 + n) % 5) * 0.75f - 1.0f;
  for (int k = 0; k < 16; ++k) {
    V8[k] = (int8_t)((k * 37) % 256 - 128);
    U8[k] = (int8_t)((k * 11) % 100 + 20);
  }

  char path[4096];
  snprintf(path, sizeof(path), "%s.%d", argv[1], rank);
  FILE *out = fopen(path, "w");
  if (!out) {
    perror(path);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  // This rank's coordinates on the 2 x half grid.
  int half = size / 2, row2 = rank / half, col2 = rank % half;

  // mlp on @g1: w1 and b1 split on the hidden dim, w2 on its rows.
  {
    F32Ref x, w1, b1, w2, b2;
    int64_t local[3];
    describe(&x,
             block(&X[0][0], 2, (int64_t[]){4, 8}, (int[]){1, 1}, (int[]){0, 0},
                   local),
             2, local);
    describe(&w1,
             block(&W1[0][0], 2, (int64_t[]){8, 16}, (int[]){1, size},
                   (int[]){0, rank}, local),
             2, local);
    describe(&b1,
             block(B1, 1, (int64_t[]){16}, (int[]){size}, (int[]){rank}, local),
             1, local);
    describe(&w2,
             block(&W2[0][0], 2, (int64_t[]){16, 8}, (int[]){size, 1},
                   (int[]){rank, 0}, local),
             2, local);
    describe(&b2, block(B2, 1, (int64_t[]){8}, (int[]){1}, (int[]){0}, local),
             1, local);
    F32Ref2 y;
    _mlir_ciface_mlp(&y, &x, &w1, &b1, &w2, &b2);
    writeF32(out, "mlp", y.allocated, y.aligned, y.offset, 2, y.sizes,
             y.strides);
    free(x.allocated);
    free(w1.allocated);
    free(b1.allocated);
    free(w2.allocated);
    free(b2.allocated);
  }

  // batch_bcast on @g1: a split on its batch dim, b [1,8,5] whole.
  {
    F32Ref a, b;
    int64_t local[3];
    describe(&a,
             block(&A3[0][0][0], 3, (int64_t[]){4, 3, 8}, (int[]){size, 1, 1},
                   (int[]){rank, 0, 0}, local),
             3, local);
    describe(&b,
             block(&B3[0][0][0], 3, (int64_t[]){1, 8, 5}, (int[]){1, 1, 1},
                   (int[]){0, 0, 0}, local),
             3, local);
    F32Ref3 r;
    _mlir_ciface_batch_bcast(&r, &a, &b);
    writeF32(out, "batch_bcast", r.allocated, r.aligned, r.offset, 3, r.sizes,
             r.strides);
    free(a.allocated);
    free(b.allocated);
  }

  // batch_and_k on @g2: a split on its batch dim over axis 0 and on K over
  // axis 1, b on K over axis 1.
  {
    F32Ref a, b;
    int64_t local[3];
    describe(&a,
             block(&A4[0][0][0], 3, (int64_t[]){4, 2, 8}, (int[]){2, 1, half},
                   (int[]){row2, 0, col2}, local),
             3, local);
    describe(&b,
             block(&Bk[0][0], 2, (int64_t[]){8, 3}, (int[]){half, 1},
                   (int[]){col2, 0}, local),
             2, local);
    F32Ref3 r;
    _mlir_ciface_batch_and_k(&r, &a, &b);
    writeF32(out, "batch_and_k", r.allocated, r.aligned, r.offset, 3, r.sizes,
             r.strides);
    free(a.allocated);
    free(b.allocated);
  }

  // dot_i8 on @g1: a is annotated split, and propagation splits b, which
  // shares the contracted dim, alike.
  {
    int64_t n = 16 / size;
    int8_t *a = malloc(n), *b = malloc(n);
    for (int64_t k = 0; k < n; ++k) {
      a[k] = V8[rank * n + k];
      b[k] = U8[rank * n + k];
    }
    I8Ref1 av = {a, a, 0, {n}, {1}}, bv = {b, b, 0, {n}, {1}};
    I8Ref0 r;
    _mlir_ciface_dot_i8(&r, &av, &bv);
    fprintf(out, "dot_i8 %d\n", (int)r.aligned[r.offset]);
    free(r.allocated);
    free(a);
    free(b);
  }

  fclose(out);
  MPI_Finalize();
  return 0;
}
