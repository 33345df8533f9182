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

/// Adds to `registry` the bcast dialect, the dialects a module for bcast's
/// pipelines may mix with bcast ops (func, arith, math, tensor,
/// bufferization, memref, linalg, scf, vector), and the interface models
/// that bufferization and deallocation in those pipelines need (bcast's own
/// and upstream's for the ops the lowering produces).
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
