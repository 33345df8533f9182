//===- BcastInterfaces.td - bcast op interfaces ------------*- tablegen -*-===//
//
// The interfaces through which passes reach an op family's semantics
// without knowing the op. ElementwiseOpInterface: the lowering builds an
// element-wise op's element function into a linalg.generic body and folding
// evaluates it on constants (Bcast_ElementwiseOp in BcastBase.td; the
// functions are in ElementFunctions.cpp). ReductionOpInterface: the same for
// a reduction's result type, identity, combiner, finish step and fold
// (Bcast_ReductionOp; the functions are in ReductionFunctions.cpp). ODS
// implements both for every op of the family.
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
    InterfaceMethod<[{
        The operand that divides, for the ops that divide integers
        (`div` with a rounding mode or on integers, `remainder`, `fmod`):
        where the op computes in an integer type, a zero in it is PyTorch's
        `ZeroDivisionError`, which the lowering checks at run time.
        std::nullopt for the other ops.
      }],
      "std::optional<unsigned>", "getIntegerDivisor", (ins)>,
  ];
}

def Bcast_ReductionOpInterface : OpInterface<"ReductionOpInterface"> {
  let cppNamespace = "::mlir::bcast";
  let description = [{
    A reduction over some dimensions of its one operand `x` (PyTorch's
    `x.sum(dims, keepdim)`, `x.argmax(dim, keepdim)`): what the verifier,
    shape inference, the lowering, folding and sharding ask of it. ODS
    answers the questions about the op's form from the fields of
    Bcast_ReductionOp; the op's entry in ReductionFunctions.cpp answers the
    rest (its result element type, its loops, its fold), so that the
    reduction's semantics live in one place.
  }];
  let methods = [
    InterfaceMethod<[{
        The reduction as written: the dims (std::nullopt: every dimension;
        possibly negative, unchecked) and keepdim.
      }],
      "::mlir::bcast::ReductionSpec", "getSpec", (ins)>,
    InterfaceMethod<[{
        The name PyTorch gives the reduction in its messages (`amax`).
      }],
      "::llvm::StringRef", "getReductionName", (ins)>,
    InterfaceMethod<[{
        Whether the reduction picks an element (amax, argmax), so that
        reducing an empty dimension is an error.
      }],
      "bool", "picksElement", (ins)>,
    InterfaceMethod<[{
        What PyTorch adds to `Expected reduction dim to be specified for
        input.numel() == 0.` when a reduction that picks an element has no
        dims and an empty input (empty: nothing).
      }],
      "::llvm::StringRef", "getUnspecifiedDimHint", (ins)>,
    InterfaceMethod<[{
        Whether the reduction without dims reduces the flattened input as
        one dimension (argmax's index into the flattened tensor), rather
        than every dimension.
      }],
      "bool", "flattensWithoutDims", (ins)>,
    InterfaceMethod<[{
        The result element type for input elements `input` (PyTorch's
        rule), or a null type with `error` (when given) set to PyTorch's
        sentence when the input type is not accepted.
      }],
      "::mlir::Type", "getResultElementType",
      (ins "::mlir::Type":$input, "std::string *":$error)>,
    InterfaceMethod<[{
        The element type the input is converted to before it is reduced
        (PyTorch's `dtype=` of sum, mean and prod), or a null type where it
        is reduced as it is. `getResultElementType` already accounts for
        it; the lowering and folding convert the elements first.
      }],
      "::mlir::Type", "getInputConversion", (ins)>,
    InterfaceMethod<[{
        The type the reduction accumulates in for input elements `input`
        (which the op accepts).
      }],
      "::mlir::Type", "getAccumulatorType", (ins "::mlir::Type":$input)>,
    InterfaceMethod<[{
        Builds the reduction's loops through `emitter` (the lowering's, at
        its insertion point) and returns the reduced tensor, with elements
        of the accumulator type or already of the result type; the lowering
        converts what is left (the finish step every reduction shares).
      }],
      "::mlir::Value", "buildReduction",
      (ins "::mlir::bcast::ReductionEmitter &":$emitter)>,
    InterfaceMethod<[{
        Folds one result element from the constant input elements reduced
        into it (`values`, in input order, of the input element type) and
        their indices along the reduced dims taken together (`indices`,
        argmax's index). Returns std::nullopt where the run-time result is
        not reproduced exactly (the op is then left unfolded).
      }],
      "std::optional<::mlir::bcast::Scalar>", "foldGroup",
      (ins "::llvm::ArrayRef<::mlir::bcast::Scalar>":$values,
           "::llvm::ArrayRef<int64_t>":$indices)>,
    InterfaceMethod<[{
        How partial results over equal disjoint blocks combine, as the
        spelling of upstream `shard.all_reduce`'s reduction kind (`sum`,
        `max`, `average`), or empty where one all-reduce cannot combine
        them (var, argmax).
      }],
      "::llvm::StringRef", "getPartialCombiner", (ins)>,
  ];
}

#endif // BCAST_DIALECT_BCAST_IR_BCASTINTERFACES_TD
