//===- InitAll.h - Register everything bcast provides -------------*- C++ -*-===//
//
// The one entry point an embedder (or bcast-opt) calls to make bcast's
// dialect, passes and pipelines available.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_INITALL_H
#define BCAST_INITALL_H

namespace mlir {
class DialectRegistry;
namespace bcast {

/// Adds the bcast dialect to `registry`.
void registerBcastDialect(DialectRegistry &registry);

/// Registers bcast's passes and pass pipelines with the global registry.
void registerBcastPassesAndPipelines();

/// Both of the above.
void registerAllBcastDialectsAndPasses(DialectRegistry &registry);

} // namespace bcast
} // namespace mlir

#endif // BCAST_INITALL_H
