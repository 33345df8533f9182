//===- BcastOps.td - The bcast operations ------------------*- tablegen -*-===//
//
// Every bcast op. Families share a base class (BcastBase.td) that carries the
// assembly format, traits and verifier hook; the verifiers themselves are in
// BcastOps.cpp and call the one shape-rule module.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_DIALECT_BCAST_IR_BCASTOPS_TD
#define BCAST_DIALECT_BCAST_IR_BCASTOPS_TD

include "bcast/Dialect/Bcast/IR/BcastBase.td"

// Element-wise ops have no memory effect (the in-place twins are
// value-semantic on tensors) and are speculatable unless a run-time check may
// fail (dynamic sizes) or integer division may trap (Bcast_ElementwiseOp).

//===----------------------------------------------------------------------===//
// Arithmetic and bitwise ops, with their in-place twins
//===----------------------------------------------------------------------===//

// Defines `<name>` and its in-place twin `<name>_` (PyTorch's trailing
// underscore), e.g. `bcast.add` and `bcast.add_`. The twin applies the
// out-of-place op's element function. `commutative` marks the out-of-place
// op Commutative; `trapping` marks integer division and remainder.
multiclass Bcast_ArithPair<string mnemonic, Type operandType, string opSummary,
                           string opDescription, dag extraArgs = (ins),
                           string elt = "f32", bit commutative = 0,
                           bit trapping = 0,
                           code verification = "::mlir::success()",
                           code computeRule =
                               "::mlir::bcast::ComputeTypeRule::Promoted"> {
  defvar exampleTypes = "(tensor<5x1x4x1x" # elt # ">, tensor<3x1x1x" # elt #
                        ">) -> tensor<5x3x4x1x" # elt # ">";
  defvar inPlaceExampleTypes = "(tensor<5x3x4x1x" # elt # ">, tensor<3x1x1x" #
                               elt # ">) -> tensor<5x3x4x1x" # elt # ">";
  def Op : Bcast_BinaryOp<mnemonic, operandType, operandType,
                          !if(commutative, [Commutative], [])> {
    let summary = opSummary;
    let description = opDescription # Bcast_BroadcastRuleDoc # [{

      Example:

      ```mlir
      %r = bcast.}] # mnemonic # [{ %a, %b : }] # exampleTypes # [{
      ```
    }];
    let arguments = !con((ins operandType:$lhs, operandType:$rhs), extraArgs);
    let mayTrap = trapping;
    let extraVerification = verification;
    let computeTypeRule = computeRule;
  }
  def InPlaceOp : Bcast_BinaryOp<mnemonic # "_", operandType, operandType,
                                 [Bcast_InPlace]> {
    let summary = opSummary # ", in place";
    let description = opDescription # Bcast_BroadcastRuleDoc #
        Bcast_InPlaceRuleDoc # [{

      Example:

      ```mlir
      %r = bcast.}] # mnemonic # [{_ %x, %y : }] # inPlaceExampleTypes # [{
      ```
    }];
    let arguments = !con((ins operandType:$lhs, operandType:$rhs), extraArgs);
    let elementFunction = !subst("Bcast_", "", NAME) # "Op";
    let mayTrap = trapping;
    let extraVerification = verification;
    let computeTypeRule = computeRule;
  }
}

defm Bcast_Add : Bcast_ArithPair<"add", Bcast_Tensor, "broadcasting addition", [{
    Element-wise `lhs + rhs`. On i1 it is logical or, as for PyTorch's bool
    tensors.
  }], (ins), "f32", /*commutative=*/1>;
defm Bcast_Sub : Bcast_ArithPair<"sub", Bcast_Tensor, "broadcasting subtraction", [{
    Element-wise `lhs - rhs`, wrapping on integers. Not defined when either
    operand is i1, with PyTorch's sentences.
  }], (ins), "f32", /*commutative=*/0, /*trapping=*/0,
  "verifySubtraction(getOperation())">;
defm Bcast_Mul : Bcast_ArithPair<"mul", Bcast_Tensor, "broadcasting multiplication", [{
    Element-wise `lhs * rhs`, wrapping on integers. On i1 it is logical and.
  }], (ins), "f32", /*commutative=*/1>;
defm Bcast_Div : Bcast_ArithPair<"div", Bcast_Tensor, "broadcasting division", [{
    Element-wise `lhs / rhs` as PyTorch's `torch.div`. The optional string
    attribute `rounding_mode` is `"trunc"` (round towards zero) or `"floor"`
    (round towards negative infinity) and keeps the promoted type; without
    it the division is true division, computed in the promoted type if it is
    floating and in f32 otherwise (integers and bools divide as floats).
    Unsigned integers (`ui8`..`ui64`) divide as unsigned, where both
    rounding modes agree. Integer division by zero is undefined behaviour at
    run time (it traps on x86) and is never folded.

    ```mlir
    %r = bcast.div %a, %b {rounding_mode = "floor"} : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    ```
  }], (ins OptionalAttr<StrAttr>:$rounding_mode), "f32", /*commutative=*/0,
  /*trapping=*/1, "verifyRoundingMode(getOperation(), getRoundingMode())",
  [{adaptor.getRoundingMode() ? ::mlir::bcast::ComputeTypeRule::Promoted
                              : ::mlir::bcast::ComputeTypeRule::IntegersToFloat}]>;
defm Bcast_Remainder : Bcast_ArithPair<"remainder", Bcast_Tensor,
    "broadcasting remainder with the sign of the divisor", [{
    Element-wise remainder of `lhs / rhs` rounded towards negative infinity,
    so the result has the sign of the divisor (PyTorch's `torch.remainder`,
    Python's `%`); unsigned integers take the unsigned remainder. Integer
    remainder by zero is undefined behaviour at run time and is never
    folded.
  }], (ins), "f32", /*commutative=*/0, /*trapping=*/1>;
defm Bcast_Fmod : Bcast_ArithPair<"fmod", Bcast_Tensor,
    "broadcasting remainder with the sign of the dividend", [{
    Element-wise C `fmod(lhs, rhs)` (PyTorch's `torch.fmod`): the remainder
    of `lhs / rhs` rounded towards zero, so the result has the sign of the
    dividend (the unsigned remainder on unsigned integers). On floats a zero
    divisor gives NaN; integer fmod by zero, and `INT_MIN` by -1, are
    undefined behaviour at run time and never folded.
    Not defined on i1 (as in PyTorch).
  }], (ins), "f32", /*commutative=*/0, /*trapping=*/1,
  [{verifyNotBool(getOperation(), "\"fmod_cpu\" not implemented for 'Bool'")}]>;
defm Bcast_Pow : Bcast_ArithPair<"pow", Bcast_Tensor, "broadcasting power", [{
    Element-wise `lhs ** rhs`. On integers it is computed by repeated
    squaring, wrapping; a negative exponent gives 0 unless the base is 1 or
    -1, as in PyTorch (an unsigned exponent is never negative).
  }]>;
defm Bcast_Maximum : Bcast_ArithPair<"maximum", Bcast_Tensor,
    "broadcasting maximum", [{
    Element-wise maximum; a NaN operand gives NaN (PyTorch's
    `torch.maximum`). Unsigned integers order as unsigned.
  }], (ins), "f32", /*commutative=*/1>;
defm Bcast_Minimum : Bcast_ArithPair<"minimum", Bcast_Tensor,
    "broadcasting minimum", [{
    Element-wise minimum; a NaN operand gives NaN (PyTorch's
    `torch.minimum`). Unsigned integers order as unsigned.
  }], (ins), "f32", /*commutative=*/1>;
defm Bcast_And : Bcast_ArithPair<"and", Bcast_IntTensor,
    "broadcasting bitwise and", [{
    Element-wise bitwise and of integers (logical and on i1).
  }], (ins), "i32", /*commutative=*/1>;
defm Bcast_Or : Bcast_ArithPair<"or", Bcast_IntTensor,
    "broadcasting bitwise or", [{
    Element-wise bitwise or of integers (logical or on i1).
  }], (ins), "i32", /*commutative=*/1>;
defm Bcast_Xor : Bcast_ArithPair<"xor", Bcast_IntTensor,
    "broadcasting bitwise exclusive or", [{
    Element-wise bitwise exclusive or of integers (logical xor on i1).
  }], (ins), "i32", /*commutative=*/1>;

//===----------------------------------------------------------------------===//
// Comparisons
//===----------------------------------------------------------------------===//

// A comparison's element function is generated from its predicates: the
// arith predicate for floats, for signed integers, and for i1 (PyTorch's
// bools compare as 0 and 1, unsigned) and unsigned integers. Building and
// folding both use them.
class Bcast_CompareOp<string mnemonic, string relation, string floatPredicate,
                      string signedPredicate, string unsignedPredicate,
                      list<Trait> traits = []>
    : Bcast_BinaryOp<mnemonic, Bcast_Tensor, Bcast_BoolTensor,
                     traits # [Bcast_BoolResult]> {
  let summary = "broadcasting comparison `lhs " # relation # " rhs`";
  let description = [{
    Element-wise comparison `lhs }] # relation # [{ rhs` with an i1 result,
    in the operands' promoted type. Signless integers compare as signed,
    unsigned ones (`ui8`..`ui64`) as unsigned, i1 as 0 and 1; floats compare
    ordered, except
    `ne`, which is true when either operand is NaN (as IEEE's `!=`).
  }] # Bcast_BroadcastRuleDoc # [{

    Example:

    ```mlir
    %r = bcast.}] # mnemonic # [{ %a, %b : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xi1>
    ```
  }];
  defvar predicates = "::mlir::arith::CmpFPredicate::" # floatPredicate #
                      ", ::mlir::arith::CmpIPredicate::" # signedPredicate #
                      ", ::mlir::arith::CmpIPredicate::" # unsignedPredicate;
  let elementFunctionDefinition = [{
    ::mlir::Value $cppClass::buildScalar(::mlir::Operation *op,
                                         ::mlir::OpBuilder &builder,
                                         ::mlir::Location loc,
                                         ::mlir::ValueRange args) {
      return ::mlir::bcast::buildComparison(op, builder, loc, args, }] #
                                            predicates # [{);
    }
    std::optional<::mlir::bcast::Scalar>
    $cppClass::foldScalar(::mlir::Operation *op,
                          ::llvm::ArrayRef<::mlir::bcast::Scalar> args) {
      return ::mlir::bcast::foldComparison(op, args, }] # predicates # [{);
    }
  }];
}

def Bcast_EqOp : Bcast_CompareOp<"eq", "==", "OEQ", "eq", "eq", [Commutative]>;
def Bcast_NeOp : Bcast_CompareOp<"ne", "!=", "UNE", "ne", "ne", [Commutative]>;
def Bcast_LtOp : Bcast_CompareOp<"lt", "<", "OLT", "slt", "ult">;
def Bcast_LeOp : Bcast_CompareOp<"le", "<=", "OLE", "sle", "ule">;
def Bcast_GtOp : Bcast_CompareOp<"gt", ">", "OGT", "sgt", "ugt">;
def Bcast_GeOp : Bcast_CompareOp<"ge", ">=", "OGE", "sge", "uge">;

//===----------------------------------------------------------------------===//
// where
//===----------------------------------------------------------------------===//

def Bcast_WhereOp : Bcast_ElementwiseOp<"where"> {
  let summary = "broadcasting select";
  let hasCondition = 1;
  let description = [{
    Element-wise `cond ? x : y` (PyTorch's `torch.where`). All three operands
    broadcast together; `cond` has i1 elements and the branches promote to
    the result element type as PyTorch's. A mismatch names the failing pair among
    a (`cond`), b (`x`) and c (`y`).
  }] # Bcast_BroadcastRuleDoc # [{

    Example:

    ```mlir
    %r = bcast.where %c, %x, %y : (tensor<4x1xi1>, tensor<3xf32>, tensor<f32>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Bcast_BoolTensor:$cond, Bcast_Tensor:$x,
                       Bcast_Tensor:$y);
  let results = (outs Bcast_Tensor:$result);
}

//===----------------------------------------------------------------------===//
// cast
//===----------------------------------------------------------------------===//

def Bcast_CastOp : Bcast_Op<"cast", [Pure]> {
  let summary = "converts the element type (PyTorch's `.to(dtype)`)";
  let description = [{
    Converts every element of `x` to the result element type; the shapes are
    equal (no broadcasting). The conversions are PyTorch's:

    - floating to integer truncates toward zero; a NaN or a value out of the
      integer's range gives an undefined result, as in C;
    - integer to floating rounds to nearest (unsigned integers convert as
      unsigned, and extend with zeros to wider integers);
    - to `i1` is `!= 0` (NaN gives true); `i1` to a number gives 0 or 1;
    - integer to integer wraps (two's complement);
    - floating to floating rounds to nearest even.

    Folds on constants (not where the result would be undefined).

    ```mlir
    %r = bcast.cast %x : (tensor<4x3xf32>) -> tensor<4x3xi32>
    ```
  }];
  let arguments = (ins Bcast_Tensor:$x);
  let results = (outs Bcast_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type($x, $result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// broadcast_to
//===----------------------------------------------------------------------===//

// No memory effect, not speculatable where a dynamic source size is checked
// at run time.
def Bcast_BroadcastToOp : Bcast_Op<"broadcast_to", [
    NoMemoryEffect, DeclareOpInterfaceMethods<ConditionallySpeculatable>,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
                                  ["reifyResultShapes"]>]> {
  let summary = "expands a tensor to a broadcast shape (PyTorch's `expand`)";
  let description = [{
    Expands `x` to the result shape: aligned at the trailing dimension, each
    size of `x` must be 1 or equal to the result size, and `x` may not have
    more dimensions than the result. A dynamic result size keeps the size of
    the aligned dimension of `x` (PyTorch's -1), so it needs one.

    Errors use PyTorch's sentences: `The expanded size of the tensor (1) must
    match the existing size (7) at non-singleton dimension 2.`, `the number
    of sizes provided (1) must be greater or equal to the number of
    dimensions in the tensor (2)` and `The expanded size of the tensor (-1)
    isn't allowed in a leading, non-existing dimension 0`.

    Example:

    ```mlir
    %r = bcast.broadcast_to %x : tensor<3x1xf32> -> tensor<4x3x5xf32>
    ```
  }];
  let arguments = (ins Bcast_Tensor:$x);
  let results = (outs Bcast_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// specify_shape
//===----------------------------------------------------------------------===//

// Not Pure: it fails at run time on a wrong size, so it may not be
// speculated (hoisted out of a loop or a branch that guards it). It has no
// memory effect, so an unused one may be removed, as a trapping
// `arith.divsi` may be: the check guards the value, not the program.
def Bcast_SpecifyShapeOp : Bcast_Op<"specify_shape", [
    NoMemoryEffect, DeclareOpInterfaceMethods<ConditionallySpeculatable>]> {
  let summary = "pins `?` sizes to static ones, checked at run time "
                "(PyTensor's `specify_shape`)";
  let description = [{
    Returns `x` with a result type that makes some of its `?` sizes static,
    so that a size that is 1 at run time becomes visible to the broadcast
    rule: under the `static` broadcast policy (PyTensor's) only a size
    statically 1 broadcasts, and `specify_shape` is PyTensor's idiom for
    making such a 1 static inside a program.

    The result has the rank and element type of `x`. Each `?` size of `x`
    may become static or stay `?`; a static size of `x` stays as it is (a
    different static size is the verifier's error `SpecifyShape: dim 1 of
    input has shape 3, expected 1.`, since it would fail on every run; a
    `?` in its place is an error too: making a size dynamic is
    `tensor.cast`'s job).

    Each refined size is checked at run time, from dimension 0 on. A wrong
    size is an error, never undefined behaviour (unlike `tensor.cast`):
    the program stops with PyTensor's sentence, dimensions counted from 0,
    `SpecifyShape: dim 1 of input has shape 3, expected 1.` (exit status 1,
    or reported to the caller with `report-errors=true`).

    Like PyTensor's `SpecifyShape`, the op is a value, not a statement: the
    check guards its result. An op whose result is unused may be removed
    with its check (it has no memory effect); an op whose result is used
    is never moved where it would not have run (it is not speculatable).
    It folds to `x` when nothing is refined, and canonicalization removes
    the check where `x` comes from a `tensor.cast` whose source has the
    refined sizes statically.

    Example (the trailing size of `%y` is 1 at run time; the add broadcasts
    it under either policy):

    ```mlir
    %c = bcast.specify_shape %y : (tensor<?x?xf32>) -> tensor<?x1xf32>
    %r = bcast.add %x, %c : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Bcast_Tensor:$x);
  let results = (outs Bcast_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type($x, $result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// Whether dimension `dim` is refined: `?` in `x`, static in the result
    /// (a size the lowering checks at run time).
    bool isRefined(int64_t dim) {
      return getX().getType().isDynamicDim(dim) &&
             !getType().isDynamicDim(dim);
    }
  }];
}

//===----------------------------------------------------------------------===//
// Ops the lowering creates
//===----------------------------------------------------------------------===//

def Bcast_ExpandViewOp : Bcast_Op<"expand_view", [
    Pure, AllTypesMatch<["source", "result"]>]> {
  let summary = "a view that broadcasts dimensions that are 1 at run time";
  let description = [{
    Created by `convert-bcast-to-linalg` under the `numpy` broadcast policy,
    not written by users. `sizes` holds one target size per dynamic
    dimension of `source`, in order. Each such dimension of the result has
    the target size; where the source size is 1 at run time, the result
    repeats its single element (the lowering's run-time checks have made sure
    the source size is 1 or the target size). The result has the source's
    type.

    Bufferization turns it into a `memref.reinterpret_cast` of the source
    buffer with stride 0 on the dimensions that are 1 at run time: a view, no
    copy. This is how the loops that follow index every operand with the
    result's indices and no per-element select.

    ```mlir
    %v = bcast.expand_view %x [%n] : tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Bcast_Tensor:$source, Variadic<Index>:$sizes);
  let results = (outs Bcast_Tensor:$result);
  let assemblyFormat = "$source `[` $sizes `]` attr-dict `:` type($source)";
  let hasVerifier = 1;
}

def Bcast_RuntimeCheckOp : Bcast_Op<"runtime_check", [
    MemoryEffects<[MemWrite]>]> {
  let summary = "stops the program with a message when a run-time check fails";
  let description = [{
    Created by `convert-bcast-to-linalg` for the shape checks that cannot be
    done at compile time, not written by users. When `failed` is true, the
    message (`format`, a printf format whose conversions are `%ld`, filled
    with `values`) is reported: `bcast-lower-runtime-checks` turns it into a
    write to stderr and `exit(1)`, or into a call to the embedder's
    `bcastReportError` followed by an early return from the function (see
    docs/Pipelines.md).

    ```mlir
    bcast.runtime_check %bad, "The size of tensor a (%ld) must match ..." (%m, %n : index, index)
    ```
  }];
  let arguments = (ins I1:$failed, StrAttr:$format,
                       Variadic<AnySignlessIntegerOrIndex>:$values);
  let assemblyFormat = [{
    $failed `,` $format (`(` $values^ `:` type($values) `)`)? attr-dict
  }];
  let hasVerifier = 1;
}

#endif // BCAST_DIALECT_BCAST_IR_BCASTOPS_TD
