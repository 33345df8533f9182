//===- BcastModule.cpp - The bcast Python extension (_bcast) --------------===//
//
// pybind11 bindings over bcast's C++ API, linked against libMLIR.so (never
// the static MLIR archives): the shape rules (the same module the verifiers
// use), IR parsing, verification, pass pipelines and printing, and a JIT that
// compiles a module with --bcast-to-llvm through mlir::ExecutionEngine (or
// links its object code from the disk cache) and calls its destination-
// passing kernels on NumPy buffers; Dispatch.cpp holds @bcast.jit's call
// path. Run-time shape errors reach Python as exceptions: kernels are
// compiled with report-errors=true and this module provides their
// bcastReportError.
//
//===----------------------------------------------------------------------===//

#include "BcastPython.h"

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
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace mlir;
using bcast_python::Kernel;
using bcast_python::MLIRError;

namespace {
/// LLVM's native target, which compiling and linking kernels need.
void initializeNativeTarget() {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;
}

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
    // Dialects load when the parser or a pass first needs them: loading
    // all of them up front made the first @bcast.jit call slower.
    auto *c = new MLIRContext(registry);
    initializeNativeTarget();
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
  void runPipeline(const std::string &pipeline, bool verifyEach) {
    DiagnosticCapture capture;
    PassManager pm(&context(), ModuleOp::getOperationName());
    pm.enableVerifier(verifyEach);
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

/// The symbols the kernels import from this extension; with `team`, the
/// OpenMP entry points of libgomp's team (KernelThreads.cpp).
llvm::orc::SymbolMap extensionSymbols(llvm::orc::MangleAndInterner interner,
                                      bool team) {
  llvm::orc::SymbolMap symbols;
  if (team)
    bcast_python::addTeamEntryPoints(symbols, interner);
  symbols[interner("bcastReportError")] = {
      llvm::orc::ExecutorAddr::fromPtr(&bcastPythonReportError),
      llvm::JITSymbolFlags::Exported};
  // Temporaries are kept for the next call (KernelMemory.cpp).
  symbols[interner("malloc")] = {
      llvm::orc::ExecutorAddr::fromPtr(&bcast_python::kernelMalloc),
      llvm::JITSymbolFlags::Exported};
  symbols[interner("calloc")] = {
      llvm::orc::ExecutorAddr::fromPtr(&bcast_python::kernelCalloc),
      llvm::JITSymbolFlags::Exported};
  symbols[interner("free")] = {
      llvm::orc::ExecutorAddr::fromPtr(&bcast_python::kernelFree),
      llvm::JITSymbolFlags::Exported};
  return symbols;
}

/// Whether `module` (LLVM IR before optimization) may run on libgomp's
/// team: its OpenMP imports, forks' argument counts and loop schedules are
/// the ones KernelThreads.cpp implements.
bool runsOnTeam(const llvm::Module &module) {
  std::vector<llvm::StringRef> imports;
  std::vector<int64_t> forkArguments;
  for (const llvm::Function &function : module) {
    if (!function.isDeclaration())
      continue;
    imports.push_back(function.getName());
    for (const llvm::User *user : function.users()) {
      const auto *call = llvm::dyn_cast<llvm::CallBase>(user);
      if (!call || call->getCalledFunction() != &function)
        return false;
      llvm::StringRef name = function.getName();
      if (name == "__kmpc_fork_call") {
        const auto *count =
            llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(1));
        forkArguments.push_back(count ? count->getSExtValue() : -1);
      } else if (name.starts_with("__kmpc_for_static_init_")) {
        // libomp's kmp_sch_static: the schedule KernelThreads.cpp deals.
        const auto *schedule =
            llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(2));
        if (!schedule || schedule->getSExtValue() != 34)
          return false;
      }
    }
  }
  return bcast_python::usesOnlyTeamEntryPoints(imports, forkArguments);
}

std::string errorText(llvm::Error error) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << error;
  return text;
}
} // namespace

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

Kernel::Kernel(ModuleOp module, const std::vector<std::string> &sharedLibs,
               bool keepObject) {
  DiagnosticCapture capture;
  ExecutionEngineOptions options;
  std::vector<llvm::StringRef> libs(sharedLibs.begin(), sharedLibs.end());
  options.sharedLibPaths = libs;
  options.enableObjectDump = keepObject;
  // options.transformer is a function_ref: the function it refers to must
  // outlive create() (bound to the temporary, it dangled: ASan's
  // stack-use-after-scope in the sanitized Python tests, issue 17).
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(
          /*optLevel=*/3, /*sizeLevel=*/0, /*targetMachine=*/nullptr);
  bool team = false;
  std::function<llvm::Error(llvm::Module *)> transformer =
      [&](llvm::Module *llvmModule) {
        team = sharedTeamAvailable() && runsOnTeam(*llvmModule);
        return optimize(llvmModule);
      };
  options.transformer = transformer;
  auto created = ExecutionEngine::create(module, options);
  if (!created)
    throw MLIRError(
        "cannot compile the module: " + errorText(created.takeError()) +
        (capture.text.empty() ? "" : "\n" + capture.text));
  engine = std::move(*created);
  engine->registerSymbols([team](llvm::orc::MangleAndInterner interner) {
    return extensionSymbols(interner, team);
  });
  engine->initialize();
  auto packed = engine->lookupPacked("_mlir_ciface_kernel");
  if (!packed)
    throw MLIRError("cannot compile the module: " +
                    errorText(packed.takeError()));
  function = *packed;
}

Kernel::Kernel(llvm::StringRef object,
               const std::vector<std::string> &sharedLibs) {
  initializeNativeTarget();
  auto fail = [](const std::string &what, llvm::Error error) {
    return MLIRError("cannot load the cached kernel: " + what + ": " +
                     errorText(std::move(error)));
  };
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    throw fail("no target for this host", builder.takeError());
  auto created =
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(std::move(*builder))
          .setObjectLinkingLayerCreator([](llvm::orc::ExecutionSession &es) {
            return std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
                es, [](const llvm::MemoryBuffer &) {
                  return std::make_unique<llvm::SectionMemoryManager>();
                });
          })
          .create();
  if (!created)
    throw fail("cannot create the JIT", created.takeError());
  jit = std::move(*created);
  llvm::orc::JITDylib &main = jit->getMainJITDylib();
  char prefix = jit->getDataLayout().getGlobalPrefix();
  for (const std::string &lib : sharedLibs) {
    auto generator =
        llvm::orc::DynamicLibrarySearchGenerator::Load(lib.c_str(), prefix);
    if (!generator)
      throw fail("cannot open " + lib, generator.takeError());
    main.addGenerator(std::move(*generator));
  }
  auto process =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
  if (!process)
    throw fail("cannot search this process", process.takeError());
  main.addGenerator(std::move(*process));
  llvm::orc::MangleAndInterner interner(jit->getExecutionSession(),
                                        jit->getDataLayout());
  // The object's loops were written by this pipeline, which gives them the
  // schedule and forks the team runs (runsOnTeam); its imports are checked.
  bool team = false;
  if (sharedTeamAvailable()) {
    auto file = llvm::object::ObjectFile::createObjectFile(
        llvm::MemoryBufferRef(object, "bcast-cached-kernel"));
    if (!file)
      throw fail("not an object file", file.takeError());
    std::vector<llvm::StringRef> imports;
    for (const llvm::object::SymbolRef &symbol : (*file)->symbols()) {
      auto flags = symbol.getFlags();
      auto name = symbol.getName();
      if (!flags || !name) {
        llvm::consumeError(flags.takeError());
        llvm::consumeError(name.takeError());
        continue;
      }
      if (*flags & llvm::object::SymbolRef::SF_Undefined)
        imports.push_back(*name);
    }
    team = usesOnlyTeamEntryPoints(imports, {});
  }
  if (llvm::Error error = main.define(
          llvm::orc::absoluteSymbols(extensionSymbols(interner, team))))
    throw fail("cannot define the extension's symbols", std::move(error));
  if (llvm::Error error = jit->addObjectFile(
          llvm::MemoryBuffer::getMemBufferCopy(object, "bcast-cached-kernel")))
    throw fail("not an object file", std::move(error));
  auto symbol = jit->lookup("_mlir__mlir_ciface_kernel");
  if (!symbol)
    throw fail("no kernel in the object", symbol.takeError());
  function = symbol->toPtr<PackedFunction>();
}

void Kernel::saveObject(const std::string &path) {
  if (!engine)
    throw MLIRError("only a kernel compiled here has object code to save");
  engine->dumpToObjectFile(path);
}

void Kernel::callPacked(void **packed, bool releaseGil) {
  errorReported = false;
  if (releaseGil) {
    py::gil_scoped_release release;
    function(packed);
  } else {
    function(packed);
  }
  if (errorReported) {
    errorReported = false;
    // PyTorch's integer division by zero is its RuntimeError (the shape
    // sentences are bcast's ValueErrors).
    if (reportedError == "ZeroDivisionError")
      throw std::runtime_error(reportedError);
    throw std::invalid_argument(reportedError);
  }
}

namespace {
std::vector<int64_t> toShape(const py::handle &shape) {
  std::vector<int64_t> result;
  for (py::handle size : shape) {
    if (size.is_none()) {
      result.push_back(bcast::kDynamicSize);
      continue;
    }
    // Sizes come from Python: an int beyond int64 or a non-integer is an
    // error with a message, not pybind11's "Unable to cast" RuntimeError
    // (found by python/test/test_hostile.py).
    if (!PyLong_Check(size.ptr()) && !PyIndex_Check(size.ptr()))
      throw py::type_error("sizes must be integers or None, got " +
                           std::string(py::repr(size)));
    int overflow = 0;
    py::object index =
        py::reinterpret_steal<py::object>(PyNumber_Index(size.ptr()));
    if (!index)
      throw py::error_already_set();
    long long value = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
    if (overflow)
      throw py::value_error("size " + std::string(py::str(index)) +
                            " does not fit in a signed 64-bit integer");
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

using bcast_python::dtypeFromName;
using bcast_python::dtypeName;

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
          promotion.push_back({dtypeFromName(pair.first), kind});
        }
        bcast::PromotionResult result = bcast::resultType(promotion);
        if (!result.type)
          throw py::type_error(
              "promotion of " + dtypeName(result.unsupportedLhs) + " and " +
              dtypeName(result.unsupportedRhs) + " is not supported");
        return dtypeName(*result.type);
      },
      "PyTorch's result_type over (dtype name, kind) pairs, kind 'dim' (a "
      "tensor of rank >= 1), 'zero' (rank 0) or 'number' (a Python number: "
      "bool, int64 or float32); TypeError for pairs PyTorch refuses.");

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
           py::arg("verify_each") = true,
           "Runs a textual pass pipeline, e.g. 'bcast-to-linalg' "
           "(verify_each=False: no verification after each pass).")
      .def("clone", &Module::clone)
      .def("__str__", &Module::str);

  py::class_<Kernel>(m, "Kernel")
      .def(py::init([](Module &module, const std::vector<std::string> &libs,
                       bool keepObject) {
             return std::make_unique<Kernel>(module.get(), libs, keepObject);
           }),
           py::arg("module"), py::arg("shared_libs"),
           py::arg("keep_object") = false,
           "JIT-compiles a module lowered to the LLVM dialect (keep_object: "
           "keep its object code for save_object).")
      .def_static(
          "from_object",
          [](py::bytes object, const std::vector<std::string> &libs) {
            std::string text = object;
            return std::make_unique<Kernel>(llvm::StringRef(text), libs);
          },
          py::arg("object"), py::arg("shared_libs"),
          "Links object code written by save_object; MLIRError if it is not "
          "a loadable kernel.")
      .def("save_object", &Kernel::saveObject, py::arg("path"),
           "Writes the kernel's object code to path (the Dispatcher calls "
           "kernels).");

  m.def(
      "host_cpu",
      [] {
        std::string text = llvm::sys::getHostCPUName().str();
        llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
        std::vector<std::string> enabled;
        for (const auto &feature : features)
          if (feature.getValue())
            enabled.push_back(feature.getKey().str());
        std::sort(enabled.begin(), enabled.end());
        for (const std::string &feature : enabled)
          text += " +" + feature;
        return text;
      },
      "The host CPU's name and features as LLVM sees them (part of the "
      "disk cache's key: object code is compiled for this CPU).");

  bcast_python::registerDispatcher(m);
  bcast_python::registerOpRules(m);
}
