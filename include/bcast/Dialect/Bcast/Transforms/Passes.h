//===- Passes.h - bcast dialect passes --------------------------*- C++ -*-===//
//
// Declares the passes that work on bcast ops without lowering them
// (generated from Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_DIALECT_BCAST_TRANSFORMS_PASSES_H
#define BCAST_DIALECT_BCAST_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace bcast {

#define GEN_PASS_DECL
#include "bcast/Dialect/Bcast/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "bcast/Dialect/Bcast/Transforms/Passes.h.inc"

} // namespace bcast
} // namespace mlir

#endif // BCAST_DIALECT_BCAST_TRANSFORMS_PASSES_H
