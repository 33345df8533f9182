//===- bcast-fuzz.cpp - libFuzzer target for bcast ------------------------===//
//
// Treats each input as an MLIR module (text, or bytecode when it starts with
// MLIR's magic number) in a context that knows bcast and what its pipelines
// need, and on whatever parses and verifies runs canonicalization (the
// folders), bcast's diagnostic passes, --bcast-to-linalg and --bcast-to-llvm
// with several options. Diagnostics are expected and swallowed; what the
// fuzzer reports is a crash, a sanitizer error, a hang, or IR that a pass
// left invalid (checked after every pass: the pipelines must never produce
// IR that does not verify).
//
//===----------------------------------------------------------------------===//

#include "bcast/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir;

namespace {
/// Verifies the IR after every pass and aborts, naming the pass, when a
/// pass produced IR that does not verify: that is a bug, not a diagnostic.
struct VerifyAfterEachPass : public PassInstrumentation {
  void runAfterPass(Pass *pass, Operation *op) override {
    if (succeeded(verify(op)))
      return;
    llvm::errs() << "bcast-fuzz: pass '" << pass->getArgument()
                 << "' produced IR that does not verify\n";
    abort();
  }
};

/// The pipelines run on every module that verifies, each on a fresh copy
/// (test/Robustness/Inputs/replay.py reads this list from this file).
/// They are pass lists for a PassManager anchored on builtin.module: parsing
/// "builtin.module(...)" into such a PassManager would nest it one level
/// deeper, where it silently runs on nothing.
const char *const kPipelines[] = {
    "canonicalize",
    "bcast-explain,bcast-backcompat-warnings",
    "bcast-to-linalg",
    "bcast-to-linalg{broadcast-policy=static}",
    "bcast-to-llvm{parallel=false}",
    "bcast-to-llvm{broadcast-policy=static vectorize=false report-errors=true}",
    "bcast-to-llvm",
    "bcast-to-llvm{vector-math=libmvec parallel=false}",
};

DialectRegistry *registry;

/// BCAST_FUZZ_TRACE=1 prints what each input went through (used by
/// test/Robustness/fuzz-harness.test to check that the pipelines run).
bool trace;
} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  trace = getenv("BCAST_FUZZ_TRACE") != nullptr;
  registry = new DialectRegistry();
  bcast::registerAllBcastDialectsAndPasses(*registry);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A fresh context per input: uniqued types and attributes do not pile up
  // over a long run, and no input sees another's state.
  MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });

  // MLIR's lexer relies on a NUL after the buffer, as files read by
  // MemoryBuffer have; libFuzzer's input has none, so copy it.
  std::string text(reinterpret_cast<const char *>(data), size);
  ParserConfig config(&context);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config);
  if (!module || failed(verify(*module))) {
    if (trace)
      llvm::errs() << "bcast-fuzz: input does not parse or verify\n";
    return 0;
  }

  for (const char *pipeline : kPipelines) {
    OwningOpRef<ModuleOp> copy = module->clone();
    PassManager pm(&context);
    pm.enableVerifier(false); // VerifyAfterEachPass does it, and aborts.
    pm.addInstrumentation(std::make_unique<VerifyAfterEachPass>());
    if (failed(parsePassPipeline(pipeline, pm, llvm::errs()))) {
      llvm::errs() << "bcast-fuzz: cannot build " << pipeline << "\n";
      abort();
    }
    LogicalResult result = pm.run(*copy);
    if (trace) {
      unsigned ops = 0;
      copy->walk([&](Operation *) { ++ops; });
      llvm::errs() << "bcast-fuzz: " << pipeline << ": "
                   << (succeeded(result) ? "ok" : "failed") << ", " << ops
                   << " ops";
      if (succeeded(result))
        llvm::errs()
            << ", first op of the body: "
            << (copy->getBody()->empty()
                    ? StringRef("none")
                    : copy->getBody()->front().getName().getStringRef());
      llvm::errs() << "\n";
    }
  }
  return 0;
}
