// The sharded row-broadcast benchmark of bench.py --sharded: out = a + b for
// a of ROWS x COLS split by rows over the MPI ranks and a row b, computed
// locally (`local`) and then gathered to every rank (`gathered`, one
// all-gather). Prints, on rank 0, the median over REPS of the time from a
// barrier before the call to a barrier after it (the slowest rank's), in ms,
// for each, after checking the gathered result.
// Usage: sharded_bench ROWS COLS REPS
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

void _mlir_ciface_local(M2 *, M2 *, M1 *);
void _mlir_ciface_gathered(M2 *, M2 *, M1 *);

static int compare(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

/// The median over `reps` calls of the slowest rank's time, in ms.
static double timeCalls(int gathered, M2 *a, M1 *b, int reps, int rank,
                        M2 *last) {
  double *times = malloc(sizeof(double) * reps);
  for (int rep = -2; rep < reps; ++rep) {
    M2 out;
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    if (gathered)
      _mlir_ciface_gathered(&out, a, b);
    else
      _mlir_ciface_local(&out, a, b);
    // Until every rank is done: with more ranks than cores, ranks that take
    // turns on a core would otherwise each time only their own turn.
    MPI_Barrier(MPI_COMM_WORLD);
    double mine = MPI_Wtime() - start, slowest = 0;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rep >= 0)
      times[rep] = slowest * 1e3;
    if (rep == reps - 1 && last)
      *last = out;
    else
      free(out.allocated);
  }
  qsort(times, reps, sizeof(double), compare);
  double median = times[reps / 2];
  free(times);
  (void)rank;
  return median;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 4) {
    fprintf(stderr, "usage: sharded_bench ROWS COLS REPS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int64_t rows = atoll(argv[1]), cols = atoll(argv[2]);
  int reps = atoi(argv[3]);
  int64_t local = rows / size;
  float *a = malloc(sizeof(float) * local * cols);
  float *b = malloc(sizeof(float) * cols);
  for (int64_t i = 0; i < local; ++i)
    for (int64_t j = 0; j < cols; ++j)
      a[i * cols + j] = (float)((rank * local + i) % 97) + (float)(j % 13);
  for (int64_t j = 0; j < cols; ++j)
    b[j] = (float)(j % 7) * 0.5f;
  M2 aRef = {a, a, 0, {local, cols}, {cols, 1}};
  M1 bRef = {b, b, 0, {cols}, {1}};

  double localMs = timeCalls(0, &aRef, &bRef, reps, rank, NULL);
  M2 whole;
  double gatheredMs = timeCalls(1, &aRef, &bRef, reps, rank, &whole);
  int64_t wrong = 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      float want = (float)(i % 97) + (float)(j % 13) + (float)(j % 7) * 0.5f;
      wrong += whole.aligned[i * cols + j] != want;
    }
  int64_t wrongAll = 0;
  MPI_Reduce(&wrong, &wrongAll, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("%.3f %.3f %lld\n", localMs, gatheredMs, (long long)wrongAll);
  free(whole.allocated);
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
