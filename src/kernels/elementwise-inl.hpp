// Vectorised elementwise kernels: add-in-place and copy. Vector body (unrolled four batches) plus a
// scalar tail, any length and alignment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <xsimd/xsimd.hpp>

namespace posenc::kernels::simd {

template <class Arch>
void add(float* dst, const float* src, std::size_t n) {
  using B = xsimd::batch<float, Arch>;
  constexpr std::size_t N = B::size;
  std::size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    const B a0 = B::load_unaligned(dst + i) + B::load_unaligned(src + i);
    const B a1 = B::load_unaligned(dst + i + N) + B::load_unaligned(src + i + N);
    const B a2 = B::load_unaligned(dst + i + 2 * N) + B::load_unaligned(src + i + 2 * N);
    const B a3 = B::load_unaligned(dst + i + 3 * N) + B::load_unaligned(src + i + 3 * N);
    a0.store_unaligned(dst + i);
    a1.store_unaligned(dst + i + N);
    a2.store_unaligned(dst + i + 2 * N);
    a3.store_unaligned(dst + i + 3 * N);
  }
  for (; i + N <= n; i += N) {
    (B::load_unaligned(dst + i) + B::load_unaligned(src + i)).store_unaligned(dst + i);
  }
  for (; i < n; ++i) dst[i] += src[i];
}

/// dst[i] = src[i]. For the short rows of relative-position matrices a SIMD loop beats
/// memory.copy, whose per-call cost in the engines dominates copies of a few hundred bytes.
template <class Arch, class T>
void copy(T* dst, const T* src, std::size_t n) {
  using B = xsimd::batch<T, Arch>;
  constexpr std::size_t N = B::size;
  std::size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    const B a0 = B::load_unaligned(src + i);
    const B a1 = B::load_unaligned(src + i + N);
    const B a2 = B::load_unaligned(src + i + 2 * N);
    const B a3 = B::load_unaligned(src + i + 3 * N);
    a0.store_unaligned(dst + i);
    a1.store_unaligned(dst + i + N);
    a2.store_unaligned(dst + i + 2 * N);
    a3.store_unaligned(dst + i + 3 * N);
  }
  for (; i + N <= n; i += N) B::load_unaligned(src + i).store_unaligned(dst + i);
  for (; i < n; ++i) dst[i] = src[i];
}

/// Rows of at least this many bytes are copied with memcpy (memory.copy under wasm): the engine's
/// native copy is then cheaper than a 16-byte loop (`npm run bench -- --filter x1024x1024` times T5
/// and ALiBi biases against the fill bound); shorter rows are dominated by its per-call cost.
constexpr std::size_t kBulkCopyBytes = 1024;

/// Rows of a Toeplitz matrix: row i of out [qLen, kLen] = diag[qLen - 1 - i .. qLen - 1 - i + kLen).
/// One call for the whole matrix, so each row costs its stores and a pointer bump.
template <class Arch, class T>
void shifted_rows(const T* diag, std::size_t q_len, std::size_t k_len, T* out) {
  if (k_len * sizeof(T) >= kBulkCopyBytes) {
    for (std::size_t i = 0; i < q_len; ++i) std::memcpy(out + i * k_len, diag + (q_len - 1 - i), k_len * sizeof(T));
    return;
  }
  for (std::size_t i = 0; i < q_len; ++i) copy<Arch>(out + i * k_len, diag + (q_len - 1 - i), k_len);
}

}  // namespace posenc::kernels::simd
