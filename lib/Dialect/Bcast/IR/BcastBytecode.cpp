//===- BcastBytecode.cpp - The bcast dialect's bytecode version -----------===//
//
// Writes kBcastBytecodeVersion (or the version a BytecodeWriterConfig asks
// for) as one varint, and reads it back: 0 and versions newer than this build
// are errors, so that bytecode from a newer bcast is rejected with a message
// rather than misread. bcast has no attributes or types of its own, so the
// version is all this interface encodes.
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/IR/BcastBytecode.h"
#include "bcast/Dialect/Bcast/IR/BcastDialect.h"

using namespace mlir;
using namespace mlir::bcast;

namespace {
struct BcastBytecodeInterface : public BytecodeDialectInterface {
  explicit BcastBytecodeInterface(Dialect *dialect)
      : BytecodeDialectInterface(dialect) {}

  void writeVersion(DialectBytecodeWriter &writer) const final {
    uint64_t version = kBcastBytecodeVersion;
    // A writer config may ask for another version (tests write future
    // versions this way).
    FailureOr<const DialectVersion *> requested =
        writer.getDialectVersion<BcastDialect>();
    if (succeeded(requested))
      version = static_cast<const BcastDialectVersion *>(*requested)->version;
    writer.writeVarInt(version);
  }

  std::unique_ptr<DialectVersion>
  readVersion(DialectBytecodeReader &reader) const final {
    uint64_t version;
    if (failed(reader.readVarInt(version)))
      return nullptr;
    if (version == 0 || version > kBcastBytecodeVersion) {
      reader.emitError() << "bcast dialect bytecode version " << version
                         << " is not supported by this build of bcast, which "
                            "reads versions 1 to "
                         << kBcastBytecodeVersion;
      return nullptr;
    }
    return std::make_unique<BcastDialectVersion>(version);
  }

  LogicalResult upgradeFromVersion(Operation *topLevelOp,
                                   const DialectVersion &version) const final {
    // Version 1 is the oldest: nothing to upgrade yet.
    return success();
  }
};
} // namespace

void bcast::addBytecodeInterface(BcastDialect *dialect) {
  dialect->addInterfaces<BcastBytecodeInterface>();
}
