//===- bcast-fuzz-nvvm.cpp - The 'nvvm' fuzz target -----------------------===//
//
// libFuzzer target 'nvvm' (docs/Robustness.md): runs --bcast-to-nvvm up to PTX
// (no ptxas, no GPU needed) on each input that verifies. FuzzHarness.cpp does
// the work; fuzz/run-fuzzer.sh --target nvvm runs it.
//
//===----------------------------------------------------------------------===//

#include "FuzzHarness.h"

BCAST_FUZZ_TARGET(mlir::bcast::fuzz::Target::NVVM)
