//===- BcastBase.td - The bcast dialect and its base classes -*- tablegen -*-===//
//
// The dialect definition, the type constraints every bcast op shares, and the
// base classes that give each family of ops its assembly format, traits and
// verifier hook. The op list itself is in BcastOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_DIALECT_BCAST_IR_BCASTBASE_TD
#define BCAST_DIALECT_BCAST_IR_BCASTBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "bcast/Dialect/Bcast/IR/BcastInterfaces.td"

def Bcast_Dialect : Dialect {
  let name = "bcast";
  let cppNamespace = "::mlir::bcast";
  let summary = "NumPy/PyTorch broadcasting as verified tensor operations";
  let description = [{
    The `bcast` dialect holds element-wise operations on ranked tensors whose
    operands broadcast as in NumPy and PyTorch. Verifiers implement the
    broadcasting rules exactly, with PyTorch's error sentences; in-place
    variants (PyTorch's trailing underscore) implement PyTorch's in-place rule
    that the in-place tensor may not change shape.

    Broadcasting rule (shapes aligned at the trailing dimension):

    | lhs size | rhs size | result size          |
    |----------|----------|----------------------|
    | n        | n        | n                    |
    | 1        | n        | n (0 included)       |
    | n        | missing  | n                    |
    | n != 1   | m != 1, m != n | error          |
    | ?        | n != 1   | n                    |
    | ?        | 1, ?, missing | ?               |

    Rank-0 tensors are scalars and broadcast with anything.
  }];
  let hasConstantMaterializer = 1;
  let hasCanonicalizer = 1;
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Bcast_SignlessInt : Type<
    CPred<"$_self.isSignlessInteger() && "
          "::llvm::cast<::mlir::IntegerType>($_self).getWidth() <= 64">,
    "signless integer (i1 to i64)">;

def Bcast_UnsignedInt : AnyTypeOf<[UI8, UI16, UI32, UI64]>;

def Bcast_Element : AnyTypeOf<[F16, BF16, F32, F64, Bcast_SignlessInt,
                               Bcast_UnsignedInt]>;

def Bcast_NoEncodingPred :
    CPred<"!::llvm::cast<::mlir::RankedTensorType>($_self).getEncoding()">;

def Bcast_Tensor : RankedTensorOf<[Bcast_Element], [Bcast_NoEncodingPred],
                                  "ranked tensor without encoding">;
def Bcast_BoolTensor : RankedTensorOf<[I1], [Bcast_NoEncodingPred],
                                      "ranked tensor without encoding">;

//===----------------------------------------------------------------------===//
// Traits
//===----------------------------------------------------------------------===//

// Marks the element-wise broadcasting ops (every op but `broadcast_to`).
def Bcast_Elementwise : NativeOpTrait<"bcast::BroadcastElementwise">;

// Marks PyTorch's in-place variants: the first operand is the in-place
// tensor and the result has its type.
def Bcast_InPlace : NativeOpTrait<"bcast::InPlace">;

// Marks ops whose result element type is i1 regardless of the operands'.
def Bcast_BoolResult : NativeOpTrait<"bcast::BoolResult">;

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

class Bcast_Op<string mnemonic, list<Trait> traits = []>
    : Op<Bcast_Dialect, mnemonic, traits>;

defvar Bcast_BroadcastRuleDoc = [{

    Operands broadcast as in NumPy and PyTorch: shapes are aligned at the
    trailing dimension, and each pair of sizes must be equal, or one of them
    1, or one of them missing; the result size is the non-1 size (so 0 with
    1 gives 0). A dynamic size `?` is accepted at verification time; the
    lowering checks it at run time under the chosen broadcast policy. A
    mismatch is reported with PyTorch's sentence, numbering the dimension
    from the left in the broadcast rank:
    `The size of tensor a (2) must match the size of tensor b (3) at
    non-singleton dimension 1`.
}];

defvar Bcast_InPlaceRuleDoc = [{

    In-place rule (PyTorch): broadcasting may not change the shape of the
    in-place (first) operand, and the result type equals its type. A
    violation reports `output with shape [1, 3, 1] doesn't match the
    broadcast shape [3, 3, 7]` followed by the expand sentence for the other
    operand, e.g. `The expanded size of the tensor (1) must match the
    existing size (7) at non-singleton dimension 2.`
}];

// An element-wise op over broadcast operands with functional-type syntax:
//   %r = bcast.add %a, %b : (tensor<5x1xf32>, tensor<3xf32>) -> tensor<5x3xf32>
// ODS emits every per-op hook (shape inference, reification, verifier,
// folder, the element-function interface) from the fields below; what an op
// computes is its element function: the static `buildScalar` and
// `foldScalar` of the class `elementFunction` names, written in
// ElementFunctions.cpp (or generated, by `elementFunctionDefinition`).
class Bcast_ElementwiseOp<string mnemonic, list<Trait> traits = []>
    : Bcast_Op<mnemonic, traits # [
        Bcast_Elementwise,
        DeclareOpInterfaceMethods<InferTypeOpInterface>,
        DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
                                  ["reifyResultShapes"]>,
        DeclareOpInterfaceMethods<Bcast_ElementwiseOpInterface>,
        // No memory effect, but not always speculatable: a run-time shape
        // check may fail (dynamic sizes), and integer division may trap.
        NoMemoryEffect,
        DeclareOpInterfaceMethods<ConditionallySpeculatable>]> {
  // The C++ class whose static element functions this op applies: its own,
  // or the out-of-place op's for an in-place twin.
  string elementFunction = "$cppClass";
  // C++ definitions of this op's `buildScalar` and `foldScalar` when ODS
  // generates them (the comparisons); empty when ElementFunctions.cpp has
  // them.
  code elementFunctionDefinition = "";
  // Checks of the operand types and attributes themselves, run before the
  // shape rules, as PyTorch makes them before it broadcasts (sub_check,
  // lerp's one dtype, addcdiv's integer operands, div's rounding mode): a
  // C++ expression of type LogicalResult over `*this`.
  code operandVerification = "::mlir::success()";
  // Checks run after the shared ones, as a C++ expression of type
  // LogicalResult over `*this`.
  code extraVerification = "::mlir::success()";
  // Integer division and remainder: a zero divisor (operand 1) is PyTorch's
  // ZeroDivisionError at run time, so the op is not speculatable.
  bit mayTrap = 0;
  // Operand 0 is a condition, not a value operand (`where`).
  bit hasCondition = 0;
  // The element function gives i1 whatever the compute type (implied by
  // Bcast_BoolResult; set on `logical_not_`, which stores it in place).
  bit boolValued = 0;
  // How the compute type follows from the promoted type: a C++ expression of
  // type ComputeTypeRule over `adaptor`, the op's adaptor.
  code computeTypeRule = "::mlir::bcast::ComputeTypeRule::Promoted";
  // Whether the last operand is a Python number that takes no part in the
  // promotion (ElementwiseTypeRule::lastOperandIsNumber): a C++ expression
  // of type bool over `adaptor`.
  code lastOperandIsNumber = "false";

  let assemblyFormat = [{
    operands attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// Accepts refinements of the inferred type: equal sizes where both are
    /// static, `?` on either side otherwise.
    static bool isCompatibleReturnTypes(::mlir::TypeRange lhs,
                                        ::mlir::TypeRange rhs);
    /// What ODS says of the op's element types.
    static ::mlir::bcast::ElementwiseTypeRule getTypeRule(Adaptor adaptor);
  }] # !if(!eq(elementFunction, "$cppClass"), [{
    /// The element function: builds it on one element of each operand.
    static ::mlir::Value buildScalar(::mlir::Operation *op,
                                     ::mlir::OpBuilder &builder,
                                     ::mlir::Location loc,
                                     ::mlir::ValueRange args);
    /// The element function on constants (std::nullopt: not folded).
    static std::optional<::mlir::bcast::Scalar>
    foldScalar(::mlir::Operation *op,
               ::llvm::ArrayRef<::mlir::bcast::Scalar> args);
  }], "");
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context,
        std::optional<::mlir::Location> location, ::mlir::ValueRange operands,
        ::mlir::DictionaryAttr attributes, ::mlir::OpaqueProperties properties,
        ::mlir::RegionRange regions,
        ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      Adaptor adaptor(operands, attributes, properties, regions);
      return inferElementwiseType(getOperationName(),
                                  getTypeRule(adaptor), location, operands,
                                  inferred);
    }
    ::mlir::bcast::ElementwiseTypeRule $cppClass::getTypeRule(Adaptor adaptor) {
      ::mlir::bcast::ElementwiseTypeRule rule;
      rule.inPlace = hasTrait<::mlir::OpTrait::bcast::InPlace>();
      rule.boolResult = hasTrait<::mlir::OpTrait::bcast::BoolResult>();
      rule.hasCondition = }] # !if(hasCondition, "true", "false") # [{;
      rule.boolValued = rule.boolResult || }] #
                        !if(boolValued, "true", "false") # [{;
      rule.compute = }] # computeTypeRule # [{;
      rule.lastOperandIsNumber = }] # lastOperandIsNumber # [{;
      return rule;
    }
    ::mlir::bcast::ElementwiseTypeRule $cppClass::getElementTypeRule() {
      return getTypeRule(Adaptor(*this));
    }
    bool $cppClass::isCompatibleReturnTypes(::mlir::TypeRange lhs,
                                            ::mlir::TypeRange rhs) {
      return ::mlir::bcast::detail::areCompatibleResultTypes(lhs, rhs);
    }
    ::mlir::LogicalResult $cppClass::reifyResultShapes(
        ::mlir::OpBuilder &builder,
        ::mlir::ReifiedRankedShapedTypeDims &shapes) {
      return reifyElementwise(getOperation(), builder, shapes);
    }
    ::mlir::LogicalResult $cppClass::verify() {
      auto verifyOperandTypes = [&]() -> ::mlir::LogicalResult {
        return }] # operandVerification # [{;
      };
      if (::mlir::failed(verifyElementwise(getOperation(), verifyOperandTypes)))
        return ::mlir::failure();
      return }] # extraVerification # [{;
    }
    ::mlir::OpFoldResult $cppClass::fold(FoldAdaptor adaptor) {
      return ::mlir::bcast::detail::foldElementwise(getOperation(),
                                                    adaptor.getOperands());
    }
    ::mlir::Value $cppClass::buildElement(::mlir::OpBuilder &builder,
                                          ::mlir::Location loc,
                                          ::mlir::ValueRange args) {
      return }] # elementFunction # [{::buildScalar(getOperation(), builder,
                                                    loc, args);
    }
    std::optional<::mlir::bcast::Scalar>
    $cppClass::foldElement(::llvm::ArrayRef<::mlir::bcast::Scalar> args) {
      return }] # elementFunction # [{::foldScalar(getOperation(), args);
    }
    std::optional<unsigned> $cppClass::getIntegerDivisor() {
      return }] # !if(mayTrap, "1u", "std::nullopt") # [{;
    }
    ::mlir::Speculation::Speculatability $cppClass::getSpeculatability() {
      return getElementwiseSpeculatability(getOperation(), }] #
                                           !if(mayTrap, "true", "false") # [{);
    }
  }] # elementFunctionDefinition;
}

class Bcast_BinaryOp<string mnemonic, Type operandType, Type resultType,
                     list<Trait> traits = []>
    : Bcast_ElementwiseOp<mnemonic, traits> {
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs resultType:$result);
}

// A one-operand element-wise op:
//   %r = bcast.exp %a : (tensor<4x3xf32>) -> tensor<4x3xf32>
class Bcast_UnaryOp<string mnemonic, Type operandType, Type resultType,
                    list<Trait> traits = []>
    : Bcast_ElementwiseOp<mnemonic, traits> {
  let arguments = (ins operandType:$x);
  let results = (outs resultType:$result);
}

// A three-operand element-wise op whose operands broadcast together and
// promote together (as `where`'s branches do), named by `names`:
//   %r = bcast.clamp %x, %lo, %hi : (tensor<4x1xf32>, tensor<3xf32>, tensor<f32>) -> tensor<4x3xf32>
class Bcast_TernaryOp<string mnemonic, list<string> names, Type operandType,
                      Type resultType, list<Trait> traits = []>
    : Bcast_ElementwiseOp<mnemonic, traits> {
  let arguments = !dag(ins, [operandType, operandType, operandType], names);
  let results = (outs resultType:$result);
}

// A reduction (PyTorch's `x.sum(dims, keepdim)`, `x.argmax(dim, keepdim)`):
//   %s = bcast.sum %x {dims = array<i64: 1>, keepdim = true} : (tensor<4x3xf32>) -> tensor<4x1xf32>
// ODS emits every per-op hook (the verifier, shape inference,
// speculatability, the folder and ReductionOpInterface) from the fields
// below, over the shared reduction rules (BcastReductions.cpp), with the
// reduced dims as `reducedDims` reads them from `adaptor`: an optional list
// (absent: every dimension). What a reduction computes is its entry in
// ReductionFunctions.cpp: `inferElementType` (the result element type
// rule), `buildReduction` (identity, combiner and finish step, built through
// the lowering's emitter) and `foldGroup` (the same on constants).
class Bcast_ReductionOp<string mnemonic, dag args, code reducedDims>
    : Bcast_Op<mnemonic, [
        NoMemoryEffect,
        DeclareOpInterfaceMethods<ConditionallySpeculatable>,
        DeclareOpInterfaceMethods<InferTypeOpInterface>,
        DeclareOpInterfaceMethods<Bcast_ReductionOpInterface>]> {
  // The reduction picks an element (amax, argmax): reducing an empty
  // dimension is PyTorch's error.
  bit picksElement = 0;
  // What PyTorch adds to `Expected reduction dim to be specified for
  // input.numel() == 0.` (amax and amin name the 'dim' argument).
  string unspecifiedDimHint = "";
  // Without dims, the flattened input is reduced as one dimension (argmax's
  // index into the flattened tensor).
  bit flattensWithoutDims = 0;
  // The type the reduction accumulates in: a C++ expression of type
  // ReductionAccumulator (OpMath: the result type, f16 and bf16 widened to
  // f32; Input: the input element type).
  code accumulator = "::mlir::bcast::ReductionAccumulator::OpMath";
  // How partial results over equal disjoint blocks combine, spelled as
  // upstream `shard.all_reduce`'s kind (`sum`, `product`, `max`, `min`,
  // `average`); empty where they do not combine with one all-reduce.
  string partialCombiner = "";
  // The element type the input is converted to first (a C++ expression of
  // type ::mlir::Type, null for none): the optional `dtype` of the ops
  // that take one.
  code inputConversion = "::mlir::Type()";

  let arguments = args;
  let results = (outs Bcast_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type($x, $result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// Accepts refinements of the inferred type (`?` on either side).
    static bool isCompatibleReturnTypes(::mlir::TypeRange lhs,
                                        ::mlir::TypeRange rhs);
    /// The reduction as written: the dims (std::nullopt: every dimension)
    /// and keepdim.
    static ::mlir::bcast::ReductionSpec getSpec(Adaptor adaptor);
    /// The result element type rule (ReductionFunctions.cpp): the result
    /// element type for input elements `input`, or a null type with
    /// `error` (when given) set to PyTorch's sentence.
    static ::mlir::Type inferElementType(Adaptor adaptor, ::mlir::Type input,
                                         std::string *error);
  }];
  let extraClassDefinition = [{
    ::mlir::bcast::ReductionSpec $cppClass::getSpec(Adaptor adaptor) {
      ::mlir::bcast::ReductionSpec spec;
      spec.dims = }] # reducedDims # [{;
      spec.keepdim = adaptor.getKeepdim().value_or(false);
      return spec;
    }
    ::mlir::bcast::ReductionSpec $cppClass::getSpec() {
      return getSpec(Adaptor(*this));
    }
    ::llvm::StringRef $cppClass::getReductionName() {
      return "}] # mnemonic # [{";
    }
    bool $cppClass::picksElement() {
      return }] # !if(picksElement, "true", "false") # [{;
    }
    ::llvm::StringRef $cppClass::getUnspecifiedDimHint() {
      return "}] # unspecifiedDimHint # [{";
    }
    bool $cppClass::flattensWithoutDims() {
      return }] # !if(flattensWithoutDims, "true", "false") # [{;
    }
    ::mlir::Type $cppClass::getResultElementType(::mlir::Type input,
                                                 std::string *error) {
      return inferElementType(Adaptor(*this), input, error);
    }
    ::mlir::Type $cppClass::getAccumulatorType(::mlir::Type input) {
      return ::mlir::bcast::getReductionAccumulatorType(
          }] # accumulator # [{, input,
          getResultElementType(input, nullptr));
    }
    ::mlir::Type $cppClass::getInputConversion() {
      return }] # inputConversion # [{;
    }
    ::llvm::StringRef $cppClass::getPartialCombiner() {
      return "}] # partialCombiner # [{";
    }
    ::mlir::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context,
        std::optional<::mlir::Location> location, ::mlir::ValueRange operands,
        ::mlir::DictionaryAttr attributes, ::mlir::OpaqueProperties properties,
        ::mlir::RegionRange regions,
        ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      Adaptor adaptor(operands, attributes, properties, regions);
      ::mlir::Type input = adaptor.getX().getType();
      auto inputType = ::llvm::dyn_cast<::mlir::RankedTensorType>(input);
      ::mlir::Type element =
          inputType ? inferElementType(adaptor, inputType.getElementType(),
                                       nullptr)
                    : ::mlir::Type();
      return ::mlir::bcast::detail::inferReductionType(
          getOperationName(), getSpec(adaptor), location, input, element,
          inferred);
    }
    bool $cppClass::isCompatibleReturnTypes(::mlir::TypeRange lhs,
                                            ::mlir::TypeRange rhs) {
      return ::mlir::bcast::detail::areCompatibleResultTypes(lhs, rhs);
    }
    ::mlir::LogicalResult $cppClass::verify() {
      return ::mlir::bcast::detail::verifyReduction(*this);
    }
    ::mlir::Speculation::Speculatability $cppClass::getSpeculatability() {
      return ::mlir::bcast::detail::getReductionSpeculatability(*this);
    }
    ::mlir::OpFoldResult $cppClass::fold(FoldAdaptor adaptor) {
      return ::mlir::bcast::detail::foldReduction(*this, adaptor.getX());
    }
  }];
}

// A reduction over an optional list of dims.
class Bcast_DimsReductionOp<string mnemonic, dag extraArgs = (ins)>
    : Bcast_ReductionOp<mnemonic,
        !con((ins Bcast_Tensor:$x, OptionalAttr<DenseI64ArrayAttr>:$dims,
                  OptionalAttr<BoolAttr>:$keepdim), extraArgs),
        [{::mlir::bcast::ReductionSpec::toList(adaptor.getDims())}]>;

// The optional `dtype` of sum, mean, prod, softmax and log_softmax
// (PyTorch's `dtype=`): the element type the input is converted to before
// the op, and the result's.
defvar Bcast_DtypeArg = (ins OptionalAttr<TypeAttrOf<Bcast_Element>>:$dtype);
defvar Bcast_DtypeConversion =
    "getDtype().value_or(::mlir::Type())";

// A reduction to an index over one optional dim (argmax, argmin); no dim:
// the index into the flattened tensor. It picks an element and accumulates
// in the input type beside the index.
class Bcast_ArgReductionOp<string mnemonic>
    : Bcast_ReductionOp<mnemonic,
        (ins Bcast_Tensor:$x, OptionalAttr<I64Attr>:$dim,
             OptionalAttr<BoolAttr>:$keepdim),
        [{::mlir::bcast::ReductionSpec::toList(adaptor.getDimAttr())}]> {
  let picksElement = 1;
  let flattensWithoutDims = 1;
  let accumulator = "::mlir::bcast::ReductionAccumulator::Input";
}

#endif // BCAST_DIALECT_BCAST_IR_BCASTBASE_TD
