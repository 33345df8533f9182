//===- Passes.h - bcast conversion passes -------------------------*- C++ -*-===//
//
// Declares the passes that lower bcast (generated from Passes.td) and the
// broadcast policy they share.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_CONVERSION_PASSES_H
#define BCAST_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class ModuleOp;
namespace bcast {

/// How dynamic sizes broadcast at run time.
enum class BroadcastPolicy {
  /// A `?` size that is 1 at run time broadcasts (NumPy, PyTorch).
  NumPy,
  /// Only sizes statically 1 broadcast (PyTensor).
  Static,
};

#define GEN_PASS_DECL
#include "bcast/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "bcast/Conversion/Passes.h.inc"

} // namespace bcast
} // namespace mlir

#endif // BCAST_CONVERSION_PASSES_H
