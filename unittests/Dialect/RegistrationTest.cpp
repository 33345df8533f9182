//===- RegistrationTest.cpp - What registerBcastDialect adds --------------===//
//
// Keeps the documentation of registerBcastDialect (InitAll.h) true: the
// dialects it adds to an empty registry, the translations' included, are
// exactly those it lists.
//
//===----------------------------------------------------------------------===//

#include "bcast/InitAll.h"

#include "mlir/IR/DialectRegistry.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace mlir;

namespace {
TEST(RegistrationTest, DialectsAreThoseDocumented) {
  DialectRegistry registry;
  bcast::registerBcastDialect(registry);
  std::vector<std::string> names;
  for (StringRef name : registry.getDialectNames())
    names.push_back(name.str());
  // The list in InitAll.h, sorted as the registry keeps it.
  std::vector<std::string> documented = {
      "arith", "bcast",  "bufferization", "builtin", "dlti",   "func",
      "gpu",   "linalg", "llvm",          "math",    "memref", "mpi",
      "nvvm",  "scf",    "shard",         "tensor",  "vector"};
  EXPECT_EQ(names, documented);
}
} // namespace
