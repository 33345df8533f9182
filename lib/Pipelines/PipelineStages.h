//===- PipelineStages.h - Stages the bcast pipelines share ------*- C++ -*-===//
//
// Private to lib/Pipelines: the stages that more than one pipeline runs,
// built once (Pipelines.cpp) so that --bcast-to-llvm and --bcast-to-nvvm
// convert and bufferize exactly alike.
//
//===----------------------------------------------------------------------===//

// A private header: llvm-header-guard would name the guard after the checkout's
// absolute path.
#ifndef BCAST_LIB_PIPELINES_PIPELINESTAGES_H // NOLINT(llvm-header-guard)
#define BCAST_LIB_PIPELINES_PIPELINESTAGES_H

#include "bcast/Conversion/BroadcastPolicy.h"

namespace mlir {
class OpPassManager;
namespace bcast {

/// --bcast-to-linalg: convert-bcast-to-linalg (nested under func.func),
/// bcast-signless-boundary (on the module), then canonicalize,
/// bcast-fuse-elementwise, canonicalize, cse, bcast-unshare-inits, nested
/// under func.func. `multipleResults`: bcast-fuse-elementwise's option
/// (the CPU pipelines; the GPU mapping takes one result per generic).
/// `checkDivision` is convert-bcast-to-linalg's check-division.
void addBcastToLinalgStage(OpPassManager &pm, BroadcastPolicy policy,
                           bool multipleResults, bool checkDivision);

/// Tensors to buffers: bcast-drop-contradicted-casts,
/// bcast-guard-destinations, eliminate-empty-tensors, one-shot-bufferize
/// (function boundaries, identity layouts), canonicalize,
/// bcast-lower-runtime-checks, buffer-deallocation-pipeline,
/// convert-bufferization-to-memref.
void addBufferizationStage(OpPassManager &pm, bool reportErrors);

} // namespace bcast
} // namespace mlir

#endif // BCAST_LIB_PIPELINES_PIPELINESTAGES_H
