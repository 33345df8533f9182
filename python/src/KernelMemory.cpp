//===- KernelMemory.cpp - The JIT kernels' temporaries, kept for reuse ----===//
//
// A kernel's memref.alloc and memref.dealloc become calls of malloc and free
// (finalize-memref-to-llvm), once per call. glibc hands a large block back
// to the system when it is freed (one above its mmap threshold is unmapped,
// one at the top of the heap trimmed), so the next call touches fresh pages
// again: one page fault per 4 KiB. On the benchmark host (a VM) a fault
// costs about 10 us: `(a @ b) * 2` of [2364,64] @ [64,192] took 10 ms, 847
// faults a call, where the product alone took 0.5 ms. The JIT links the
// kernels' malloc, calloc and free to the functions below, which keep freed
// blocks of at least kMinBytes for the next allocation of about their size,
// up to a total (BCAST_KERNEL_MEMORY_CACHE bytes; 256 MiB by default, 0
// turns the cache off) and 64 blocks, the least recently freed given back
// first. The
// blocks are ordinary malloc blocks: free() may release any of them.
//
//===----------------------------------------------------------------------===//

#include "BcastPython.h"

#include <malloc.h>

#include <cstdlib>
#include <cstring>
#include <list>
#include <mutex>

namespace {

/// Below this, glibc serves blocks from its heap without unmapping them.
constexpr size_t kMinBytes = size_t(64) << 10;
/// Blocks kept at most: allocation scans them.
constexpr size_t kMaxBlocks = 64;

struct Block {
  void *pointer;
  size_t bytes;
};

struct Cache {
  std::mutex mutex;
  /// Least recently freed first.
  std::list<Block> blocks;
  size_t bytes = 0;
  size_t limit;

  Cache() {
    limit = size_t(256) << 20;
    if (const char *text = std::getenv("BCAST_KERNEL_MEMORY_CACHE")) {
      char *end = nullptr;
      unsigned long long value = std::strtoull(text, &end, 10);
      if (end != text && *end == '\0')
        limit = value;
    }
  }
};

Cache &cache() {
  // Never destroyed: a kernel may still run while the process exits.
  static Cache *instance = new Cache;
  return *instance;
}

/// A cached block of at least `size` bytes and at most twice that (the
/// smallest such), removed from the cache, or null.
void *takeBlock(size_t size) {
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto best = c.blocks.end();
  for (auto it = c.blocks.begin(); it != c.blocks.end(); ++it)
    if (it->bytes >= size && it->bytes / 2 <= size &&
        (best == c.blocks.end() || it->bytes < best->bytes))
      best = it;
  if (best == c.blocks.end())
    return nullptr;
  void *pointer = best->pointer;
  c.bytes -= best->bytes;
  c.blocks.erase(best);
  return pointer;
}

} // namespace

namespace bcast_python {

void *kernelMalloc(size_t size) {
  if (size >= kMinBytes)
    if (void *pointer = takeBlock(size))
      return pointer;
  return std::malloc(size);
}

void *kernelCalloc(size_t count, size_t size) {
  size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes))
    return nullptr;
  if (bytes >= kMinBytes)
    if (void *pointer = takeBlock(bytes))
      return std::memset(pointer, 0, bytes);
  return std::calloc(count, size);
}

void kernelFree(void *pointer) {
  if (!pointer)
    return;
  size_t bytes = malloc_usable_size(pointer);
  Cache &c = cache();
  if (bytes >= kMinBytes && bytes <= c.limit) {
    std::list<Block> evicted;
    {
      std::lock_guard<std::mutex> lock(c.mutex);
      while (c.bytes + bytes > c.limit || c.blocks.size() >= kMaxBlocks) {
        c.bytes -= c.blocks.front().bytes;
        evicted.splice(evicted.end(), c.blocks, c.blocks.begin());
      }
      c.blocks.push_back({pointer, bytes});
      c.bytes += bytes;
    }
    for (Block &block : evicted)
      std::free(block.pointer);
    return;
  }
  std::free(pointer);
}

} // namespace bcast_python
