//===- BcastModule.cpp - The bcast Python extension (_bcast) --------------===//
//
// pybind11 bindings over bcast's C++ API, linked against libMLIR.so (never
// the static MLIR archives): the shape rules (the same module the verifiers
// use), IR parsing, verification, pass pipelines and printing, and a JIT that
// compiles a module with --bcast-to-llvm through mlir::ExecutionEngine and
// calls its destination-passing kernels on NumPy buffers. Run-time shape
// errors reach Python as exceptions: kernels are compiled with
// report-errors=true and this module provides their bcastReportError.
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/Utils/BroadcastShape.h"
#include "bcast/Dialect/Bcast/Utils/TypePromotion.h"
#include "bcast/InitAll.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace mlir;

namespace {
/// Raised for IR that does not parse, verify or lower; carries the
/// diagnostics.
class MLIRError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The process's one MLIR context, with bcast, the upstream dialects a
/// pipeline needs, the passes and the LLVM IR translations registered.
MLIRContext &context() {
  static MLIRContext *ctx = [] {
    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllExtensions(registry);
    registerAllToLLVMIRTranslations(registry);
    registerAllPasses();
    bcast::registerAllBcastDialectsAndPasses(registry);
    auto *c = new MLIRContext(registry);
    c->loadAllAvailableDialects();
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return c;
  }();
  return *ctx;
}

/// Collects the diagnostics emitted while alive.
class DiagnosticCapture {
public:
  DiagnosticCapture()
      : handler(&context(), [this](Diagnostic &diag) {
          llvm::raw_string_ostream os(text);
          if (!text.empty())
            os << "\n";
          os << diag.getLocation() << ": " << diag;
          for (Diagnostic &note : diag.getNotes())
            os << "\n  note: " << note;
          return success();
        }) {}
  std::string text;

private:
  ScopedDiagnosticHandler handler;
};

/// A parsed module.
class Module {
public:
  explicit Module(OwningOpRef<ModuleOp> op) : op(std::move(op)) {}

  static std::unique_ptr<Module> parse(const std::string &text) {
    DiagnosticCapture capture;
    OwningOpRef<ModuleOp> op =
        parseSourceString<ModuleOp>(text, &context(), "<python>");
    if (!op)
      throw MLIRError(capture.text.empty() ? "cannot parse the module"
                                           : capture.text);
    return std::make_unique<Module>(std::move(op));
  }

  void verifyModule() {
    DiagnosticCapture capture;
    if (failed(verify(*op)))
      throw MLIRError(capture.text);
  }

  /// Runs a textual pass pipeline such as "bcast-to-linalg" or
  /// "bcast-to-llvm{report-errors=true}" on the module.
  void runPipeline(const std::string &pipeline) {
    DiagnosticCapture capture;
    PassManager pm(&context(), ModuleOp::getOperationName());
    std::string errors;
    llvm::raw_string_ostream os(errors);
    // The manager is anchored on builtin.module already: a
    // "builtin.module(...)" wrapper would nest it and run nothing.
    if (failed(parsePassPipeline(pipeline, pm, os)))
      throw MLIRError("invalid pass pipeline '" + pipeline + "': " + errors);
    if (failed(pm.run(*op)))
      throw MLIRError(capture.text.empty() ? "pass pipeline failed"
                                           : capture.text);
  }

  std::string str() {
    std::string text;
    llvm::raw_string_ostream os(text);
    op->print(os);
    return text;
  }

  std::unique_ptr<Module> clone() {
    return std::make_unique<Module>(OwningOpRef<ModuleOp>(op->clone()));
  }

  ModuleOp get() { return *op; }

private:
  OwningOpRef<ModuleOp> op;
};

/// The message of the last run-time check that failed on this thread.
thread_local std::string reportedError;
thread_local bool errorReported = false;

extern "C" void bcastPythonReportError(const char *message) {
  // Keep the first failure: the kernel returns right after reporting it.
  if (!errorReported) {
    reportedError = message;
    errorReported = true;
  }
}

/// A module compiled to native code, whose functions are called with NumPy
/// arrays as memref arguments.
class Kernel {
public:
  Kernel(Module &module, const std::vector<std::string> &sharedLibs) {
    DiagnosticCapture capture;
    ExecutionEngineOptions options;
    std::vector<llvm::StringRef> libs(sharedLibs.begin(), sharedLibs.end());
    options.sharedLibPaths = libs;
    options.transformer = makeOptimizingTransformer(
        /*optLevel=*/3, /*sizeLevel=*/0, /*targetMachine=*/nullptr);
    auto created = ExecutionEngine::create(module.get(), options);
    if (!created) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << created.takeError();
      throw MLIRError("cannot compile the module: " + text +
                      (capture.text.empty() ? "" : "\n" + capture.text));
    }
    engine = std::move(*created);
    engine->registerSymbols([](llvm::orc::MangleAndInterner interner) {
      llvm::orc::SymbolMap symbols;
      symbols[interner("bcastReportError")] = {
          llvm::orc::ExecutorAddr::fromPtr(&bcastPythonReportError),
          llvm::JITSymbolFlags::Exported};
      return symbols;
    });
  }

  /// Calls `_mlir_ciface_<name>` with one memref descriptor per array.
  void call(const std::string &name, const std::vector<py::array> &arrays) {
    // Descriptors: allocated and aligned pointers, offset, sizes, strides.
    std::vector<std::vector<int64_t>> descriptors;
    std::vector<void *> descriptorPointers;
    for (const py::array &array : arrays) {
      if (!(array.flags() & py::array::c_style))
        throw std::invalid_argument("kernel arguments must be C-contiguous");
      std::vector<int64_t> d;
      auto data = reinterpret_cast<int64_t>(array.data());
      d.push_back(data);
      d.push_back(data);
      d.push_back(0);
      for (py::ssize_t i = 0; i < array.ndim(); ++i)
        d.push_back(array.shape(i));
      for (py::ssize_t i = 0; i < array.ndim(); ++i)
        d.push_back(array.itemsize() ? array.strides(i) / array.itemsize() : 0);
      descriptors.push_back(std::move(d));
    }
    for (std::vector<int64_t> &d : descriptors)
      descriptorPointers.push_back(d.data());
    std::vector<void *> packed;
    for (void *&pointer : descriptorPointers)
      packed.push_back(&pointer);

    errorReported = false;
    llvm::Error error = llvm::Error::success();
    {
      py::gil_scoped_release release;
      error = engine->invokePacked("_mlir_ciface_" + name, packed);
    }
    if (error) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << error;
      throw MLIRError("cannot call '" + name + "': " + text);
    }
    if (errorReported) {
      errorReported = false;
      throw std::invalid_argument(reportedError);
    }
  }

private:
  std::unique_ptr<ExecutionEngine> engine;
};

std::vector<int64_t> toShape(const py::handle &shape) {
  std::vector<int64_t> result;
  for (py::handle size : shape) {
    if (size.is_none()) {
      result.push_back(bcast::kDynamicSize);
      continue;
    }
    int64_t value = size.cast<int64_t>();
    if (value < 0)
      throw std::invalid_argument("sizes must be non-negative, got " +
                                  std::to_string(value));
    result.push_back(value);
  }
  return result;
}

py::tuple fromShape(llvm::ArrayRef<int64_t> shape) {
  py::tuple result(shape.size());
  for (size_t i = 0; i < shape.size(); ++i)
    result[i] = bcast::isDynamicSize(shape[i]) ? py::object(py::none())
                                               : py::object(py::int_(shape[i]));
  return result;
}
} // namespace

/// NumPy's dtype names for the DTypes NumPy has.
static const std::pair<const char *, bcast::DType> kDTypeNames[] = {
    {"bool", bcast::DType::Bool},       {"int8", bcast::DType::Int8},
    {"int16", bcast::DType::Int16},     {"int32", bcast::DType::Int32},
    {"int64", bcast::DType::Int64},     {"uint8", bcast::DType::UInt8},
    {"uint16", bcast::DType::UInt16},   {"uint32", bcast::DType::UInt32},
    {"uint64", bcast::DType::UInt64},   {"float16", bcast::DType::Float16},
    {"float32", bcast::DType::Float32}, {"float64", bcast::DType::Float64},
};

static bcast::DType toDType(const std::string &name) {
  for (const auto &[text, type] : kDTypeNames)
    if (name == text)
      return type;
  throw py::type_error("bcast does not support dtype " + name);
}

static std::string toDTypeName(bcast::DType type) {
  for (const auto &[text, dtype] : kDTypeNames)
    if (dtype == type)
      return text;
  return std::string(bcast::getTorchName(type));
}

PYBIND11_MODULE(_bcast, m) {
  m.doc() = "bcast's native extension: the shape rule, IR access and a JIT";

  static py::exception<MLIRError> mlirError(m, "MLIRError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const MLIRError &e) {
      mlirError(e.what());
    }
  });

  m.def(
      "broadcast_shapes",
      [](py::args shapes) {
        std::vector<std::vector<int64_t>> storage;
        for (py::handle shape : shapes)
          storage.push_back(toShape(shape));
        llvm::SmallVector<llvm::ArrayRef<int64_t>> refs(storage.begin(),
                                                        storage.end());
        bcast::SizeMismatch mismatch;
        std::optional<llvm::SmallVector<int64_t>> result =
            bcast::broadcastShapes(refs, &mismatch);
        if (!result)
          throw py::value_error(mismatch.message());
        return fromShape(*result);
      },
      "The broadcast of the given shapes (tuples of sizes; None for a size "
      "only known at run time), or ValueError with PyTorch's sentence.");

  m.def(
      "result_type",
      [](py::list operands) {
        std::vector<bcast::PromotionOperand> promotion;
        for (py::handle operand : operands) {
          auto pair = operand.cast<std::pair<std::string, std::string>>();
          bcast::OperandKind kind =
              pair.second == "dim"    ? bcast::OperandKind::Dimensioned
              : pair.second == "zero" ? bcast::OperandKind::ZeroDim
              : pair.second == "number"
                  ? bcast::OperandKind::WrappedNumber
                  : throw py::value_error("operand kind must be dim, zero "
                                          "or number");
          promotion.push_back({toDType(pair.first), kind});
        }
        bcast::PromotionResult result = bcast::resultType(promotion);
        if (!result.type)
          throw py::type_error(
              "promotion of " + toDTypeName(result.unsupportedLhs) + " and " +
              toDTypeName(result.unsupportedRhs) + " is not supported");
        return toDTypeName(*result.type);
      },
      "PyTorch's result_type over (dtype name, kind) pairs, kind 'dim' (a "
      "tensor of rank >= 1), 'zero' (rank 0) or 'number' (a Python number: "
      "bool, int64 or float32); TypeError for pairs PyTorch refuses.");

  m.def(
      "check_can_cast",
      [](const std::string &computed, const std::string &target) {
        bcast::DType from = toDType(computed), to = toDType(target);
        if (!bcast::canCast(from, to))
          throw py::type_error("result type " +
                               std::string(bcast::getTorchName(from)) +
                               " can't be cast to the desired output type " +
                               std::string(bcast::getTorchName(to)));
      },
      "PyTorch's canCast for an in-place result computed as `computed` and "
      "stored into `target` (dtype names); TypeError with PyTorch's sentence "
      "otherwise.");

  m.def(
      "check_in_place",
      [](py::handle self, py::handle other) {
        std::vector<int64_t> selfShape = toShape(self);
        std::vector<int64_t> otherShape = toShape(other);
        bcast::SizeMismatch mismatch;
        if (!bcast::broadcastShapes(selfShape, otherShape, &mismatch))
          throw py::value_error(mismatch.message());
        if (std::optional<std::string> error =
                bcast::checkInPlace(selfShape, otherShape))
          throw py::value_error(*error);
      },
      "Checks PyTorch's in-place rule for self op= other; ValueError with "
      "PyTorch's sentences if broadcasting would change self's shape.");

  m.def(
      "check_specify_shape",
      [](py::handle input, py::handle result) {
        if (std::optional<std::string> error =
                bcast::checkSpecifyShape(toShape(input), toShape(result)))
          throw py::value_error(*error);
      },
      "Checks that bcast.specify_shape may give a tensor of shape `input` "
      "the shape `result` (same rank, static sizes kept); ValueError with "
      "PyTensor's sentence otherwise.");

  py::class_<Module>(m, "Module")
      .def_static("parse", &Module::parse, py::arg("text"),
                  "Parses MLIR text; MLIRError with the diagnostics.")
      .def("verify", &Module::verifyModule,
           "Verifies the module; MLIRError with the diagnostics.")
      .def("run_pipeline", &Module::runPipeline, py::arg("pipeline"),
           "Runs a textual pass pipeline, e.g. 'bcast-to-linalg'.")
      .def("clone", &Module::clone)
      .def("__str__", &Module::str);

  py::class_<Kernel>(m, "Kernel")
      .def(py::init<Module &, const std::vector<std::string> &>(),
           py::arg("module"), py::arg("shared_libs"),
           "JIT-compiles a module lowered to the LLVM dialect.")
      .def("call", &Kernel::call, py::arg("name"), py::arg("arrays"),
           "Calls _mlir_ciface_<name> with the arrays as memrefs; "
           "ValueError with the message of a failed run-time check.");
}
