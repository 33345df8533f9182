//===- BcastToLinalg.h - Lower bcast ops to linalg --------------*- C++ -*-===//
//
// The patterns of convert-bcast-to-linalg and of bcast-signless-boundary
// (with its type converter), for embedders that build their own conversion.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_CONVERSION_BCASTTOLINALG_BCASTTOLINALG_H
#define BCAST_CONVERSION_BCASTTOLINALG_BCASTTOLINALG_H

#include "bcast/Conversion/Passes.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/Transforms/DialectConversion.h"

#include <memory>

namespace mlir {
class RewritePatternSet;
namespace bcast {

/// Adds the patterns that lower every bcast op (but the lowering's own
/// `expand_view` and `runtime_check`) to linalg.generic, with run-time
/// checks for dynamic sizes under `policy`; `specify_shape` becomes its
/// run-time checks and a `tensor.cast`. `checkDivision` adds PyTorch's
/// run-time ZeroDivisionError check to integer division (the CPU kernels
/// have it, the CUDA kernels do not).
void populateBcastToLinalgConversionPatterns(RewritePatternSet &patterns,
                                             BroadcastPolicy policy,
                                             bool checkDivision = true);

/// Adds the pattern that lowers `bcast.matmul` to one linalg.generic over
/// (batch..., m, k, n) with broadcast maps on the batch dims (no copy of a
/// broadcast operand), with run-time checks for dynamic sizes under
/// `policy` (ContractionsToLinalg.cpp).
void populateContractionToLinalgPatterns(RewritePatternSet &patterns,
                                         BroadcastPolicy policy);

/// Converts unsigned integer types to the signless types of the same width
/// (ui8 to i8) wherever they occur: scalars, tensors (keeping their
/// encoding), memrefs, vectors, function types, and inside attributes.
class SignlessTypeConverter : public TypeConverter {
public:
  SignlessTypeConverter();

  /// `attr` with every unsigned type in it made signless; dense constants of
  /// unsigned elements are bitcast (the same bits).
  Attribute convertAttribute(Attribute attr) const;

private:
  /// Rebuilds types and attributes around their converted parts (shared
  /// with the conversion callback).
  std::shared_ptr<AttrTypeReplacer> replacer;
};

/// Adds the patterns of bcast-signless-boundary: upstream's function
/// signature conversion, the folding of unrealized casts that become
/// identities, and the rebuilding of any other op with signless types and
/// attributes. Ops whose meaning depends on the signedness (bcast's
/// element-wise ops and casts) must have been lowered first.
void populateSignlessBoundaryPatterns(const SignlessTypeConverter &converter,
                                      RewritePatternSet &patterns);

} // namespace bcast
} // namespace mlir

#endif // BCAST_CONVERSION_BCASTTOLINALG_BCASTTOLINALG_H
