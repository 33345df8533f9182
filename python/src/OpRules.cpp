//===- OpRules.cpp - The dialect's type rules and verifiers, for Python ---===//
//
// `_bcast.infer_op`: the one place the Python package learns what a bcast op
// gives or why it is refused. It builds the op in C++ (over placeholder
// values of the given types), lets the op infer its result types
// (InferTypeOpInterface) and runs the op's verifier; the answer is the
// result types, or the verifier's own sentence, the text `bcast-opt` prints
// after "error: 'bcast.x' op ". Python keeps no copy of a dtype table, a
// promotion rule, a shape rule or a sentence of the dialect.
//
// Tracing asks once per op it records, so the answers are cached by the
// (uniqued) types and attributes, and the ops are built in a context of
// their own that holds the bcast dialect only: the first trace does not pay
// for the full context that compiling needs (every dialect, pass and
// translation registered), which a kernel found in the disk cache never
// creates.
//
// The Python exception's class follows from what failed, decided here
// without reading the sentence: a dim outside the tensor's rank (or
// repeated) is a DimensionError (both ValueError and IndexError, as NumPy's
// AxisError); an op that verifies without its `value` attribute (a scale
// the compute type cannot hold) is a ValueError; an op that verifies once
// its operands' element types (and its `dtype` attribute) are replaced
// (all f32, all i64 or all i1, shapes kept) failed on its dtypes, a
// TypeError; anything else failed on its shapes or attributes, a
// ValueError.
//
//===----------------------------------------------------------------------===//

#include "BcastPython.h"

#include "bcast/Dialect/Bcast/IR/BcastDialect.h"
#include "bcast/Dialect/Bcast/IR/BcastOps.h"
#include "bcast/Dialect/Bcast/Utils/BroadcastShape.h"
#include "bcast/Dialect/Bcast/Utils/TypePromotion.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace mlir;

/// NumPy's dtype names for the DTypes NumPy has, and PyTorch's bfloat16.
static const std::pair<const char *, bcast::DType> kDTypeNames[] = {
    {"bool", bcast::DType::Bool},         {"int8", bcast::DType::Int8},
    {"int16", bcast::DType::Int16},       {"int32", bcast::DType::Int32},
    {"int64", bcast::DType::Int64},       {"uint8", bcast::DType::UInt8},
    {"uint16", bcast::DType::UInt16},     {"uint32", bcast::DType::UInt32},
    {"uint64", bcast::DType::UInt64},     {"float16", bcast::DType::Float16},
    {"float32", bcast::DType::Float32},   {"float64", bcast::DType::Float64},
    {"bfloat16", bcast::DType::BFloat16},
};

bcast::DType bcast_python::dtypeFromName(const std::string &name) {
  for (const auto &[text, type] : kDTypeNames)
    if (name == text)
      return type;
  throw py::type_error("bcast does not support dtype " + name);
}

std::string bcast_python::dtypeName(bcast::DType type) {
  for (const auto &[text, dtype] : kDTypeNames)
    if (dtype == type)
      return text;
  return std::string(bcast::getTorchName(type));
}

namespace {

/// How an op failed, which decides the Python exception's class.
enum class FailureKind { Value, DType, Dimension };

/// What the dialect says of one op: its result types or its diagnostic.
struct Answer {
  std::vector<Type> results;
  bool failed = false;
  FailureKind kind = FailureKind::Value;
  std::string message;
};

/// The context the rules run in (bcast and the dialects it depends on), the
/// parsed types and attributes, and the answers given so far.
struct Rules {
  MLIRContext context{MLIRContext::Threading::DISABLED};
  llvm::StringMap<Type> types;
  llvm::StringMap<DictionaryAttr> attributes;
  std::map<std::vector<const void *>, Answer> answers;
  /// Holds the placeholder operands while an op is built.
  Block scratch;

  Rules() { context.loadDialect<bcast::BcastDialect>(); }

  Type parseType(const std::string &text) {
    auto [it, inserted] = types.try_emplace(text, Type());
    if (inserted) {
      // A type that does not parse is Python's mistake: the diagnostic goes
      // into the exception, not to stderr.
      std::string error;
      ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
        error = diag.str();
        return success();
      });
      it->second = mlir::parseType(text, &context);
      if (!it->second) {
        types.erase(it);
        throw py::value_error("not an MLIR type: '" + text + "'" +
                              (error.empty() ? "" : ": " + error));
      }
    }
    return it->second;
  }

  DictionaryAttr parseAttributes(const std::string &text) {
    if (text.empty())
      return DictionaryAttr::get(&context);
    auto [it, inserted] = attributes.try_emplace(text, DictionaryAttr());
    if (inserted) {
      std::string error;
      ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
        error = diag.str();
        return success();
      });
      it->second =
          dyn_cast_or_null<DictionaryAttr>(parseAttribute(text, &context));
      if (!it->second) {
        attributes.erase(it);
        throw py::value_error("not an MLIR attribute dictionary: '" + text +
                              "'" + (error.empty() ? "" : ": " + error));
      }
    }
    return it->second;
  }

  /// `(shape, dtype name)` or MLIR type text, as a type.
  Type toType(py::handle value) {
    if (py::isinstance<py::str>(value))
      return parseType(value.cast<std::string>());
    auto pair = value.cast<py::tuple>();
    if (pair.size() != 2)
      throw py::type_error("a type is MLIR text or (shape, dtype name)");
    llvm::SmallVector<int64_t> shape;
    for (py::handle size : pair[0]) {
      if (size.is_none()) {
        shape.push_back(ShapedType::kDynamic);
        continue;
      }
      int64_t value = size.cast<int64_t>();
      if (value < 0)
        throw py::value_error("sizes must be non-negative or None, got " +
                              std::to_string(value));
      shape.push_back(value);
    }
    bcast::DType dtype =
        bcast_python::dtypeFromName(pair[1].cast<std::string>());
    return RankedTensorType::get(shape, bcast::getMLIRType(&context, dtype));
  }

  /// A chosen result type: `(shape, dtype name)` or MLIR text, or, for
  /// sum_to_size, `(shape, None)`: the element type the dialect's rule
  /// gives for that target shape.
  Type chosenType(OperationName name, llvm::ArrayRef<Type> operandTypes,
                  py::handle value) {
    if (name.getStringRef() == bcast::SumToSizeOp::getOperationName() &&
        py::isinstance<py::tuple>(value)) {
      auto pair = value.cast<py::tuple>();
      auto input = dyn_cast<RankedTensorType>(operandTypes.front());
      if (pair.size() == 2 && pair[1].is_none() && input) {
        auto shaped = cast<RankedTensorType>(
            toType(py::make_tuple(pair[0], py::str("bool"))));
        return shaped.clone(bcast::SumToSizeOp::inferElementType(
            input, shaped.getShape(), nullptr));
      }
    }
    return toType(value);
  }

  /// Builds `name` over placeholders of `operandTypes` with `attrs`, infers
  /// its result types (or takes `resultTypes`) and verifies it. Diagnostics
  /// go to `message` (the first error's, without the op's name) when asked
  /// for.
  bool check(OperationName name, llvm::ArrayRef<Type> operandTypes,
             DictionaryAttr attrs, llvm::ArrayRef<Type> resultTypes,
             std::vector<Type> &results, std::string *message) {
    Location loc = UnknownLoc::get(&context);
    std::string first;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      if (first.empty() && diag.getSeverity() == DiagnosticSeverity::Error)
        first = diag.str();
      return success();
    });
    for (Type type : operandTypes)
      scratch.addArgument(type, loc);
    OperationState state(loc, name);
    state.addOperands(ValueRange(scratch.getArguments()));
    state.addAttributes(attrs.getValue());
    // A placeholder result type until the op infers its own (the verifier
    // checks the result type after the rules on the operands): the first
    // operand's type, of i1 elements for the ops whose result is bool (their
    // result constraint is checked first).
    if (!resultTypes.empty()) {
      state.addTypes(resultTypes);
    } else {
      Type placeholder = operandTypes.front();
      if (name.hasTrait<OpTrait::bcast::BoolResult>())
        if (auto tensor = dyn_cast<RankedTensorType>(placeholder))
          placeholder = RankedTensorType::get(tensor.getShape(),
                                              IntegerType::get(&context, 1));
      state.addTypes(placeholder);
    }
    Operation *op = Operation::create(state);
    if (resultTypes.empty()) {
      if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
        llvm::SmallVector<Type> inferred;
        if (succeeded(infer.inferReturnTypes(
                &context, std::nullopt, op->getOperands(),
                op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
                op->getRegions(), inferred)) &&
            inferred.size() == op->getNumResults())
          for (auto [result, type] : llvm::zip(op->getResults(), inferred))
            result.setType(type);
      }
    }
    bool ok = succeeded(verify(op));
    results.assign(op->getResultTypes().begin(), op->getResultTypes().end());
    op->destroy();
    scratch.eraseArguments(0, scratch.getNumArguments());
    if (!ok && message) {
      // emitOpError's "'bcast.add' op " prefix: bcast-opt prints it after
      // "error: ", Python raises what follows.
      std::string prefix = "'" + name.getStringRef().str() + "' op ";
      *message = llvm::StringRef(first).starts_with(prefix)
                     ? first.substr(prefix.size())
                     : first;
      if (message->empty())
        *message = "'" + name.getStringRef().str() + "' does not verify";
    }
    return ok;
  }

  /// Why `name` failed (see the file comment).
  FailureKind classify(OperationName name, llvm::ArrayRef<Type> operandTypes,
                       DictionaryAttr attrs, llvm::ArrayRef<Type> resultTypes) {
    auto input = operandTypes.empty()
                     ? RankedTensorType()
                     : dyn_cast<RankedTensorType>(operandTypes.front());
    llvm::SmallVector<int64_t> dims;
    if (auto list = attrs.getAs<DenseI64ArrayAttr>("dims"))
      dims.assign(list.asArrayRef().begin(), list.asArrayRef().end());
    else if (auto dim = attrs.getAs<IntegerAttr>("dim"))
      dims.push_back(dim.getInt());
    // A permute's dims of the wrong length: PyTorch's RuntimeError, not a
    // dim out of range (whatever the dims are).
    if (input && name.getStringRef() == "bcast.permute" &&
        static_cast<int64_t>(dims.size()) != input.getRank())
      return FailureKind::Value;
    llvm::SmallVector<int64_t> normalized;
    if (input && !dims.empty() &&
        bcast::normalizeReductionDims(input.getRank(), dims, normalized))
      return FailureKind::Dimension;
    // A scalar attribute (addcmul's `value`) that the compute type cannot
    // hold is a bad value, as a size is (PyTorch's overflow check).
    if (attrs.get("value")) {
      NamedAttrList without(attrs);
      without.erase("value");
      std::vector<Type> ignored;
      if (check(name, operandTypes, without.getDictionary(&context),
                resultTypes, ignored, nullptr))
        return FailureKind::Value;
    }
    auto withElement = [](Type type, Type element) -> Type {
      if (auto tensor = dyn_cast<RankedTensorType>(type))
        return RankedTensorType::get(tensor.getShape(), element);
      return type;
    };
    Type candidates[] = {Float32Type::get(&context),
                         IntegerType::get(&context, 64),
                         IntegerType::get(&context, 1)};
    for (Type element : candidates) {
      llvm::SmallVector<Type> operands, results;
      for (Type type : operandTypes)
        operands.push_back(withElement(type, element));
      for (Type type : resultTypes)
        results.push_back(withElement(type, element));
      // A `dtype` attribute (PyTorch's dtype=) is a dtype too.
      DictionaryAttr candidateAttrs = attrs;
      if (attrs.get("dtype")) {
        NamedAttrList replaced(attrs);
        replaced.set("dtype", TypeAttr::get(element));
        candidateAttrs = replaced.getDictionary(&context);
      }
      std::vector<Type> ignored;
      if (check(name, operands, candidateAttrs, results, ignored, nullptr))
        return FailureKind::DType;
    }
    return FailureKind::Value;
  }

  /// The result types `name` infers over `operandTypes` with `attrs`,
  /// without verifying it.
  bool infer(OperationName name, llvm::ArrayRef<Type> operandTypes,
             DictionaryAttr attrs, std::vector<Type> &results) {
    if (operandTypes.empty())
      return false;
    Location loc = UnknownLoc::get(&context);
    ScopedDiagnosticHandler handler(&context,
                                    [](Diagnostic &) { return success(); });
    for (Type type : operandTypes)
      scratch.addArgument(type, loc);
    OperationState state(loc, name);
    state.addOperands(ValueRange(scratch.getArguments()));
    state.addAttributes(attrs.getValue());
    state.addTypes(operandTypes.front());
    Operation *op = Operation::create(state);
    llvm::SmallVector<Type> inferred;
    auto inferOp = dyn_cast<InferTypeOpInterface>(op);
    bool ok =
        inferOp && succeeded(inferOp.inferReturnTypes(
                       &context, std::nullopt, op->getOperands(),
                       op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
                       op->getRegions(), inferred));
    results.assign(inferred.begin(), inferred.end());
    op->destroy();
    scratch.eraseArguments(0, scratch.getNumArguments());
    return ok;
  }

  /// What the dialect says of `opName` (nullptr: `verifyOp` is false and
  /// the op infers nothing).
  const Answer *ask(const std::string &opName, py::sequence operands,
                    const std::string &attrText, py::object resultSpecs,
                    bool verifyOp = true) {
    std::vector<const void *> key;
    std::optional<RegisteredOperationName> name =
        RegisteredOperationName::lookup(opName, &context);
    if (!name)
      throw py::value_error("no op " + opName + " in the bcast dialect");
    key.push_back(name->getAsOpaquePointer());
    if (py::len(operands) == 0)
      throw py::value_error("a bcast op takes at least one operand");
    llvm::SmallVector<Type> operandTypes, resultTypes;
    for (py::handle operand : operands) {
      operandTypes.push_back(toType(operand));
      key.push_back(operandTypes.back().getAsOpaquePointer());
    }
    DictionaryAttr attrs = parseAttributes(attrText);
    key.push_back(attrs.getAsOpaquePointer());
    if (!resultSpecs.is_none()) {
      key.push_back(nullptr); // operands apart from results
      for (py::handle result : resultSpecs.cast<py::sequence>()) {
        resultTypes.push_back(chosenType(*name, operandTypes, result));
        key.push_back(resultTypes.back().getAsOpaquePointer());
      }
    }
    if (!verifyOp) {
      // The op's own inference only (no answer cached): what the op infers,
      // even where it does not verify.
      std::vector<Type> inferred;
      if (!infer(*name, operandTypes, attrs, inferred))
        return nullptr;
      static Answer answer;
      answer.results = inferred;
      return &answer;
    }
    auto [it, inserted] = answers.try_emplace(std::move(key));
    Answer &answer = it->second;
    if (inserted && !check(*name, operandTypes, attrs, resultTypes,
                           answer.results, &answer.message)) {
      answer.failed = true;
      answer.results.clear();
      answer.kind = classify(*name, operandTypes, attrs, resultTypes);
    }
    return &answer;
  }
};

Rules &rules() {
  static Rules *instance = new Rules();
  return *instance;
}

/// The NumPy name of an element type (the TorchName for one NumPy lacks).
py::str dtypeName(Type element) {
  if (std::optional<bcast::DType> dtype = bcast::getDType(element))
    return py::str(bcast_python::dtypeName(*dtype));
  std::string text;
  llvm::raw_string_ostream os(text);
  os << element;
  return py::str(text);
}

py::object describe(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    throw py::type_error("a bcast op gave a result that is not a tensor");
  py::tuple shape(tensor.getRank());
  for (int64_t i = 0; i < tensor.getRank(); ++i)
    shape[i] = tensor.isDynamicDim(i)
                   ? py::object(py::none())
                   : py::object(py::int_(tensor.getDimSize(i)));
  return py::make_tuple(shape, dtypeName(tensor.getElementType()));
}

PyObject *dimensionError = nullptr;

} // namespace

void bcast_python::registerOpRules(py::module_ &m) {
  // NumPy's AxisError is both: ValueError as bcast's shape errors,
  // IndexError as PyTorch's "Dimension out of range".
  py::tuple bases = py::make_tuple(py::handle(PyExc_ValueError),
                                   py::handle(PyExc_IndexError));
  dimensionError = PyErr_NewExceptionWithDoc(
      "bcast._bcast.DimensionError",
      "A dim outside a tensor's rank, or repeated (PyTorch's sentence).",
      bases.ptr(), nullptr);
  if (!dimensionError)
    throw py::error_already_set();
  m.add_object("DimensionError", py::handle(dimensionError));

  m.def(
      "infer_op",
      [](const std::string &name, py::sequence operands,
         const std::string &attributes, py::object results) {
        const Answer &answer =
            *rules().ask(name, operands, attributes, results);
        if (answer.failed) {
          PyObject *type = answer.kind == FailureKind::DType ? PyExc_TypeError
                           : answer.kind == FailureKind::Dimension
                               ? dimensionError
                               : PyExc_ValueError;
          PyErr_SetString(type, answer.message.c_str());
          throw py::error_already_set();
        }
        py::list described;
        for (Type type : answer.results)
          described.append(describe(type));
        return described;
      },
      py::arg("name"), py::arg("operands"), py::arg("attributes") = "",
      py::arg("results") = py::none(),
      "What the dialect says of op `name` (e.g. 'bcast.add') over operands "
      "of the given types (MLIR text, or (shape, dtype name) with None for "
      "a dynamic size) with `attributes` (an MLIR attribute dictionary, "
      "'{dims = array<i64: 1>}', or ''), its result types inferred (or "
      "`results`, for ops whose result type is chosen: cast, broadcast_to, "
      "sum_to_size, whose dtype may be None, the dialect's rule): a list of "
      "(shape, dtype name) per result; or the "
      "verifier's sentence as TypeError (the dtypes), DimensionError (a dim) "
      "or ValueError (shapes and attributes).");

  m.def(
      "infer_types",
      [](const std::string &name, py::sequence operands,
         const std::string &attributes) -> py::object {
        const Answer *answer = rules().ask(name, operands, attributes,
                                           py::none(), /*verifyOp=*/false);
        if (!answer)
          return py::none();
        py::list described;
        for (Type type : answer->results)
          described.append(describe(type));
        return described;
      },
      py::arg("name"), py::arg("operands"), py::arg("attributes") = "",
      "The result types op `name` infers (InferTypeOpInterface) over the "
      "operands, as infer_op takes them, without verifying the op: a list "
      "of (shape, dtype name), or None where it infers none (the result "
      "type a tool writes for an op it asks bcast-opt to verify).");

  // Builtin types only: a bare context, so that importing the extension
  // does not create the rules' one (the first question does).
  MLIRContext bare(MLIRContext::Threading::DISABLED);
  py::dict elements;
  for (const auto &[text, dtype] : kDTypeNames) {
    std::string printed;
    llvm::raw_string_ostream os(printed);
    os << bcast::getMLIRType(&bare, dtype);
    elements[py::str(text)] = py::str(printed);
  }
  m.attr("ELEMENT_TYPES") = elements;
}
