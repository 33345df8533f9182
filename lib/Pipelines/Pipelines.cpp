//===- Pipelines.cpp - bcast's pass pipelines -----------------------------===//
//
// --bcast-to-linalg and --bcast-to-llvm, the stages they share with
// --bcast-to-nvvm (GPUPipeline.cpp), and the registration of all three.
// The pipelines are built in typed C++, as upstream's GPUToNVVMPipeline.cpp
// builds its own: each pass from its create function, with its options
// struct. docs/Pipelines.md explains each step.
//
//===----------------------------------------------------------------------===//

#include "bcast/Pipelines/Pipelines.h"
#include "PipelineStages.h"
#include "bcast/Conversion/Passes.h"
#include "bcast/Pipelines/GPUPipeline.h"
#include "bcast/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::bcast;

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

bool BroadcastPolicyParser::parse(llvm::cl::Option &, StringRef, StringRef arg,
                                  BroadcastPolicy &value) {
  for (const OptionInfo &info : Values) {
    if (info.Name == arg) {
      value = info.V.getValue();
      return false;
    }
  }
  llvm::errs() << "bcast: broadcast-policy must be ";
  llvm::interleave(
      Values, llvm::errs(),
      [](const OptionInfo &info) { llvm::errs() << "'" << info.Name << "'"; },
      " or ");
  llvm::errs() << ", not '" << arg << "'\n";
  return true;
}

void BroadcastPolicyParser::print(llvm::raw_ostream &os,
                                  BroadcastPolicy value) {
  switch (value) {
  case BroadcastPolicy::NumPy:
    os << "numpy";
    return;
  case BroadcastPolicy::Static:
    os << "static";
    return;
  }
  llvm_unreachable("unknown broadcast policy");
}

bool VectorMathParser::parse(llvm::cl::Option &, StringRef, StringRef arg,
                             VectorMath &value) {
  for (const OptionInfo &info : Values) {
    if (info.Name == arg) {
      value = info.V.getValue();
      return false;
    }
  }
  llvm::errs() << "bcast: vector-math must be ";
  for (size_t i = 0, e = Values.size(); i < e; ++i)
    llvm::errs() << (i == 0       ? ""
                     : i + 1 == e ? " or "
                                  : ", ")
                 << Values[i].Name;
  llvm::errs() << ", not '" << arg << "'\n";
  return true;
}

void VectorMathParser::print(llvm::raw_ostream &os, VectorMath value) {
  switch (value) {
  case VectorMath::Libm:
    os << "libm";
    return;
  case VectorMath::Libmvec:
    os << "libmvec";
    return;
  case VectorMath::LibmvecAvx512:
    os << "libmvec-avx512";
    return;
  }
  llvm_unreachable("unknown vector math");
}

//===----------------------------------------------------------------------===//
// Shared stages
//===----------------------------------------------------------------------===//

void bcast::addBcastToLinalgStage(OpPassManager &pm, BroadcastPolicy policy,
                                  bool multipleResults, bool checkDivision) {
  // Function-local passes are nested under func.func so that MLIR runs them
  // on several functions at once.
  ConvertBcastToLinalgOptions toLinalgOptions;
  toLinalgOptions.policy = policy;
  toLinalgOptions.checkDivision = checkDivision;
  pm.addNestedPass<func::FuncOp>(createConvertBcastToLinalg(toLinalgOptions));
  // Signatures change: a module pass, before the casts it folds could stop
  // fusion.
  pm.addPass(createBcastSignlessBoundary());
  OpPassManager &funcPM = pm.nest<func::FuncOp>();
  funcPM.addPass(createCanonicalizerPass());
  BcastFuseElementwiseOptions fuseOptions;
  fuseOptions.multipleResults = multipleResults;
  funcPM.addPass(createBcastFuseElementwise(fuseOptions));
  funcPM.addPass(createCanonicalizerPass());
  funcPM.addPass(createCSEPass());
  // After CSE, which merges the identical fills of different reductions'
  // accumulators into one shared (and miscompiled) destination.
  funcPM.addPass(createBcastUnshareInits());
}

void bcast::addBufferizationStage(OpPassManager &pm, bool reportErrors) {
  // A cast chain that fusion made contradictory would fold, as memref.cast
  // ops, into a cast that does not verify.
  pm.addPass(createBcastDropContradictedCasts());
  // Results written straight into destination buffers
  // (materialize_in_destination) need no allocation and no copy, unless a
  // value read after the write would share the destination.
  pm.addNestedPass<func::FuncOp>(createBcastGuardDestinations());
  pm.addNestedPass<func::FuncOp>(
      bufferization::createEmptyTensorEliminationPass());
  bufferization::OneShotBufferizePassOptions bufferizeOptions;
  bufferizeOptions.bufferizeFunctionBoundaries = true;
  bufferizeOptions.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferizeOptions));
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  // Before deallocation, so that an early return frees what was allocated
  // before it.
  BcastLowerRuntimeChecksOptions checksOptions;
  checksOptions.report = reportErrors;
  pm.addPass(createBcastLowerRuntimeChecks(checksOptions));
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
}

//===----------------------------------------------------------------------===//
// --bcast-to-linalg and --bcast-to-llvm
//===----------------------------------------------------------------------===//

LogicalResult
bcast::buildBcastToLinalgPipeline(OpPassManager &pm,
                                  const BcastPipelineOptions &options) {
  addBcastToLinalgStage(pm, options.broadcastPolicy, /*multipleResults=*/true,
                        /*checkDivision=*/true);
  return success();
}

LogicalResult
bcast::buildBcastToLLVMPipeline(OpPassManager &pm,
                                const BcastPipelineOptions &options) {
  if (options.vectorBytes <= 0) {
    llvm::errs() << "bcast: vector-bytes must be positive\n";
    return failure();
  }
  if (options.inCacheBytes < 0) {
    llvm::errs() << "bcast: in-cache-bytes must not be negative\n";
    return failure();
  }
  if (options.mathInterleave < 0) {
    llvm::errs() << "bcast: math-interleave must not be negative\n";
    return failure();
  }
  bool avx512 = options.vectorMath == VectorMath::LibmvecAvx512;
  // Static sizes whose product or byte size overflows 64 bits would wrap in
  // the lowering's size arithmetic: reject them first, with a diagnostic.
  pm.addPass(createBcastCheckStaticSizes());
  // A module with a shard.grid is partitioned first, on bcast ops, whose
  // sharding models know which operand dims broadcast (docs/Sharding.md);
  // the rest of the pipeline then lowers each process's local program.
  pm.addPass(createBcastShardToMPI());
  addBcastToLinalgStage(pm, options.broadcastPolicy, /*multipleResults=*/true,
                        /*checkDivision=*/true);
  addBufferizationStage(pm, options.reportErrors);
  // Before the loop passes, which would otherwise take the products.
  if (options.matmulBlas) {
    BcastMatmulToBLASOptions blasOptions;
    blasOptions.epilogueRows = options.matmulEpilogueRows;
    pm.addPass(createBcastMatmulToBLAS(blasOptions));
  }

  OpPassManager &loopsPM = pm.nest<func::FuncOp>();
  // f32 gelu in f32 before the vectorizers, which then give it vectors of
  // f32 lanes, twice as many as of the f64 it was computed in.
  if (options.vectorMath != VectorMath::Libm && options.inlineGelu)
    loopsPM.addPass(createBcastExpandGelu());
  // Before the vector loops, which then lower each op of a row block on its
  // own, without parallelizing again.
  BcastFuseRowsOptions fuseRowsOptions;
  fuseRowsOptions.parallel = options.parallel;
  fuseRowsOptions.grainSize = options.grainSize;
  loopsPM.addPass(createBcastFuseRows(fuseRowsOptions));
  // After row fusion, which groups ops by their loop 0 as the lowering
  // built it; the members of a group collapse on their chunk's views.
  if (options.collapseDims)
    loopsPM.addPass(createBcastCollapseDims());
  if (options.vectorize) {
    BcastVectorizeElementwiseOptions vectorizeOptions;
    vectorizeOptions.vectorBytes = options.vectorBytes;
    // AVX-512 libmvec calls: generics with a costly math function take
    // 512-bit vectors, as do the others whose buffers fit in the cache;
    // those beyond keep vector-bytes (docs/Pipelines.md).
    if (avx512) {
      vectorizeOptions.mathVectorBytes = 64;
      vectorizeOptions.inCacheVectorBytes = 64;
      vectorizeOptions.inCacheBytes = options.inCacheBytes;
    }
    // The long dependent chains of inline math (gelu, exp) overlap when
    // several vectors are computed side by side.
    if (options.vectorMath != VectorMath::Libm) {
      int64_t mathBytes = avx512 ? 64 : options.vectorBytes;
      vectorizeOptions.mathInterleave =
          options.mathInterleave > 0
              ? options.mathInterleave
              : std::max<int64_t>(1, kDefaultMathInterleaveBytes / mathBytes);
    }
    vectorizeOptions.parallel = options.parallel;
    vectorizeOptions.grainSize = options.grainSize;
    vectorizeOptions.nontemporalThreshold = options.nontemporalThreshold;
    loopsPM.addPass(createBcastVectorizeElementwise(vectorizeOptions));
    BcastVectorizeReductionsOptions reductionOptions;
    reductionOptions.vectorBytes = options.vectorBytes;
    if (avx512) {
      reductionOptions.mathVectorBytes = 64;
      reductionOptions.inCacheVectorBytes = 64;
      reductionOptions.inCacheBytes = options.inCacheBytes;
    }
    reductionOptions.parallel = options.parallel;
    reductionOptions.grainSize = options.grainSize;
    if (options.vectorizeReductions)
      loopsPM.addPass(createBcastVectorizeReductions(reductionOptions));
  }
  loopsPM.addPass(createConvertLinalgToLoopsPass());
  if (options.parallel) {
    ConvertSCFToOpenMPPassOptions openMPOptions;
    openMPOptions.numThreads = options.numThreads;
    pm.addPass(createConvertSCFToOpenMPPass(openMPOptions));
  }

  // finalize-memref-to-llvm before convert-scf-to-cf: the OpenMP conversion
  // adds memref.alloca_scope ops that must be lowered first.
  OpPassManager &vectorPM = pm.nest<func::FuncOp>();
  vectorPM.addPass(createConvertVectorToSCFPass());
  vectorPM.addPass(memref::createExpandStridedMetadataPass());
  vectorPM.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addNestedPass<func::FuncOp>(createSCFToControlFlowPass());
  // Before the vector lowering: the C library calls bcast-math-to-libm
  // makes for vectors are per element, through vector.extract and
  // vector.insert.
  if (options.vectorMath != VectorMath::Libm) {
    // exp inline: faster than the libmvec call, and as accurate.
    if (options.inlineExp)
      pm.addNestedPass<func::FuncOp>(createBcastExpandExp());
    // The f64 erfc of f16, bf16 (and, with inline-gelu=false, f32) gelu
    // inline (its result is rounded to the narrow type): 1.15x the AVX-512
    // call, but 0.8x the AVX2 one, which the AVX2 route keeps
    // (docs/Benchmarks.md).
    if (options.inlineErfc && avx512)
      pm.addNestedPass<func::FuncOp>(createBcastExpandErfc());
    BcastMathToLibmvecOptions libmvecOptions;
    libmvecOptions.avx512 = avx512;
    pm.addPass(createBcastMathToLibmvec(libmvecOptions));
  }
  pm.addPass(createBcastMathToLibm());
  pm.addPass(createConvertVectorToLLVMPass());
  OpPassManager &arithPM = pm.nest<func::FuncOp>();
  arithPM.addPass(createConvertMathToLLVMPass());
  arithPM.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  if (options.parallel)
    pm.addPass(createConvertOpenMPToLLVMPass());
  // The MPI calls of a partitioned module (process ranks); bcast-shard-to-mpi
  // loads the mpi dialect whatever the module holds.
  ConvertToLLVMPassOptions mpiOptions;
  mpiOptions.filterDialects = {"mpi"};
  pm.addPass(createConvertToLLVMPass(mpiOptions));
  pm.addPass(createReconcileUnrealizedCastsPass());
  return success();
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

/// Registers `arg` like PassPipelineRegistration does, but lets the builder
/// fail: an invalid option value makes bcast-opt exit with an error instead
/// of running a partial pipeline.
template <typename Options>
static void registerPipeline(StringRef arg, StringRef description,
                             LogicalResult (*build)(OpPassManager &,
                                                    const Options &)) {
  registerPassPipeline(
      arg, description,
      [build](OpPassManager &pm, StringRef text,
              function_ref<LogicalResult(const Twine &)>) {
        Options options;
        if (failed(options.parseFromString(text)))
          return failure();
        return build(pm, options);
      },
      [](function_ref<void(const detail::PassOptions &)> handler) {
        handler(Options());
      });
}

void bcast::registerBcastPipelines() {
  registerPipeline<BcastPipelineOptions>(
      "bcast-to-linalg",
      "Lower bcast ops to fused linalg.generic ops (for inspection)",
      buildBcastToLinalgPipeline);
  registerPipeline<BcastPipelineOptions>(
      "bcast-to-llvm",
      "Lower a module with bcast ops to the LLVM dialect (for mlir-runner or "
      "the ExecutionEngine)",
      buildBcastToLLVMPipeline);
  registerPipeline<BcastGPUPipelineOptions>(
      "bcast-to-nvvm",
      "Lower a module with bcast ops to host LLVM code plus an NVIDIA GPU "
      "binary (run with libbcast_cuda_runtime.so)",
      buildBcastToNVVMPipeline);
}
