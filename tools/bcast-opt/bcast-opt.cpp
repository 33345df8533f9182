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

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates GPU modules to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::registerAllPasses();
  mlir::bcast::registerAllBcastDialectsAndPasses(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "bcast optimizer driver\n", registry));
}
