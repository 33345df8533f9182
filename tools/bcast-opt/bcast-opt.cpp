//===- bcast-opt.cpp - The bcast optimizer driver -------------------------===//
//
// An mlir-opt-style driver: parses bcast together with every upstream
// dialect a pipeline may need, and registers the upstream passes plus
// bcast's passes and pipelines. Exits with status 1 on any error.
//
//===----------------------------------------------------------------------===//

#include "bcast/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

/// MLIR's bytecode reader meets some malformed files (a count too large for
/// a SmallVector, docs/Robustness.md) with report_fatal_error, which aborts.
/// Bad input must end in a diagnostic and exit status 1 instead: print the
/// reason and end the process without unwinding state that is now suspect.
static void exitOnFatalError(void *, const char *reason, bool) {
  llvm::errs() << "bcast-opt: error: " << reason << "\n";
  std::_Exit(1);
}

int main(int argc, char **argv) {
  llvm::install_fatal_error_handler(exitOnFatalError);
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates GPU modules to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::registerAllPasses();
  mlir::bcast::registerAllBcastDialectsAndPasses(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "bcast optimizer driver\n", registry));
}
