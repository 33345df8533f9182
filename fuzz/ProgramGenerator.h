//===- ProgramGenerator.h - Random bcast programs for fuzzing ---*- C++ -*-===//
//
// A structure-aware generator of random bcast programs: functions over
// every bcast op, element type, attribute and shape class (rank 0, size 0,
// `?`, sizes that overflow, mixed element types), well-typed (every op
// verifies; the result types come from the ops' own type inference) or
// ill-typed (ops kept although they do not verify, result types perturbed).
// The fuzz targets use it as a libFuzzer custom mutator (FuzzHarness.cpp),
// and `bcast-fuzz-gen` writes its programs as seeds. How to teach it a new
// op is in ProgramGenerator.cpp's op table and docs/Robustness.md.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_FUZZ_PROGRAMGENERATOR_H
#define BCAST_FUZZ_PROGRAMGENERATOR_H

#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
namespace bcast {
namespace fuzz {

/// What kind of program to generate.
struct GeneratorOptions {
  /// Keep only ops that verify; otherwise some that do not are kept, and
  /// some result types are perturbed.
  bool wellTyped = true;
  /// Upper bound on the number of bcast ops in the program.
  unsigned maxOps = 6;
};

/// Generates one random program from `seed` (the same seed, options and
/// dialect give the same program) and returns it as MLIR text: the custom
/// form when the module verifies (or, now and then, the generic form), the
/// generic form otherwise. `context` must have the bcast dialect registered;
/// diagnostics emitted while generating go to its handlers.
std::string generateProgram(MLIRContext &context, uint64_t seed,
                            const GeneratorOptions &options);

/// The registered bcast ops the generator cannot build (neither element-wise
/// nor in its op table) and the inherent attributes it has no values for, as
/// sentences; empty when it covers the whole dialect.
std::vector<std::string> findUncoveredOps(MLIRContext &context);

/// The names of the registered bcast ops (for mutateText).
std::vector<std::string> bcastOpNames(MLIRContext &context);

/// Cheap structure-aware mutations of MLIR text that need no parsing:
/// replaces an element type, a size (0, 1, `?`, huge), an op name (one of
/// `opNames`), an attribute value or an SSA operand, or drops a line.
/// Returns false when `text` offers nothing to mutate.
bool mutateText(std::string &text, uint64_t seed,
                const std::vector<std::string> &opNames);

} // namespace fuzz
} // namespace bcast
} // namespace mlir

#endif // BCAST_FUZZ_PROGRAMGENERATOR_H
