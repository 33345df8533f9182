/* Drives libbcast_cuda_runtime's caller entry points against the fake
   driver (fake_libcuda.c): the probe's report, a lent stream and device
   (PyTorch's current stream), and the runtime's own streams before and
   after the loan. Prints what it sees on stderr, where the driver logs
   too, so that both come in order. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int32_t bcastCudaProbe(char *message, size_t size);
void bcastCudaUseStream(int32_t device, void *stream);
void bcastCudaUseDevice(int32_t device);
void *mgpuStreamCreate(void);
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void *mgpuModuleLoadJIT(void *data, int32_t optLevel);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedMemory, void *stream,
                      void **params, void **extra, size_t paramsCount);

static void launch(void *function, void *stream) {
  mgpuLaunchKernel(function, 2, 1, 1, 32, 1, 1, 0, stream, NULL, NULL, 0);
}

int main(int argc, char **argv) {
  char message[256];
  int32_t devices = bcastCudaProbe(message, sizeof(message));
  fprintf(stderr, "probe: %d%s%s\n", devices, devices ? "" : " ",
          devices ? "" : message);
  if (argc > 1 && strcmp(argv[1], "probe") == 0)
    return 0;

  /* A module loaded for device 1, as the extension compiles for a tensor
     on cuda:1. */
  bcastCudaUseDevice(1);
  void *module = mgpuModuleLoadJIT("ptx", 3);
  void *function = mgpuModuleGetFunction(module, "kernel_kernel");

  /* A lent stream: returned by mgpuStreamCreate, kept by
     mgpuStreamDestroy. */
  bcastCudaUseStream(1, (void *)0x5eed);
  void *stream = mgpuStreamCreate();
  fprintf(stderr, "lent stream: %p\n", stream);
  launch(function, stream);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);

  /* PyTorch's default stream is the null handle. */
  bcastCudaUseStream(1, NULL);
  stream = mgpuStreamCreate();
  fprintf(stderr, "default stream: %p\n", stream);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);

  /* The loan ends: streams of the runtime's own again, on device 0, and
     the lent one never entered the pool. */
  bcastCudaUseStream(-1, NULL);
  stream = mgpuStreamCreate();
  fprintf(stderr, "own stream is the lent one: %d\n", stream == (void *)0x5eed);
  mgpuStreamDestroy(stream);
  fprintf(stderr, "pooled: %d\n", mgpuStreamCreate() == stream);
  return 0;
}
