//===- Passes.h - bcast conversion passes -----------------------*- C++ -*-===//
//
// Declares the passes that rewrite bcast ops (generated from Passes.td);
// their broadcast policy is in BroadcastPolicy.h.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_CONVERSION_PASSES_H
#define BCAST_CONVERSION_PASSES_H

#include "bcast/Conversion/BroadcastPolicy.h"

#include "mlir/Pass/Pass.h"

namespace mlir {
class ModuleOp;
namespace bcast {

#define GEN_PASS_DECL
#include "bcast/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "bcast/Conversion/Passes.h.inc"

} // namespace bcast
} // namespace mlir

#endif // BCAST_CONVERSION_PASSES_H
