// Scratch memory reused across calls. The drivers need working rows for each call (the cos/sin
// rows of a chunk of tokens); allocating and zero-filling them per call cost more than rotating a
// token when decoding one step at a time. A Scratch<T> takes an uninitialised block from a small
// per-thread pool and gives it back when it goes out of scope, so steady-state calls allocate
// nothing. Blocks nest freely (each Scratch holds its own block).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "posenc/status.hpp"

namespace posenc::detail {

/// The pool behind Scratch: at most kScratchPoolSize cached blocks per thread.
class ScratchPool {
 public:
  static constexpr std::size_t kScratchPoolSize = 8;

  /// A block of at least `bytes` bytes (64-byte aligned), or nullptr if memory is exhausted.
  static void* take(std::size_t bytes, std::size_t* capacity);
  /// Returns a block taken with take(); it is kept for reuse (or freed when the pool is full).
  static void give(void* block, std::size_t capacity);
};

/// `n` uninitialised T (trivially copyable) that live until the Scratch is destroyed.
template <class T>
class Scratch {
 public:
  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() { release(); }

  /// (Re)sizes to `n` elements; the contents are unspecified.
  Status allocate(std::size_t n) {
    if (n <= capacity_ / sizeof(T)) return {};
    release();
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) return Status(StatusCode::size_overflow, "scratch size overflows");
    data_ = static_cast<T*>(ScratchPool::take(n * sizeof(T), &capacity_));
    if (data_ == nullptr) return Status(StatusCode::out_of_memory, "out of memory for scratch rows");
    return {};
  }

  T* data() { return data_; }
  const T* data() const { return data_; }

 private:
  void release() {
    if (data_ != nullptr) ScratchPool::give(data_, capacity_);
    data_ = nullptr;
    capacity_ = 0;
  }

  T* data_ = nullptr;
  std::size_t capacity_ = 0;
};

/// Same spelling as detail::allocate(std::vector&, n), so drivers can switch container freely.
template <class T>
Status allocate(Scratch<T>& s, std::size_t n) {
  return s.allocate(n);
}

/// dst = src for vectors, turning allocation failure into a Status.
template <class T>
Status assign(std::vector<T>& dst, const std::vector<T>& src) {
  try {
    dst = src;
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::out_of_memory, "out of memory copying " + std::to_string(src.size() * sizeof(T)) + " bytes");
  }
  return {};
}

}  // namespace posenc::detail
