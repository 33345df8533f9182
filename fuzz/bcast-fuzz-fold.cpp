//===- bcast-fuzz-fold.cpp - The 'fold' fuzz target -----------------------===//
//
// libFuzzer target 'fold' (docs/Robustness.md): runs canonicalization (the
// folders) and bcast's diagnostic passes on each input that verifies.
// FuzzHarness.cpp does the work; fuzz/run-fuzzer.sh --target fold runs it.
//
//===----------------------------------------------------------------------===//

#include "FuzzHarness.h"

BCAST_FUZZ_TARGET(mlir::bcast::fuzz::Target::Fold)
