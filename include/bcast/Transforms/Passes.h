//===- Passes.h - bcast's dialect-independent passes ------------*- C++ -*-===//
//
// Declares the passes of bcast's pipelines that work on linalg, memref and
// gpu IR rather than on bcast ops (generated from Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_TRANSFORMS_PASSES_H
#define BCAST_TRANSFORMS_PASSES_H

#include "bcast/Transforms/Parallel.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class ModuleOp;
namespace bcast {

#define GEN_PASS_DECL
#include "bcast/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "bcast/Transforms/Passes.h.inc"

} // namespace bcast
} // namespace mlir

#endif // BCAST_TRANSFORMS_PASSES_H
