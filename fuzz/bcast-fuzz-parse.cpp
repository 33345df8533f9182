//===- bcast-fuzz-parse.cpp - The 'parse' fuzz target ---------------------===//
//
// libFuzzer target 'parse' (docs/Robustness.md): parses and verifies each input
// and round-trips it through the printer (custom and generic form) and the
// bytecode writer and reader: the cheap target, thousands of inputs a second.
// FuzzHarness.cpp does the work; fuzz/run-fuzzer.sh --target parse runs it.
//
//===----------------------------------------------------------------------===//

#include "FuzzHarness.h"

BCAST_FUZZ_TARGET(mlir::bcast::fuzz::Target::Parse)
