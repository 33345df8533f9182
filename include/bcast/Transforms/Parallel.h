//===- Parallel.h - How bcast's CPU loops share work -----------*- C++ -*-===//
//
// The constants every pass that opens a parallel loop uses, in one place:
// the most tasks a loop is cut into, the default grain size below which
// work stays on the calling thread (also read by the Python extension,
// which keeps the GIL below it), and the marker bcast-fuse-rows leaves on
// a row-block loop it keeps on one thread, so that the vector lowerings do
// not parallelize the ops inside it again.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_TRANSFORMS_PARALLEL_H
#define BCAST_TRANSFORMS_PARALLEL_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir {
namespace bcast {

/// At most this many parallel tasks share a loop's rows (each a block of
/// ceil(rows / kMaxTasks) rows): enough to balance the cores, few enough
/// that a task's start-up is small next to its rows.
inline constexpr int64_t kMaxTasks = 256;

/// Work of fewer elements than this stays on the calling thread, where
/// starting the OpenMP threads would cost more than they save (the
/// measurement is in docs/Benchmarks.md, "Grain size").
inline constexpr int64_t kDefaultGrainSize = 32768;

/// Generics whose buffers hold at most this many bytes together take the
/// vectorizers' in-cache-vector-bytes (the measurement is in
/// docs/Benchmarks.md, "Vector width by size").
inline constexpr int64_t kDefaultInCacheBytes = 8 << 20;

/// The bytes of the vectors that the pipeline's element-wise loops with a
/// costly math function compute side by side per iteration on the libmvec
/// routes (math-interleave=0). An inline f32 gelu measured 1.15-1.25x
/// faster with 2 64-byte vectors and 1.2-1.4x with 4 than with 1 on
/// AVX-512, 1.9-2.2x with 4 32-byte vectors and 2.2-2.5x with 8 on AVX2
/// (docs/Benchmarks.md).
inline constexpr int64_t kDefaultMathInterleaveBytes = 256;

/// The unit attribute on an `scf.for` over row blocks that bcast-fuse-rows
/// keeps sequential (work below the grain size).
inline constexpr llvm::StringLiteral kSequentialRowsAttrName =
    "bcast.sequential_rows";

/// The unit attribute on the last op of a math function that a pass wrote
/// out as arithmetic before the vectorizers (bcast-expand-gelu): they size
/// its vectors as those of a costly math function (math-vector-bytes).
inline constexpr llvm::StringLiteral kInlineMathAttrName = "bcast.inline_math";

} // namespace bcast
} // namespace mlir

#endif // BCAST_TRANSFORMS_PARALLEL_H
