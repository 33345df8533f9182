//===- Dispatch.cpp - The call path of @bcast.jit -------------------------===//
//
// A call of a @bcast.jit function on arguments whose signature was compiled
// before runs here, with no Python code: the arguments' signature (kinds,
// dtypes and shapes of NumPy arrays and PyTorch tensors, with the CUDA
// device of CUDA tensors, kinds of Python scalars) is looked up, scalars are
// range-checked, the memref descriptors are filled on the stack, results are
// allocated or the out= buffers checked, and the kernel runs. `Dispatcher` is
// the base class of bcast._dispatch.JitFunction: a miss calls its `_miss`
// (trace, compile, then `_register` the plan, a `Plan`, here), arguments this
// path does not take (non-contiguous, misaligned or byte-swapped buffers, NumPy
// scalars, lists, CUDA tensors before the CUDA runtime is loaded) go to its
// `_slow_call`, which makes them acceptable and comes back through
// `_fast_call`. Kernels for CUDA tensors come from --bcast-to-nvvm and run
// through libbcast_cuda_runtime on PyTorch's current stream, which this file
// lends the runtime for the call. docs/Python.md describes the behaviour.
//
//===----------------------------------------------------------------------===//

#include "BcastPython.h"

#include "bcast/Dialect/Bcast/Utils/BroadcastShape.h"
#include "bcast/Dialect/Bcast/Utils/MatmulRules.h"
#include "bcast/Transforms/Parallel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <dlfcn.h>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace py = pybind11;
using namespace bcast_python;

static_assert(sizeof(Py_ssize_t) == sizeof(int64_t),
              "NumPy's sizes are read as int64_t");

/// Calls whose results have at least this many elements release the GIL
/// (the default grain size of --bcast-to-llvm).
static constexpr int64_t kReleaseGilElements = mlir::bcast::kDefaultGrainSize;

namespace {

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// The dtypes of kernel buffers, by their NumPy (and PyTorch) names.
enum class Elem : int8_t {
  Bool,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  Unsupported,
};

struct ElemInfo {
  const char *name;
  const char *torchName; ///< The attribute of the torch module.
  int numpyTypeNum;      ///< -1: NumPy has no such dtype.
};

constexpr ElemInfo kElems[] = {
    {"bool", "bool", 0},          {"int8", "int8", 1},
    {"int16", "int16", 3},        {"int32", "int32", 5},
    {"int64", "int64", 7},        {"uint8", "uint8", 2},
    {"uint16", "uint16", 4},      {"uint32", "uint32", 6},
    {"uint64", "uint64", 8},      {"float16", "float16", 23},
    {"bfloat16", "bfloat16", -1}, {"float32", "float32", 11},
    {"float64", "float64", 12},
};
constexpr int kNumElems = static_cast<int>(Elem::Unsupported);

/// The bytes of one element of `elem` (bool: one byte, as NumPy and PyTorch
/// store it). Elem lists the dialect's DTypes in their order.
size_t elemBytes(Elem elem) {
  static_assert(static_cast<int>(Elem::Float64) ==
                    static_cast<int>(mlir::bcast::DType::Float64),
                "Elem and DType differ");
  unsigned bits =
      mlir::bcast::getBitWidth(static_cast<mlir::bcast::DType>(elem));
  return std::max(bits / 8, 1u);
}

Elem elemFromName(llvm::StringRef name) {
  for (int i = 0; i < kNumElems; ++i)
    if (name == kElems[i].name)
      return static_cast<Elem>(i);
  throw py::value_error("unknown dtype " + name.str());
}

/// The dtype of a NumPy array from its descriptor (native byte order only).
Elem elemFromDescr(const py::detail::PyArrayDescr_Proxy *descr) {
  if (descr->byteorder == '>')
    return Elem::Unsupported;
  int size = descr->elsize;
  switch (descr->kind) {
  case 'b':
    return Elem::Bool;
  case 'i':
    return size == 1   ? Elem::Int8
           : size == 2 ? Elem::Int16
           : size == 4 ? Elem::Int32
           : size == 8 ? Elem::Int64
                       : Elem::Unsupported;
  case 'u':
    return size == 1   ? Elem::UInt8
           : size == 2 ? Elem::UInt16
           : size == 4 ? Elem::UInt32
           : size == 8 ? Elem::UInt64
                       : Elem::Unsupported;
  case 'f':
    return size == 2   ? Elem::Float16
           : size == 4 ? Elem::Float32
           : size == 8 ? Elem::Float64
                       : Elem::Unsupported;
  default:
    return Elem::Unsupported;
  }
}

//===----------------------------------------------------------------------===//
// PyTorch tensors, through DLPack
//===----------------------------------------------------------------------===//

// DLPack's ABI (dlpack.h, stable since 0.2), which torch.utils.dlpack uses.
struct DLDevice {
  int32_t deviceType; ///< 1: CPU, 2: CUDA.
  int32_t deviceId;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides; ///< In elements; null means compact row-major.
  uint64_t byteOffset;
};
struct DLManagedTensor {
  DLTensor tensor;
  void *managerContext;
  void (*deleter)(DLManagedTensor *);
};

/// What the call path needs from torch, looked up once torch is imported.
struct Torch {
  PyObject *tensorType = nullptr;
  PyObject *toDLPack = nullptr;
  PyObject *empty = nullptr;        ///< torch.empty.
  PyObject *emptyStrided = nullptr; ///< torch.empty_strided.
  PyObject *strided = nullptr;      ///< torch.strided.
  PyObject *dtypes[kNumElems] = {};
  bool looked = false;
};

/// Interned attribute names of the tensor reads on the call path.
struct TensorNames {
  PyObject *dtype = PyUnicode_InternFromString("dtype");
  PyObject *layout = PyUnicode_InternFromString("layout");
  PyObject *isCpu = PyUnicode_InternFromString("is_cpu");
  PyObject *isNeg = PyUnicode_InternFromString("is_neg");
  PyObject *isContiguous = PyUnicode_InternFromString("is_contiguous");
  PyObject *dataPtr = PyUnicode_InternFromString("data_ptr");
  PyObject *shape = PyUnicode_InternFromString("shape");
  PyObject *stride = PyUnicode_InternFromString("stride");
  PyObject *dtypeKeyword = Py_BuildValue("(s)", "dtype");
};

const TensorNames &tensorNames() {
  static TensorNames names;
  return names;
}

Torch &torchApi() {
  static Torch torch;
  if (torch.looked)
    return torch;
  // Only once the program imported torch: bcast never imports it itself.
  PyObject *module = PyImport_GetModule(py::str("torch").ptr());
  if (!module) {
    PyErr_Clear();
    return torch;
  }
  py::object torchModule = py::reinterpret_steal<py::object>(module);
  try {
    // Kept for the life of the process, as torch's module is.
    torch.tensorType = py::object(torchModule.attr("Tensor")).release().ptr();
    torch.toDLPack =
        py::object(py::module_::import("torch.utils.dlpack").attr("to_dlpack"))
            .release()
            .ptr();
    torch.empty = py::object(torchModule.attr("empty")).release().ptr();
    torch.emptyStrided =
        py::object(torchModule.attr("empty_strided")).release().ptr();
    torch.strided = py::object(torchModule.attr("strided")).release().ptr();
    // PyTorch 1.13 has no uint16, uint32 or uint64: those stay null.
    for (int i = 0; i < kNumElems; ++i) {
      py::object dtype =
          py::getattr(torchModule, kElems[i].torchName, py::none());
      if (!dtype.is_none())
        torch.dtypes[i] = dtype.release().ptr();
    }
  } catch (py::error_already_set &) {
    torch.tensorType = nullptr;
  }
  torch.looked = true;
  return torch;
}

Elem elemFromTorchDtype(const Torch &torch, PyObject *dtype) {
  for (int i = 0; i < kNumElems; ++i)
    if (torch.dtypes[i] && torch.dtypes[i] == dtype)
      return static_cast<Elem>(i);
  return Elem::Unsupported;
}

bool isTorchTensor(PyObject *object) {
  Torch &torch = torchApi();
  return torch.tensorType &&
         PyObject_TypeCheck(object,
                            reinterpret_cast<PyTypeObject *>(torch.tensorType));
}

//===----------------------------------------------------------------------===//
// CUDA tensors, through libbcast_cuda_runtime
//===----------------------------------------------------------------------===//

/// The runtime's entry points the call path uses, found once
/// bcast._devices loads the runtime (load_cuda_runtime); until then CUDA
/// tensors take the slow path, which loads it.
struct Cuda {
  bool loaded = false;
  void (*useStream)(int32_t, void *) = nullptr;
  void (*useDevice)(int32_t) = nullptr;
  void (*memcpy)(void *, void *, size_t, void *) = nullptr;
  /// torch.cuda.current_stream.
  PyObject *currentStream = nullptr;
};

Cuda &cudaApi() {
  static Cuda cuda;
  return cuda;
}

/// Lends the runtime `device` and its current PyTorch stream while alive.
class StreamLoan {
public:
  explicit StreamLoan(int device) {
    Cuda &cuda = cudaApi();
    py::object stream = py::reinterpret_borrow<py::object>(cuda.currentStream)(
        py::int_(device));
    handle =
        reinterpret_cast<void *>(stream.attr("cuda_stream").cast<uintptr_t>());
    cuda.useStream(device, handle);
  }
  ~StreamLoan() { cudaApi().useStream(-1, nullptr); }
  StreamLoan(const StreamLoan &) = delete;
  StreamLoan &operator=(const StreamLoan &) = delete;

  void *handle = nullptr;
};

/// Opens the runtime at `path` (once) and checks that the CUDA driver has a
/// GPU; RuntimeError with the reason otherwise. The runtime ends the process
/// on a driver error, so nothing reaches it before this probe passed.
void loadCudaRuntime(const std::string &path) {
  Cuda &cuda = cudaApi();
  if (cuda.loaded)
    return;
  // RTLD_GLOBAL: the kernels' JIT resolves the mgpu* functions in this very
  // copy, so the stream this file lends is the one their host code sees.
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!library) {
    const char *detail = dlerror();
    throw std::runtime_error("bcast: cannot load bcast's CUDA runtime " + path +
                             " (" + (detail ? detail : "") +
                             "); build bcast with its default targets or "
                             "set BCAST_CUDA_RUNTIME");
  }
  auto find = [&](const char *name) {
    void *address = dlsym(library, name);
    if (!address)
      throw std::runtime_error("bcast: " + path +
                               " is not bcast's CUDA runtime: it lacks " +
                               std::string(name));
    return address;
  };
  auto probe =
      reinterpret_cast<int32_t (*)(char *, size_t)>(find("bcastCudaProbe"));
  char message[512] = {0};
  if (probe(message, sizeof(message)) <= 0)
    throw std::runtime_error(
        std::string("bcast: CUDA tensors need a GPU and its driver: ") +
        message);
  cuda.useStream =
      reinterpret_cast<void (*)(int32_t, void *)>(find("bcastCudaUseStream"));
  cuda.useDevice =
      reinterpret_cast<void (*)(int32_t)>(find("bcastCudaUseDevice"));
  cuda.memcpy = reinterpret_cast<void (*)(void *, void *, size_t, void *)>(
      find("mgpuMemcpy"));
  cuda.currentStream =
      py::object(py::module_::import("torch.cuda").attr("current_stream"))
          .release()
          .ptr();
  cuda.loaded = true;
}

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

enum ArgKind : int64_t {
  NumPyArray = 1,
  TorchTensor = 2,
  Scalar = 3,
  CudaTensor = 4
};
enum ScalarKind : int64_t { BoolScalar = 0, IntScalar = 1, FloatScalar = 2 };

/// One positional argument as the call path sees it.
struct ArgView {
  ArgKind kind;
  int device = -1; ///< CudaTensor: the CUDA device.
  Elem elem = Elem::Unsupported;
  char *data = nullptr;
  int ndim = 0;
  const int64_t *shape = nullptr;
  ScalarKind scalarKind = BoolScalar;
  int64_t intValue = 0;
  double floatValue = 0;
  bool writable = true;
  /// A tensor's DLPack capsule, owned: it keeps the tensor's memory alive
  /// until the call ends.
  py::object capsule;
  /// A host tensor's sizes (`shape` points here).
  std::vector<int64_t> sizes;
};

bool isContiguous(int ndim, const int64_t *shape, const int64_t *strides,
                  int64_t itemsize) {
  // An empty tensor reads no element, whatever its strides (PyTorch calls
  // it contiguous too: slicing gives [0, 1, 3] with strides (6, 6, 2)).
  for (int d = 0; d < ndim; ++d)
    if (shape[d] == 0)
      return true;
  int64_t expected = itemsize;
  for (int d = ndim - 1; d >= 0; --d) {
    if (shape[d] != 1 && strides[d] != expected)
      return false;
    expected *= shape[d];
  }
  return true;
}

/// `object.name`, or `object.name()` when `call`; error_already_set if
/// that raised.
py::object tensorAttr(PyObject *object, PyObject *name, bool call = false) {
  PyObject *value = call ? PyObject_CallMethodNoArgs(object, name)
                         : PyObject_GetAttr(object, name);
  if (!value)
    throw py::error_already_set();
  return py::reinterpret_steal<py::object>(value);
}

/// A host tensor's sizes as the kernel of a region computed in memory
/// order takes them (bcast.torch's memory-order regions): padded with
/// leading 1s to `order`'s rank and taken in `order`, when its elements are
/// dense in that order. False otherwise.
bool placeInOrder(PyObject *object, py::handle shape, llvm::ArrayRef<int> order,
                  ArgView &view) {
  Py_ssize_t ndim = PyTuple_GET_SIZE(shape.ptr());
  auto rank = static_cast<Py_ssize_t>(order.size());
  if (ndim > rank)
    return false;
  py::object strides = tensorAttr(object, tensorNames().stride, true);
  llvm::SmallVector<int64_t, 8> padded(rank, 1), paddedStrides(rank, 0);
  for (Py_ssize_t d = 0; d < ndim; ++d) {
    padded[rank - ndim + d] =
        PyLong_AsLongLong(PyTuple_GET_ITEM(shape.ptr(), d));
    paddedStrides[rank - ndim + d] =
        PyLong_AsLongLong(PyTuple_GET_ITEM(strides.ptr(), d));
  }
  int64_t expected = 1;
  for (Py_ssize_t i = rank - 1; i >= 0; --i) {
    int d = order[i];
    // An empty tensor takes the slow path, which permutes it as it is.
    if (padded[d] == 0 || (padded[d] != 1 && paddedStrides[d] != expected))
      return false;
    expected *= padded[d];
  }
  view.sizes.resize(rank);
  for (Py_ssize_t i = 0; i < rank; ++i)
    view.sizes[i] = padded[order[i]];
  return true;
}

/// Reads a host tensor through its methods, which cost a fraction of a
/// DLPack export (a capsule and its deleter per argument and result). False
/// if the call path cannot take it as it is. With an `order`, its sizes
/// are placed in that memory order (placeInOrder).
bool viewHostTensor(PyObject *object, ArgView &view,
                    llvm::ArrayRef<int> order = {}) {
  const TensorNames &names = tensorNames();
  // A negated view (the imaginary part of a conjugate, say) holds its
  // values' negations, which DLPack exports as they are: the slow path
  // resolves it.
  if (PyObject_IsTrue(tensorAttr(object, names.isNeg, true).ptr()))
    return false;
  py::object shape = tensorAttr(object, names.shape);
  if (!order.empty()) {
    if (!placeInOrder(object, shape, order, view))
      return false;
  } else {
    if (!PyObject_IsTrue(tensorAttr(object, names.isContiguous, true).ptr()))
      return false;
    Py_ssize_t ndim = PyTuple_GET_SIZE(shape.ptr());
    view.sizes.resize(ndim);
    for (Py_ssize_t d = 0; d < ndim; ++d)
      view.sizes[d] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape.ptr(), d));
  }
  py::object data = tensorAttr(object, names.dataPtr, true);
  view.data = static_cast<char *>(PyLong_AsVoidPtr(data.ptr()));
  if (PyErr_Occurred())
    throw py::error_already_set();
  view.kind = TorchTensor;
  view.ndim = static_cast<int>(view.sizes.size());
  view.shape = view.sizes.data();
  return true;
}

/// Reads a PyTorch tensor: a host tensor through its methods, others
/// through DLPack. False if the call path cannot take it as it is (not
/// contiguous: the slow path copies it; on a CUDA device before the runtime
/// is loaded: the slow path loads it); errors for tensors no path takes.
bool viewTensor(PyObject *object, ArgView &view,
                llvm::ArrayRef<int> order = {}) {
  Torch &torch = torchApi();
  const TensorNames &names = tensorNames();
  py::object dtype = tensorAttr(object, names.dtype);
  view.elem = elemFromTorchDtype(torch, dtype.ptr());
  if (view.elem == Elem::Unsupported)
    throw py::type_error("bcast does not support dtype " +
                         py::str(dtype).cast<std::string>());
  // Sparse and MKL-DNN tensors have no strided data pointer: the slow path
  // says which tensors bcast takes.
  if (tensorAttr(object, names.layout).ptr() != torch.strided)
    return false;
  if (PyObject_IsTrue(tensorAttr(object, names.isCpu).ptr()))
    return viewHostTensor(object, view, order);
  // Memory-order regions run on the host only.
  if (!order.empty())
    return false;
  // DLPack has no bool in PyTorch 1.13: a bool tensor goes as its uint8
  // view (the same bytes).
  py::object exported = py::reinterpret_borrow<py::object>(object);
  if (view.elem == Elem::Bool)
    exported = exported.attr("view")(
        py::handle(torch.dtypes[static_cast<int>(Elem::UInt8)]));
  PyObject *capsule = PyObject_CallOneArg(torch.toDLPack, exported.ptr());
  if (!capsule) {
    // Tensors DLPack does not export (on the meta device, say): the slow
    // path says which tensors bcast takes.
    PyErr_Clear();
    return false;
  }
  view.capsule = py::reinterpret_steal<py::object>(capsule);
  auto *managed =
      static_cast<DLManagedTensor *>(PyCapsule_GetPointer(capsule, "dltensor"));
  if (!managed)
    throw py::error_already_set();
  const DLTensor &t = managed->tensor;
  // DLPack's kDLCPU and kDLCUDA; other devices are refused by the slow path.
  if (t.device.deviceType == 2) {
    if (!cudaApi().loaded)
      return false;
    view.kind = CudaTensor;
    view.device = t.device.deviceId;
  } else if (t.device.deviceType == 1) {
    view.kind = TorchTensor;
  } else {
    return false;
  }
  view.data = static_cast<char *>(t.data) + t.byteOffset;
  view.ndim = t.ndim;
  view.shape = t.shape;
  if (t.strides) {
    llvm::SmallVector<int64_t, 8> byteStrides;
    int64_t itemsize = t.dtype.bits / 8;
    for (int d = 0; d < t.ndim; ++d)
      byteStrides.push_back(t.strides[d] * itemsize);
    if (!isContiguous(t.ndim, t.shape, byteStrides.data(), itemsize))
      return false;
  }
  return true;
}

/// Raised where a Python scalar does not fit the 64-bit carrier.
[[noreturn]] void throwIntOverflow(PyObject *object) {
  std::string text = py::repr(object).cast<std::string>();
  PyErr_SetString(PyExc_OverflowError,
                  ("Python integer " + text +
                   " does not fit in int64: bcast, as PyTorch, takes "
                   "integer scalars of 64 bits")
                      .c_str());
  throw py::error_already_set();
}

/// Reads one positional argument. False if the call path cannot take it as
/// it is. With an `order`, only host tensors dense in that memory order.
bool viewArgument(PyObject *object, ArgView &view,
                  llvm::ArrayRef<int> order = {}) {
  if (!order.empty())
    return isTorchTensor(object) && viewTensor(object, view, order);
  auto &api = py::detail::npy_api::get();
  if (api.PyArray_Check_(object)) {
    auto *array = py::detail::array_proxy(object);
    view.kind = NumPyArray;
    view.elem = elemFromDescr(py::detail::array_descriptor_proxy(array->descr));
    constexpr int kNeeded = py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_ |
                            py::detail::npy_api::NPY_ARRAY_ALIGNED_;
    if (view.elem == Elem::Unsupported || (array->flags & kNeeded) != kNeeded)
      return false;
    view.data = array->data;
    view.ndim = array->nd;
    view.shape = reinterpret_cast<const int64_t *>(array->dimensions);
    view.writable = array->flags & py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return true;
  }
  if (PyBool_Check(object)) {
    view.kind = Scalar;
    view.scalarKind = BoolScalar;
    view.intValue = object == Py_True;
    return true;
  }
  if (PyLong_Check(object)) {
    view.kind = Scalar;
    view.scalarKind = IntScalar;
    int overflow = 0;
    view.intValue = PyLong_AsLongLongAndOverflow(object, &overflow);
    if (overflow)
      throwIntOverflow(object);
    return true;
  }
  if (PyFloat_Check(object)) {
    view.kind = Scalar;
    view.scalarKind = FloatScalar;
    view.floatValue = PyFloat_AS_DOUBLE(object);
    return true;
  }
  if (isTorchTensor(object))
    return viewTensor(object, view);
  return false;
}

//===----------------------------------------------------------------------===//
// Compiled signatures
//===----------------------------------------------------------------------===//

/// How a positional argument reaches the kernel.
struct ArgPlan {
  enum Kind { Buffer, RuntimeScalar, Constant } kind = Buffer;
  int param = -1; ///< The kernel parameter (Buffer, RuntimeScalar).
};

/// One node of the traced function, to replay result shapes when sizes are
/// dynamic (Plan.add_shape_node; the shapes the dialect infers).
struct ShapeNode {
  enum Kind {
    Argument,
    ZeroDim,
    Broadcast,
    BroadcastTo,
    SpecifyShape,
    InPlace,
    /// A reduction's shape: per result dimension, a static size (>= 0) or
    /// -(i + 2) for the size of the input's dimension i.
    Reduce,
    /// torch.matmul's result shape (MatmulRules.h).
    Matmul
  };
  Kind kind;
  int position = -1; ///< Argument: the positional argument.
  llvm::SmallVector<int> inputs;
  llvm::SmallVector<int64_t> extra; ///< BroadcastTo, SpecifyShape; -1: None.
};

struct OutputPlan {
  bool isArgument = false;
  int position = -1; ///< isArgument: the positional argument returned.
  Elem elem = Elem::Float32;
  llvm::SmallVector<int64_t> shape; ///< Static result shape.
  int node = -1;                    ///< Dynamic: the node whose shape it has.
};

/// Two arguments, the first updated in place, that a call must check for
/// shared memory: the kernel reads every argument as it was when the call
/// began (its buffers are `restrict`), which is what the function means
/// only where the other is read before the first is written
/// (python/bcast/_compiled.py, `aliasing`).
struct AliasCheck {
  enum Action {
    /// Read before the update only: a shared one is copied first (NumPy's
    /// rule for an operand overlapping an output).
    Copy,
    /// As Copy, and an operand of the update itself, where PyTorch refuses
    /// a partial overlap.
    Operand,
    /// Read after the update too: a shared one is refused.
    ReadAfter,
    /// Both updated in place: a shared pair is refused.
    BothWritten
  };
  Action action = Copy;
  int written = -1; ///< The position updated in place.
  int other = -1;   ///< The other array argument's position.
};

/// How one compiled signature is called: built by bcast._compiled (the
/// Python class `_bcast.Plan`), registered with its kernel.
struct Plan {
  int numParams = 0;
  std::vector<ArgPlan> args; ///< Per positional argument.
  std::vector<OutputPlan> outputs;
  int numNew = 0;
  int device = -1; ///< A kernel for CUDA tensors: their device.
  bool hasRuntimeScalars = false;
  bool single = true;                ///< One result, not a tuple.
  bool tensorResults = false;        ///< New results are PyTorch tensors.
  std::vector<ShapeNode> nodes;      ///< Empty when every size is static.
  std::vector<int> mutatedPositions; ///< Positions updated in place.
  std::vector<AliasCheck> aliasChecks;
};

struct Entry : Plan {
  std::vector<int64_t> signature;
  py::object kernelObject; ///< Keeps the kernel alive.
  Kernel *kernel = nullptr;
  py::tuple mutated; ///< mutatedPositions, as returned to _slow_call.
};

struct SignatureHash {
  size_t operator()(const std::vector<int64_t> &key) const {
    return llvm::hash_combine_range(key.begin(), key.end());
  }
};

/// The state behind one Dispatcher.
struct DispatchState {
  // Shared: a call holds its entry while its kernel runs without the GIL,
  // when another thread may register or forget entries.
  std::unordered_map<std::vector<int64_t>, std::shared_ptr<Entry>,
                     SignatureHash>
      entries;
  std::shared_ptr<Entry> last;
  bool allDynamic = false;
  std::vector<std::vector<int>> dynamicDims; ///< Per array argument.
  bool specialize = false;

  bool isDynamic(int arrayIndex, int dim) const {
    if (allDynamic)
      return true;
    if (arrayIndex >= static_cast<int>(dynamicDims.size()))
      return false;
    for (int d : dynamicDims[arrayIndex])
      if (d == dim)
        return true;
    return false;
  }
};

struct DispatcherObject {
  PyObject_HEAD DispatchState *state;
};

/// The signature of the arguments, or false if some argument must take the
/// slow path.
bool collect(const DispatchState &state, PyObject *args,
             llvm::SmallVectorImpl<ArgView> &views,
             llvm::SmallVectorImpl<int64_t> &signature,
             llvm::ArrayRef<int> order = {}) {
  Py_ssize_t count = PyTuple_GET_SIZE(args);
  views.resize(count);
  int arrayIndex = 0;
  for (Py_ssize_t i = 0; i < count; ++i) {
    PyObject *object = PyTuple_GET_ITEM(args, i);
    ArgView &view = views[i];
    if (!viewArgument(object, view, order))
      return false;
    signature.push_back(view.kind);
    if (view.kind == Scalar) {
      signature.push_back(view.scalarKind);
      if (state.specialize) {
        int64_t bits = view.intValue;
        if (view.scalarKind == FloatScalar)
          std::memcpy(&bits, &view.floatValue, sizeof(bits));
        signature.push_back(bits);
      }
      continue;
    }
    if (view.kind == CudaTensor)
      signature.push_back(view.device);
    signature.push_back(static_cast<int64_t>(view.elem));
    signature.push_back(view.ndim);
    for (int d = 0; d < view.ndim; ++d)
      signature.push_back(state.isDynamic(arrayIndex, d) ? -1 : view.shape[d]);
    ++arrayIndex;
  }
  return true;
}

/// Result shapes of a signature with dynamic sizes, replayed on the actual
/// argument shapes with NumPy's rule (the kernel checks the policy's).
void replayShapes(const Entry &entry, llvm::ArrayRef<ArgView> views,
                  std::vector<llvm::SmallVector<int64_t>> &shapes) {
  shapes.resize(entry.nodes.size());
  for (size_t n = 0; n < entry.nodes.size(); ++n) {
    const ShapeNode &node = entry.nodes[n];
    llvm::SmallVector<int64_t> &shape = shapes[n];
    switch (node.kind) {
    case ShapeNode::Argument: {
      const ArgView &view = views[node.position];
      shape.assign(view.shape, view.shape + view.ndim);
      break;
    }
    case ShapeNode::ZeroDim:
      break;
    case ShapeNode::InPlace:
      shape = shapes[node.inputs.front()];
      break;
    case ShapeNode::BroadcastTo: {
      const llvm::SmallVector<int64_t> &source = shapes[node.inputs.front()];
      int64_t offset = static_cast<int64_t>(node.extra.size()) -
                       static_cast<int64_t>(source.size());
      for (size_t i = 0; i < node.extra.size(); ++i)
        shape.push_back(node.extra[i] < 0 ? source[i - offset] : node.extra[i]);
      break;
    }
    case ShapeNode::SpecifyShape: {
      const llvm::SmallVector<int64_t> &source = shapes[node.inputs.front()];
      for (size_t i = 0; i < node.extra.size(); ++i)
        shape.push_back(node.extra[i] < 0 ? source[i] : node.extra[i]);
      break;
    }
    case ShapeNode::Reduce: {
      const llvm::SmallVector<int64_t> &source = shapes[node.inputs.front()];
      for (int64_t code : node.extra)
        shape.push_back(code >= 0 ? code : source[-code - 2]);
      break;
    }
    case ShapeNode::Matmul: {
      const llvm::SmallVector<int64_t> &lhs = shapes[node.inputs[0]];
      const llvm::SmallVector<int64_t> &rhs = shapes[node.inputs[1]];
      mlir::bcast::MatmulMismatch mismatch;
      std::optional<llvm::SmallVector<int64_t>> result =
          mlir::bcast::inferMatmulShape(lhs, rhs, &mismatch);
      if (!result)
        throw py::value_error(mismatch.message(lhs, rhs));
      shape = *result;
      break;
    }
    case ShapeNode::Broadcast: {
      llvm::SmallVector<llvm::ArrayRef<int64_t>> operands;
      for (int input : node.inputs)
        operands.push_back(shapes[input]);
      mlir::bcast::SizeMismatch mismatch;
      std::optional<llvm::SmallVector<int64_t>> result =
          mlir::bcast::broadcastShapes(operands, &mismatch);
      if (!result)
        throw py::value_error(mismatch.message());
      shape = *result;
      break;
    }
    }
  }
}

py::tuple shapeTuple(llvm::ArrayRef<int64_t> shape) {
  py::tuple result(shape.size());
  for (size_t i = 0; i < shape.size(); ++i)
    result[i] = py::int_(shape[i]);
  return result;
}

std::string shapeText(llvm::ArrayRef<int64_t> shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

/// A new NumPy array or (through JitFunction._new_tensor) PyTorch tensor,
/// on the entry's CUDA device for a CUDA kernel.
py::object allocate(PyObject *self, const Entry &entry, Elem elem,
                    llvm::ArrayRef<int64_t> shape, ArgView &view,
                    llvm::ArrayRef<int> order = {}) {
  if (entry.tensorResults && entry.device < 0) {
    // torch.empty(shape, dtype=...) from here: no Python frame, and the new
    // tensor's layout is known. With a memory `order` (callInOrder), the
    // tensor of the logical shape whose memory is `shape` in that order:
    // torch.empty_strided, where a permute of torch.empty would be a second
    // ATen call.
    Torch &torch = torchApi();
    PyObject *dtype = torch.dtypes[static_cast<int>(elem)];
    if (!dtype)
      throw py::type_error(std::string("PyTorch has no ") +
                           kElems[static_cast<int>(elem)].name +
                           " tensors: pass NumPy arrays to get such a result");
    PyObject *tensor = nullptr;
    if (order.empty()) {
      py::tuple sizes = shapeTuple(shape);
      PyObject *callArgs[] = {nullptr, sizes.ptr(), dtype};
      tensor = PyObject_Vectorcall(torch.empty, callArgs + 1,
                                   1 | PY_VECTORCALL_ARGUMENTS_OFFSET,
                                   tensorNames().dtypeKeyword);
    } else {
      llvm::SmallVector<int64_t, 8> logical(order.size()),
          strides(order.size());
      int64_t step = 1;
      for (int i = static_cast<int>(order.size()) - 1; i >= 0; --i) {
        logical[order[i]] = shape[i];
        strides[order[i]] = step;
        step *= std::max<int64_t>(shape[i], 1);
      }
      py::tuple sizes = shapeTuple(logical), steps = shapeTuple(strides);
      PyObject *callArgs[] = {nullptr, sizes.ptr(), steps.ptr(), dtype};
      tensor = PyObject_Vectorcall(torch.emptyStrided, callArgs + 1,
                                   2 | PY_VECTORCALL_ARGUMENTS_OFFSET,
                                   tensorNames().dtypeKeyword);
    }
    if (!tensor)
      throw py::error_already_set();
    py::object owned = py::reinterpret_steal<py::object>(tensor);
    py::object data = tensorAttr(tensor, tensorNames().dataPtr, true);
    view.kind = TorchTensor;
    view.elem = elem;
    view.data = static_cast<char *>(PyLong_AsVoidPtr(data.ptr()));
    view.ndim = static_cast<int>(shape.size());
    view.shape = shape.data();
    return owned;
  }
  if (entry.tensorResults) {
    py::object tensor = py::reinterpret_borrow<py::object>(self).attr(
        "_new_tensor")(shapeTuple(shape), kElems[static_cast<int>(elem)].name,
                       entry.device);
    if (!viewTensor(tensor.ptr(), view))
      throw std::runtime_error("a new tensor is not contiguous");
    return tensor;
  }
  int typeNum = kElems[static_cast<int>(elem)].numpyTypeNum;
  if (typeNum < 0)
    throw py::type_error(std::string("NumPy has no ") +
                         kElems[static_cast<int>(elem)].name +
                         " arrays: pass PyTorch tensors to get such a result");
  auto &api = py::detail::npy_api::get();
  PyObject *array = api.PyArray_NewFromDescr_(
      api.PyArray_Type_, api.PyArray_DescrFromType_(typeNum),
      static_cast<int>(shape.size()),
      reinterpret_cast<const Py_intptr_t *>(shape.data()), nullptr, nullptr, 0,
      nullptr);
  if (!array)
    throw py::error_already_set();
  auto *proxy = py::detail::array_proxy(array);
  view.kind = NumPyArray;
  view.data = proxy->data;
  return py::reinterpret_steal<py::object>(array);
}

/// Checks an out= buffer against the result it receives (on `device` for a
/// CUDA kernel, in host memory otherwise).
void checkOut(PyObject *buffer, const OutputPlan &output,
              llvm::ArrayRef<int64_t> shape, int device, ArgView &view) {
  auto fail = [&] {
    std::string elem = kElems[static_cast<int>(output.elem)].name;
    if (device >= 0)
      throw py::value_error("out= must be a contiguous " + elem +
                            " tensor on cuda:" + std::to_string(device) +
                            " of shape " + shapeText(shape));
    throw py::value_error("out= array must be a writable C-contiguous " + elem +
                          " array of shape " + shapeText(shape));
  };
  auto &api = py::detail::npy_api::get();
  if (api.PyArray_Check_(buffer)) {
    if (device >= 0)
      fail();
    auto *array = py::detail::array_proxy(buffer);
    constexpr int kNeeded = py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_ |
                            py::detail::npy_api::NPY_ARRAY_ALIGNED_ |
                            py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    if ((array->flags & kNeeded) != kNeeded ||
        elemFromDescr(py::detail::array_descriptor_proxy(array->descr)) !=
            output.elem ||
        array->nd != static_cast<int>(shape.size()) ||
        !std::equal(shape.begin(), shape.end(),
                    reinterpret_cast<const int64_t *>(array->dimensions)))
      fail();
    view.kind = NumPyArray;
    view.data = array->data;
    return;
  }
  if (isTorchTensor(buffer)) {
    if (!viewTensor(buffer, view) ||
        view.kind != (device >= 0 ? CudaTensor : TorchTensor) ||
        (device >= 0 && view.device != device) || view.elem != output.elem ||
        view.ndim != static_cast<int>(shape.size()) ||
        !std::equal(shape.begin(), shape.end(), view.shape))
      fail();
    return;
  }
  fail();
}

/// Refuses a call whose arguments `written` (updated in place) and `other`
/// share memory in a way the kernel cannot honour (`action`; Copy and
/// Operand are refused only for CUDA tensors, which are not copied).
[[noreturn]] void raiseAliasError(AliasCheck::Action action, int written,
                                  int other) {
  std::string w = std::to_string(written), o = std::to_string(other);
  switch (action) {
  case AliasCheck::BothWritten:
    throw py::value_error("arguments " +
                          std::to_string(std::min(written, other)) + " and " +
                          std::to_string(std::max(written, other)) +
                          " share memory and are both updated in place: "
                          "pass arrays that do not");
  case AliasCheck::ReadAfter:
    throw py::value_error("argument " + o + " shares memory with argument " +
                          w + ", which is updated in place before argument " +
                          o + " is read: pass a copy of argument " + o);
  default:
    throw py::value_error("argument " + o + " shares memory with argument " +
                          w +
                          ", which is updated in place: pass a copy of "
                          "argument " +
                          o + " (CUDA tensors are not copied)");
  }
}

AliasCheck::Action aliasAction(const std::string &name) {
  if (name == "copy")
    return AliasCheck::Copy;
  if (name == "operand")
    return AliasCheck::Operand;
  if (name == "read_after")
    return AliasCheck::ReadAfter;
  if (name == "both_written")
    return AliasCheck::BothWritten;
  throw py::value_error("unknown alias check action: " + name);
}

/// PyTorch's sentence for an operand of an in-place op that partly
/// overlaps the tensor it writes (ATen's assert_no_partial_overlap).
[[noreturn]] void raisePartialOverlap() {
  PyErr_SetString(PyExc_RuntimeError,
                  "unsupported operation: some elements of the input tensor "
                  "and the written-to tensor refer to a single memory "
                  "location. Please clone() the tensor before performing "
                  "the operation.");
  throw py::error_already_set();
}

/// The bytes a contiguous buffer view spans.
size_t viewBytes(const ArgView &view) {
  size_t bytes = elemBytes(view.elem);
  for (int d = 0; d < view.ndim; ++d)
    bytes *= static_cast<size_t>(view.shape[d]);
  return bytes;
}

bool sharesMemory(const ArgView &a, const ArgView &b) {
  size_t aBytes = viewBytes(a), bBytes = viewBytes(b);
  return a.data && b.data && aBytes && bBytes && a.data < b.data + bBytes &&
         b.data < a.data + aBytes;
}

/// Checks the arguments updated in place against those sharing their
/// memory: refuses what the kernel cannot honour, and points each shared
/// argument the function reads only before the update at a copy of it
/// (kept alive in `copies` until the kernel has run). Refusals come first,
/// against the caller's own memory.
void checkAliasing(const Entry &entry, llvm::MutableArrayRef<ArgView> views,
                   std::vector<std::unique_ptr<char[]>> &copies) {
  if (entry.aliasChecks.empty())
    return;
  for (const AliasCheck &check : entry.aliasChecks) {
    const ArgView &w = views[check.written], &o = views[check.other];
    if (!sharesMemory(w, o))
      continue;
    if (check.action == AliasCheck::ReadAfter ||
        check.action == AliasCheck::BothWritten)
      raiseAliasError(check.action, check.written, check.other);
    bool same = w.data == o.data && viewBytes(w) == viewBytes(o) &&
                w.ndim == o.ndim &&
                std::equal(w.shape, w.shape + w.ndim, o.shape);
    if (check.action == AliasCheck::Operand && o.kind != NumPyArray && !same)
      raisePartialOverlap();
    if (entry.device >= 0)
      raiseAliasError(check.action, check.written, check.other);
  }
  for (const AliasCheck &check : entry.aliasChecks) {
    ArgView &o = views[check.other];
    if (!sharesMemory(views[check.written], o))
      continue;
    size_t bytes = viewBytes(o);
    // Aligned as the caller's buffers are for the kernel's vector loads.
    constexpr size_t kAlign = 64;
    copies.emplace_back(new char[bytes + kAlign]);
    auto address = reinterpret_cast<uintptr_t>(copies.back().get());
    char *data = copies.back().get() + (kAlign - address % kAlign) % kAlign;
    std::memcpy(data, o.data, bytes);
    o.data = data;
  }
}

/// Runs `entry` on the viewed arguments; the result as the function
/// returns it.
py::object run(PyObject *self, Entry &entry, PyObject *args,
               llvm::MutableArrayRef<ArgView> views, PyObject *out,
               llvm::ArrayRef<int> order = {}) {
  for (int position : entry.mutatedPositions)
    if (!views[position].writable)
      throw py::value_error("an argument updated in place must be writable "
                            "(argument " +
                            std::to_string(position) + " is read-only)");
  std::vector<llvm::SmallVector<int64_t>> replayed;
  if (!entry.nodes.empty())
    replayShapes(entry, views, replayed);

  // out=: one buffer per new result.
  llvm::SmallVector<PyObject *, 4> provided;
  if (out) {
    if (PyTuple_Check(out) || PyList_Check(out)) {
      py::sequence sequence = py::reinterpret_borrow<py::sequence>(out);
      for (py::handle item : sequence)
        provided.push_back(item.ptr());
    } else {
      provided.push_back(out);
    }
    if (static_cast<int>(provided.size()) != entry.numNew)
      throw py::value_error("out= needs " + std::to_string(entry.numNew) +
                            " arrays, one per new result");
  }

  // Results: the caller's buffers, or new ones.
  llvm::SmallVector<py::object, 4> results;
  llvm::SmallVector<ArgView, 4> resultViews(entry.numNew);
  llvm::SmallVector<llvm::ArrayRef<int64_t>, 4> resultShapes;
  llvm::SmallVector<Elem, 4> resultElems;
  int64_t work = 0;
  int newIndex = 0;
  for (const OutputPlan &output : entry.outputs) {
    if (output.isArgument) {
      results.push_back(py::reinterpret_borrow<py::object>(
          PyTuple_GET_ITEM(args, output.position)));
      continue;
    }
    llvm::ArrayRef<int64_t> shape =
        output.node >= 0 ? llvm::ArrayRef<int64_t>(replayed[output.node])
                         : llvm::ArrayRef<int64_t>(output.shape);
    ArgView &view = resultViews[newIndex];
    if (out) {
      checkOut(provided[newIndex], output, shape, entry.device, view);
      results.push_back(py::reinterpret_borrow<py::object>(provided[newIndex]));
    } else {
      results.push_back(allocate(self, entry, output.elem, shape, view, order));
    }
    int64_t elements = 1;
    for (int64_t size : shape)
      elements *= size;
    work += elements;
    resultShapes.push_back(shape);
    resultElems.push_back(output.elem);
    ++newIndex;
  }

  // An out= buffer sharing memory with an argument: the kernel takes its
  // buffers as not aliased (`restrict`), and a product or a reduction would
  // read elements it has already written (`f(a, b, out=a)` of `a @ b`).
  // NumPy's rule, a result as if computed before it is stored, holds: the
  // kernel writes a new buffer, copied into out= after it.
  struct Copy {
    char *destination;
    py::object source;
    const char *data;
    size_t bytes;
  };
  llvm::SmallVector<Copy, 2> copies;
  if (out && entry.device < 0) {
    for (int r = 0; r < entry.numNew; ++r) {
      size_t bytes = elemBytes(resultElems[r]);
      for (int64_t size : resultShapes[r])
        bytes *= static_cast<size_t>(size);
      const char *begin = resultViews[r].data;
      bool shared = false;
      for (size_t i = 0; i < entry.args.size() && !shared && bytes; ++i) {
        const ArgView &view = views[i];
        if (entry.args[i].kind != ArgPlan::Buffer || !view.data)
          continue;
        size_t argBytes = viewBytes(view);
        shared = argBytes && view.data < begin + bytes &&
                 begin < view.data + argBytes;
      }
      if (!shared)
        continue;
      ArgView temporary;
      py::object buffer = allocate(self, entry, resultElems[r], resultShapes[r],
                                   temporary, order);
      copies.push_back({resultViews[r].data, buffer, temporary.data, bytes});
      resultViews[r] = std::move(temporary);
    }
  }

  std::vector<std::unique_ptr<char[]>> aliasCopies;
  checkAliasing(entry, views, aliasCopies);

  // Descriptors: allocated and aligned pointers, offset, sizes, strides;
  // scalars as 0-d memrefs of their 64-bit (or i1) carrier, which a CUDA
  // kernel reads from device memory: a tensor of one slot per parameter.
  int numParams = entry.numParams + entry.numNew;
  llvm::SmallVector<int64_t, 96> storage;
  llvm::SmallVector<int64_t, 16> scalars(entry.numParams);
  llvm::SmallVector<size_t, 16> offsets(numParams);
  std::optional<StreamLoan> loan;
  if (entry.device >= 0)
    loan.emplace(entry.device);
  py::object deviceScalars;
  int64_t *deviceSlots = nullptr;
  if (entry.device >= 0 && entry.hasRuntimeScalars) {
    ArgView slotsView;
    deviceScalars =
        allocate(self, entry, Elem::Int64, {entry.numParams}, slotsView);
    deviceSlots = reinterpret_cast<int64_t *>(slotsView.data);
  }
  auto addDescriptor = [&](int param, void *data,
                           llvm::ArrayRef<int64_t> shape) {
    offsets[param] = storage.size();
    auto address = reinterpret_cast<int64_t>(data);
    storage.push_back(address);
    storage.push_back(address);
    storage.push_back(0);
    storage.append(shape.begin(), shape.end());
    size_t strides = storage.size();
    storage.resize(strides + shape.size());
    int64_t stride = 1;
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      storage[strides + d] = stride;
      stride *= shape[d];
    }
  };
  for (size_t i = 0; i < entry.args.size(); ++i) {
    const ArgPlan &plan = entry.args[i];
    ArgView &view = views[i];
    if (plan.kind == ArgPlan::Buffer) {
      addDescriptor(plan.param, view.data,
                    llvm::ArrayRef<int64_t>(view.shape, view.ndim));
    } else if (plan.kind == ArgPlan::RuntimeScalar) {
      int64_t &slot = scalars[plan.param];
      if (view.scalarKind == FloatScalar) {
        std::memcpy(&slot, &view.floatValue, sizeof(slot));
      } else {
        // The kernel converts the int64 to the dtype it computes in,
        // wrapping as PyTorch does (python/bcast/_trace.py).
        slot = view.intValue;
      }
      addDescriptor(plan.param, deviceSlots ? deviceSlots + plan.param : &slot,
                    {});
    }
  }
  // On the lent stream, so the copy is ordered before the launches; the
  // host slots outlive it, as the kernel synchronizes before it returns.
  if (deviceSlots)
    cudaApi().memcpy(deviceSlots, scalars.data(),
                     scalars.size() * sizeof(int64_t), loan->handle);
  for (int r = 0; r < entry.numNew; ++r)
    addDescriptor(entry.numParams + r, resultViews[r].data, resultShapes[r]);
  llvm::SmallVector<void *, 16> pointers(numParams);
  llvm::SmallVector<void *, 16> packed(numParams);
  for (int p = 0; p < numParams; ++p) {
    pointers[p] = storage.data() + offsets[p];
    packed[p] = &pointers[p];
  }
  // Work below the kernels' grain size runs on this thread, too briefly to
  // let other Python threads run: keep the GIL. A CUDA kernel waits for the
  // device: let them run.
  entry.kernel->callPacked(packed.data(),
                           /*releaseGil=*/entry.device >= 0 ||
                               work >= kReleaseGilElements);
  for (const Copy &copy : copies)
    std::memcpy(copy.destination, copy.data, copy.bytes);

  if (entry.single)
    return results.empty() ? py::none() : results.front();
  py::tuple tuple(results.size());
  for (size_t i = 0; i < results.size(); ++i)
    tuple[i] = results[i];
  return tuple;
}

//===----------------------------------------------------------------------===//
// The Dispatcher type
//===----------------------------------------------------------------------===//

DispatchState &stateOf(PyObject *self) {
  return *reinterpret_cast<DispatcherObject *>(self)->state;
}

std::shared_ptr<Entry> lookup(DispatchState &state,
                              llvm::ArrayRef<int64_t> signature) {
  if (state.last && llvm::ArrayRef<int64_t>(state.last->signature) == signature)
    return state.last;
  auto found = state.entries.find(
      std::vector<int64_t>(signature.begin(), signature.end()));
  if (found == state.entries.end())
    return nullptr;
  state.last = found->second;
  return state.last;
}

/// The call: fast path, or `_miss` then fast path, or `_slow_call`.
py::object call(PyObject *self, PyObject *args, PyObject *out, bool fallback,
                bool withMutated) {
  DispatchState &state = stateOf(self);
  llvm::SmallVector<ArgView, 8> views;
  llvm::SmallVector<int64_t, 64> signature;
  if (!collect(state, args, views, signature)) {
    if (!fallback)
      throw py::type_error("bcast.jit: an argument the call path cannot "
                           "take after conversion");
    return py::reinterpret_borrow<py::object>(self).attr("_slow_call")(
        py::reinterpret_borrow<py::tuple>(args),
        out ? py::reinterpret_borrow<py::object>(out) : py::none());
  }
  std::shared_ptr<Entry> entry = lookup(state, signature);
  // A miss compiles; the second attempt covers a function that _miss has
  // just switched to specialized scalars (whose signatures hold values).
  for (int attempt = 0; !entry && attempt < 2; ++attempt) {
    py::bytes key(reinterpret_cast<const char *>(signature.data()),
                  signature.size() * sizeof(int64_t));
    py::reinterpret_borrow<py::object>(self).attr("_miss")(
        py::reinterpret_borrow<py::tuple>(args), key);
    signature.clear();
    views.clear();
    if (!collect(state, args, views, signature))
      throw py::type_error("bcast.jit: arguments changed while compiling");
    entry = lookup(state, signature);
  }
  if (!entry)
    throw std::runtime_error("bcast.jit: no kernel registered for the "
                             "signature just compiled");
  py::object result = run(self, *entry, args, views, out);
  if (withMutated)
    return py::make_tuple(result, entry->mutated);
  return result;
}

/// `Dispatcher._call_in_order(order, args)`: the call of a region that
/// bcast.torch computes in memory order (order: a permutation of the
/// region's rank), on host tensors of logical shapes whose elements are
/// dense in that order, without the permuted views a call through
/// `__call__` takes (an ATen call each, in Python). A tuple of results of
/// logical shapes, laid out in that order; NotImplemented when an argument
/// is not so laid out, or no kernel is compiled for the signature yet: the
/// caller then takes the views and calls.
py::object callInOrder(PyObject *self, PyObject *orderTuple, PyObject *args) {
  if (!PyTuple_Check(orderTuple) || !PyTuple_Check(args))
    throw py::type_error("_call_in_order(order, args) takes two tuples");
  Py_ssize_t rank = PyTuple_GET_SIZE(orderTuple);
  llvm::SmallVector<int, 8> order(rank);
  llvm::SmallVector<bool, 8> seen(rank, false);
  for (Py_ssize_t i = 0; i < rank; ++i) {
    long d = PyLong_AsLong(PyTuple_GET_ITEM(orderTuple, i));
    if (d == -1 && PyErr_Occurred())
      throw py::error_already_set();
    if (d < 0 || d >= rank || seen[d])
      throw py::value_error("_call_in_order: order must be a permutation "
                            "of 0..rank-1");
    seen[d] = true;
    order[i] = static_cast<int>(d);
  }
  py::object notImplemented =
      py::reinterpret_borrow<py::object>(Py_NotImplemented);
  if (rank == 0)
    return notImplemented;
  DispatchState &state = stateOf(self);
  llvm::SmallVector<ArgView, 8> views;
  llvm::SmallVector<int64_t, 64> signature;
  if (!collect(state, args, views, signature, order))
    return notImplemented;
  std::shared_ptr<Entry> entry = lookup(state, signature);
  // Results of another rank could not be laid out in `order`, and replayed
  // (dynamic) shapes are not placed: both take the caller's path.
  if (!entry || !entry->nodes.empty() || entry->device >= 0 ||
      !entry->tensorResults)
    return notImplemented;
  for (const OutputPlan &output : entry->outputs)
    if (!output.isArgument &&
        static_cast<Py_ssize_t>(output.shape.size()) != rank)
      return notImplemented;
  py::object result = run(self, *entry, args, views, nullptr, order);
  if (entry->single)
    return result.is_none() ? py::tuple() : py::make_tuple(result);
  return result;
}

/// Sets the Python error for the exception being handled.
void setPythonError() {
  try {
    throw;
  } catch (py::error_already_set &e) {
    e.restore();
  } catch (py::builtin_exception &e) {
    e.set_error();
  } catch (MLIRError &e) {
    py::object type = py::module_::import("bcast._bcast").attr("MLIRError");
    PyErr_SetString(type.ptr(), e.what());
  } catch (std::invalid_argument &e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (std::exception &e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
}

PyObject *dispatcherCall(PyObject *self, PyObject *args, PyObject *kwargs) {
  PyObject *out = nullptr;
  if (kwargs && PyDict_GET_SIZE(kwargs)) {
    out = PyDict_GetItemString(kwargs, "out");
    if (!out || PyDict_GET_SIZE(kwargs) != 1) {
      PyErr_SetString(PyExc_TypeError,
                      "a @bcast.jit function takes only out= as a keyword "
                      "argument");
      return nullptr;
    }
    if (out == Py_None)
      out = nullptr;
  }
  try {
    return call(self, args, out, /*fallback=*/true, /*withMutated=*/false)
        .release()
        .ptr();
  } catch (...) {
    setPythonError();
    return nullptr;
  }
}

PyObject *dispatcherNew(PyTypeObject *type, PyObject *, PyObject *) {
  PyObject *self = type->tp_alloc(type, 0);
  if (!self)
    return nullptr;
  reinterpret_cast<DispatcherObject *>(self)->state = new DispatchState();
  return self;
}

void dispatcherDealloc(PyObject *self) {
  delete reinterpret_cast<DispatcherObject *>(self)->state;
  Py_TYPE(self)->tp_free(self);
}

PyTypeObject dispatcherType = {PyVarObject_HEAD_INIT(nullptr, 0)};

/// Dispatcher._register(signature, kernel, plan): the plan of one compiled
/// signature.
void registerPlan(py::handle self, py::bytes signature, py::object kernel,
                  const Plan &plan) {
  auto entry = std::make_shared<Entry>();
  static_cast<Plan &>(*entry) = plan;
  std::string bytes = signature;
  entry->signature.resize(bytes.size() / sizeof(int64_t));
  std::memcpy(entry->signature.data(), bytes.data(), bytes.size());
  entry->kernel = kernel.cast<Kernel *>();
  entry->kernelObject = kernel;
  entry->mutated = py::cast(plan.mutatedPositions);
  DispatchState &state = stateOf(self.ptr());
  state.last = nullptr;
  std::vector<int64_t> key = entry->signature;
  state.entries[key] = std::move(entry);
}

/// `_bcast.Plan` and its shape-node kinds.
void registerPlanType(py::module_ &m) {
  py::class_<Plan> plan(m, "Plan", R"(How a compiled signature is called,
built once per signature and registered with Dispatcher._register: how each
positional argument reaches the kernel, the results, the shape nodes that
compute result sizes when sizes are dynamic, the positions updated in
place.)");
  py::enum_<ShapeNode::Kind>(plan, "Shape",
                             "The kinds of shape nodes (add_shape_node).")
      .value("ARGUMENT", ShapeNode::Argument)
      .value("ZERO_DIM", ShapeNode::ZeroDim)
      .value("BROADCAST", ShapeNode::Broadcast)
      .value("BROADCAST_TO", ShapeNode::BroadcastTo)
      .value("SPECIFY_SHAPE", ShapeNode::SpecifyShape)
      .value("IN_PLACE", ShapeNode::InPlace)
      .value("REDUCE", ShapeNode::Reduce)
      .value("MATMUL", ShapeNode::Matmul);
  plan.def(py::init<>())
      .def_readwrite("single", &Plan::single)
      .def_readwrite("tensor_results", &Plan::tensorResults)
      .def_readwrite("device", &Plan::device,
                     "The CUDA device of a kernel for CUDA tensors, or -1.")
      .def_readwrite("mutated", &Plan::mutatedPositions,
                     "The positions of the arguments updated in place.")
      .def(
          "add_alias_check",
          [](Plan &self, int written, int other, const std::string &action) {
            AliasCheck check;
            check.written = written;
            check.other = other;
            check.action = aliasAction(action);
            self.aliasChecks.push_back(check);
          },
          py::arg("written"), py::arg("other"), py::arg("action"),
          "Arguments `written` (updated in place) and `other` are checked "
          "for shared memory on every call: 'copy' (the other is read "
          "before the update only: a copy of it is read), 'operand' (as "
          "'copy', and PyTorch's error for a tensor that partly overlaps), "
          "'read_after' or 'both_written' (refused).")
      .def_property_readonly(
          "args",
          [](const Plan &self) {
            py::list args;
            for (const ArgPlan &arg : self.args) {
              if (arg.kind == ArgPlan::Buffer)
                args.append(py::make_tuple("buffer", arg.param));
              else if (arg.kind == ArgPlan::Constant)
                args.append(py::make_tuple("constant"));
              else
                args.append(py::make_tuple("scalar", arg.param));
            }
            return args;
          },
          "How each positional argument reaches the kernel, for reading: "
          "('buffer', param), ('scalar', param) or "
          "('constant',).")
      .def(
          "add_buffer",
          [](Plan &self, int param) {
            ArgPlan arg;
            arg.kind = ArgPlan::Buffer;
            arg.param = param;
            self.numParams = std::max(self.numParams, param + 1);
            self.args.push_back(std::move(arg));
          },
          py::arg("param"),
          "The next positional argument is an array: kernel parameter "
          "`param`.")
      .def(
          "add_scalar",
          [](Plan &self, int param) {
            ArgPlan arg;
            arg.kind = ArgPlan::RuntimeScalar;
            arg.param = param;
            self.hasRuntimeScalars = true;
            self.numParams = std::max(self.numParams, param + 1);
            self.args.push_back(std::move(arg));
          },
          py::arg("param"),
          "The next positional argument is a Python scalar passed at run "
          "time as kernel parameter `param` (an int as int64, a float as "
          "f64).")
      .def(
          "add_constant",
          [](Plan &self) {
            ArgPlan arg;
            arg.kind = ArgPlan::Constant;
            self.args.push_back(std::move(arg));
          },
          "The next positional argument was compiled into the kernel.")
      .def(
          "return_argument",
          [](Plan &self, int position) {
            OutputPlan output;
            output.isArgument = true;
            output.position = position;
            self.outputs.push_back(std::move(output));
          },
          py::arg("position"),
          "The next result is the positional argument `position`.")
      .def(
          "return_new",
          [](Plan &self, const std::string &dtype, std::vector<int64_t> shape) {
            OutputPlan output;
            output.elem = elemFromName(dtype);
            output.shape.assign(shape.begin(), shape.end());
            self.outputs.push_back(std::move(output));
            ++self.numNew;
          },
          py::arg("dtype"), py::arg("shape"),
          "The next result is a new array of this dtype and static shape.")
      .def(
          "return_new_of_node",
          [](Plan &self, const std::string &dtype, int node) {
            OutputPlan output;
            output.elem = elemFromName(dtype);
            output.node = node;
            self.outputs.push_back(std::move(output));
            ++self.numNew;
          },
          py::arg("dtype"), py::arg("node"),
          "The next result is a new array of this dtype, of the shape that "
          "shape node `node` computes.")
      .def(
          "add_shape_node",
          [](Plan &self, ShapeNode::Kind kind, std::vector<int> inputs,
             std::vector<std::optional<int64_t>> extra, int position) {
            ShapeNode node;
            node.kind = kind;
            node.inputs.assign(inputs.begin(), inputs.end());
            node.position = position;
            for (std::optional<int64_t> size : extra)
              node.extra.push_back(size ? *size : -1);
            self.nodes.push_back(std::move(node));
          },
          py::arg("kind"), py::arg("inputs") = std::vector<int>(),
          py::arg("extra") = std::vector<std::optional<int64_t>>(),
          py::arg("position") = -1,
          "The next traced node's shape: ARGUMENT (the argument at "
          "`position`), ZERO_DIM, BROADCAST or IN_PLACE of `inputs`, "
          "BROADCAST_TO or SPECIFY_SHAPE of one input to the sizes `extra` "
          "(None: the input's), REDUCE of one input (`extra`: per result "
          "dimension a static size, or -(i + 2) for the input's size i).");
}

} // namespace

void bcast_python::registerDispatcher(py::module_ &m) {
  registerPlanType(m);
  dispatcherType.tp_name = "bcast._bcast.Dispatcher";
  dispatcherType.tp_basicsize = sizeof(DispatcherObject);
  dispatcherType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  dispatcherType.tp_doc =
      "The call path of @bcast.jit functions (bcast._dispatch.JitFunction's "
      "base): compiled signatures, looked up and called without Python "
      "code.";
  dispatcherType.tp_new = dispatcherNew;
  dispatcherType.tp_dealloc = dispatcherDealloc;
  dispatcherType.tp_call = dispatcherCall;
  if (PyType_Ready(&dispatcherType) < 0)
    throw py::error_already_set();
  py::handle type(reinterpret_cast<PyObject *>(&dispatcherType));
  type.inc_ref();
  m.add_object("Dispatcher", type);

  // Methods, as pybind11 functions in the type's dictionary (a static
  // type's attributes cannot be set).
  py::object cls = py::reinterpret_borrow<py::object>(type);
  auto setMethod = [&](const char *name, py::cpp_function function) {
    if (PyDict_SetItemString(dispatcherType.tp_dict, name, function.ptr()) < 0)
      throw py::error_already_set();
    PyType_Modified(&dispatcherType);
  };
  setMethod("_configure",
            py::cpp_function(
                [](py::handle self, bool allDynamic,
                   std::vector<std::vector<int>> dims, bool specialize) {
                  DispatchState &state = stateOf(self.ptr());
                  state.allDynamic = allDynamic;
                  state.dynamicDims = std::move(dims);
                  state.specialize = specialize;
                  state.entries.clear();
                  state.last = nullptr;
                },
                py::is_method(cls), py::arg("all_dynamic"), py::arg("dims"),
                py::arg("specialize"),
                "Sets the dynamic dimensions (per array argument) and "
                "whether scalar values are part of the signature; forgets "
                "the compiled signatures."));
  setMethod("_register",
            py::cpp_function(&registerPlan, py::is_method(cls),
                             py::arg("signature"), py::arg("kernel"),
                             py::arg("plan"),
                             "Registers the kernel and plan (a Plan) of one "
                             "compiled signature."));
  setMethod("_fast_call",
            py::cpp_function(
                [](py::handle self, py::tuple args, py::object out) {
                  return call(self.ptr(), args.ptr(),
                              out.is_none() ? nullptr : out.ptr(),
                              /*fallback=*/false, /*withMutated=*/true);
                },
                py::is_method(cls), py::arg("args"), py::arg("out"),
                "Calls with arguments the call path takes as they are; "
                "(result, positions updated in place)."));
  m.def(
      "raise_alias_error",
      [](const std::string &action, int written, int other, bool partial) {
        if (partial)
          raisePartialOverlap();
        raiseAliasError(aliasAction(action), written, other);
      },
      py::arg("action"), py::arg("written"), py::arg("other"),
      py::arg("partial") = false,
      "Raises the call path's error for arguments sharing memory (the "
      "calls that convert arguments check their originals with it): "
      "PyTorch's RuntimeError where `partial`, else the ValueError of "
      "`action` (an alias check's).");
  m.def("load_cuda_runtime", &loadCudaRuntime, py::arg("path"),
        "Opens libbcast_cuda_runtime.so at path for CUDA tensors and checks "
        "for a driver and a GPU; RuntimeError with the reason otherwise.");
  m.def(
      "cuda_use_device",
      [](int device) {
        if (!cudaApi().loaded)
          throw std::runtime_error("bcast: the CUDA runtime is not loaded");
        cudaApi().useDevice(device);
      },
      py::arg("device"),
      "Makes the CUDA runtime use `device` on this thread (-1: its default), "
      "e.g. while a kernel's GPU module loads.");
  // METH_FASTCALL, not a pybind11 function: it is on bcast.torch's path
  // for every call of a region computed in memory order.
  static PyMethodDef callInOrderDef = {
      "_call_in_order",
      reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(
          +[](PyObject *self, PyObject *const *args,
              Py_ssize_t nargs) -> PyObject * {
            if (nargs != 2) {
              PyErr_SetString(PyExc_TypeError,
                              "_call_in_order(order, args) takes two tuples");
              return nullptr;
            }
            try {
              return callInOrder(self, args[0], args[1]).release().ptr();
            } catch (...) {
              setPythonError();
              return nullptr;
            }
          })),
      METH_FASTCALL,
      "_call_in_order(order, args): a call of a region computed in memory "
      "order on tensors of logical shapes dense in that order; a tuple of "
      "results so laid out, or NotImplemented (not dense so, or not "
      "compiled yet)."};
  PyObject *descriptor = PyDescr_NewMethod(&dispatcherType, &callInOrderDef);
  if (!descriptor || PyDict_SetItemString(dispatcherType.tp_dict,
                                          "_call_in_order", descriptor) < 0)
    throw py::error_already_set();
  Py_DECREF(descriptor);
  PyType_Modified(&dispatcherType);
  setMethod(
      "_signature_count",
      py::cpp_function(
          [](py::handle self) { return stateOf(self.ptr()).entries.size(); },
          py::is_method(cls), "How many signatures the call path holds."));
}
