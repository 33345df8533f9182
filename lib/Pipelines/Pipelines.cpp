//===- Pipelines.cpp - bcast's pass pipelines -----------------------------===//
//
// The pipelines are written as textual pass pipelines of upstream passes
// (their LLVM 22 names, which TOOLCHAIN.md records as working) around
// bcast's own passes; docs/Pipelines.md explains each step.
//
//===----------------------------------------------------------------------===//

#include "bcast/Pipelines/Pipelines.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::bcast;

static LogicalResult addPipeline(OpPassManager &pm, const std::string &text) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (failed(parsePassPipeline(text, pm, os))) {
    llvm::errs() << "bcast: invalid pass pipeline: " << errors << "\n";
    return failure();
  }
  return success();
}

static LogicalResult checkPolicy(const BcastPipelineOptions &options) {
  if (options.broadcastPolicy != "numpy" && options.broadcastPolicy != "static") {
    llvm::errs() << "bcast: broadcast-policy must be 'numpy' or 'static', not '"
                 << options.broadcastPolicy << "'\n";
    return failure();
  }
  return success();
}

LogicalResult
bcast::buildBcastToLinalgPipeline(OpPassManager &pm,
                                  const BcastPipelineOptions &options) {
  if (failed(checkPolicy(options)))
    return failure();
  // Function-local passes are nested under func.func so that MLIR runs them
  // on several functions at once.
  return addPipeline(
      pm, "func.func(convert-bcast-to-linalg{broadcast-policy=" +
              options.broadcastPolicy.getValue() +
              "},canonicalize,bcast-fuse-elementwise,canonicalize,cse)");
}

LogicalResult
bcast::buildBcastToLLVMPipeline(OpPassManager &pm,
                                const BcastPipelineOptions &options) {
  // Static sizes whose product or byte size overflows 64 bits would wrap in
  // the lowering's size arithmetic: reject them first, with a diagnostic.
  if (failed(addPipeline(pm, "bcast-check-static-sizes")) ||
      failed(buildBcastToLinalgPipeline(pm, options)))
    return failure();
  if (options.vectorBytes <= 0) {
    llvm::errs() << "bcast: vector-bytes must be positive\n";
    return failure();
  }
  auto flag = [](bool value) { return value ? "true" : "false"; };
  std::string text =
      // Results written straight into destination buffers
      // (materialize_in_destination) need no allocation and no copy.
      "func.func(eliminate-empty-tensors),"
      "one-shot-bufferize{bufferize-function-boundaries "
      "function-boundary-type-conversion=identity-layout-map},"
      "func.func(canonicalize),"
      // Before deallocation, so that an early return frees what was
      // allocated before it.
      "bcast-lower-runtime-checks{report=" +
      std::string(flag(options.reportErrors)) +
      "},"
      "buffer-deallocation-pipeline,"
      "convert-bufferization-to-memref,";
  text += "func.func(";
  if (options.vectorize)
    text += "bcast-vectorize-elementwise{parallel=" +
            std::string(flag(options.parallel)) +
            " vector-bytes=" + std::to_string(options.vectorBytes) +
            " nontemporal-threshold=" +
            std::to_string(options.nontemporalThreshold) + "},";
  text += "convert-linalg-to-loops),";
  if (options.parallel)
    text += "convert-scf-to-openmp{num-threads=" +
            std::to_string(options.numThreads) + "},";
  // finalize-memref-to-llvm before convert-scf-to-cf: the OpenMP conversion
  // adds memref.alloca_scope ops that must be lowered first.
  text += "func.func(convert-vector-to-scf,expand-strided-metadata,"
          "lower-affine),"
          "finalize-memref-to-llvm,"
          "func.func(convert-scf-to-cf),"
          "convert-vector-to-llvm,"
          "func.func(convert-math-to-llvm,convert-arith-to-llvm),"
          "convert-cf-to-llvm,"
          "convert-func-to-llvm,"
          "convert-ub-to-llvm,";
  if (options.parallel)
    text += "convert-openmp-to-llvm,";
  text += "reconcile-unrealized-casts";
  return addPipeline(pm, text);
}

/// Registers `arg` like PassPipelineRegistration does, but lets the builder
/// fail (an invalid option value makes bcast-opt exit with an error instead
/// of running a partial pipeline).
static void registerPipeline(
    StringRef arg, StringRef description,
    LogicalResult (*build)(OpPassManager &, const BcastPipelineOptions &)) {
  registerPassPipeline(
      arg, description,
      [build](OpPassManager &pm, StringRef text,
              function_ref<LogicalResult(const Twine &)> errorHandler) {
        BcastPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        return build(pm, options);
      },
      [](function_ref<void(const detail::PassOptions &)> handler) {
        handler(BcastPipelineOptions());
      });
}

void bcast::registerBcastPipelines() {
  registerPipeline(
      "bcast-to-linalg",
      "Lower bcast ops to fused linalg.generic ops (for inspection)",
      buildBcastToLinalgPipeline);
  registerPipeline("bcast-to-llvm",
                   "Lower a module with bcast ops to the LLVM dialect (for "
                   "mlir-runner or the ExecutionEngine)",
                   buildBcastToLLVMPipeline);
}
