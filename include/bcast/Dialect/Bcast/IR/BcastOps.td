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
                               "::mlir::bcast::ComputeTypeRule::Promoted",
                           code operandCheck = "::mlir::success()"> {
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
    let operandVerification = operandCheck;
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
    let operandVerification = operandCheck;
    let computeTypeRule = computeRule;
  }
}

defvar Bcast_Promoted = "::mlir::bcast::ComputeTypeRule::Promoted";

// PyTorch's `alpha=` of add and sub: a Python bool, int or float (i1, i64 or
// f64), converted to the compute type and multiplying `rhs`.
defvar Bcast_AlphaArg = (ins OptionalAttr<AnyAttrOf<[BoolAttr, I64Attr, F64Attr]>>:$alpha);
defvar Bcast_AlphaDoc = [{

    The optional `alpha` (PyTorch's `alpha=`: a bool, an `i64` or an `f64`
    attribute) multiplies `rhs` first, in the compute type, with PyTorch's
    checks: a bool alpha only for a bool result (`Boolean alpha only
    supported for Boolean results.`), no float alpha for integers and bools
    (`For integral input tensors, argument alpha must not be a floating
    point number.`), and an alpha the compute type cannot hold is
    `value cannot be converted to type int8_t without overflow` (PyTorch's
    C++ type names).

    ```mlir
    %r = bcast.sub %a, %b {alpha = 3 : i64} : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
    ```
}];

defm Bcast_Add : Bcast_ArithPair<"add", Bcast_Tensor, "broadcasting addition", [{
    Element-wise `lhs + alpha * rhs` (alpha 1 when absent). On i1 it is
    logical or, as for PyTorch's bool tensors.
  }] # Bcast_AlphaDoc, Bcast_AlphaArg, "f32", /*commutative=*/0,
  /*trapping=*/0, "verifyAlpha(getOperation())">;
defm Bcast_Sub : Bcast_ArithPair<"sub", Bcast_Tensor, "broadcasting subtraction", [{
    Element-wise `lhs - alpha * rhs` (alpha 1 when absent), wrapping on
    integers. Not defined when either operand is i1, with PyTorch's
    sentences.
  }] # Bcast_AlphaDoc, Bcast_AlphaArg, "f32", /*commutative=*/0, /*trapping=*/0,
  "verifyAlpha(getOperation())", Bcast_Promoted,
  // PyTorch's sub_check runs before it broadcasts.
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
                              : ::mlir::bcast::ComputeTypeRule::IntegersToFloat}],
  "verifyRoundingModeName(getOperation(), getRoundingMode())">;
defm Bcast_Remainder : Bcast_ArithPair<"remainder", Bcast_Tensor,
    "broadcasting remainder with the sign of the divisor", [{
    Element-wise remainder of `lhs / rhs` rounded towards negative infinity,
    so the result has the sign of the divisor (PyTorch's `torch.remainder`,
    Python's `%`); unsigned integers take the unsigned remainder. Integer
    remainder by zero is undefined behaviour at run time and is never
    folded. Not defined on i1 (as in PyTorch 1.13).
  }], (ins), "f32", /*commutative=*/0, /*trapping=*/1,
  [{verifyNotBool(getOperation(), "\"remainder_cpu\" not implemented for 'Bool'")}]>;
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
    -1, as in PyTorch (an unsigned exponent is never negative). Not
    defined on i1 (as in PyTorch 1.13).
  }], (ins), "f32", /*commutative=*/0, /*trapping=*/0,
  [{verifyNotBool(getOperation(), "\"pow\" not implemented for 'Bool'")}]>;
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
defm Bcast_ClampMin : Bcast_ArithPair<"clamp_min", Bcast_Tensor,
    "broadcasting lower clamp", [{
    Element-wise `max(lhs, rhs)` as PyTorch's `torch.clamp_min(x, min)`
    (`clamp(x, min=...)` with a tensor bound): NaN if either is NaN.
    Unsigned integers order as unsigned. The element function is
    `maximum`'s.
  }]>;
defm Bcast_ClampMax : Bcast_ArithPair<"clamp_max", Bcast_Tensor,
    "broadcasting upper clamp", [{
    Element-wise `min(lhs, rhs)` as PyTorch's `torch.clamp_max(x, max)`
    (`clamp(x, max=...)` with a tensor bound): NaN if either is NaN.
    Unsigned integers order as unsigned. The element function is
    `minimum`'s.
  }]>;
defm Bcast_And : Bcast_ArithPair<"and", Bcast_Tensor,
    "broadcasting bitwise and", [{
    Element-wise bitwise and of integers (logical and on i1). Not
    defined on floats, with PyTorch's sentence for the promoted type
    (`"bitwise_and_cpu" not implemented for 'Float'`).
  }], (ins), "i32", /*commutative=*/1, /*trapping=*/0,
  [{verifyBitwiseCompute(getOperation(), "bitwise_and_cpu")}]>;
defm Bcast_Or : Bcast_ArithPair<"or", Bcast_Tensor,
    "broadcasting bitwise or", [{
    Element-wise bitwise or of integers (logical or on i1). Not
    defined on floats, with PyTorch's sentence for the promoted type
    (`"bitwise_or_cpu" not implemented for 'Float'`).
  }], (ins), "i32", /*commutative=*/1, /*trapping=*/0,
  [{verifyBitwiseCompute(getOperation(), "bitwise_or_cpu")}]>;
defm Bcast_Xor : Bcast_ArithPair<"xor", Bcast_Tensor,
    "broadcasting bitwise exclusive or", [{
    Element-wise bitwise exclusive or of integers (logical xor on i1). Not
    defined on floats, with PyTorch's sentence for the promoted type
    (`"bitwise_xor_cpu" not implemented for 'Float'`).
  }], (ins), "i32", /*commutative=*/1, /*trapping=*/0,
  [{verifyBitwiseCompute(getOperation(), "bitwise_xor_cpu")}]>;

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

// A comparison and its in-place twin `<name>_` (PyTorch's `x.lt_(y)`), which
// applies the comparison's element function and stores its 0 or 1 in the
// in-place operand's type (a bool result can be stored in any type, so
// PyTorch's canCast never refuses it).
multiclass Bcast_ComparePair<string mnemonic, string relation,
                             string floatPredicate, string signedPredicate,
                             string unsignedPredicate,
                             list<Trait> traits = []> {
  def Op : Bcast_CompareOp<mnemonic, relation, floatPredicate, signedPredicate,
                           unsignedPredicate, traits>;
  def InPlaceOp : Bcast_BinaryOp<mnemonic # "_", Bcast_Tensor, Bcast_Tensor,
                                 [Bcast_InPlace]> {
    let summary = "broadcasting comparison `lhs " # relation # " rhs`, in place";
    let description = [{
      Element-wise comparison `lhs }] # relation # [{ rhs` in the operands'
      promoted type, as the out-of-place op compares, stored in place as 1
      or 0 of the in-place operand's type (PyTorch's `x.}] # mnemonic #
      [{_(y)`).
    }] # Bcast_BroadcastRuleDoc # Bcast_InPlaceRuleDoc # [{

      Example:

      ```mlir
      %r = bcast.}] # mnemonic # [{_ %x, %y : (tensor<4x3xi32>, tensor<3xf32>) -> tensor<4x3xi32>
      ```
    }];
    let elementFunction = !subst("Bcast_", "", NAME) # "Op";
    let boolValued = 1;
  }
}

defm Bcast_Eq : Bcast_ComparePair<"eq", "==", "OEQ", "eq", "eq", [Commutative]>;
defm Bcast_Ne : Bcast_ComparePair<"ne", "!=", "UNE", "ne", "ne", [Commutative]>;
defm Bcast_Lt : Bcast_ComparePair<"lt", "<", "OLT", "slt", "ult">;
defm Bcast_Le : Bcast_ComparePair<"le", "<=", "OLE", "sle", "ule">;
defm Bcast_Gt : Bcast_ComparePair<"gt", ">", "OGT", "sgt", "ugt">;
defm Bcast_Ge : Bcast_ComparePair<"ge", ">=", "OGE", "sge", "uge">;

//===----------------------------------------------------------------------===//
// Unary ops, with their in-place twins
//===----------------------------------------------------------------------===//

defvar Bcast_FloatFunction = "::mlir::bcast::ComputeTypeRule::FloatFunction";

// Defines the one-operand op `<name>` and, when `hasInPlace` (PyTorch has the
// method), its in-place twin `<name>_`, which applies the out-of-place op's
// element function. `boolResult` gives the out-of-place op an i1 result; its
// twin stores the i1 value in the in-place type. `definition` is the
// generated element function (Bcast_FloatFunctionPair), or empty when
// ElementFunctions.cpp has it.
multiclass Bcast_UnaryPair<string mnemonic, string opSummary,
                           string opDescription, bit hasInPlace = 1,
                           code computeRule = Bcast_Promoted,
                           code verification = "::mlir::success()",
                           bit boolResult = 0, code definition = "",
                           dag extraArgs = (ins), string attrExample = ""> {
  defvar resultElt = !if(boolResult, "i1", "f32");
  def Op : Bcast_UnaryOp<mnemonic, Bcast_Tensor,
                         !if(boolResult, Bcast_BoolTensor, Bcast_Tensor),
                         !if(boolResult, [Bcast_BoolResult], [])> {
    let summary = opSummary;
    let description = opDescription # [{

      Example:

      ```mlir
      %r = bcast.}] # mnemonic # [{ %a}] # attrExample #
      [{ : (tensor<4x3xf32>) -> tensor<4x3x}] # resultElt # [{>
      ```
    }];
    let arguments = !con((ins Bcast_Tensor:$x), extraArgs);
    let computeTypeRule = computeRule;
    let extraVerification = verification;
    let elementFunctionDefinition = definition;
  }
  if hasInPlace then
  def InPlaceOp : Bcast_UnaryOp<mnemonic # "_", Bcast_Tensor, Bcast_Tensor,
                                [Bcast_InPlace]> {
    let summary = opSummary # ", in place";
    let description = opDescription # [{

      In place (PyTorch's trailing underscore): the result has the operand's
      type, and the value computed must cast to it under PyTorch's
      `canCast` (`exp_` of an i32 tensor: `result type Float can't be cast
      to the desired output type Int`).

      Example:

      ```mlir
      %r = bcast.}] # mnemonic # [{_ %a}] # attrExample #
      [{ : (tensor<4x3xf32>) -> tensor<4x3xf32>
      ```
    }];
    let arguments = !con((ins Bcast_Tensor:$x), extraArgs);
    let elementFunction = !subst("Bcast_", "", NAME) # "Op";
    let computeTypeRule = computeRule;
    let extraVerification = verification;
    let boolValued = boolResult;
  }
}

// A float function (`exp`, `sqrt`, ...): one `math` dialect op at run time,
// the C library's function (`libm`, an expression of `x`) in the compute
// precision when folding. Integral and bool operands give f32; f16 and bf16
// are computed in f32 and rounded once (ComputeTypeRule::FloatFunction).
multiclass Bcast_FloatFunctionPair<string mnemonic, string mathOp,
                                   string libm, string opDescription> {
  defm NAME : Bcast_UnaryPair<mnemonic, "element-wise `" # mnemonic # "`",
      opDescription # [{ Integer and bool operands give an f32 result;
      f16 and bf16 are computed in f32 and rounded once.}], /*hasInPlace=*/1,
      Bcast_FloatFunction, "::mlir::success()", /*boolResult=*/0, [{
    ::mlir::Value $cppClass::buildScalar(::mlir::Operation *,
                                         ::mlir::OpBuilder &builder,
                                         ::mlir::Location loc,
                                         ::mlir::ValueRange args) {
      return ::mlir::math::}] # mathOp # [{::create(builder, loc, args[0]);
    }
    std::optional<::mlir::bcast::Scalar>
    $cppClass::foldScalar(::mlir::Operation *,
                          ::llvm::ArrayRef<::mlir::bcast::Scalar> args) {
      return ::mlir::bcast::foldFloatFunction(
          args, [](auto x) { return }] # libm # [{; });
    }
  }]>;
}

defm Bcast_Exp : Bcast_FloatFunctionPair<"exp", "ExpOp", "std::exp(x)",
    "`e` raised to the power `x`.">;
defm Bcast_Exp2 : Bcast_FloatFunctionPair<"exp2", "Exp2Op", "std::exp2(x)",
    "2 raised to the power `x`.">;
defm Bcast_Expm1 : Bcast_FloatFunctionPair<"expm1", "ExpM1Op",
    "std::expm1(x)", "`exp(x) - 1`, accurate near 0.">;
defm Bcast_Log : Bcast_FloatFunctionPair<"log", "LogOp", "std::log(x)",
    "The natural logarithm (NaN below 0, -inf at 0).">;
defm Bcast_Log2 : Bcast_FloatFunctionPair<"log2", "Log2Op", "std::log2(x)",
    "The base-2 logarithm.">;
defm Bcast_Log10 : Bcast_FloatFunctionPair<"log10", "Log10Op",
    "std::log10(x)", "The base-10 logarithm.">;
defm Bcast_Log1p : Bcast_FloatFunctionPair<"log1p", "Log1pOp",
    "std::log1p(x)", "`log(1 + x)`, accurate near 0.">;
defm Bcast_Sqrt : Bcast_FloatFunctionPair<"sqrt", "SqrtOp", "std::sqrt(x)",
    "The square root (NaN below 0, -0 for -0).">;
defm Bcast_Rsqrt : Bcast_FloatFunctionPair<"rsqrt", "RsqrtOp",
    "decltype(x)(1) / std::sqrt(x)", "`1 / sqrt(x)`.">;
defm Bcast_Sin : Bcast_FloatFunctionPair<"sin", "SinOp", "std::sin(x)",
    "The sine (radians).">;
defm Bcast_Cos : Bcast_FloatFunctionPair<"cos", "CosOp", "std::cos(x)",
    "The cosine (radians).">;
defm Bcast_Tan : Bcast_FloatFunctionPair<"tan", "TanOp", "std::tan(x)",
    "The tangent (radians).">;
defm Bcast_Asin : Bcast_FloatFunctionPair<"asin", "AsinOp", "std::asin(x)",
    "The arc sine (NaN outside [-1, 1]).">;
defm Bcast_Acos : Bcast_FloatFunctionPair<"acos", "AcosOp", "std::acos(x)",
    "The arc cosine (NaN outside [-1, 1]).">;
defm Bcast_Atan : Bcast_FloatFunctionPair<"atan", "AtanOp", "std::atan(x)",
    "The arc tangent.">;
defm Bcast_Sinh : Bcast_FloatFunctionPair<"sinh", "SinhOp", "std::sinh(x)",
    "The hyperbolic sine.">;
defm Bcast_Cosh : Bcast_FloatFunctionPair<"cosh", "CoshOp", "std::cosh(x)",
    "The hyperbolic cosine.">;
defm Bcast_Tanh : Bcast_FloatFunctionPair<"tanh", "TanhOp", "std::tanh(x)",
    "The hyperbolic tangent.">;
defm Bcast_Asinh : Bcast_FloatFunctionPair<"asinh", "AsinhOp",
    "std::asinh(x)", "The inverse hyperbolic sine.">;
defm Bcast_Acosh : Bcast_FloatFunctionPair<"acosh", "AcoshOp",
    "std::acosh(x)", "The inverse hyperbolic cosine (NaN below 1).">;
defm Bcast_Atanh : Bcast_FloatFunctionPair<"atanh", "AtanhOp",
    "std::atanh(x)", "The inverse hyperbolic tangent (NaN outside [-1, 1]).">;
defm Bcast_Erf : Bcast_FloatFunctionPair<"erf", "ErfOp", "std::erf(x)",
    "The error function.">;
defm Bcast_Erfc : Bcast_FloatFunctionPair<"erfc", "ErfcOp", "std::erfc(x)",
    "The complementary error function `1 - erf(x)`, accurate for large `x`.">;

defm Bcast_Reciprocal : Bcast_UnaryPair<"reciprocal", "element-wise `1 / x`", [{
    Element-wise `1 / x`. Integer and bool operands give an f32 result; f16
    and bf16 are computed in f32 and rounded once.
  }], /*hasInPlace=*/1, Bcast_FloatFunction>;
defm Bcast_Sigmoid : Bcast_UnaryPair<"sigmoid",
    "element-wise logistic sigmoid", [{
    Element-wise `1 / (1 + exp(-x))`, computed as `e / (1 + e)` with
    `e = exp(x)` for negative `x` so that tiny results stay exact down to
    the subnormals. Integer and bool operands give an f32 result.
  }], /*hasInPlace=*/1, Bcast_FloatFunction>;
defm Bcast_Silu : Bcast_UnaryPair<"silu", "element-wise SiLU (swish)", [{
    Element-wise `x * sigmoid(x)` (PyTorch's `torch.nn.functional.silu`),
    with the sigmoid of `Bcast_SigmoidOp`; f32 is computed through f64 and
    rounded once (sigmoid's subnormal results would otherwise lose their
    bits). Defined on floats only, as in PyTorch; f16 and bf16 are computed
    in f32 (so through f64).
  }], /*hasInPlace=*/0, Bcast_FloatFunction,
  [{verifyFloatOperands(getOperation(), "silu_cpu")}]>;
defm Bcast_Gelu : Bcast_UnaryPair<"gelu", "element-wise GELU", [{
    Element-wise Gaussian error linear unit (PyTorch's
    `torch.nn.functional.gelu`). The optional string attribute
    `approximate` is `"none"` (default: `x * Phi(x)`, with the normal
    distribution's `Phi` through `erfc`, which does not cancel for negative
    `x`) or `"tanh"` (`0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 *
    x^3)))`, computed as `x * sigmoid(2 * u)`, the same function without the
    cancellation). f32 is computed through f64 and rounded once. Defined on
    floats only, as in PyTorch.
  }], /*hasInPlace=*/0, Bcast_FloatFunction,
  [{verifyGelu(getOperation(), getApproximate())}], /*boolResult=*/0, "",
  (ins OptionalAttr<StrAttr>:$approximate), " {approximate = \"tanh\"}">;

defm Bcast_Abs : Bcast_UnaryPair<"abs", "element-wise absolute value", [{
    Element-wise `|x|`. Integers keep their type and wrap (`abs` of the most
    negative value is itself); unsigned integers are unchanged. Not defined
    on i1, as in PyTorch.
  }], /*hasInPlace=*/1, Bcast_Promoted,
  [{verifyNotBool(getOperation(), "\"abs_cpu\" not implemented for 'Bool'")}]>;
defm Bcast_Neg : Bcast_UnaryPair<"neg", "element-wise negation", [{
    Element-wise `-x`, wrapping on integers. Not defined on i1, with
    PyTorch's sentence.
  }], /*hasInPlace=*/1, Bcast_Promoted,
  [{verifyNotBool(getOperation(), "Negation, the `-` operator, on a bool "
      "tensor is not supported. If you are trying to invert a mask, use the "
      "`~` or `logical_not()` operator instead.")}]>;
defm Bcast_Sign : Bcast_UnaryPair<"sign", "element-wise sign", [{
    Element-wise -1, 0 or 1 in the operand's type (`(0 < x) - (x < 0)`, so
    NaN and -0 give +0, as PyTorch's `torch.sign`); i1 is unchanged.
  }]>;
// A rounding op: one math op on floats (`mathOp`), integers unchanged;
// folds with APFloat's `mode`, exactly. PyTorch has no kernel for bools
// (`kernel`, its name in the sentence).
multiclass Bcast_RoundingPair<string mnemonic, string mathOp, string mode,
                              string kernel, string opDescription> {
  defm NAME : Bcast_UnaryPair<mnemonic, "element-wise " # mnemonic,
      opDescription # [{ Integers are unchanged. Not defined on i1, as in
      PyTorch.}], /*hasInPlace=*/1, Bcast_Promoted,
      "verifyNotBool(getOperation(), \"\\\"" # kernel #
      "\\\" not implemented for 'Bool'\")", /*boolResult=*/0, [{
    ::mlir::Value $cppClass::buildScalar(::mlir::Operation *,
                                         ::mlir::OpBuilder &builder,
                                         ::mlir::Location loc,
                                         ::mlir::ValueRange args) {
      return ::mlir::bcast::buildRounding<::mlir::math::}] # mathOp #
                                          [{>(builder, loc, args);
    }
    std::optional<::mlir::bcast::Scalar>
    $cppClass::foldScalar(::mlir::Operation *,
                          ::llvm::ArrayRef<::mlir::bcast::Scalar> args) {
      return ::mlir::bcast::foldRounding(args, ::llvm::RoundingMode::}] #
                                         mode # [{);
    }
  }]>;
}

defm Bcast_Floor : Bcast_RoundingPair<"floor", "FloorOp", "TowardNegative",
    "floor_vml_cpu", "Rounds towards negative infinity.">;
defm Bcast_Ceil : Bcast_RoundingPair<"ceil", "CeilOp", "TowardPositive",
    "ceil_vml_cpu", "Rounds towards positive infinity.">;
defm Bcast_Round : Bcast_RoundingPair<"round", "RoundEvenOp",
    "NearestTiesToEven", "round_vml_cpu",
    "Rounds to the nearest integer, halves to even (PyTorch's `torch.round`).">;
defm Bcast_Trunc : Bcast_RoundingPair<"trunc", "TruncOp", "TowardZero",
    "trunc_vml_cpu", "Rounds towards zero.">;
defm Bcast_Relu : Bcast_UnaryPair<"relu", "element-wise ReLU", [{
    Element-wise `max(x, 0)` with NaN kept (and -0 kept, as PyTorch's
    `torch.relu`); integers keep their type. Not defined on i1, with
    PyTorch's sentence.
  }], /*hasInPlace=*/1, Bcast_Promoted,
  [{verifyNotBool(getOperation(), "Boolean inputs not supported for relu")}]>;
defm Bcast_BitwiseNot : Bcast_UnaryPair<"bitwise_not",
    "element-wise bitwise not", [{
    Element-wise `~x` on integers (logical not on i1). Not defined on floats,
    as in PyTorch.
  }], /*hasInPlace=*/1, Bcast_Promoted,
  [{verifyIntegralOperands(getOperation(), "bitwise_not_cpu")}]>;
defm Bcast_LogicalNot : Bcast_UnaryPair<"logical_not",
    "element-wise logical not", [{
    Element-wise `x == 0` with an i1 result, for every element type (NaN is
    true, so it gives false). The in-place twin stores 0 or 1 in the
    operand's type.
  }], /*hasInPlace=*/1, Bcast_Promoted, "::mlir::success()",
  /*boolResult=*/1>;
defm Bcast_Isnan : Bcast_UnaryPair<"isnan", "element-wise NaN test", [{
    Whether each element is NaN (false for integers), as an i1 tensor.
  }], /*hasInPlace=*/0, Bcast_Promoted, "::mlir::success()", /*boolResult=*/1>;
defm Bcast_Isinf : Bcast_UnaryPair<"isinf", "element-wise infinity test", [{
    Whether each element is +inf or -inf (false for integers), as an i1
    tensor.
  }], /*hasInPlace=*/0, Bcast_Promoted, "::mlir::success()", /*boolResult=*/1>;
defm Bcast_Isfinite : Bcast_UnaryPair<"isfinite", "element-wise finiteness test", [{
    Whether each element is neither infinite nor NaN (true for integers), as
    an i1 tensor.
  }], /*hasInPlace=*/0, Bcast_Promoted, "::mlir::success()", /*boolResult=*/1>;

//===----------------------------------------------------------------------===//
// Binary functions, shifts and logical ops, with their in-place twins
//===----------------------------------------------------------------------===//

defvar Bcast_IntegersToFloat =
    "::mlir::bcast::ComputeTypeRule::IntegersToFloat";
defvar Bcast_OpMath = "::mlir::bcast::ComputeTypeRule::OpMath";

defm Bcast_Atan2 : Bcast_ArithPair<"atan2", Bcast_Tensor,
    "broadcasting two-argument arc tangent", [{
    Element-wise `atan2(lhs, rhs)` (PyTorch's `torch.atan2(input, other)`):
    the angle in radians, in [-pi, pi], of the point `(rhs, lhs)`, with C's
    rules for zeros and infinities (`atan2(-0, -1)` is `-pi`). Integer and
    bool operands give an f32 result; f16 and bf16 are computed in f32 and
    rounded once. The value is the C library's `atan2` (libdevice's on the
    GPU), within its error bound; folding calls the compiler's C library in
    the compute precision.
  }], (ins), "f32", /*commutative=*/0, /*trapping=*/0, "::mlir::success()",
  Bcast_FloatFunction>;
defm Bcast_Copysign : Bcast_ArithPair<"copysign", Bcast_Tensor,
    "broadcasting copy of the sign", [{
    Element-wise `copysign(lhs, rhs)`: the magnitude of `lhs` with the sign
    bit of `rhs` (so `rhs = -0` gives a negative result, and NaN's sign bit
    counts). Exact. Integer and bool operands give an f32 result, as in
    PyTorch.
  }], (ins), "f32", /*commutative=*/0, /*trapping=*/0, "::mlir::success()",
  Bcast_IntegersToFloat>;
defm Bcast_Hypot : Bcast_ArithPair<"hypot", Bcast_Tensor,
    "broadcasting hypotenuse", [{
    Element-wise `sqrt(lhs^2 + rhs^2)` without intermediate overflow or
    underflow, as C's `hypot`: +inf if either operand is infinite, even
    when the other is NaN. f32 (and f16 and bf16, computed in f32) is
    computed in f64 and rounded once; f64 sums exact squares (`math.fma`)
    of operands scaled by a power of two, within 1 ulp. Folding calls the
    compiler's C library in the compute precision. Defined on floats only,
    with PyTorch's sentence for the promoted type (`"hypot_cpu" not
    implemented for 'Int'`).
  }], (ins), "f32", /*commutative=*/1, /*trapping=*/0,
  [{verifyFloatCompute(getOperation(), "hypot_cpu")}], Bcast_OpMath>;
defm Bcast_BitwiseLeftShift : Bcast_ArithPair<"bitwise_left_shift",
    Bcast_Tensor, "broadcasting left shift", [{
    Element-wise `lhs << rhs` on integers in their promoted type, wrapping.
    A shift amount outside [0, bit width) gives 0, as NumPy's `left_shift`
    (PyTorch 1.13's CPU kernel leaves such amounts to the hardware). Not
    defined on floats and bools, with PyTorch's sentence for the promoted
    type (`"lshift_cpu" not implemented for 'Float'`).
  }], (ins), "i32", /*commutative=*/0, /*trapping=*/0,
  [{verifyIntegralCompute(getOperation(), "lshift_cpu")}]>;
defm Bcast_BitwiseRightShift : Bcast_ArithPair<"bitwise_right_shift",
    Bcast_Tensor, "broadcasting right shift", [{
    Element-wise `lhs >> rhs` on integers in their promoted type:
    arithmetic (sign-filling) on signed integers, logical on unsigned ones.
    A shift amount outside [0, bit width) shifts every bit out: 0, or -1
    for a negative signed `lhs`, as NumPy's `right_shift`. Not defined on
    floats and bools, with PyTorch's sentence for the promoted type
    (`"rshift_cpu" not implemented for 'Float'`).
  }], (ins), "i32", /*commutative=*/0, /*trapping=*/0,
  [{verifyIntegralCompute(getOperation(), "rshift_cpu")}]>;

// Defines the logical op `<name>`, with an i1 result for any operand types,
// and its in-place twin `<name>_`, which stores the i1 value (0 or 1) in
// the in-place type.
multiclass Bcast_LogicalPair<string mnemonic, string operator> {
  defvar opSummary = "broadcasting logical " # operator;
  defvar opDescription = [{
    Element-wise `(lhs != 0) }] # operator # [{ (rhs != 0)` with an i1
    result, for any element types: the operands are promoted together first
    (as PyTorch's comparisons are), and NaN is nonzero.
  }];
  def Op : Bcast_BinaryOp<mnemonic, Bcast_Tensor, Bcast_BoolTensor,
                          [Commutative, Bcast_BoolResult]> {
    let summary = opSummary;
    let description = opDescription # Bcast_BroadcastRuleDoc # [{

      Example:

      ```mlir
      %r = bcast.}] # mnemonic # [{ %a, %b : (tensor<4x1xf32>, tensor<3xi32>) -> tensor<4x3xi1>
      ```
    }];
  }
  def InPlaceOp : Bcast_BinaryOp<mnemonic # "_", Bcast_Tensor, Bcast_Tensor,
                                 [Bcast_InPlace]> {
    let summary = opSummary # ", in place";
    let description = opDescription # [{ The in-place twin stores 0 or 1 in
    the in-place type.}] # Bcast_BroadcastRuleDoc # Bcast_InPlaceRuleDoc # [{

      Example:

      ```mlir
      %r = bcast.}] # mnemonic # [{_ %x, %y : (tensor<4x3xf32>, tensor<3xi32>) -> tensor<4x3xf32>
      ```
    }];
    let elementFunction = !subst("Bcast_", "", NAME) # "Op";
    let boolValued = 1;
  }
}

defm Bcast_LogicalAnd : Bcast_LogicalPair<"logical_and", "and">;
defm Bcast_LogicalOr : Bcast_LogicalPair<"logical_or", "or">;
defm Bcast_LogicalXor : Bcast_LogicalPair<"logical_xor", "xor">;

//===----------------------------------------------------------------------===//
// Three-operand ops, with their in-place twins
//===----------------------------------------------------------------------===//

defvar Bcast_TernaryRuleDoc = [{

    All three operands broadcast together, as `where`'s do, and promote
    together (PyTorch's `torch.result_type` over the three).
}];

// Defines the three-operand op `<name>` and its in-place twin `<name>_`
// (PyTorch's trailing underscore), which applies the out-of-place op's
// element function. `names` names the operands, the in-place one first;
// `extraArgs` holds attributes, shown in the examples as `attrExample`.
multiclass Bcast_TernaryPair<string mnemonic, list<string> names,
                             string opSummary, string opDescription,
                             code computeRule = Bcast_Promoted,
                             code operandCheck = "::mlir::success()",
                             code verification = "::mlir::success()",
                             dag extraArgs = (ins), string attrExample = "",
                             code lastIsNumber = "false"> {
  defvar operands = !dag(ins, [Bcast_Tensor, Bcast_Tensor, Bcast_Tensor],
                         names);
  def Op : Bcast_TernaryOp<mnemonic, names, Bcast_Tensor, Bcast_Tensor> {
    let summary = opSummary;
    let description = opDescription # Bcast_TernaryRuleDoc #
        Bcast_BroadcastRuleDoc # [{

      Example:

      ```mlir
      %r = bcast.}] # mnemonic # [{ %a, %b, %c}] # attrExample #
      [{ : (tensor<4x1xf32>, tensor<3xf32>, tensor<f32>) -> tensor<4x3xf32>
      ```
    }];
    let arguments = !con(operands, extraArgs);
    let computeTypeRule = computeRule;
    let operandVerification = operandCheck;
    let extraVerification = verification;
    let lastOperandIsNumber = lastIsNumber;
  }
  def InPlaceOp : Bcast_TernaryOp<mnemonic # "_", names, Bcast_Tensor,
                                  Bcast_Tensor, [Bcast_InPlace]> {
    let summary = opSummary # ", in place";
    let description = opDescription # Bcast_TernaryRuleDoc #
        Bcast_BroadcastRuleDoc # Bcast_InPlaceRuleDoc # [{

      The in-place rule holds for both other operands: `%a` of type
      `tensor<1x3xf32>` with a `tensor<2x3xf32>` operand reports `output
      with shape [1, 3] doesn't match the broadcast shape [2, 3]`.

      Example:

      ```mlir
      %r = bcast.}] # mnemonic # [{_ %a, %b, %c}] # attrExample #
      [{ : (tensor<4x3xf32>, tensor<3xf32>, tensor<f32>) -> tensor<4x3xf32>
      ```
    }];
    let arguments = !con(operands, extraArgs);
    let elementFunction = !subst("Bcast_", "", NAME) # "Op";
    let computeTypeRule = computeRule;
    let operandVerification = operandCheck;
    let extraVerification = verification;
    let lastOperandIsNumber = lastIsNumber;
  }
}

defm Bcast_Clamp : Bcast_TernaryPair<"clamp", ["input", "min", "max"],
    "broadcasting clamp between tensor bounds", [{
    Element-wise `min(max(input, min), max)` (PyTorch's `torch.clamp` with
    tensor bounds): NaN if any of the three is NaN, and `max` where `min >
    max`. Floats order -0 below +0, as `maximum` and `minimum` do; integers
    compare signed (unsigned for unsigned types). Exact in every type. Not
    defined on bools, with PyTorch's sentence (`"clamp_cpu" not implemented
    for 'Bool'`).
  }], Bcast_Promoted, "::mlir::success()",
  [{verifyNotBool(getOperation(), "\"clamp_cpu\" not implemented for 'Bool'")}]>;
defm Bcast_Lerp : Bcast_TernaryPair<"lerp", ["input", "end", "weight"],
    "broadcasting linear interpolation", [{
    Element-wise `input + weight * (end - input)` (PyTorch's `torch.lerp`
    with a tensor weight), computed as PyTorch 1.13 computes it: `input +
    weight * (end - input)` where `weight < 0.5`, else `end - (end - input) *
    (1 - weight)`, so that weight 1 gives `end` exactly (a NaN weight takes
    the second formula). The three operands must
    have one float type, with PyTorch's sentences (`expected dtype float for
    `end` but got dtype double`, `"lerp_kernel_tensor" not implemented for
    'Int'`); f16 and bf16 are computed in f32 and rounded once.

    With the unit attribute `scalar_weight`, `weight` is a Python number
    (PyTorch's `lerp.Scalar`, `torch.lerp(a, b, 0.4)`): a `tensor<f64>`,
    `tensor<i64>` or `tensor<i1>` (the number's 64-bit carrier) that takes
    no part in the promotion and is converted straight to the compute type,
    as PyTorch converts the Scalar to `opmath_t`: with bf16 tensors, 0.4
    enters the f32 computation as 0.4f, not as bf16's 0.400390625. Any other
    `weight` type is an error (`` `scalar_weight` takes a Python number:
    `weight` must be tensor<f64>, tensor<i64> or tensor<i1>, not
    'tensor<3xf64>' ``), and a non-float `input` is PyTorch's
    `"lerp_kernel_scalar" not implemented for 'Long'`.

    ```mlir
    %r = bcast.lerp %a, %b, %w {scalar_weight} : (tensor<3xbf16>, tensor<3xbf16>, tensor<f64>) -> tensor<3xbf16>
    ```
  }], Bcast_OpMath, [{verifyLerp(getOperation())}],
  [{verifyLerpKernel(getOperation())}],
  (ins UnitAttr:$scalar_weight), "", "adaptor.getScalarWeight()">;
defm Bcast_Addcmul : Bcast_TernaryPair<"addcmul",
    ["input", "tensor1", "tensor2"],
    "broadcasting `input + value * tensor1 * tensor2`", [{
    Element-wise `input + value * tensor1 * tensor2` (PyTorch's
    `torch.addcmul`), computed as `input + (value * tensor1) * tensor2` in
    the promoted type, rounding after each operation (PyTorch's CPU kernels
    may fuse the last two into one `fma`). The optional f64 attribute `value`
    (default 1) is converted to the compute type first: rounded to nearest
    for floats, truncated towards zero for integers; a value that does not
    fit is PyTorch's error (`value cannot be converted to type int without
    overflow`). f16 and bf16 are computed in f32 and rounded once; integers
    wrap. Not defined on bools, with PyTorch's sentence.
  }], Bcast_OpMath, "::mlir::success()", [{verifyAddcmul(getOperation())}],
  (ins OptionalAttr<F64Attr>:$value), " {value = 5.000000e-01 : f64}">;
defm Bcast_Addcdiv : Bcast_TernaryPair<"addcdiv",
    ["input", "tensor1", "tensor2"],
    "broadcasting `input + value * tensor1 / tensor2`", [{
    Element-wise `input + value * tensor1 / tensor2` (PyTorch's
    `torch.addcdiv`), computed as `input + (value * tensor1) / tensor2` in
    the promoted type, rounding after each operation. When `tensor1` and
    `tensor2` are both integers or bools it is PyTorch's error `Integer
    division with addcdiv is no longer supported, ...`; otherwise the
    promoted type is a float type. The optional f64 attribute `value`
    (default 1) is rounded to the compute type first (an overflow is
    PyTorch's error, as for `addcmul`). f16 and bf16 are computed in f32 and
    rounded once.
  }], Bcast_OpMath, [{verifyAddcdivOperands(getOperation())}],
  [{verifyScaleValue(getOperation())}],
  (ins OptionalAttr<F64Attr>:$value), " {value = 5.000000e-01 : f64}">;

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
// permute
//===----------------------------------------------------------------------===//

// A layout op: the result is `x` read in another order. It never fails at
// run time (the dims are static), so it is Pure.
def Bcast_PermuteOp : Bcast_Op<"permute", [
    Pure, DeclareOpInterfaceMethods<InferTypeOpInterface>,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
                              ["reifyResultShapes"]>]> {
  let summary = "reorders the dimensions of a tensor (PyTorch's `permute`)";
  let description = [{
    Result dimension `i` is dimension `dims[i]` of `x`: `result[i0, i1, ...]
    = x[j...]` with `j[dims[i]] = i_i`. PyTorch 1.13's `x.permute(*dims)`,
    and through it `x.transpose(d0, d1)`, `x.mT` and `x.T`:

    | `dims` | requirement | PyTorch's sentence on violation |
    |--------|-------------|--------------------------------|
    | length | equal to the rank of `x` | `permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = 3 is not equal to len(dims) = 2` |
    | each dim | in `[-rank, rank - 1]`, negative counting from the end | `Dimension out of range (expected to be in range of [-3, 2], but got 3)` |
    | each dim, wrapped | not repeated | `permute(): duplicate dims are not allowed.` |

    The length is checked first, then each dim in order, its range before
    its repetition (PyTorch's order; its length sentence names
    `sparse_coo` for dense tensors too). A rank-0 `x` takes `dims = []`.
    Every element type and `?` sizes are accepted: a `?` size moves with
    its dim. The result type is inferred (the permuted shape, the element
    type of `x`) and must be declared exactly.

    Folds: the identity permutation gives `x`, a permute of a permute is
    one permute, and a constant is permuted. The lowering reads `x` through
    the permutation's map: no copy where an element-wise op or a
    `bcast.matmul` consumes it (docs/Semantics.md).

    Example (`k.transpose(-1, -2)`):

    ```mlir
    %kt = bcast.permute %k {dims = array<i64: 0, 1, 3, 2>} : (tensor<8x12x128x64xf32>) -> tensor<8x12x64x128xf32>
    ```
  }];
  let arguments = (ins Bcast_Tensor:$x, DenseI64ArrayAttr:$dims);
  let results = (outs Bcast_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type($x, $result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// The dims wrapped to `[0, rank)` (the verifier has checked them).
    ::llvm::SmallVector<int64_t> getPermutation();
  }];
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
// Reductions
//===----------------------------------------------------------------------===//

defvar Bcast_ReductionDoc = [{

    `dims` (optional, a `DenseI64ArrayAttr`) lists the reduced dimensions;
    negative ones count from the end, as in PyTorch, and a rank-0 input
    accepts 0 and -1. Absent, every dimension is reduced (`x.sum()`); an
    empty list is an error, since PyTorch and NumPy give it opposite
    meanings. `keepdim` (optional, default false) keeps each reduced
    dimension with size 1, so that the result broadcasts back over the
    input. Errors use PyTorch's sentences: `Dimension out of range
    (expected to be in range of [-2, 1], but got 2)` and `dim 1 appears
    multiple times in the list of dims`; a declared result type that is not
    the reduced shape is an error naming the `reduced shape`.
}];

def Bcast_SumOp : Bcast_DimsReductionOp<"sum", Bcast_DtypeArg> {
  let inputConversion = Bcast_DtypeConversion;
  let partialCombiner = "sum";
  let summary = "the sum of the elements";
  let description = [{
    The sum of the elements of `x` over `dims`. Integers and i1 give i64,
    as PyTorch (`ui16`..`ui64` give `ui64`, as NumPy), and wrap; f16 and bf16
    are accumulated in f32 and rounded once. Floating sums are accumulated
    in blocks (docs/Semantics.md states the method). An empty reduction
    gives 0. With `dtype` (PyTorch's `dtype=`) the input is converted to
    `dtype` first (as `bcast.cast`) and the result has elements of `dtype`,
    in which integers wrap (`sum` of i8 with `dtype = i8` gives i8).
  }] # Bcast_ReductionDoc # [{

    Example:

    ```mlir
    %r = bcast.sum %x {dims = array<i64: 1>, keepdim = true} : (tensor<4x3xf32>) -> tensor<4x1xf32>
    %h = bcast.sum %i {dtype = f16} : (tensor<4x3xi8>) -> tensor<f16>
    ```
  }];
}

def Bcast_MeanOp : Bcast_DimsReductionOp<"mean", Bcast_DtypeArg> {
  let inputConversion = Bcast_DtypeConversion;
  let partialCombiner = "average";
  let summary = "the mean of the elements";
  let description = [{
    The sum over `dims` divided by the number of elements reduced; floats
    only, with PyTorch's sentence otherwise (`mean(): could not infer output
    dtype. Input dtype must be either a floating point or complex dtype.
    Got: Long`). f16 and bf16 are accumulated in f32. An empty reduction
    gives NaN. With `dtype` (PyTorch's `dtype=`) the input, of any type, is
    converted to `dtype` first and the result has elements of `dtype`,
    which must be a float: `mean(): could not infer output dtype. Optional
    dtype must be either a floating point or complex dtype. Got: Int`.
  }] # Bcast_ReductionDoc # [{

    Example:

    ```mlir
    %r = bcast.mean %x {dims = array<i64: 1>, keepdim = true} : (tensor<4x3xf32>) -> tensor<4x1xf32>
    ```
  }];
}

def Bcast_ProdOp : Bcast_DimsReductionOp<"prod", Bcast_DtypeArg> {
  let inputConversion = Bcast_DtypeConversion;
  let partialCombiner = "product";
  let summary = "the product of the elements";
  let description = [{
    The product of the elements over `dims`. Integers and i1 give i64 (as
    `sum`), wrapping; f16 and bf16 are accumulated in f32 and rounded once.
    An empty reduction gives 1. `dtype` converts the input first, as `sum`'s
    (`prod` of f32 with `dtype = i8` gives i8).
  }] # Bcast_ReductionDoc # [{

    Example:

    ```mlir
    %r = bcast.prod %x {dims = array<i64: 1>, keepdim = true} : (tensor<4x3xi32>) -> tensor<4x1xi64>
    ```
  }];
}

def Bcast_AmaxOp : Bcast_DimsReductionOp<"amax"> {
  let picksElement = 1;
  let unspecifiedDimHint =
      " Specify the reduction dim with the 'dim' argument.";
  let accumulator = "::mlir::bcast::ReductionAccumulator::Input";
  let partialCombiner = "max";
  let summary = "the maximum of the elements";
  let description = [{
    The greatest element over `dims`, of the input's element type; a NaN
    gives NaN (PyTorch's `amax`). A reduced dimension of size 0 is PyTorch's
    error `amax(): Expected reduction dim 0 to have non-zero size.` (at run
    time for a dynamic size); reducing every dimension of an empty tensor
    is `amax(): Expected reduction dim to be specified for input.numel() ==
    0. Specify the reduction dim with the 'dim' argument.`
  }] # Bcast_ReductionDoc # [{

    Example:

    ```mlir
    %r = bcast.amax %x {dims = array<i64: 1>, keepdim = true} : (tensor<4x3xf32>) -> tensor<4x1xf32>
    ```
  }];
}

def Bcast_AminOp : Bcast_DimsReductionOp<"amin"> {
  let picksElement = 1;
  let unspecifiedDimHint =
      " Specify the reduction dim with the 'dim' argument.";
  let accumulator = "::mlir::bcast::ReductionAccumulator::Input";
  let partialCombiner = "min";
  let summary = "the minimum of the elements";
  let description = [{
    The least element over `dims`, as `amax` (NaN gives NaN, a reduced size
    0 is an error).
  }] # Bcast_ReductionDoc # [{

    Example:

    ```mlir
    %r = bcast.amin %x {dims = array<i64: 1>, keepdim = true} : (tensor<4x3xf32>) -> tensor<4x1xf32>
    ```
  }];
}

def Bcast_AnyOp : Bcast_DimsReductionOp<"any"> {
  let partialCombiner = "max";
  let summary = "whether any element is non-zero";
  let description = [{
    True where any element over `dims` is non-zero (NaN counts as
    non-zero). The result is i1, except for `ui8` inputs, which give `ui8`
    (0 or 1), as PyTorch 1.13 documents for `uint8`. An empty reduction
    gives false.
  }] # Bcast_ReductionDoc # [{

    Example:

    ```mlir
    %r = bcast.any %x {dims = array<i64: 1>, keepdim = true} : (tensor<4x3xf32>) -> tensor<4x1xi1>
    ```
  }];
}

def Bcast_AllOp : Bcast_DimsReductionOp<"all"> {
  let partialCombiner = "min";
  let summary = "whether every element is non-zero";
  let description = [{
    True where every element over `dims` is non-zero: i1, or `ui8` (0 or
    1) for `ui8` inputs, as `any`. An empty reduction gives true.
  }] # Bcast_ReductionDoc # [{

    Example:

    ```mlir
    %r = bcast.all %x {dims = array<i64: 1>, keepdim = true} : (tensor<4x3xf32>) -> tensor<4x1xi1>
    %u = bcast.all %b : (tensor<4x3xui8>) -> tensor<ui8>
    ```
  }];
}

def Bcast_LogsumexpOp : Bcast_DimsReductionOp<"logsumexp"> {
  let summary = "log of the sum of exponentials";
  let description = [{
    `log(sum(exp(x)))` over `dims`, computed stably as PyTorch does: the
    maximum `m` is subtracted first (an infinite `m` is replaced by 0), so
    large elements do not overflow. Integers and i1 give f32; f16 and bf16
    are computed in f32 and rounded once. An empty reduction gives -inf.
  }] # Bcast_ReductionDoc # [{

    Example:

    ```mlir
    %r = bcast.logsumexp %x {dims = array<i64: 1>, keepdim = true} : (tensor<4x3xf32>) -> tensor<4x1xf32>
    ```
  }];
}

def Bcast_VarOp : Bcast_DimsReductionOp<"var", (ins OptionalAttr<I64Attr>:$correction)> {
  let summary = "the variance";
  let description = [{
    The variance over `dims`: the sum of squared deviations from the mean,
    divided by `max(0, N - correction)` where `N` is the number of elements
    reduced and `correction` (optional, default 1: Bessel's correction) is
    an i64, as PyTorch's `var(correction=...)`; computed in two passes
    (mean, then deviations). Floats only, with PyTorch's sentence `std and
    var only support floating point and complex dtypes`. One element with
    correction 1 gives NaN.
  }] # Bcast_ReductionDoc # [{

    Example:

    ```mlir
    %r = bcast.var %x {dims = array<i64: 1>, keepdim = true} : (tensor<4x3xf32>) -> tensor<4x1xf32>
    ```
  }];
}

def Bcast_StdOp : Bcast_DimsReductionOp<"std", (ins OptionalAttr<I64Attr>:$correction)> {
  let summary = "the standard deviation";
  let description = [{
    The square root of `var` over `dims`, with the same `correction`
    (default 1) and rules.
  }] # Bcast_ReductionDoc # [{

    Example:

    ```mlir
    %r = bcast.std %x {dims = array<i64: 1>, keepdim = true} : (tensor<4x3xf32>) -> tensor<4x1xf32>
    ```
  }];
}

defvar Bcast_ArgReductionDoc = [{

    `dim` (optional, an i64) is the reduced dimension, negative counting
    from the end; absent, the result is the index into the flattened
    tensor, of rank 0 (all ones with `keepdim = true`, as PyTorch). Ties
    give the first index; a NaN is greater (`argmax`) or less (`argmin`)
    than every number, so the first NaN wins. The result is i64; i1 inputs
    are rejected with PyTorch's sentence (`"argmax_cpu" not implemented for
    'Bool'`). A reduced size 0 is an error, at run time for a dynamic size.
}];

def Bcast_ArgmaxOp : Bcast_ArgReductionOp<"argmax"> {
  let summary = "the index of the greatest element";
  let description = [{
    The index of the greatest element along `dim` (PyTorch's `argmax`).
  }] # Bcast_ArgReductionDoc # [{

    Example:

    ```mlir
    %i = bcast.argmax %x {dim = 1 : i64, keepdim = true} : (tensor<4x3xf32>) -> tensor<4x1xi64>
    ```
  }];
}

def Bcast_ArgminOp : Bcast_ArgReductionOp<"argmin"> {
  let summary = "the index of the least element";
  let description = [{
    The index of the least element along `dim` (PyTorch's `argmin`).
  }] # Bcast_ArgReductionDoc # [{

    Example:

    ```mlir
    %i = bcast.argmin %x : (tensor<4x3xf32>) -> tensor<i64>
    ```
  }];
}

// softmax and log_softmax: the shape is kept; `dim` is reduced and the
// statistics broadcast back over it.
class Bcast_SoftmaxBase<string mnemonic, string formula>
    : Bcast_Op<mnemonic, [Pure,
                          DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = formula # " along `dim`";
  let description = [{
    }] # formula # [{ along `dim` (an i64, negative counting from the end; a
    rank-0 input accepts 0 and -1), computed stably as PyTorch does: the
    maximum along `dim` is subtracted before `exp`. Floats only, as
    PyTorch, with its sentence (`"softmax_lastdim_kernel_impl" not
    implemented for 'Int'`); f16 and bf16 are computed in f32 and rounded
    once. The result has the input's type, or, with `dtype` (optional, a
    type: PyTorch's `dtype=`), the input's shape with elements of `dtype`:
    the input is converted to `dtype` first (as `bcast.cast`), so an
    integer input with a float `dtype` is accepted and an integer `dtype`
    is the sentence above, naming it.

    Example:

    ```mlir
    %y = bcast.}] # mnemonic # [{ %x {dim = -1 : i64} : (tensor<4x3xf32>) -> tensor<4x3xf32>
    %z = bcast.}] # mnemonic # [{ %h {dim = 0 : i64, dtype = f64} : (tensor<4x3xf16>) -> tensor<4x3xf64>
    ```
  }];
  let arguments = !con((ins Bcast_Tensor:$x, I64Attr:$dim), Bcast_DtypeArg);
  let results = (outs Bcast_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type($x, $result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Bcast_SoftmaxOp : Bcast_SoftmaxBase<"softmax", "`exp(x) / sum(exp(x))`">;
def Bcast_LogSoftmaxOp : Bcast_SoftmaxBase<"log_softmax",
                                           "`x - log(sum(exp(x)))`">;

// Not speculatable where a dynamic size is checked at run time.
def Bcast_SumToSizeOp : Bcast_Op<"sum_to_size", [
    NoMemoryEffect, DeclareOpInterfaceMethods<ConditionallySpeculatable>]> {
  let summary = "sums a tensor down to a shape that broadcasts to it "
                "(PyTorch's `sum_to_size`)";
  let description = [{
    The adjoint of broadcasting: the gradient of a broadcasting op with
    respect to an operand of the result type's shape. The result shape must
    expand to the shape of `x` (aligned at the trailing dimension, each size
    1 or equal); the leading dimensions `x` has beyond it are summed away and
    each result dimension of size 1 where `x`'s is not is summed with
    keepdim. Where something is summed, the result element type is `sum`'s
    (PyTorch's `sum_to_size` is a `sum` then: i1 and integers give i64,
    `ui16`..`ui64` give `ui64`; f16 and bf16 are accumulated in f32); where
    nothing is (the result shape is the input's, except rank 0, which
    PyTorch always sums), the element type is kept. Where that depends on a
    dynamic size (a target 1 over a `?`), either type is accepted: the
    kernel sums into the one declared (a sum of one element is that
    element's value). The verifier says which it expected: `result element
    type 'i1' must be 'i64', the sum's element type (sum_to_size sums
    here)`. A shape that does not expand is PyTorch's error
    `size {[2, 3]} is not expandable to size {[4, 3]}.`; dynamic sizes are
    checked at run time, with the same sentence and the real sizes. A `?`
    result size keeps the size of `x` there (as `broadcast_to`'s `?`: the
    result type is the only source of the target).

    Example:

    ```mlir
    %g = bcast.sum_to_size %x : (tensor<8x16x32xf32>) -> tensor<16x1xf32>
    ```
  }];
  let arguments = (ins Bcast_Tensor:$x);
  let results = (outs Bcast_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type($x, $result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// The result element type rule (ReductionFunctions.cpp) for an input
    /// of type `input` summed to `target` (a `?` keeps the input's size):
    /// sum's element type where something is summed, the input's where
    /// nothing is. `atRunTime` (when given) is set where that depends on a
    /// dynamic input size; the sum's type is returned then.
    static ::mlir::Type inferElementType(::mlir::RankedTensorType input,
                                         ::llvm::ArrayRef<int64_t> target,
                                         bool *atRunTime);
  }];
}

include "bcast/Dialect/Bcast/IR/BcastContractionOps.td"

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
