//===- Passes.h - bcast's GPU passes ------------------------------*- C++ -*-===//
//
// Declares the passes of the GPU pipeline (generated from Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_CONVERSION_BCASTTOGPU_PASSES_H
#define BCAST_CONVERSION_BCASTTOGPU_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace bcast {

#define GEN_PASS_DECL
#include "bcast/Conversion/BcastToGPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "bcast/Conversion/BcastToGPU/Passes.h.inc"

} // namespace bcast
} // namespace mlir

#endif // BCAST_CONVERSION_BCASTTOGPU_PASSES_H
