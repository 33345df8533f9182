//===- KernelThreads.cpp - The kernels' parallel loops on libgomp's team --===//
//
// The pipeline's parallel loops become calls of LLVM's OpenMP runtime
// (convert-scf-to-openmp, then the OpenMP IR builder: __kmpc_fork_call and
// a static work-sharing loop). Debian's PyTorch runs its own parallel ops on
// GCC's libgomp. With both runtimes in one process each keeps its own
// workers, and each runtime's workers spin after a parallel region (libomp
// for KMP_BLOCKTIME, libgomp for GOMP_SPINCOUNT): on two cores, the
// kernels' workers and PyTorch's took each other's time, and a model's
// calls moved by 3x between runs (docs/Benchmarks.md, "Two threads").
//
// When libgomp is already in the process, a kernel whose only OpenMP
// imports are the entry points below runs its parallel regions on
// libgomp's team, the threads PyTorch's ops run on, through these entry
// points: one team and one spinning policy for the whole process.
// BCAST_OPENMP=libomp keeps every kernel on libomp.
//
//===----------------------------------------------------------------------===//

#include "BcastPython.h"
#include "bcast/Runtime/Gomp.h"

#include <cstdarg>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

namespace {

using Microtask = void (*)(int32_t *, int32_t *, ...);

using bcast::runtime::Gomp;
using bcast::runtime::loadedGomp;

/// The team size asked for by __kmpc_push_num_threads for this thread's
/// next region (0: none).
thread_local unsigned pushedThreads = 0;

/// The team size of a kernel compiled without a thread count: libomp's
/// default, OMP_NUM_THREADS's first value or else the cores this process
/// may run on ("all cores", docs/Python.md), not libgomp's current one,
/// which PyTorch's set_num_threads changes.
unsigned defaultTeamSize() {
  static const unsigned size = [] {
    if (const char *text = std::getenv("OMP_NUM_THREADS")) {
      char *end = nullptr;
      unsigned long value = std::strtoul(text, &end, 10);
      if (end != text && (*end == '\0' || *end == ',') && value > 0)
        return unsigned(value);
    }
    int procs = loadedGomp()->numProcs();
    return procs > 0 ? unsigned(procs) : 1u;
  }();
  return size;
}

/// The OpenMP IR builder passes a region's captured values to
/// __kmpc_fork_call in one struct (one argument); forks with more arguments
/// than this are left on libomp (usesOnlyTeamEntryPoints).
constexpr int32_t kMaxArguments = 3;

struct Region {
  Microtask task;
  int32_t argc;
  void *argv[kMaxArguments];
};

void invoke(const Region &region, int32_t *gtid, int32_t *btid) {
  void *const *a = region.argv;
  switch (region.argc) {
  case 0:
    return region.task(gtid, btid);
  case 1:
    return region.task(gtid, btid, a[0]);
  case 2:
    return region.task(gtid, btid, a[0], a[1]);
  default:
    return region.task(gtid, btid, a[0], a[1], a[2]);
  }
}

void runRegion(void *data) {
  const Region &region = *static_cast<const Region *>(data);
  int32_t tid = loadedGomp()->threadNum();
  int32_t bound = tid;
  invoke(region, &tid, &bound);
}

extern "C" int32_t teamGlobalThreadNum(void *) {
  return loadedGomp()->threadNum();
}

extern "C" void teamPushNumThreads(void *, int32_t, int32_t count) {
  pushedThreads = count > 0 ? unsigned(count) : 0;
}

extern "C" void teamForkCall(void *, int32_t argc, Microtask task, ...) {
  Region region;
  region.task = task;
  // Kernels with more are left on libomp (usesOnlyTeamEntryPoints).
  region.argc = argc < kMaxArguments ? argc : kMaxArguments;
  va_list list;
  va_start(list, task);
  for (int32_t i = 0; i < region.argc; ++i)
    region.argv[i] = va_arg(list, void *);
  va_end(list);
  unsigned count = pushedThreads ? pushedThreads : defaultTeamSize();
  pushedThreads = 0;
  loadedGomp()->parallel(runRegion, &region, count, 0);
}

extern "C" void teamBarrier(void *, int32_t) { loadedGomp()->barrier(); }

extern "C" void teamForStaticFini(void *, int32_t) {}

/// libomp's schedule kind for a static loop without chunks (kmp.h), the
/// one convert-scf-to-openmp's loops get.
constexpr int32_t kStatic = 34;

/// This thread's iterations of [*lower, *upper] (inclusive, step
/// `increment`), as libomp's balanced static schedule gives them; a thread
/// without iterations gets *upper = *lower - increment, so the generated
/// loop, which counts *upper - *lower + 1 iterations, runs none.
template <typename T, typename S>
void forStaticInit(int32_t schedule, int32_t *last, T *lower, T *upper,
                   S *stride, S increment) {
  // Kernels whose loops have another schedule are linked to libomp
  // (usesOnlyTeamEntryPoints); only an object file not written by this
  // pipeline could get here.
  if (schedule != kStatic)
    llvm::report_fatal_error("bcast: a kernel's parallel loop has OpenMP "
                             "schedule " +
                             llvm::Twine(schedule) +
                             ", which libgomp's team does not run; set "
                             "BCAST_OPENMP=libomp");
  const Gomp *gomp = loadedGomp();
  auto threads = static_cast<uint64_t>(gomp->numThreads());
  auto tid = static_cast<uint64_t>(gomp->threadNum());
  T first = *lower;
  T final = *upper;
  if (increment == 0 || (increment > 0 ? final < first : final > first)) {
    *last = 0;
    *stride = increment;
    return;
  }
  uint64_t trip = increment > 0
                      ? uint64_t(final - first) / uint64_t(increment) + 1
                      : uint64_t(first - final) / uint64_t(-increment) + 1;
  auto at = [&](uint64_t iteration) {
    return static_cast<T>(first + static_cast<T>(iteration) *
                                      static_cast<T>(increment));
  };
  uint64_t base = trip / threads;
  uint64_t extra = trip % threads;
  uint64_t begin = tid * base + (tid < extra ? tid : extra);
  uint64_t count = base + (tid < extra ? 1 : 0);
  *stride = static_cast<S>(trip) * increment;
  if (count == 0) {
    *lower = at(trip);
    *upper = at(trip - 1);
    *last = 0;
    return;
  }
  *lower = at(begin);
  *upper = at(begin + count - 1);
  *last = begin + count == trip;
}

extern "C" void teamForStaticInit4(void *, int32_t, int32_t schedule,
                                   int32_t *last, int32_t *lower,
                                   int32_t *upper, int32_t *stride,
                                   int32_t increment, int32_t) {
  forStaticInit(schedule, last, lower, upper, stride, increment);
}

extern "C" void teamForStaticInit4u(void *, int32_t, int32_t schedule,
                                    int32_t *last, uint32_t *lower,
                                    uint32_t *upper, int32_t *stride,
                                    int32_t increment, int32_t) {
  forStaticInit(schedule, last, lower, upper, stride, increment);
}

extern "C" void teamForStaticInit8(void *, int32_t, int32_t schedule,
                                   int32_t *last, int64_t *lower,
                                   int64_t *upper, int64_t *stride,
                                   int64_t increment, int64_t) {
  forStaticInit(schedule, last, lower, upper, stride, increment);
}

extern "C" void teamForStaticInit8u(void *, int32_t, int32_t schedule,
                                    int32_t *last, uint64_t *lower,
                                    uint64_t *upper, int64_t *stride,
                                    int64_t increment, int64_t) {
  forStaticInit(schedule, last, lower, upper, stride, increment);
}

struct EntryPoint {
  const char *name;
  void *address;
};

const EntryPoint kEntryPoints[] = {
    {"__kmpc_global_thread_num",
     reinterpret_cast<void *>(&teamGlobalThreadNum)},
    {"__kmpc_push_num_threads", reinterpret_cast<void *>(&teamPushNumThreads)},
    {"__kmpc_fork_call", reinterpret_cast<void *>(&teamForkCall)},
    {"__kmpc_barrier", reinterpret_cast<void *>(&teamBarrier)},
    {"__kmpc_for_static_fini", reinterpret_cast<void *>(&teamForStaticFini)},
    {"__kmpc_for_static_init_4", reinterpret_cast<void *>(&teamForStaticInit4)},
    {"__kmpc_for_static_init_4u",
     reinterpret_cast<void *>(&teamForStaticInit4u)},
    {"__kmpc_for_static_init_8", reinterpret_cast<void *>(&teamForStaticInit8)},
    {"__kmpc_for_static_init_8u",
     reinterpret_cast<void *>(&teamForStaticInit8u)},
};

bool isOpenMPName(llvm::StringRef name) {
  return name.starts_with("__kmpc_") || name.starts_with("omp_") ||
         name.starts_with("GOMP_") || name.starts_with("__kmp");
}

bool isEntryPoint(llvm::StringRef name) {
  for (const EntryPoint &entry : kEntryPoints)
    if (name == entry.name)
      return true;
  return false;
}

} // namespace

namespace bcast_python {

bool sharedTeamAvailable() {
  const char *chosen = std::getenv("BCAST_OPENMP");
  if (chosen && std::strcmp(chosen, "libomp") == 0)
    return false;
  return loadedGomp() != nullptr;
}

bool usesOnlyTeamEntryPoints(const std::vector<llvm::StringRef> &imports,
                             const std::vector<int64_t> &forkArguments) {
  bool anyOpenMP = false;
  for (llvm::StringRef name : imports) {
    if (!isOpenMPName(name))
      continue;
    if (!isEntryPoint(name))
      return false;
    anyOpenMP = true;
  }
  for (int64_t count : forkArguments)
    if (count < 0 || count > kMaxArguments)
      return false;
  return anyOpenMP;
}

void addTeamEntryPoints(llvm::orc::SymbolMap &symbols,
                        llvm::orc::MangleAndInterner &interner) {
  for (const EntryPoint &entry : kEntryPoints)
    symbols[interner(entry.name)] = {
        llvm::orc::ExecutorAddr::fromPtr(entry.address),
        llvm::JITSymbolFlags::Exported};
}

} // namespace bcast_python
