//===- MPIRuntime.cpp - The collectives of partitioned bcast programs -----===//
//
// libbcast_mpi_runtime.so: the entry points bcast-shard-to-mpi calls for
// shard.all_reduce and shard.all_gather, on MPICH. A communicator is
// created on first use for each (grid shape, axis list) and kept for the
// life of the process: upstream's lowering splits a new communicator on
// every call and never frees it, which exhausts MPICH's 2,048 context ids
// after a few thousand calls. A group that is the whole grid in row-major
// order is MPI_COMM_WORLD itself.
//
// Buffers arrive as flat memref<?xT> descriptors expanded into (allocated,
// aligned, offset, size, stride) arguments; bcast-shard-to-mpi makes them
// contiguous. The caller owns MPI_Init and MPI_Finalize (docs/Sharding.md).
//
//===----------------------------------------------------------------------===//

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#define BCAST_MPI_EXPORT extern "C" __attribute__((visibility("default")))

constexpr int kMaxGridRank = 4;

namespace {

/// A grid and the ordered axes of a process group on it.
struct GroupKey {
  std::vector<int64_t> gridShape;
  std::vector<int64_t> axes;
  bool operator<(const GroupKey &other) const {
    return std::tie(gridShape, axes) < std::tie(other.gridShape, other.axes);
  }
};
} // namespace

[[noreturn]] static void fail(const char *message) {
  std::fprintf(stderr, "bcast MPI runtime: %s\n", message);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

static void check(int status, const char *what) {
  if (status == MPI_SUCCESS)
    return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(status, text, &length);
  std::fprintf(stderr, "bcast MPI runtime: %s failed: %s\n", what, text);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

/// The communicator of the processes that differ from this one only in
/// `key.axes`, ranked by their row-major index over those axes in the order
/// given (shard's process_linear_index convention).
static MPI_Comm getCommunicator(const GroupKey &key) {
  static std::map<GroupKey, MPI_Comm> cache;
  auto found = cache.find(key);
  if (found != cache.end())
    return found->second;

  int64_t gridSize = 1;
  for (int64_t size : key.gridShape)
    gridSize *= size;
  int worldSize = 0;
  int worldRank = 0;
  check(MPI_Comm_size(MPI_COMM_WORLD, &worldSize), "MPI_Comm_size");
  check(MPI_Comm_rank(MPI_COMM_WORLD, &worldRank), "MPI_Comm_rank");
  if (worldSize != gridSize) {
    char message[160];
    std::snprintf(message, sizeof(message),
                  "the grid has %lld processes but MPI_COMM_WORLD has %d",
                  static_cast<long long>(gridSize), worldSize);
    fail(message);
  }

  bool wholeGridInOrder = key.axes.size() == key.gridShape.size();
  for (size_t i = 0; wholeGridInOrder && i < key.axes.size(); ++i)
    wholeGridInOrder = key.axes[i] == static_cast<int64_t>(i);
  MPI_Comm comm = MPI_COMM_WORLD;
  if (!wholeGridInOrder) {
    // Row-major delinearization of the world rank gives the coordinates.
    std::vector<int64_t> coords(key.gridShape.size());
    int64_t rest = worldRank;
    for (size_t i = key.gridShape.size(); i-- > 0;) {
      coords[i] = rest % key.gridShape[i];
      rest /= key.gridShape[i];
    }
    std::vector<bool> inGroup(key.gridShape.size(), false);
    int64_t index = 0;
    for (int64_t axis : key.axes) {
      inGroup[axis] = true;
      index = index * key.gridShape[axis] + coords[axis];
    }
    int64_t color = 0;
    for (size_t i = 0; i < key.gridShape.size(); ++i)
      if (!inGroup[i])
        color = color * key.gridShape[i] + coords[i];
    check(MPI_Comm_split(MPI_COMM_WORLD, static_cast<int>(color),
                         static_cast<int>(index), &comm),
          "MPI_Comm_split");
  }
  cache.emplace(key, comm);
  return comm;
}

static GroupKey makeKey(int64_t gridRank, const int64_t *gridShape,
                        int64_t numAxes, const int64_t *axes) {
  if (gridRank < 0 || gridRank > kMaxGridRank || numAxes < 0 ||
      numAxes > gridRank)
    fail("invalid grid description");
  GroupKey key;
  key.gridShape.assign(gridShape, gridShape + gridRank);
  key.axes.assign(axes, axes + numAxes);
  for (int64_t axis : key.axes)
    if (axis < 0 || axis >= gridRank)
      fail("invalid grid axis");
  return key;
}

namespace {

template <typename T> struct MPIType;
template <> struct MPIType<float> {
  static MPI_Datatype get() { return MPI_FLOAT; }
};
template <> struct MPIType<double> {
  static MPI_Datatype get() { return MPI_DOUBLE; }
};
template <> struct MPIType<uint8_t> {
  // i1 is stored one byte per element, 0 or 1.
  static MPI_Datatype get() { return MPI_UINT8_T; }
};
template <> struct MPIType<int8_t> {
  static MPI_Datatype get() { return MPI_INT8_T; }
};
template <> struct MPIType<int16_t> {
  static MPI_Datatype get() { return MPI_INT16_T; }
};
template <> struct MPIType<int32_t> {
  static MPI_Datatype get() { return MPI_INT32_T; }
};
template <> struct MPIType<int64_t> {
  static MPI_Datatype get() { return MPI_INT64_T; }
};

/// The codes bcast-shard-to-mpi passes (getRuntimeReductionCode).
enum class Reduction : int64_t { Sum, Product, Max, Min, Average };
} // namespace

template <typename T>
static void allReduce(T *inAligned, int64_t inOffset, int64_t inSize,
                      T *outAligned, int64_t outOffset, int64_t outSize,
                      int64_t reduction, int64_t gridRank,
                      const int64_t *gridShape, int64_t numAxes,
                      const int64_t *axes) {
  if (inSize != outSize)
    fail("all_reduce buffers differ in size");
  MPI_Comm comm = getCommunicator(makeKey(gridRank, gridShape, numAxes, axes));
  MPI_Op op = MPI_SUM;
  switch (static_cast<Reduction>(reduction)) {
  case Reduction::Sum:
  case Reduction::Average:
    op = MPI_SUM;
    break;
  case Reduction::Product:
    op = MPI_PROD;
    break;
  case Reduction::Max:
    op = MPI_MAX;
    break;
  case Reduction::Min:
    op = MPI_MIN;
    break;
  default:
    fail("unknown reduction");
  }
  if (inSize > INT32_MAX)
    fail("all_reduce of more than 2^31-1 elements");
  check(MPI_Allreduce(inAligned + inOffset, outAligned + outOffset,
                      static_cast<int>(inSize), MPIType<T>::get(), op, comm),
        "MPI_Allreduce");
  if constexpr (std::is_floating_point_v<T>) {
    if (static_cast<Reduction>(reduction) == Reduction::Average) {
      int groupSize = 1;
      check(MPI_Comm_size(comm, &groupSize), "MPI_Comm_size");
      for (int64_t i = 0; i < outSize; ++i)
        outAligned[outOffset + i] /= static_cast<T>(groupSize);
    }
  } else if (static_cast<Reduction>(reduction) == Reduction::Average) {
    fail("average of integers");
  }
}

/// Gathers the blocks of the group along the gather axis: each process's
/// block is `outer` rows of `inner` contiguous elements, and the result
/// holds, for each outer row, the rows of every process in group order.
template <typename T>
static void allGather(T *inAligned, int64_t inOffset, int64_t inSize,
                      T *outAligned, int64_t outOffset, int64_t outSize,
                      int64_t outer, int64_t inner, int64_t gridRank,
                      const int64_t *gridShape, int64_t numAxes,
                      const int64_t *axes) {
  MPI_Comm comm = getCommunicator(makeKey(gridRank, gridShape, numAxes, axes));
  int groupSize = 1;
  check(MPI_Comm_size(comm, &groupSize), "MPI_Comm_size");
  if (outer * inner != inSize || inSize * groupSize != outSize)
    fail("all_gather buffer sizes do not match the group");
  if (inSize > INT32_MAX)
    fail("all_gather of more than 2^31-1 elements per process");
  T *in = inAligned + inOffset;
  T *out = outAligned + outOffset;
  if (outer == 1) {
    check(MPI_Allgather(in, static_cast<int>(inSize), MPIType<T>::get(), out,
                        static_cast<int>(inSize), MPIType<T>::get(), comm),
          "MPI_Allgather");
    return;
  }
  std::vector<T> staging(static_cast<size_t>(outSize));
  check(MPI_Allgather(in, static_cast<int>(inSize), MPIType<T>::get(),
                      staging.data(), static_cast<int>(inSize),
                      MPIType<T>::get(), comm),
        "MPI_Allgather");
  // staging is [process][outer][inner]; the result is [outer][process][inner].
  for (int64_t p = 0; p < groupSize; ++p)
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(out + (o * groupSize + p) * inner,
                  staging.data() + (p * outer + o) * inner,
                  static_cast<size_t>(inner) * sizeof(T));
}

// One pair of entry points per element type; the argument list is the
// expansion of (memref<?xT>, memref<?xT>, i64...) by the LLVM lowering.
#define BCAST_MPI_ENTRY_POINTS(SUFFIX, T)                                      \
  BCAST_MPI_EXPORT void bcast_mpi_all_reduce_##SUFFIX(                         \
      T *, T *inAligned, int64_t inOffset, int64_t inSize, int64_t, T *,       \
      T *outAligned, int64_t outOffset, int64_t outSize, int64_t,              \
      int64_t reduction, int64_t gridRank, int64_t g0, int64_t g1, int64_t g2, \
      int64_t g3, int64_t numAxes, int64_t a0, int64_t a1, int64_t a2,         \
      int64_t a3) {                                                            \
    const int64_t gridShape[] = {g0, g1, g2, g3};                              \
    const int64_t axes[] = {a0, a1, a2, a3};                                   \
    allReduce<T>(inAligned, inOffset, inSize, outAligned, outOffset, outSize,  \
                 reduction, gridRank, gridShape, numAxes, axes);               \
  }                                                                            \
  BCAST_MPI_EXPORT void bcast_mpi_all_gather_##SUFFIX(                         \
      T *, T *inAligned, int64_t inOffset, int64_t inSize, int64_t, T *,       \
      T *outAligned, int64_t outOffset, int64_t outSize, int64_t,              \
      int64_t outer, int64_t inner, int64_t gridRank, int64_t g0, int64_t g1,  \
      int64_t g2, int64_t g3, int64_t numAxes, int64_t a0, int64_t a1,         \
      int64_t a2, int64_t a3) {                                                \
    const int64_t gridShape[] = {g0, g1, g2, g3};                              \
    const int64_t axes[] = {a0, a1, a2, a3};                                   \
    allGather<T>(inAligned, inOffset, inSize, outAligned, outOffset, outSize,  \
                 outer, inner, gridRank, gridShape, numAxes, axes);            \
  }

BCAST_MPI_ENTRY_POINTS(f32, float)
BCAST_MPI_ENTRY_POINTS(f64, double)
BCAST_MPI_ENTRY_POINTS(i1, uint8_t)
BCAST_MPI_ENTRY_POINTS(i8, int8_t)
BCAST_MPI_ENTRY_POINTS(i16, int16_t)
BCAST_MPI_ENTRY_POINTS(i32, int32_t)
BCAST_MPI_ENTRY_POINTS(i64, int64_t)
