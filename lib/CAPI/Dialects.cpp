//===- Dialects.cpp - C API for the bcast dialect and its passes ----------===//
//
// Implements include/bcast-c/Dialects.h over the C++ API with MLIR's
// wrap/unwrap helpers (mlir/CAPI/*.h), so that the C entry points register
// exactly what mlir::bcast::registerAllBcastDialectsAndPasses registers.
//
//===----------------------------------------------------------------------===//

#include "bcast-c/Dialects.h"

#include "bcast/Dialect/Bcast/IR/BcastBytecode.h"
#include "bcast/Dialect/Bcast/IR/BcastDialect.h"
#include "bcast/InitAll.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Bcast, bcast, mlir::bcast::BcastDialect)

void bcastRegisterAllDialectsAndPasses(MlirDialectRegistry registry) {
  mlir::bcast::registerAllBcastDialectsAndPasses(*unwrap(registry));
}

void bcastRegisterPassesAndPipelines(void) {
  mlir::bcast::registerBcastPassesAndPipelines();
}

int64_t bcastGetBytecodeVersion(void) {
  return static_cast<int64_t>(mlir::bcast::kBcastBytecodeVersion);
}
