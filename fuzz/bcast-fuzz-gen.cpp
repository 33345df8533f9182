//===- bcast-fuzz-gen.cpp - Writes generated bcast programs ---------------===//
//
// The seed-generator side of fuzz/ProgramGenerator: writes random bcast
// programs (well-typed and ill-typed) as files, for a fuzzer's seed corpus
// or for bcast-opt; prints one; or checks that the generator covers every
// op and attribute the dialect registers (--check-coverage, which the test
// suite runs so that a new op cannot go unfuzzed silently). With --verify it
// parses each program back and counts how many verify: every well-typed one
// must. Built in every configuration (it needs no libFuzzer).
//
//   bcast-fuzz-gen --count 500 --seed 1 --ill-typed 25 DIR
//   bcast-fuzz-gen --print --seed 7
//   bcast-fuzz-gen --check-coverage
//   bcast-fuzz-gen --verify --count 2000
//
//===----------------------------------------------------------------------===//

#include "ProgramGenerator.h"

#include "bcast/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> outputDir(cl::Positional, cl::init(""),
                                      cl::desc("[output directory]"));
static cl::opt<unsigned> count("count", cl::init(100),
                               cl::desc("How many programs"));
static cl::opt<uint64_t> seed("seed", cl::init(1),
                              cl::desc("The first program's seed"));
static cl::opt<unsigned>
    illTyped("ill-typed", cl::init(25),
             cl::desc("Percent of the programs that are ill-typed"));
static cl::opt<unsigned> maxOps("max-ops", cl::init(6),
                                cl::desc("At most this many bcast ops"));
static cl::opt<bool> printOne("print", cl::init(false),
                              cl::desc("Print one program (--seed)"));
static cl::opt<bool>
    checkCoverage("check-coverage", cl::init(false),
                  cl::desc("Check that every bcast op and attribute is "
                           "covered by the generator"));
static cl::opt<bool>
    verifyPrograms("verify", cl::init(false),
                   cl::desc("Parse the programs back and count those that "
                            "verify (every well-typed one must)"));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "bcast program generator\n");
  DialectRegistry registry;
  bcast::registerAllBcastDialectsAndPasses(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });

  if (checkCoverage) {
    std::vector<std::string> missing = bcast::fuzz::findUncoveredOps(context);
    for (const std::string &sentence : missing)
      llvm::errs() << "bcast-fuzz-gen: " << sentence << "\n";
    if (!missing.empty())
      return 1;
    llvm::outs() << "bcast-fuzz-gen: the generator covers all "
                 << bcast::fuzz::bcastOpNames(context).size() << " bcast ops\n";
    return 0;
  }

  unsigned programs = printOne ? 1 : count;
  unsigned wellTyped = 0, wellTypedVerified = 0, illTypedVerified = 0;
  for (unsigned i = 0; i < programs; ++i) {
    uint64_t programSeed = seed + i;
    bcast::fuzz::GeneratorOptions options;
    // Ill-typed programs are spread evenly over the seeds.
    options.wellTyped = (programSeed * 37) % 100 >= illTyped;
    options.maxOps = maxOps;
    // A fresh context per program, as the fuzzer's mutator has.
    MLIRContext programContext(registry, MLIRContext::Threading::DISABLED);
    ScopedDiagnosticHandler programQuiet(
        &programContext, [](Diagnostic &) { return success(); });
    std::string text =
        bcast::fuzz::generateProgram(programContext, programSeed, options);
    if (printOne) {
      llvm::outs() << text;
      return 0;
    }
    if (verifyPrograms) {
      MLIRContext parseContext(registry, MLIRContext::Threading::DISABLED);
      ScopedDiagnosticHandler parseQuiet(
          &parseContext, [](Diagnostic &) { return success(); });
      ParserConfig config(&parseContext);
      bool verifies =
          static_cast<bool>(parseSourceString<ModuleOp>(text, config));
      wellTyped += options.wellTyped;
      if (options.wellTyped) {
        wellTypedVerified += verifies;
        if (!verifies)
          llvm::errs() << "bcast-fuzz-gen: well-typed program " << programSeed
                       << " does not verify:\n"
                       << text;
      } else {
        illTypedVerified += verifies;
      }
    }
    if (!outputDir.empty()) {
      llvm::sys::fs::create_directories(outputDir);
      llvm::SmallString<128> path(outputDir);
      llvm::sys::path::append(path,
                              "gen-" + std::to_string(programSeed) + ".mlir");
      std::error_code error;
      llvm::raw_fd_ostream os(path, error);
      if (error) {
        llvm::errs() << "bcast-fuzz-gen: cannot write " << path << ": "
                     << error.message() << "\n";
        return 1;
      }
      os << text;
    }
  }
  if (verifyPrograms) {
    llvm::outs() << "bcast-fuzz-gen: " << wellTypedVerified << " of "
                 << wellTyped << " well-typed programs verify, "
                 << illTypedVerified << " of " << programs - wellTyped
                 << " ill-typed ones do\n";
    return wellTypedVerified == wellTyped ? 0 : 1;
  }
  return 0;
}
