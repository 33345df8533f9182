//===- BcastBytecode.h - The bcast dialect's bytecode version ---*- C++ -*-===//
//
// The version the bcast dialect writes into MLIR bytecode, so that a reader
// can tell which bcast produced a file: a newer file is rejected with a
// diagnostic instead of being misread, and an older one can be upgraded
// (upgradeFromVersion). docs/Embedding.md states the compatibility policy.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_DIALECT_BCAST_IR_BCASTBYTECODE_H
#define BCAST_DIALECT_BCAST_IR_BCASTBYTECODE_H

#include "mlir/Bytecode/BytecodeImplementation.h"

#include <cstdint>

namespace mlir {
namespace bcast {
class BcastDialect;

/// The current version. Bump it when the meaning or the encoding of bcast
/// ops changes in a way an older reader would get wrong (an op removed or
/// renamed, an attribute reinterpreted), and teach upgradeFromVersion to
/// rewrite the older forms. A new op needs no bump: an older reader rejects
/// it as an unregistered op (`bcast.specify_shape` was added to version 1).
///   1: the first released form (the ops of docs/Embedding.md).
inline constexpr uint64_t kBcastBytecodeVersion = 1;

/// A bcast version read from bytecode.
struct BcastDialectVersion : public DialectVersion {
  explicit BcastDialectVersion(uint64_t version) : version(version) {}
  uint64_t version;
};

/// Adds the bytecode interface (version writing, reading and upgrades) to
/// the dialect; called from BcastDialect::initialize.
void addBytecodeInterface(BcastDialect *dialect);

} // namespace bcast
} // namespace mlir

#endif // BCAST_DIALECT_BCAST_IR_BCASTBYTECODE_H
