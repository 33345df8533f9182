/* A stand-in for libcuda.so.1 for the tests of libbcast_cuda_runtime's
   plumbing on machines without a GPU: device memory is host memory, kernels
   are not run, and every call that matters is logged on stderr as one line
   ("fake-cuda: ..."), so that FileCheck sees which device's context, which
   stream and which kernel each call used, and the values of a launch's
   64-bit parameters (the kernel's pointers among them; their sizes come
   from the PTX the module was loaded from). Behaviour:
     FAKE_CUDA_DEVICES   number of devices cuDeviceGetCount reports (1)
     FAKE_CUDA_INIT      a CUresult cuInit returns (0)
     FAKE_CUDA_LOG       a file the log is appended to (stderr)
   Handles are small distinct numbers so that the log is stable. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef uintptr_t CUdeviceptr;

static int envInt(const char *name, int fallback) {
  const char *text = getenv(name);
  return text ? atoi(text) : fallback;
}

static FILE *logFile(void) {
  static FILE *file;
  if (!file) {
    const char *path = getenv("FAKE_CUDA_LOG");
    file = path ? fopen(path, "a") : NULL;
    if (!file)
      file = stderr;
    setvbuf(file, NULL, _IONBF, 0);
  }
  return file;
}

CUresult cuInit(unsigned flags) {
  (void)flags;
  fprintf(logFile(), "fake-cuda: cuInit\n");
  return envInt("FAKE_CUDA_INIT", 0);
}

CUresult cuDeviceGetCount(int *count) {
  *count = envInt("FAKE_CUDA_DEVICES", 1);
  return 0;
}

CUresult cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return ordinal < envInt("FAKE_CUDA_DEVICES", 1) ? 0 : 101;
}

/* Context of device d: 0xc0 + d. */
CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  fprintf(logFile(), "fake-cuda: retain primary context of device %d\n",
          device);
  *context = (void *)(uintptr_t)(0xc0 + device);
  return 0;
}

static uintptr_t currentContext[16];
static int depth;

CUresult cuCtxPushCurrent_v2(void *context) {
  currentContext[++depth] = (uintptr_t)context;
  return 0;
}

CUresult cuCtxPopCurrent_v2(void **context) {
  *context = (void *)currentContext[depth--];
  return 0;
}

static unsigned nextHandle = 0x10;

/* The PTX text of the last module loaded (the JIT path loads text). */
static char *lastImage;

CUresult cuModuleLoadData(void **module, const void *image) {
  free(lastImage);
  lastImage = strdup((const char *)image);
  *module = (void *)(uintptr_t)nextHandle++;
  fprintf(logFile(), "fake-cuda: load module %p in context %#lx\n", *module,
          (unsigned long)currentContext[depth]);
  return 0;
}

CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned count,
                            int *options, void **values) {
  (void)count;
  (void)options;
  (void)values;
  return cuModuleLoadData(module, image);
}

CUresult cuModuleUnload(void *module) {
  (void)module;
  return 0;
}

/* A kernel: its name and the byte size of each parameter, read from the
   `.entry name(` declaration of the PTX. */
struct Function {
  char name[128];
  int count;
  int sizes[256];
};

CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  (void)module;
  struct Function *f = calloc(1, sizeof(struct Function));
  snprintf(f->name, sizeof(f->name), "%s", name);
  char entry[160];
  snprintf(entry, sizeof(entry), ".entry %s(", name);
  const char *at = lastImage ? strstr(lastImage, entry) : NULL;
  const char *end = at ? strchr(at, ')') : NULL;
  while (at && end && f->count < 256 && (at = strstr(at, ".param ")) &&
         at < end) {
    at += 7;
    int bits = atoi(at + 2); /* .u64, .b32, .f16, ... */
    f->sizes[f->count++] = bits / 8;
  }
  *function = f;
  return 0;
}

CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void *stream, void **params, void **extra) {
  (void)gy;
  (void)gz;
  (void)by;
  (void)bz;
  (void)shared;
  (void)extra;
  const struct Function *f = function;
  fprintf(logFile(),
          "fake-cuda: launch %s grid %u block %u on stream %p in context "
          "%#lx\n",
          f->name, gx, bx, stream, (unsigned long)currentContext[depth]);
  fprintf(logFile(), "fake-cuda: 64-bit parameters");
  for (int i = 0; params && i < f->count; ++i)
    if (f->sizes[i] == 8)
      fprintf(logFile(), " %#llx", (unsigned long long)*(uint64_t *)params[i]);
  fprintf(logFile(), "\n");
  return 0;
}

CUresult cuStreamCreate(void **stream, unsigned flags) {
  (void)flags;
  *stream = (void *)(uintptr_t)nextHandle++;
  fprintf(logFile(), "fake-cuda: create stream %p in context %#lx\n", *stream,
          (unsigned long)currentContext[depth]);
  return 0;
}

CUresult cuStreamSynchronize(void *stream) {
  fprintf(logFile(), "fake-cuda: synchronize stream %p in context %#lx\n",
          stream, (unsigned long)currentContext[depth]);
  return 0;
}

CUresult cuStreamDestroy_v2(void *stream) {
  fprintf(logFile(), "fake-cuda: destroy stream %p\n", stream);
  return 0;
}

CUresult cuStreamWaitEvent(void *stream, void *event, unsigned flags) {
  (void)stream;
  (void)event;
  (void)flags;
  return 0;
}

CUresult cuEventCreate(void **event, unsigned flags) {
  (void)flags;
  *event = (void *)(uintptr_t)nextHandle++;
  return 0;
}

CUresult cuEventDestroy_v2(void *event) {
  (void)event;
  return 0;
}

CUresult cuEventSynchronize(void *event) {
  (void)event;
  return 0;
}

CUresult cuEventRecord(void *event, void *stream) {
  (void)event;
  (void)stream;
  return 0;
}

CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t size) {
  *pointer = (CUdeviceptr)malloc(size);
  fprintf(logFile(), "fake-cuda: allocate %zu bytes in context %#lx\n", size,
          (unsigned long)currentContext[depth]);
  return 0;
}

CUresult cuMemAllocManaged(CUdeviceptr *pointer, size_t size, unsigned flags) {
  (void)flags;
  return cuMemAlloc_v2(pointer, size);
}

CUresult cuMemFree_v2(CUdeviceptr pointer) {
  free((void *)pointer);
  return 0;
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t size,
                       void *stream) {
  memcpy((void *)dst, (const void *)src, size);
  fprintf(logFile(), "fake-cuda: copy %zu bytes to %#lx on stream %p", size,
          (unsigned long)dst, stream);
  /* Small copies (scalars, constants) show their 64-bit words. */
  for (size_t i = 0; size % 8 == 0 && size <= 64 && i < size / 8; ++i)
    fprintf(logFile(), " %#llx", (unsigned long long)((uint64_t *)dst)[i]);
  fprintf(logFile(), "\n");
  return 0;
}

CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned value, size_t count,
                          void *stream) {
  (void)stream;
  for (size_t i = 0; i < count; ++i)
    ((unsigned *)dst)[i] = value;
  return 0;
}

CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t count,
                          void *stream) {
  (void)stream;
  for (size_t i = 0; i < count; ++i)
    ((unsigned short *)dst)[i] = value;
  return 0;
}

CUresult cuMemHostRegister_v2(void *pointer, size_t size, unsigned flags) {
  (void)pointer;
  (void)size;
  (void)flags;
  return 0;
}

CUresult cuMemHostUnregister(void *pointer) {
  (void)pointer;
  return 0;
}

CUresult cuGetErrorName(CUresult result, const char **name) {
  static char text[32];
  snprintf(text, sizeof(text), "FAKE_ERROR_%d", result);
  *name = text;
  return 0;
}

CUresult cuGetErrorString(CUresult result, const char **text) {
  (void)result;
  *text = "an error the fake driver was told to return";
  return 0;
}
