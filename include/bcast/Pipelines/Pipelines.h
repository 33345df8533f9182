//===- Pipelines.h - bcast's pass pipelines ---------------------*- C++ -*-===//
//
// The named pipelines of bcast-opt (--bcast-to-linalg, --bcast-to-llvm; the
// GPU one, --bcast-to-nvvm, is in GPUPipeline.h), their options, and the
// builders an embedder calls to run them on its own PassManager.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_PIPELINES_PIPELINES_H
#define BCAST_PIPELINES_PIPELINES_H

#include "bcast/Conversion/BroadcastPolicy.h"
#include "bcast/Transforms/Parallel.h"

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
namespace bcast {

/// The parser of the pipelines' `broadcast-policy` option: llvm::cl's parser
/// of the option's values, with bcast's message for any other value
/// (`bcast: broadcast-policy must be 'numpy' or 'static', not 'pytorch'`).
class BroadcastPolicyParser : public llvm::cl::parser<BroadcastPolicy> {
public:
  using llvm::cl::parser<BroadcastPolicy>::parser;

  /// Sets `value` from its spelling `arg`; an unknown spelling is reported
  /// on stderr and returns true (an error), as llvm::cl parsers do.
  bool parse(llvm::cl::Option &option, StringRef argName, StringRef arg,
             BroadcastPolicy &value);

  /// Prints `value` as it is spelled in the option.
  static void print(llvm::raw_ostream &os, BroadcastPolicy value);
};

/// How --bcast-to-llvm computes vector math functions (`vector-math`).
enum class VectorMath {
  /// One C library call per lane.
  Libm,
  /// glibc's vector math library, AVX2 (bcast-math-to-libmvec).
  Libmvec,
  /// Its AVX-512 functions, with 64-byte vectors in the generics that call
  /// them.
  LibmvecAvx512,
};

/// The parser of `vector-math`: llvm::cl's parser of the option's values,
/// with bcast's message for any other value (`bcast: vector-math must be
/// libm, libmvec or libmvec-avx512, not 'svml'`).
class VectorMathParser : public llvm::cl::parser<VectorMath> {
public:
  using llvm::cl::parser<VectorMath>::parser;

  /// Sets `value` from its spelling `arg`; an unknown spelling is reported
  /// on stderr and returns true (an error), as llvm::cl parsers do.
  bool parse(llvm::cl::Option &option, StringRef argName, StringRef arg,
             VectorMath &value);

  /// Prints `value` as it is spelled in the option.
  static void print(llvm::raw_ostream &os, VectorMath value);
};

/// The options every bcast pipeline takes. PassPipelineOptions derives
/// virtually from PassOptions, so a pipeline's options struct derives from
/// this one and from PassPipelineOptions of itself, and all options end up
/// in one set.
struct BcastCommonPipelineOptions
    : public PassPipelineOptions<BcastCommonPipelineOptions> {
  PassOptions::Option<BroadcastPolicy, BroadcastPolicyParser> broadcastPolicy{
      *this, "broadcast-policy",
      llvm::cl::desc("How `?` sizes broadcast at run time"),
      llvm::cl::init(BroadcastPolicy::NumPy), getBroadcastPolicyValues()};
  PassOptions::Option<bool> reportErrors{
      *this, "report-errors",
      llvm::cl::desc("Report a failed run-time check to the caller through "
                     "bcastReportError and return early, instead of printing "
                     "to stderr and exiting with status 1"),
      llvm::cl::init(false)};
};

/// Options of --bcast-to-linalg and --bcast-to-llvm (--bcast-to-linalg uses
/// only broadcast-policy).
struct BcastPipelineOptions : public BcastCommonPipelineOptions,
                              public PassPipelineOptions<BcastPipelineOptions> {
  using PassPipelineOptions<BcastPipelineOptions>::createFromString;

  PassOptions::Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Lower element-wise loops to explicit vector loops "
                     "(bcast-vectorize-elementwise)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> parallel{
      *this, "parallel",
      llvm::cl::desc("Run the outermost loop on all cores with OpenMP (needs "
                     "libomp.so at run time)"),
      llvm::cl::init(true)};
  PassOptions::Option<unsigned> numThreads{
      *this, "num-threads",
      llvm::cl::desc("OpenMP threads (0: OMP_NUM_THREADS or all cores)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> grainSize{
      *this, "grain-size",
      llvm::cl::desc("Results of fewer elements stay on one thread, and full "
                     "reductions of fewer elements are not split (0: always "
                     "parallel; docs/Benchmarks.md has the measurement)"),
      llvm::cl::init(kDefaultGrainSize)};
  // 32 (AVX2 width) rather than 64 even where AVX-512 exists: buffers from
  // NumPy and malloc are only 16-byte aligned, and every 64-byte access to
  // them straddles two cache lines (docs/Benchmarks.md has the
  // measurements). Clang, too, prefers 256-bit vectors on Intel's AVX-512
  // server targets.
  PassOptions::Option<int64_t> vectorBytes{
      *this, "vector-bytes",
      llvm::cl::desc("Bytes per vector of the vector loops"),
      llvm::cl::init(32)};
  // Off by default: on the machine measured, regular stores wrote as fast
  // or faster in nearly every comparison, up to 512 MiB results (its caches
  // are large; docs/Benchmarks.md). Machines with small caches may gain.
  // Off by default: the program then needs AVX2 (or AVX-512F) and
  // libmvec.so.1 at run time. The Python JIT turns it on where they exist.
  PassOptions::Option<VectorMath, VectorMathParser> vectorMath{
      *this, "vector-math",
      llvm::cl::desc("How vector math functions are computed"),
      llvm::cl::init(VectorMath::Libm),
      llvm::cl::values(
          clEnumValN(VectorMath::Libm, "libm", "one C library call per lane"),
          clEnumValN(VectorMath::Libmvec, "libmvec",
                     "glibc's vector math library, AVX2 "
                     "(bcast-math-to-libmvec)"),
          clEnumValN(VectorMath::LibmvecAvx512, "libmvec-avx512",
                     "its AVX-512 functions, with 64-byte vectors in the "
                     "generics that call them"))};
  // The two below exist to measure bcast's own passes against upstream's
  // route (benchmarks/bench.py --reductions, docs/Benchmarks.md).
  PassOptions::Option<bool> vectorizeReductions{
      *this, "vectorize-reductions",
      llvm::cl::desc("With vectorize, lower reductions with "
                     "bcast-vectorize-reductions (false: upstream's "
                     "convert-linalg-to-loops, scalar loops)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> inlineExp{
      *this, "inline-exp",
      llvm::cl::desc("With libmvec vector math, exp of f32 vectors inline "
                     "(bcast-expand-exp; false: the libmvec call)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> inlineErfc{
      *this, "inline-erfc",
      llvm::cl::desc("With libmvec-avx512 vector math, erfc of f64 vectors "
                     "marked afn (f32 gelu's) inline (bcast-expand-erfc; "
                     "false: the libmvec call, which the AVX2 route keeps)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> inlineGelu{
      *this, "inline-gelu",
      llvm::cl::desc("With libmvec vector math, f32 gelu (erf form) in f32 "
                     "inline arithmetic (bcast-expand-gelu; false: in f64, "
                     "its erfc as inline-erfc says)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> collapseDims{
      *this, "collapse-dims",
      llvm::cl::desc("Merge the loops of a bufferized broadcast generic that "
                     "every operand walks alike (bcast-collapse-dims)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> inCacheBytes{
      *this, "in-cache-bytes",
      llvm::cl::desc("With libmvec-avx512 vector math, generics whose "
                     "buffers hold at most this many bytes together take "
                     "64-byte vectors (0: none)"),
      llvm::cl::init(kDefaultInCacheBytes)};
  PassOptions::Option<int64_t> mathInterleave{
      *this, "math-interleave",
      llvm::cl::desc("With libmvec vector math, vectors per iteration of the "
                     "element-wise loops whose body computes a costly math "
                     "function, side by side (0: as many as hold 256 bytes; "
                     "1: one)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> nontemporalThreshold{
      *this, "nontemporal-threshold",
      llvm::cl::desc("Non-temporal stores for results of at least this many "
                     "bytes (0: never)"),
      llvm::cl::init(0)};
  // On by default: f32/f64 products then need libbcast_matmul_runtime.so at
  // run time (docs/Pipelines.md has the measurements of both routes).
  PassOptions::Option<bool> matmulBlas{
      *this, "matmul-blas",
      llvm::cl::desc("Run f32 and f64 bcast.matmul products on a BLAS "
                     "through libbcast_matmul_runtime.so "
                     "(bcast-matmul-to-blas); false: loops"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> matmulEpilogueRows{
      *this, "matmul-epilogue-rows",
      llvm::cl::desc("Rows per block when a BLAS product is tiled with its "
                     "element-wise epilogue (bcast-matmul-to-blas; 0: not "
                     "tiled; docs/Benchmarks.md has the measurements)"),
      llvm::cl::init(0)};
};

/// Conversion to linalg, then fusion of element-wise chains. Never fails;
/// returns a LogicalResult like the other builders.
LogicalResult buildBcastToLinalgPipeline(OpPassManager &pm,
                                         const BcastPipelineOptions &options);

/// All the way to the LLVM dialect, ready for mlir-runner or the
/// ExecutionEngine. Fails, with a message on stderr and nothing added to
/// `pm`, when an option value is invalid (vector-bytes <= 0).
LogicalResult buildBcastToLLVMPipeline(OpPassManager &pm,
                                       const BcastPipelineOptions &options);

/// Registers --bcast-to-linalg, --bcast-to-llvm and --bcast-to-nvvm with the
/// global registry (bcast-opt flags, and names for textual pipelines).
void registerBcastPipelines();

} // namespace bcast
} // namespace mlir

#endif // BCAST_PIPELINES_PIPELINES_H
