// downstream-opt takes MLIR from libMLIR.so, as every consumer of the
// package must: the exported targets never bring MLIR's static archives, so
// the tool has no copy of MLIR's C++ code (and registries) of its own.
// RUN: llvm-readelf --dynamic %downstream_tools_dir/downstream-opt | FileCheck %s
// RUN: llvm-nm --defined-only -C %downstream_tools_dir/downstream-opt | not grep -E " [TtW] mlir::(MLIRContext::MLIRContext|DialectRegistry::insert|PassManager::run)\("
// CHECK: (NEEDED) Shared library: [libMLIR.so.22.1]
