//===- BcastContractionOps.td - Contractions ---------------*- tablegen -*-===//
//
// The contraction family: products whose batch dims broadcast. Its base class
// carries the assembly format, traits and hooks; ODS emits every per-op hook,
// which calls the family's functions (ContractionFunctions.cpp) and the rule
// module (Utils/MatmulRules.h). Included by BcastOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_DIALECT_BCAST_IR_BCASTCONTRACTIONOPS_TD
#define BCAST_DIALECT_BCAST_IR_BCASTCONTRACTIONOPS_TD

include "bcast/Dialect/Bcast/IR/BcastBase.td"

// A contraction of two tensors with functional-type syntax:
//   %r = bcast.matmul %a, %b : (tensor<2x1x4x3xf32>, tensor<5x3x6xf32>) -> tensor<2x5x4x6xf32>
// Not speculatable where a dynamic size is checked at run time.
class Bcast_ContractionOp<string mnemonic, list<Trait> traits = []>
    : Bcast_Op<mnemonic, traits # [
        NoMemoryEffect,
        DeclareOpInterfaceMethods<ConditionallySpeculatable>,
        DeclareOpInterfaceMethods<InferTypeOpInterface>,
        DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
                                  ["reifyResultShapes"]>]> {
  let arguments = (ins Bcast_Tensor:$lhs, Bcast_Tensor:$rhs);
  let results = (outs Bcast_Tensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, $result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// Accepts refinements of the inferred type (`?` on either side).
    static bool isCompatibleReturnTypes(::mlir::TypeRange lhs,
                                        ::mlir::TypeRange rhs);
  }];
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context,
        std::optional<::mlir::Location> location, ::mlir::ValueRange operands,
        ::mlir::DictionaryAttr attributes, ::mlir::OpaqueProperties properties,
        ::mlir::RegionRange regions,
        ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      Adaptor adaptor(operands, attributes, properties, regions);
      return ::mlir::bcast::detail::inferMatmulType(
          getOperationName(), location, adaptor.getLhs().getType(),
          adaptor.getRhs().getType(), inferred);
    }
    bool $cppClass::isCompatibleReturnTypes(::mlir::TypeRange lhs,
                                            ::mlir::TypeRange rhs) {
      return ::mlir::bcast::detail::areCompatibleResultTypes(lhs, rhs);
    }
    ::mlir::LogicalResult $cppClass::verify() {
      return ::mlir::bcast::detail::verifyMatmul(getOperation());
    }
    ::mlir::Speculation::Speculatability $cppClass::getSpeculatability() {
      return ::mlir::bcast::detail::getMatmulSpeculatability(getOperation());
    }
    ::mlir::LogicalResult $cppClass::reifyResultShapes(
        ::mlir::OpBuilder &builder,
        ::mlir::ReifiedRankedShapedTypeDims &reified) {
      return ::mlir::bcast::detail::reifyMatmulShape(builder, getOperation(),
                                                     reified);
    }
    ::mlir::OpFoldResult $cppClass::fold(FoldAdaptor adaptor) {
      return ::mlir::bcast::detail::foldMatmul(getOperation(), adaptor.getLhs(),
                                               adaptor.getRhs());
    }
  }];
}

def Bcast_MatmulOp : Bcast_ContractionOp<"matmul"> {
  let summary = "matrix product with broadcast batch dims "
                "(PyTorch's `torch.matmul`)";
  let description = [{
    `torch.matmul`'s semantics exactly (PyTorch 1.13):

    | lhs rank | rhs rank | result |
    |----------|----------|--------|
    | 1 (`K`)  | 1 (`K`)  | rank 0: the dot product |
    | 2 (`MxK`) | 1 (`K`) | `M` |
    | 1 (`K`)  | 2 (`KxN`) | `N` (lhs as `1xK`, the 1 removed) |
    | 2        | 2        | `MxN` |
    | N-D (`...xMxK`) | 1 or 2 | `...xM` or `...xMxN` |
    | 1 or 2   | N-D (`...xKxN`) | `...xN` or `...xMxN` |
    | N-D      | N-D      | broadcast batch `...`, then `MxN` |

    The batch dims (all but an operand's last two) broadcast with the
    NumPy/PyTorch rule. A contracted size of 0 gives zeros. Both operands
    have one element type, the result's: `f32`, `f64`, `bf16`, `i8`..`i64`
    or `ui8` (no promotion; integer products wrap). Violations are reported
    in PyTorch's order with its sentences: a rank-0 operand (`both arguments
    to matmul need to be at least 1D, but they are 0D and 1D`), batch dims
    that do not broadcast (`The size of tensor a (3) must match the size of
    tensor b (4) at non-singleton dimension 0`, numbered within the
    broadcast batch shape), contracted sizes that differ (`mat1 and mat2
    shapes cannot be multiplied (5x2x3 and 4)`, the operands' own shapes),
    then the element types as the kernel PyTorch reaches checks them
    (`"addmm_impl_cpu_" not implemented for 'Bool'`, `expected scalar type
    Float but found Double`; see docs/Semantics.md). `?` sizes are checked
    at run time with the same sentences and the real sizes.

    Example:

    ```mlir
    %r = bcast.matmul %a, %b : (tensor<2x1x4x3xf32>, tensor<5x3x6xf32>) -> tensor<2x5x4x6xf32>
    ```
  }];
}

#endif // BCAST_DIALECT_BCAST_IR_BCASTCONTRACTIONOPS_TD
