//===- BcastInterfaces.td - bcast op interfaces ------------*- tablegen -*-===//
//
// The interface through which passes reach an element-wise op's element
// function without knowing the op: the lowering builds it into a
// linalg.generic body and folding evaluates it on constants. Every
// element-wise op implements it from ODS (Bcast_ElementwiseOp in
// BcastBase.td); the functions themselves are in ElementFunctions.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_DIALECT_BCAST_IR_BCASTINTERFACES_TD
#define BCAST_DIALECT_BCAST_IR_BCASTINTERFACES_TD

include "mlir/IR/OpBase.td"

def Bcast_ElementwiseOpInterface : OpInterface<"ElementwiseOpInterface"> {
  let cppNamespace = "::mlir::bcast";
  let description = [{
    The element function of an element-wise broadcasting op: the scalar
    operation applied to one element of each operand. The lowering and
    folding both call it, so the op's semantics live in one place.
  }];
  let methods = [
    InterfaceMethod<[{
        What ODS says of the op's element types: in place or not, an i1
        result or element value, a condition operand, and how the compute
        type follows from the operands' promoted type.
      }],
      "::mlir::bcast::ElementwiseTypeRule", "getElementTypeRule", (ins)>,
    InterfaceMethod<[{
        Builds the element function at the builder's insertion point on one
        element of each operand (`args`, in operand order, of the operands'
        element types) and returns the result element.
      }],
      "::mlir::Value", "buildElement",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "::mlir::ValueRange":$args)>,
    InterfaceMethod<[{
        Evaluates the element function on one constant element of each
        operand. Returns std::nullopt where the run-time result is undefined
        or cannot be reproduced exactly at compile time (the op is then left
        unfolded).
      }],
      "std::optional<::mlir::bcast::Scalar>", "foldElement",
      (ins "::llvm::ArrayRef<::mlir::bcast::Scalar>":$args)>,
  ];
}

#endif // BCAST_DIALECT_BCAST_IR_BCASTINTERFACES_TD
