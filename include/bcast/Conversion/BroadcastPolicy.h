//===- BroadcastPolicy.h - How dynamic sizes broadcast ----------*- C++ -*-===//
//
// The broadcast policy that convert-bcast-to-linalg and the pipelines take
// as their `broadcast-policy` option, and the option values both spell it
// with, so that the pass and the pipelines accept the same words.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_CONVERSION_BROADCASTPOLICY_H
#define BCAST_CONVERSION_BROADCASTPOLICY_H

#include "llvm/Support/CommandLine.h"

namespace mlir {
namespace bcast {

/// How dynamic sizes broadcast at run time.
enum class BroadcastPolicy {
  /// A `?` size that is 1 at run time broadcasts (NumPy, PyTorch).
  NumPy,
  /// Only sizes statically 1 broadcast (PyTensor).
  Static,
};

/// The values of a `broadcast-policy` option: `numpy` and `static`.
inline llvm::cl::ValuesClass getBroadcastPolicyValues() {
  return llvm::cl::values(
      clEnumValN(BroadcastPolicy::NumPy, "numpy",
                 "a `?` size that is 1 at run time broadcasts (NumPy, "
                 "PyTorch)"),
      clEnumValN(BroadcastPolicy::Static, "static",
                 "only sizes statically 1 broadcast; a `?` size must match "
                 "(PyTensor)"));
}

} // namespace bcast
} // namespace mlir

#endif // BCAST_CONVERSION_BROADCASTPOLICY_H
