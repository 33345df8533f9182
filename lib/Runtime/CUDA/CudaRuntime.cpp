//===- CudaRuntime.cpp - bcast's runtime for GPU host code ----------------===//
//
// The `mgpu*` entry points that host code lowered by `gpu-to-llvm` (and the
// GPU module translation) calls, implemented on the CUDA driver API. The
// driver library is opened with dlopen at first use, so this library builds
// and links on machines with no CUDA and no GPU; the few driver types and
// functions it needs are declared here rather than taken from cuda.h.
//
// Any driver error, and a missing driver, is reported on stderr with the
// call that failed and ends the process with status 1: a failed launch or
// copy must never turn into a silently wrong result. Streams are pooled so
// that the per-call stream the lowered host code creates and destroys costs
// nothing after the first call.
//
// A caller that owns a stream (the Python extension: PyTorch's current
// stream) lends it with bcastCudaUseStream, and probes for a driver and a
// device with bcastCudaProbe, which reports instead of ending the process.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

namespace {
// The subset of the driver API in use. Handles are opaque pointers; CUresult
// is an int where 0 means success.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = uintptr_t;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;
using CUevent = void *;

constexpr unsigned kStreamNonBlocking = 0x1;  // CU_STREAM_NON_BLOCKING
constexpr unsigned kEventDisableTiming = 0x2; // CU_EVENT_DISABLE_TIMING
constexpr unsigned kMemAttachGlobal = 0x1;    // CU_MEM_ATTACH_GLOBAL
constexpr int kJitOptimizationLevel = 7;      // CU_JIT_OPTIMIZATION_LEVEL
constexpr int kJitErrorLogBuffer = 5;         // CU_JIT_ERROR_LOG_BUFFER
constexpr int kJitErrorLogBufferSize = 6; // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES

struct Driver {
  CUresult (*init)(unsigned);
  CUresult (*deviceGet)(CUdevice *, int);
  CUresult (*deviceGetCount)(int *);
  CUresult (*primaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*ctxPushCurrent)(CUcontext);
  CUresult (*ctxPopCurrent)(CUcontext *);
  CUresult (*moduleLoadData)(CUmodule *, const void *);
  CUresult (*moduleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                               void **);
  CUresult (*moduleUnload)(CUmodule);
  CUresult (*moduleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*launchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, CUstream, void **,
                           void **);
  CUresult (*streamCreate)(CUstream *, unsigned);
  CUresult (*streamSynchronize)(CUstream);
  CUresult (*streamDestroy)(CUstream);
  CUresult (*streamWaitEvent)(CUstream, CUevent, unsigned);
  CUresult (*eventCreate)(CUevent *, unsigned);
  CUresult (*eventDestroy)(CUevent);
  CUresult (*eventSynchronize)(CUevent);
  CUresult (*eventRecord)(CUevent, CUstream);
  CUresult (*memAlloc)(CUdeviceptr *, size_t);
  CUresult (*memAllocManaged)(CUdeviceptr *, size_t, unsigned);
  CUresult (*memFree)(CUdeviceptr);
  CUresult (*memcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*memsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
  CUresult (*memsetD16Async)(CUdeviceptr, unsigned short, size_t, CUstream);
  CUresult (*memHostRegister)(void *, size_t, unsigned);
  CUresult (*memHostUnregister)(void *);
  CUresult (*getErrorName)(CUresult, const char **);
  CUresult (*getErrorString)(CUresult, const char **);
};
} // namespace

/// Ends the process at once: exit() would run the GPU module destructors
/// the lowering registers, which call back into this broken runtime.
[[noreturn]] static void terminate() {
  std::fflush(nullptr);
  std::_Exit(1);
}

/// Set once exit() begins. The module destructors the GPU module translation
/// registers run after the driver's own exit handlers, when cuModuleUnload
/// fails or crashes; the process is ending and the driver frees its modules
/// with it, so unloading is skipped from then on.
static std::atomic<bool> exiting{false};

/// Opens the driver and finds every function in use; on failure, what is
/// missing in `error`.
static bool loadDriver(Driver &r, std::string &error) {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *detail = dlerror();
    error = std::string("cannot load the CUDA driver (libcuda.so.1); is an "
                        "NVIDIA driver installed?: ") +
            (detail ? detail : "");
    return false;
  }
  bool found = true;
  auto load = [&](auto &field, const char *name) {
    void *address = dlsym(library, name);
    if (!address && found) {
      found = false;
      error = std::string("libcuda.so.1 lacks a driver function: ") + name;
    }
    field = reinterpret_cast<std::remove_reference_t<decltype(field)>>(address);
  };
  load(r.init, "cuInit");
  load(r.deviceGet, "cuDeviceGet");
  load(r.deviceGetCount, "cuDeviceGetCount");
  load(r.primaryCtxRetain, "cuDevicePrimaryCtxRetain");
  load(r.ctxPushCurrent, "cuCtxPushCurrent_v2");
  load(r.ctxPopCurrent, "cuCtxPopCurrent_v2");
  load(r.moduleLoadData, "cuModuleLoadData");
  load(r.moduleLoadDataEx, "cuModuleLoadDataEx");
  load(r.moduleUnload, "cuModuleUnload");
  load(r.moduleGetFunction, "cuModuleGetFunction");
  load(r.launchKernel, "cuLaunchKernel");
  load(r.streamCreate, "cuStreamCreate");
  load(r.streamSynchronize, "cuStreamSynchronize");
  load(r.streamDestroy, "cuStreamDestroy_v2");
  load(r.streamWaitEvent, "cuStreamWaitEvent");
  load(r.eventCreate, "cuEventCreate");
  load(r.eventDestroy, "cuEventDestroy_v2");
  load(r.eventSynchronize, "cuEventSynchronize");
  load(r.eventRecord, "cuEventRecord");
  load(r.memAlloc, "cuMemAlloc_v2");
  load(r.memAllocManaged, "cuMemAllocManaged");
  load(r.memFree, "cuMemFree_v2");
  load(r.memcpyAsync, "cuMemcpyAsync");
  load(r.memsetD32Async, "cuMemsetD32Async");
  load(r.memsetD16Async, "cuMemsetD16Async");
  load(r.memHostRegister, "cuMemHostRegister_v2");
  load(r.memHostUnregister, "cuMemHostUnregister");
  load(r.getErrorName, "cuGetErrorName");
  load(r.getErrorString, "cuGetErrorString");
  return found;
}

/// The driver, opened and initialized on first use.
static const Driver &driver() {
  static Driver d = [] {
    // Registered before cuInit registers the driver's handlers, so it runs
    // after them but before the executable's destructors.
    std::atexit([] { exiting = true; });
    Driver r;
    std::string error;
    if (!loadDriver(r, error)) {
      std::fprintf(stderr, "bcast CUDA runtime: %s\n", error.c_str());
      terminate();
    }
    return r;
  }();
  return d;
}

/// Ends the process with the driver's description of `result` unless it is
/// success.
static void check(CUresult result, const char *call) {
  if (result == 0)
    return;
  const char *name = nullptr, *text = nullptr;
  driver().getErrorName(result, &name);
  driver().getErrorString(result, &text);
  std::fprintf(stderr, "bcast CUDA runtime: %s failed: %s (%s)\n", call,
               name ? name : "unknown error", text ? text : "no description");
  terminate();
}

static std::atomic<int32_t> defaultDevice{0};

/// What a caller lent this thread (bcastCudaUseStream): the device whose
/// primary context the calls use, and the stream the lowered host code gets
/// from mgpuStreamCreate. PyTorch's default stream is the null handle, hence
/// the flag.
static thread_local int32_t callerDevice = -1;
static thread_local bool hasCallerStream = false;
static thread_local CUstream callerStream = nullptr;

static int32_t currentDevice() {
  return callerDevice >= 0 ? callerDevice : std::max(0, defaultDevice.load());
}

namespace {
/// Makes the primary context of the current device current while alive.
class ScopedContext {
public:
  ScopedContext() {
    check(driver().ctxPushCurrent(context(currentDevice())),
          "cuCtxPushCurrent");
  }
  ~ScopedContext() {
    CUcontext previous;
    check(driver().ctxPopCurrent(&previous), "cuCtxPopCurrent");
  }

private:
  /// The primary context of `ordinal`, retained once (PyTorch's runtime
  /// uses the same one, so buffers and streams are shared with it).
  static CUcontext context(int32_t ordinal) {
    static std::mutex mutex;
    static std::vector<CUcontext> contexts;
    std::lock_guard<std::mutex> lock(mutex);
    static bool initialized = [] {
      check(driver().init(0), "cuInit");
      return true;
    }();
    (void)initialized;
    if (ordinal >= static_cast<int32_t>(contexts.size()))
      contexts.resize(ordinal + 1, nullptr);
    if (!contexts[ordinal]) {
      CUdevice device;
      check(driver().deviceGet(&device, ordinal), "cuDeviceGet");
      check(driver().primaryCtxRetain(&contexts[ordinal], device),
            "cuDevicePrimaryCtxRetain");
    }
    return contexts[ordinal];
  }
};
} // namespace

/// Streams handed back by mgpuStreamDestroy, reused by mgpuStreamCreate.
static std::mutex streamPoolMutex;
static std::vector<CUstream> &streamPool() {
  static std::vector<CUstream> pool;
  return pool;
}

#define BCAST_EXPORT extern "C" __attribute__((visibility("default")))

BCAST_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  defaultDevice = device;
}

/// Whether the driver loads and initializes and has a device: the number of
/// devices, or 0 with the reason in `message` (at most `size` bytes). Never
/// ends the process, so a caller can raise an error instead.
BCAST_EXPORT int32_t bcastCudaProbe(char *message, size_t size) {
  auto report = [&](const std::string &text) {
    if (size) {
      size_t length = std::min(text.size(), size - 1);
      std::memcpy(message, text.data(), length);
      message[length] = 0;
    }
    return 0;
  };
  Driver probe;
  std::string error;
  if (!loadDriver(probe, error))
    return report(error);
  auto failed = [&](CUresult result, const char *call) {
    const char *name = nullptr;
    probe.getErrorName(result, &name);
    return report(std::string(call) +
                  " failed: " + (name ? name : "unknown error"));
  };
  if (CUresult result = probe.init(0))
    return failed(result, "cuInit");
  int count = 0;
  if (CUresult result = probe.deviceGetCount(&count))
    return failed(result, "cuDeviceGetCount");
  if (count <= 0)
    return report("the CUDA driver reports no GPU");
  return count;
}

/// Until the next call on this thread: run on device `device` and hand the
/// lowered host code `stream` (not destroyed, not pooled) instead of a
/// stream of its own; a negative device ends the loan.
BCAST_EXPORT void bcastCudaUseStream(int32_t device, CUstream stream) {
  callerDevice = device < 0 ? -1 : device;
  hasCallerStream = device >= 0;
  callerStream = device >= 0 ? stream : nullptr;
}

/// Until the next call on this thread: use device `device` (for loading
/// modules there) without lending a stream; negative: the default device.
BCAST_EXPORT void bcastCudaUseDevice(int32_t device) {
  callerDevice = device < 0 ? -1 : device;
  hasCallerStream = false;
  callerStream = nullptr;
}

BCAST_EXPORT CUmodule mgpuModuleLoad(void *data, size_t /*size*/) {
  ScopedContext context;
  CUmodule module = nullptr;
  check(driver().moduleLoadData(&module, data), "cuModuleLoadData");
  return module;
}

BCAST_EXPORT CUmodule mgpuModuleLoadJIT(void *data, int32_t optLevel) {
  ScopedContext context;
  CUmodule module = nullptr;
  // The driver's JIT log says why PTX does not compile.
  static char log[8192];
  log[0] = 0;
  int options[] = {kJitOptimizationLevel, kJitErrorLogBuffer,
                   kJitErrorLogBufferSize};
  void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel)),
                    log, reinterpret_cast<void *>(sizeof(log))};
  CUresult result =
      driver().moduleLoadDataEx(&module, data, 3, options, values);
  if (result != 0 && log[0])
    std::fprintf(stderr, "bcast CUDA runtime: PTX JIT log:\n%s\n", log);
  check(result, "cuModuleLoadDataEx (PTX JIT)");
  return module;
}

BCAST_EXPORT void mgpuModuleUnload(CUmodule module) {
  if (exiting)
    return;
  check(driver().moduleUnload(module), "cuModuleUnload");
}

BCAST_EXPORT CUfunction mgpuModuleGetFunction(CUmodule module,
                                              const char *name) {
  CUfunction function = nullptr;
  check(driver().moduleGetFunction(&function, module, name),
        "cuModuleGetFunction");
  return function;
}

BCAST_EXPORT void mgpuLaunchKernel(CUfunction function, intptr_t gridX,
                                   intptr_t gridY, intptr_t gridZ,
                                   intptr_t blockX, intptr_t blockY,
                                   intptr_t blockZ, int32_t sharedMemory,
                                   CUstream stream, void **params, void **extra,
                                   size_t /*paramsCount*/) {
  ScopedContext context;
  check(driver().launchKernel(function, gridX, gridY, gridZ, blockX, blockY,
                              blockZ, sharedMemory, stream, params, extra),
        "cuLaunchKernel");
}

BCAST_EXPORT CUstream mgpuStreamCreate() {
  if (hasCallerStream)
    return callerStream;
  {
    std::lock_guard<std::mutex> lock(streamPoolMutex);
    if (!streamPool().empty()) {
      CUstream stream = streamPool().back();
      streamPool().pop_back();
      return stream;
    }
  }
  ScopedContext context;
  CUstream stream = nullptr;
  check(driver().streamCreate(&stream, kStreamNonBlocking), "cuStreamCreate");
  return stream;
}

BCAST_EXPORT void mgpuStreamDestroy(CUstream stream) {
  if (hasCallerStream && stream == callerStream)
    return;
  // Idle once synchronized (the lowered code synchronizes first); keep it.
  std::lock_guard<std::mutex> lock(streamPoolMutex);
  streamPool().push_back(stream);
}

BCAST_EXPORT void mgpuStreamSynchronize(CUstream stream) {
  // The null (default) stream is the current context's.
  ScopedContext context;
  check(driver().streamSynchronize(stream), "cuStreamSynchronize");
}

BCAST_EXPORT void mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  check(driver().streamWaitEvent(stream, event, 0), "cuStreamWaitEvent");
}

BCAST_EXPORT CUevent mgpuEventCreate() {
  ScopedContext context;
  CUevent event = nullptr;
  check(driver().eventCreate(&event, kEventDisableTiming), "cuEventCreate");
  return event;
}

BCAST_EXPORT void mgpuEventDestroy(CUevent event) {
  check(driver().eventDestroy(event), "cuEventDestroy");
}

BCAST_EXPORT void mgpuEventSynchronize(CUevent event) {
  check(driver().eventSynchronize(event), "cuEventSynchronize");
}

BCAST_EXPORT void mgpuEventRecord(CUevent event, CUstream stream) {
  check(driver().eventRecord(event, stream), "cuEventRecord");
}

BCAST_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, CUstream /*stream*/,
                                bool isHostShared) {
  ScopedContext context;
  CUdeviceptr pointer = 0;
  if (sizeBytes == 0)
    return nullptr;
  if (isHostShared)
    check(driver().memAllocManaged(&pointer, sizeBytes, kMemAttachGlobal),
          "cuMemAllocManaged");
  else
    check(driver().memAlloc(&pointer, sizeBytes), "cuMemAlloc");
  return reinterpret_cast<void *>(pointer);
}

BCAST_EXPORT void mgpuMemFree(void *pointer, CUstream /*stream*/) {
  if (!pointer)
    return;
  ScopedContext context;
  check(driver().memFree(reinterpret_cast<CUdeviceptr>(pointer)), "cuMemFree");
}

BCAST_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                             CUstream stream) {
  if (sizeBytes == 0)
    return;
  ScopedContext context;
  check(driver().memcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                             reinterpret_cast<CUdeviceptr>(src), sizeBytes,
                             stream),
        "cuMemcpyAsync");
}

BCAST_EXPORT void mgpuMemset32(void *dst, unsigned value, size_t count,
                               CUstream stream) {
  ScopedContext context;
  check(driver().memsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value,
                                count, stream),
        "cuMemsetD32Async");
}

BCAST_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                               CUstream stream) {
  ScopedContext context;
  check(driver().memsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value,
                                count, stream),
        "cuMemsetD16Async");
}

BCAST_EXPORT void mgpuMemHostRegister(void *pointer, uint64_t sizeBytes) {
  ScopedContext context;
  check(driver().memHostRegister(pointer, sizeBytes, 0), "cuMemHostRegister");
}

BCAST_EXPORT void mgpuMemHostUnregister(void *pointer) {
  ScopedContext context;
  check(driver().memHostUnregister(pointer), "cuMemHostUnregister");
}

namespace {
/// A ranked memref descriptor: allocated and aligned pointers, offset, then
/// sizes and strides.
struct Descriptor {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizesAndStrides[1];
};
} // namespace

namespace {
/// The byte range a memref's elements span, from the lowest to the highest
/// element any index reaches (strides may be negative or zero); empty for a
/// memref with no elements.
struct ByteRange {
  char *begin;
  int64_t size;
};
} // namespace

static ByteRange spannedBytes(int64_t rank, const Descriptor *descriptor,
                              int64_t elementSizeBytes) {
  const int64_t *sizes = descriptor->sizesAndStrides;
  const int64_t *strides = sizes + rank;
  int64_t low = 0, high = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (sizes[i] == 0)
      return {nullptr, 0};
    int64_t reach = (sizes[i] - 1) * strides[i];
    (reach < 0 ? low : high) += reach;
  }
  return {descriptor->aligned + (descriptor->offset + low) * elementSizeBytes,
          (high - low + 1) * elementSizeBytes};
}

BCAST_EXPORT void mgpuMemHostRegisterMemRef(int64_t rank,
                                            Descriptor *descriptor,
                                            int64_t elementSizeBytes) {
  ByteRange range = spannedBytes(rank, descriptor, elementSizeBytes);
  if (range.size)
    mgpuMemHostRegister(range.begin, range.size);
}

BCAST_EXPORT void mgpuMemHostUnregisterMemRef(int64_t rank,
                                              Descriptor *descriptor,
                                              int64_t elementSizeBytes) {
  ByteRange range = spannedBytes(rank, descriptor, elementSizeBytes);
  if (range.size)
    mgpuMemHostUnregister(range.begin);
}
