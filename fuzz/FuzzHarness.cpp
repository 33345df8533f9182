//===- FuzzHarness.cpp - What bcast's fuzz targets share ------------------===//
//
// Treats each input as an MLIR module (text, or bytecode when it starts with
// MLIR's magic number) in a fresh context that knows bcast and what its
// pipelines need, and checks what the target is for: the `parse` target that
// a module which parses and verifies prints and re-parses to itself in both
// forms and through bytecode; the others that their pipelines never leave IR
// that does not verify (checked after every pass). Diagnostics are expected
// and swallowed; a finding aborts, saying what failed, so that libFuzzer
// reports it. The custom mutator mixes programs from ProgramGenerator with
// structure-aware text mutations and libFuzzer's own.
//
//===----------------------------------------------------------------------===//

#include "FuzzHarness.h"
#include "ProgramGenerator.h"

#include "bcast/InitAll.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::bcast::fuzz;

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

namespace {

//===----------------------------------------------------------------------===//
// The pipelines of each target
//===----------------------------------------------------------------------===//

// Pass lists for a PassManager anchored on builtin.module: parsing
// "builtin.module(...)" into such a PassManager would nest it one level
// deeper, where it silently runs on nothing. Each runs on a fresh copy of
// the module. test/Robustness/Inputs/replay.py reads these tables from this
// file (k<Target>Pipelines).

/// `fold`: the folders and canonicalization patterns, and the diagnostic
/// passes.
const char *const kFoldPipelines[] = {
    "canonicalize",
    "bcast-explain,bcast-backcompat-warnings",
    "cse,canonicalize",
};

/// `llvm`: the conversion and the CPU pipeline with its option sets.
const char *const kLLVMPipelines[] = {
    "bcast-to-linalg",
    "bcast-to-linalg{broadcast-policy=static}",
    "bcast-to-llvm{parallel=false}",
    "bcast-to-llvm{broadcast-policy=static vectorize=false report-errors=true}",
    "bcast-to-llvm",
    "bcast-to-llvm{vector-math=libmvec parallel=false}",
    // AVX-512's widths: 64-byte vectors for math and for in-cache buffers.
    "bcast-to-llvm{vector-math=libmvec-avx512}",
};

/// `nvvm`: the GPU pipeline up to PTX (format=isa: no ptxas, no GPU).
const char *const kNVVMPipelines[] = {
    "bcast-to-nvvm",
    "bcast-to-nvvm{broadcast-policy=static report-errors=true}",
};

llvm::ArrayRef<const char *> pipelinesOf(Target target) {
  switch (target) {
  case Target::Parse:
    return {};
  case Target::Fold:
    return kFoldPipelines;
  case Target::LLVM:
    return kLLVMPipelines;
  case Target::NVVM:
    return kNVVMPipelines;
  }
  return {};
}

//===----------------------------------------------------------------------===//
// State
//===----------------------------------------------------------------------===//

DialectRegistry *registry;

/// BCAST_FUZZ_TRACE=1 prints what each input went through (used by
/// test/Robustness/fuzz-harness.test to check that the checks really run).
bool trace;

/// BCAST_FUZZ_MUTATOR=libfuzzer leaves mutation to libFuzzer alone.
bool generatorEnabled = true;

/// How many inputs one MLIRContext serves (BCAST_FUZZ_CONTEXT_REUSE; by
/// default 256 for parse and fold, 1 for llvm and nvvm).
unsigned contextReuse = 1;

/// The bcast op names, for the text mutations.
std::vector<std::string> *opNames;

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

//===----------------------------------------------------------------------===//
// The checks
//===----------------------------------------------------------------------===//

std::string print(ModuleOp module, OpPrintingFlags flags = {}) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, flags);
  return text;
}

/// Aborts with a round-trip finding: what was expected and what came back.
[[noreturn]] void roundTripFailed(llvm::StringRef what,
                                  llvm::StringRef expected,
                                  llvm::StringRef got) {
  llvm::errs() << "bcast-fuzz: " << what << "\n--- expected:\n"
               << expected << "\n--- got:\n"
               << got << "\n";
  abort();
}

/// Whether `module` holds a value of an f80 or f128 element type. MLIR 22
/// prints some of their constants (an f80 denormal such as 0xFF80) in a
/// decimal form that parses back to another value (0): an upstream bug,
/// mlir-opt --verify-roundtrip alike (docs/Robustness.md, finding 10).
/// bcast takes neither type, so the round trips skip such modules.
bool hasWideFloats(ModuleOp module) {
  auto wide = [](Type type) {
    Type element = getElementTypeOrSelf(type);
    return element.isF80() || element.isF128();
  };
  return module
      ->walk([&](Operation *op) {
        for (Type type : op->getResultTypes())
          if (wide(type))
            return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// `parse`: a module that verifies prints, in the custom and the generic
/// form, as text that parses back to a module printing the same; and writes
/// bytecode that reads back to it too.
void checkRoundTrips(MLIRContext &context, ModuleOp module) {
  if (hasWideFloats(module)) {
    if (trace)
      llvm::errs() << "bcast-fuzz: round trips: skipped (f80 or f128 "
                      "values, an upstream printing bug)\n";
    return;
  }
  ParserConfig config(&context);
  std::string custom = print(module);

  OwningOpRef<ModuleOp> reparsed = parseSourceString<ModuleOp>(custom, config);
  if (!reparsed)
    roundTripFailed("the custom form does not parse back", custom, "(nothing)");
  std::string again = print(*reparsed);
  if (again != custom)
    roundTripFailed("the custom form does not round-trip", custom, again);

  std::string generic = print(module, OpPrintingFlags().printGenericOpForm());
  OwningOpRef<ModuleOp> fromGeneric =
      parseSourceString<ModuleOp>(generic, config);
  if (!fromGeneric)
    roundTripFailed("the generic form does not parse back", generic,
                    "(nothing)");
  again = print(*fromGeneric);
  if (again != custom)
    roundTripFailed("the generic form does not round-trip", custom, again);

  std::string bytecode;
  llvm::raw_string_ostream os(bytecode);
  if (failed(writeBytecodeToFile(module, os)))
    roundTripFailed("the bytecode writer failed", custom, "(nothing)");
  OwningOpRef<ModuleOp> fromBytecode =
      parseSourceString<ModuleOp>(bytecode, config);
  if (!fromBytecode)
    roundTripFailed("the bytecode does not read back", custom, "(nothing)");
  again = print(*fromBytecode);
  if (again != custom)
    roundTripFailed("bytecode does not round-trip", custom, again);
  if (trace)
    llvm::errs() << "bcast-fuzz: round trips: ok (custom, generic, "
                    "bytecode)\n";
}

/// The other targets: each pipeline on a fresh copy, with the IR verified
/// after every pass; after the fold target's pipelines, the result must
/// print and parse back too (folded constants of every type).
void runPipelines(MLIRContext &context, Target target, ModuleOp module) {
  for (const char *pipeline : pipelinesOf(target)) {
    OwningOpRef<ModuleOp> copy = module.clone();
    PassManager pm(&context);
    pm.enableVerifier(false); // VerifyAfterEachPass does it, and aborts.
    pm.addInstrumentation(std::make_unique<VerifyAfterEachPass>());
    if (failed(parsePassPipeline(pipeline, pm, llvm::errs()))) {
      llvm::errs() << "bcast-fuzz: cannot build " << pipeline << "\n";
      abort();
    }
    LogicalResult result = pm.run(*copy);
    if (succeeded(result) && target == Target::Fold) {
      std::string text = print(*copy);
      ParserConfig config(&context);
      if (!parseSourceString<ModuleOp>(text, config))
        roundTripFailed(std::string("the output of ") + pipeline +
                            " does not parse back",
                        text, "(nothing)");
    }
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
                    ? llvm::StringRef("none")
                    : copy->getBody()->front().getName().getStringRef());
      llvm::errs() << "\n";
    }
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

void bcast::fuzz::initialize(Target target) {
  trace = getenv("BCAST_FUZZ_TRACE") != nullptr;
  contextReuse = target == Target::Parse || target == Target::Fold ? 256 : 1;
  if (const char *reuse = getenv("BCAST_FUZZ_CONTEXT_REUSE"))
    contextReuse = std::max(1, atoi(reuse));
  const char *mutator = getenv("BCAST_FUZZ_MUTATOR");
  generatorEnabled = !mutator || std::strcmp(mutator, "libfuzzer") != 0;
  registry = new DialectRegistry();
  // Only what bcast registers for an embedder, so that the fuzzer sees what
  // the C API sees (the nvvm target included: that is how finding 6 was
  // found).
  bcast::registerAllBcastDialectsAndPasses(*registry);
  MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
  opNames = new std::vector<std::string>(bcastOpNames(context));
}

int bcast::fuzz::testOneInput(Target target, const uint8_t *data, size_t size) {
  // A context serves contextReuse inputs and is then replaced, so that
  // uniqued types and attributes do not pile up over a long run. The cheap
  // targets reuse one for many inputs (creating a context and loading its
  // dialects costs more than parsing a typical input); the pipeline targets
  // take a fresh one per input, so that no input sees another's state.
  static std::unique_ptr<MLIRContext> shared;
  static unsigned served = 0;
  if (!shared || ++served >= contextReuse) {
    shared.reset();
    shared = std::make_unique<MLIRContext>(*registry,
                                           MLIRContext::Threading::DISABLED);
    served = 0;
  }
  MLIRContext &context = *shared;
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
  if (target == Target::Parse)
    checkRoundTrips(context, *module);
  else
    runPipelines(context, target, *module);
  return 0;
}

size_t bcast::fuzz::mutate(uint8_t *data, size_t size, size_t maxSize,
                           unsigned seed) {
  if (!generatorEnabled)
    return LLVMFuzzerMutate(data, size, maxSize);
  unsigned roll = seed % 100;
  if (roll < 20) {
    // A fresh program: well-typed three times in four. The generator's
    // context is replaced every 256 programs, as the targets' are.
    static std::unique_ptr<MLIRContext> context;
    static unsigned generated = 0;
    if (!context || ++generated >= 256) {
      context.reset();
      context = std::make_unique<MLIRContext>(*registry,
                                              MLIRContext::Threading::DISABLED);
      generated = 0;
    }
    ScopedDiagnosticHandler quiet(context.get(),
                                  [](Diagnostic &) { return success(); });
    GeneratorOptions options;
    options.wellTyped = roll < 15;
    std::string program = generateProgram(
        *context, (static_cast<uint64_t>(seed) << 32) ^ size, options);
    if (!program.empty() && program.size() <= maxSize) {
      std::memcpy(data, program.data(), program.size());
      return program.size();
    }
  } else if (roll < 45) {
    std::string text(reinterpret_cast<const char *>(data), size);
    if (mutateText(text, seed, *opNames) && text.size() <= maxSize) {
      std::memcpy(data, text.data(), text.size());
      return text.size();
    }
  }
  return LLVMFuzzerMutate(data, size, maxSize);
}
