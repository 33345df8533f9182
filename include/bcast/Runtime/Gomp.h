//===- Gomp.h - GCC's libgomp, where the process has loaded it -*- C++ -*-===//
//
// PyTorch (Debian's build) runs its parallel ops on GCC's libgomp. The
// Python extension's kernels (python/src/KernelThreads.cpp) and the matrix
// product runtime (lib/Runtime/Matmul/MatmulRuntime.cpp) run their parallel
// work on its team, where it is loaded, instead of a second set of threads
// beside it. Header-only: the two are separate shared libraries.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_RUNTIME_GOMP_H
#define BCAST_RUNTIME_GOMP_H

#include <dlfcn.h>

#include <atomic>

namespace bcast::runtime {

/// libgomp's entry points, looked up in the loaded library itself (through
/// dlsym(RTLD_DEFAULT) a libomp loaded earlier with RTLD_GLOBAL would answer
/// for its GOMP_ compatibility symbols).
struct Gomp {
  void (*parallel)(void (*)(void *), void *, unsigned, unsigned) = nullptr;
  void (*barrier)() = nullptr;
  int (*threadNum)() = nullptr;
  int (*numThreads)() = nullptr;
  int (*numProcs)() = nullptr;
};

/// libgomp's entry points once the process has loaded it, else null: looked
/// for again at each call until found (PyTorch may be imported after the
/// first kernel or product). Never loads it.
inline const Gomp *loadedGomp() {
  static std::atomic<const Gomp *> found{nullptr};
  if (const Gomp *gomp = found.load(std::memory_order_acquire))
    return gomp;
  void *library = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (!library)
    return nullptr;
  auto *gomp = new Gomp;
  gomp->parallel = reinterpret_cast<decltype(Gomp::parallel)>(
      dlsym(library, "GOMP_parallel"));
  gomp->barrier =
      reinterpret_cast<decltype(Gomp::barrier)>(dlsym(library, "GOMP_barrier"));
  gomp->threadNum = reinterpret_cast<decltype(Gomp::threadNum)>(
      dlsym(library, "omp_get_thread_num"));
  gomp->numThreads = reinterpret_cast<decltype(Gomp::numThreads)>(
      dlsym(library, "omp_get_num_threads"));
  gomp->numProcs = reinterpret_cast<decltype(Gomp::numProcs)>(
      dlsym(library, "omp_get_num_procs"));
  if (!gomp->parallel || !gomp->barrier || !gomp->threadNum ||
      !gomp->numThreads || !gomp->numProcs) {
    delete gomp;
    return nullptr;
  }
  const Gomp *expected = nullptr;
  if (!found.compare_exchange_strong(expected, gomp)) {
    delete gomp;
    return expected;
  }
  return gomp;
}

} // namespace bcast::runtime

#endif // BCAST_RUNTIME_GOMP_H
