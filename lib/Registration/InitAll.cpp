//===- InitAll.cpp - Register everything bcast provides -------------------===//
//
// Registers the dialect, the passes and the pipelines in one place, so that
// bcast-opt, the C API and downstream tools see the same set.
//
//===----------------------------------------------------------------------===//

#include "bcast/InitAll.h"
#include "bcast/Dialect/Bcast/IR/BcastDialect.h"
#include "bcast/Conversion/Passes.h"
#include "bcast/Dialect/Bcast/Transforms/BufferizableOpInterfaceImpl.h"
#include "bcast/Dialect/Bcast/Transforms/Passes.h"
#include "bcast/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;

void bcast::registerBcastDialect(DialectRegistry &registry) {
  registry.insert<BcastDialect>();
  registerBufferizableOpInterfaceExternalModels(registry);
}

void bcast::registerBcastPassesAndPipelines() {
  registerBcastPasses();
  registerBcastConversionPasses();
  registerBcastPipelines();
}

void bcast::registerAllBcastDialectsAndPasses(DialectRegistry &registry) {
  registerBcastDialect(registry);
  registerBcastPassesAndPipelines();
}
