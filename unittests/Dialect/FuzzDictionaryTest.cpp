//===- FuzzDictionaryTest.cpp - The fuzzers' dictionary knows every op ----===//
//
// fuzz/bcast.dict is written by hand for libFuzzer (-dict=); its op names
// are what lets the fuzzers reach an op with few mutations. This test keeps
// it in step with the dialect: every registered bcast op has an `op_...`
// entry, and every `op_...` entry names a registered op.
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/IR/BcastDialect.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <set>
#include <string>

using namespace mlir;

namespace {
TEST(FuzzDictionaryTest, OpEntriesAreTheRegisteredOps) {
  MLIRContext context;
  context.loadDialect<bcast::BcastDialect>();
  std::set<std::string> registered;
  for (RegisteredOperationName name : context.getRegisteredOperations())
    if (name.getDialectNamespace() == "bcast")
      registered.insert(name.getStringRef().str());
  ASSERT_FALSE(registered.empty());

  const char *path = BCAST_SOURCE_DIR "/fuzz/bcast.dict";
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(bool(file)) << "cannot read " << path;
  // Entries such as op_add_inplace="bcast.add_ ": the op name and a space.
  std::set<std::string> listed;
  SmallVector<StringRef> lines;
  (*file)->getBuffer().split(lines, '\n');
  for (StringRef line : lines) {
    if (!line.starts_with("op_"))
      continue;
    StringRef value = line.split('=').second;
    ASSERT_TRUE(value.consume_front("\"bcast.") && value.consume_back(" \""))
        << "malformed op entry: " << line.str();
    listed.insert(("bcast." + value).str());
  }

  for (const std::string &name : registered)
    EXPECT_TRUE(listed.count(name)) << name << " has no op_ entry in " << path;
  for (const std::string &name : listed)
    EXPECT_TRUE(registered.count(name))
        << path << " lists " << name << ", which is not a bcast op";
}
} // namespace
