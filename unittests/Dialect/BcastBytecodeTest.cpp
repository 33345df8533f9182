//===- BcastBytecodeTest.cpp - The bcast dialect's bytecode version -------===//
//
// Writes bcast IR as bytecode with the current dialect version and with
// versions this build must refuse (0, and one newer than
// kBcastBytecodeVersion, as a newer bcast would write), and checks that the
// reader accepts the first and rejects the others with a diagnostic.
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/IR/BcastBytecode.h"
#include "bcast/Dialect/Bcast/IR/BcastDialect.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::bcast;

namespace {
constexpr const char *kProgram = R"mlir(
func.func @f(%a: tensor<3x1xi32>, %b: tensor<4xi32>) -> tensor<3x4xi32> {
  %r = bcast.div %a, %b {rounding_mode = "floor"} : (tensor<3x1xi32>, tensor<4xi32>) -> tensor<3x4xi32>
  return %r : tensor<3x4xi32>
}
)mlir";

class BcastBytecodeTest : public ::testing::Test {
protected:
  BcastBytecodeTest() {
    context.loadDialect<BcastDialect, func::FuncDialect>();
    module = parseSourceString<ModuleOp>(kProgram, &context);
  }

  /// The module as bytecode; `version` overrides the bcast version written.
  std::string writeBytecode(std::optional<uint64_t> version) {
    std::string bytes;
    llvm::raw_string_ostream os(bytes);
    BytecodeWriterConfig config;
    if (version)
      config.setDialectVersion<BcastDialect>(
          std::make_unique<BcastDialectVersion>(*version));
    EXPECT_TRUE(succeeded(writeBytecodeToFile(*module, os, config)));
    return bytes;
  }

  /// Parses `bytes`; on failure returns null and leaves the diagnostics in
  /// `errors`.
  OwningOpRef<ModuleOp> read(const std::string &bytes) {
    ScopedDiagnosticHandler handler(
        &context, [&](Diagnostic &diag) { errors += diag.str() + "\n"; });
    return parseSourceString<ModuleOp>(bytes, &context);
  }

  static std::string print(Operation *op) {
    std::string text;
    llvm::raw_string_ostream os(text);
    op->print(os);
    return text;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::string errors;
};

TEST_F(BcastBytecodeTest, CurrentVersionRoundTrips) {
  ASSERT_TRUE(module);
  OwningOpRef<ModuleOp> reread = read(writeBytecode(std::nullopt));
  ASSERT_TRUE(reread) << errors;
  EXPECT_EQ(print(*module), print(*reread));
}

TEST_F(BcastBytecodeTest, ExplicitCurrentVersionRoundTrips) {
  OwningOpRef<ModuleOp> reread = read(writeBytecode(kBcastBytecodeVersion));
  ASSERT_TRUE(reread) << errors;
  EXPECT_EQ(print(*module), print(*reread));
}

TEST_F(BcastBytecodeTest, NewerVersionIsRejected) {
  OwningOpRef<ModuleOp> reread = read(writeBytecode(kBcastBytecodeVersion + 1));
  EXPECT_FALSE(reread);
  EXPECT_NE(errors.find("bcast dialect bytecode version " +
                        std::to_string(kBcastBytecodeVersion + 1) +
                        " is not supported by this build of bcast, which "
                        "reads versions 1 to " +
                        std::to_string(kBcastBytecodeVersion)),
            std::string::npos)
      << errors;
}

TEST_F(BcastBytecodeTest, VersionZeroIsRejected) {
  OwningOpRef<ModuleOp> reread = read(writeBytecode(0));
  EXPECT_FALSE(reread);
  EXPECT_NE(errors.find("bcast dialect bytecode version 0 is not supported"),
            std::string::npos)
      << errors;
}

TEST_F(BcastBytecodeTest, TruncatedBytecodeIsAnError) {
  std::string bytes = writeBytecode(std::nullopt);
  // Every proper, non-empty prefix must fail cleanly: a diagnostic, no
  // crash. (The empty string is a valid, empty text module.)
  for (size_t length = 1; length < bytes.size(); ++length) {
    errors.clear();
    OwningOpRef<ModuleOp> reread = read(bytes.substr(0, length));
    EXPECT_FALSE(reread) << "prefix of " << length << " bytes parsed";
    EXPECT_FALSE(errors.empty()) << "prefix of " << length << " bytes";
  }
}
} // namespace
