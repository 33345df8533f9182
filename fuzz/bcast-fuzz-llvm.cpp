//===- bcast-fuzz-llvm.cpp - The 'llvm' fuzz target -----------------------===//
//
// libFuzzer target 'llvm' (docs/Robustness.md): runs --bcast-to-linalg and
// --bcast-to-llvm, with several option sets, on each input that verifies.
// FuzzHarness.cpp does the work; fuzz/run-fuzzer.sh --target llvm runs it.
//
//===----------------------------------------------------------------------===//

#include "FuzzHarness.h"

BCAST_FUZZ_TARGET(mlir::bcast::fuzz::Target::LLVM)
