//===- InitAll.h - Register everything bcast provides -----------*- C++ -*-===//
//
// The one entry point an embedder (or bcast-opt) calls to make bcast's
// dialect, passes and pipelines available. Part of the stable surface
// (docs/Embedding.md).
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_INITALL_H
#define BCAST_INITALL_H

namespace mlir {
class DialectRegistry;
namespace bcast {

/// Adds to `registry` 17 dialects and the interface models bcast's
/// pipelines need (InitAll.cpp groups them by purpose):
/// - dialects: bcast; those a module for the pipelines may mix with bcast
///   ops (arith, bufferization, func, linalg, math, memref, scf, tensor,
///   vector); those of a sharded module (shard, mpi, dlti); and those the
///   translations to LLVM IR add with themselves (builtin, gpu, llvm,
///   nvvm);
/// - bufferization and buffer deallocation models, bcast's own and
///   upstream's for the ops the lowering produces (arith, cf, func, linalg,
///   memref, scf, tensor, vector);
/// - sharding models: bcast's, and upstream's for the ops beside them
///   (arith, func, linalg, tensor); the MPI-to-LLVM interface;
/// - what --bcast-to-nvvm needs: the convert-to-llvm interfaces (arith, cf,
///   func, gpu, index, math, memref, nvvm, ub, vector), the NVVM target
///   attribute's model, and the builtin, GPU, LLVM and NVVM translations to
///   LLVM IR.
/// unittests/Dialect/RegistrationTest.cpp checks the dialect list.
void registerBcastDialect(DialectRegistry &registry);

/// Registers with the global registry bcast's passes (those on bcast ops,
/// the conversions and the dialect-independent ones), its pipelines
/// (--bcast-to-linalg, --bcast-to-llvm, --bcast-to-nvvm) and the upstream
/// passes those pipelines are built from, so that textual pipelines
/// (--pass-pipeline, mlirParsePassPipeline) can name them all.
void registerBcastPassesAndPipelines();

/// Both of the above: after this call a context using `registry` parses bcast
/// IR and runs bcast's pipelines, with nothing else registered. Safe to call
/// more than once and together with upstream's registerAll* functions.
void registerAllBcastDialectsAndPasses(DialectRegistry &registry);

} // namespace bcast
} // namespace mlir

#endif // BCAST_INITALL_H
