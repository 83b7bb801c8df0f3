// The per-thread pool behind detail::Scratch (see scratch.hpp).
#include "encodings/detail/scratch.hpp"
#include "encodings/detail/per_thread.hpp"

#include <cstdlib>

namespace posenc::detail {
namespace {

struct Block {
  void* ptr = nullptr;
  std::size_t bytes = 0;
};

/// Cached blocks; freed when the thread ends.
struct Pool {
  Block blocks[ScratchPool::kScratchPoolSize];
  ~Pool() {
    for (Block& b : blocks) std::free(b.ptr);
  }
};

POSENC_PER_THREAD Pool pool;

}  // namespace

void* ScratchPool::take(std::size_t bytes, std::size_t* capacity) {
  // The smallest cached block that is large enough; otherwise a new one (freeing the largest
  // cached block that is too small, so the pool does not fill up with small ones).
  Block* best = nullptr;
  Block* small = nullptr;
  for (Block& b : pool.blocks) {
    if (b.ptr == nullptr) continue;
    if (b.bytes >= bytes) {
      if (best == nullptr || b.bytes < best->bytes) best = &b;
    } else if (small == nullptr || b.bytes > small->bytes) {
      small = &b;
    }
  }
  if (best != nullptr) {
    void* p = best->ptr;
    *capacity = best->bytes;
    *best = Block{};
    return p;
  }
  if (small != nullptr) {
    std::free(small->ptr);
    *small = Block{};
  }
  const std::size_t rounded = (bytes + 63) & ~std::size_t{63};
  void* p = rounded < bytes ? nullptr : std::aligned_alloc(64, rounded);
  *capacity = p == nullptr ? 0 : rounded;
  return p;
}

void ScratchPool::give(void* block, std::size_t capacity) {
  for (Block& b : pool.blocks) {
    if (b.ptr == nullptr) {
      b = Block{block, capacity};
      return;
    }
  }
  // Pool full: keep the larger blocks.
  Block* smallest = &pool.blocks[0];
  for (Block& b : pool.blocks) {
    if (b.bytes < smallest->bytes) smallest = &b;
  }
  if (smallest->bytes < capacity) {
    std::free(smallest->ptr);
    *smallest = Block{block, capacity};
  } else {
    std::free(block);
  }
}

}  // namespace posenc::detail
