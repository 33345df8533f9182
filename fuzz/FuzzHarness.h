//===- FuzzHarness.h - What bcast's fuzz targets share ----------*- C++ -*-===//
//
// bcast's libFuzzer targets differ by cost (docs/Robustness.md): `parse`
// parses, verifies and round-trips each input through the printer (both
// forms) and the bytecode writer and reader; `fold` runs canonicalization
// and the diagnostic passes; `llvm` runs --bcast-to-linalg and
// --bcast-to-llvm with several option sets; `nvvm` runs --bcast-to-nvvm up to
// PTX. Each target is a small file that names its Target; this harness does
// the rest, including the structure-aware custom mutator
// (ProgramGenerator.h).
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_FUZZ_FUZZHARNESS_H
#define BCAST_FUZZ_FUZZHARNESS_H

#include <cstddef>
#include <cstdint>

namespace mlir {
namespace bcast {
namespace fuzz {

enum class Target { Parse, Fold, LLVM, NVVM };

/// LLVMFuzzerInitialize: builds the registry `target` needs.
void initialize(Target target);

/// LLVMFuzzerTestOneInput: runs one input through `target`'s checks and
/// aborts on a finding (a check that failed, or IR a pass left invalid).
int testOneInput(Target target, const uint8_t *data, size_t size);

/// LLVMFuzzerCustomMutator: a fresh generated program, a structure-aware
/// text mutation, or libFuzzer's own mutation.
size_t mutate(uint8_t *data, size_t size, size_t maxSize, unsigned seed);

} // namespace fuzz
} // namespace bcast
} // namespace mlir

/// Defines the libFuzzer entry points of a target.
#define BCAST_FUZZ_TARGET(TARGET)                                              \
  extern "C" int LLVMFuzzerInitialize(int *, char ***) {                       \
    mlir::bcast::fuzz::initialize(TARGET);                                     \
    return 0;                                                                  \
  }                                                                            \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {    \
    return mlir::bcast::fuzz::testOneInput(TARGET, data, size);                \
  }                                                                            \
  extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,        \
                                            size_t maxSize, unsigned seed) {   \
    return mlir::bcast::fuzz::mutate(data, size, maxSize, seed);               \
  }

#endif // BCAST_FUZZ_FUZZHARNESS_H
