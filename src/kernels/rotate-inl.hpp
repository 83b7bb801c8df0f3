// Vectorised RoPE pair rotations (see posenc/rope.hpp for the two pairings) and elementwise helpers.
// Each functor is a vector body plus a scalar tail, so any length and any alignment work.
//
// Speed notes (measured with `npm run bench`, see tests/bench): under wasm these loops run at a few
// instructions per vector, so loop overhead and redundant loads matter as much as memory traffic.
//  - The *_rows kernels rotate several head rows that share one cos/sin row (the heads of a token)
//    in one call, with no call per row and each cos/sin batch loaded once for several rows: either
//    in batch groups (rows inside; fewest instructions) or two rows at a time in memory order
//    (what the prefetchers follow best). The RoPE driver picks the order (rope_driver.cpp).
//  - add is unrolled four vectors deep, like the in-place bound the benchmark compares it with.
#pragma once

#include <cstddef>
#include <xsimd/xsimd.hpp>

namespace posenc::kernels::simd {

/// Lane permutation (1, 0, 3, 2, ...): swaps each adjacent pair of lanes.
struct SwapAdjacent {
  static constexpr unsigned get(unsigned i, unsigned) { return i ^ 1u; }
};

/// (lo, hi) <- (lo c - hi s, lo s + hi c) on one batch of pairs.
template <class B>
inline void rotate_pairs(float* lo, float* hi, const B& c, const B& s) {
  const B a = B::load_unaligned(lo);
  const B b = B::load_unaligned(hi);
  xsimd::fms(a, c, b * s).store_unaligned(lo);
  xsimd::fma(a, s, b * c).store_unaligned(hi);
}

inline void rotate_half_scalar(float* x, const float* cos, const float* sin, std::size_t from, std::size_t pairs) {
  for (std::size_t i = from; i < pairs; ++i) {
    const float a = x[i];
    const float b = x[i + pairs];
    x[i] = a * cos[i] - b * sin[i];
    x[i + pairs] = a * sin[i] + b * cos[i];
  }
}

/// Short rows (pairs <= kShortRowPairs): four batches of cos/sin stay in registers while every row
/// is rotated with them; per row only the row's own loads and stores and one pointer bump.
template <class Arch>
void rotate_half_rows_grouped(float* x, std::size_t rows, std::size_t stride, const float* cos, const float* sin,
                              std::size_t pairs) {
  using B = xsimd::batch<float, Arch>;
  constexpr std::size_t N = B::size;
  std::size_t i = 0;
  for (; i + 4 * N <= pairs; i += 4 * N) {
    const B c0 = B::load_unaligned(cos + i), c1 = B::load_unaligned(cos + i + N);
    const B c2 = B::load_unaligned(cos + i + 2 * N), c3 = B::load_unaligned(cos + i + 3 * N);
    const B s0 = B::load_unaligned(sin + i), s1 = B::load_unaligned(sin + i + N);
    const B s2 = B::load_unaligned(sin + i + 2 * N), s3 = B::load_unaligned(sin + i + 3 * N);
    float* p = x + i;
    for (std::size_t r = 0; r < rows; ++r, p += stride) {
      float* q = p + pairs;
      rotate_pairs(p, q, c0, s0);
      rotate_pairs(p + N, q + N, c1, s1);
      rotate_pairs(p + 2 * N, q + 2 * N, c2, s2);
      rotate_pairs(p + 3 * N, q + 3 * N, c3, s3);
    }
  }
  for (; i + N <= pairs; i += N) {
    const B c = B::load_unaligned(cos + i);
    const B s = B::load_unaligned(sin + i);
    float* p = x + i;
    for (std::size_t r = 0; r < rows; ++r, p += stride) rotate_pairs(p, p + pairs, c, s);
  }
  if (i < pairs) {
    for (std::size_t r = 0; r < rows; ++r) rotate_half_scalar(x + r * stride, cos, sin, i, pairs);
  }
}

/// x <- x * cos2 + swap_adjacent(x) * sin2 on one batch.
template <class B, class Swap>
inline void rotate_adjacent(float* x, const B& c, const B& s, Swap swap) {
  const B v = B::load_unaligned(x);
  xsimd::fma(v, c, xsimd::swizzle(v, swap) * s).store_unaligned(x);
}

inline void rotate_interleaved_scalar(float* x, const float* cos2, const float* sin2, std::size_t from, std::size_t lanes) {
  for (std::size_t i = from; i < lanes; i += 2) {  // B::size is even, so the tail holds whole pairs
    const float a = x[i];
    const float b = x[i + 1];
    x[i] = a * cos2[i] + b * sin2[i];
    x[i + 1] = b * cos2[i + 1] + a * sin2[i + 1];
  }
}

/// Short rows: as rotate_half_rows_grouped, cos2/sin2 batches in registers, rows inside.
template <class Arch>
void rotate_interleaved_rows_grouped(float* x, std::size_t rows, std::size_t stride, const float* cos2,
                                     const float* sin2, std::size_t pairs) {
  using B = xsimd::batch<float, Arch>;
  using Mask = xsimd::batch<uint32_t, Arch>;
  constexpr auto swap = xsimd::make_batch_constant<Mask, SwapAdjacent>();
  constexpr std::size_t N = B::size;
  const std::size_t lanes = 2 * pairs;
  std::size_t i = 0;
  for (; i + 4 * N <= lanes; i += 4 * N) {
    const B c0 = B::load_unaligned(cos2 + i), c1 = B::load_unaligned(cos2 + i + N);
    const B c2 = B::load_unaligned(cos2 + i + 2 * N), c3 = B::load_unaligned(cos2 + i + 3 * N);
    const B s0 = B::load_unaligned(sin2 + i), s1 = B::load_unaligned(sin2 + i + N);
    const B s2 = B::load_unaligned(sin2 + i + 2 * N), s3 = B::load_unaligned(sin2 + i + 3 * N);
    float* p = x + i;
    for (std::size_t r = 0; r < rows; ++r, p += stride) {
      rotate_adjacent(p, c0, s0, swap);
      rotate_adjacent(p + N, c1, s1, swap);
      rotate_adjacent(p + 2 * N, c2, s2, swap);
      rotate_adjacent(p + 3 * N, c3, s3, swap);
    }
  }
  for (; i + N <= lanes; i += N) {
    const B c = B::load_unaligned(cos2 + i);
    const B s = B::load_unaligned(sin2 + i);
    float* p = x + i;
    for (std::size_t r = 0; r < rows; ++r, p += stride) rotate_adjacent(p, c, s, swap);
  }
  if (i < lanes) {
    for (std::size_t r = 0; r < rows; ++r) rotate_interleaved_scalar(x + r * stride, cos2, sin2, i, lanes);
  }
}

/// Long rows: two rows at a time, each walked from start to end (the memory order, which the
/// hardware prefetchers follow best once the data no longer fits in cache), two batches deep,
/// every cos/sin batch loaded once for both rows.
template <class Arch>
void rotate_half_rows_paired(float* x, std::size_t rows, std::size_t stride, const float* cos, const float* sin,
                             std::size_t pairs) {
  using B = xsimd::batch<float, Arch>;
  constexpr std::size_t N = B::size;
  const std::size_t body = pairs - pairs % N;
  std::size_t r = 0;
  for (; r + 2 <= rows; r += 2) {
    float* x0 = x + r * stride;
    float* x1 = x0 + stride;
    std::size_t i = 0;
    for (; i + 2 * N <= body; i += 2 * N) {
      const B c0 = B::load_unaligned(cos + i), c1 = B::load_unaligned(cos + i + N);
      const B s0 = B::load_unaligned(sin + i), s1 = B::load_unaligned(sin + i + N);
      rotate_pairs(x0 + i, x0 + pairs + i, c0, s0);
      rotate_pairs(x0 + i + N, x0 + pairs + i + N, c1, s1);
      rotate_pairs(x1 + i, x1 + pairs + i, c0, s0);
      rotate_pairs(x1 + i + N, x1 + pairs + i + N, c1, s1);
    }
    if (i < body) {
      const B c = B::load_unaligned(cos + i);
      const B s = B::load_unaligned(sin + i);
      rotate_pairs(x0 + i, x0 + pairs + i, c, s);
      rotate_pairs(x1 + i, x1 + pairs + i, c, s);
    }
    rotate_half_scalar(x0, cos, sin, body, pairs);
    rotate_half_scalar(x1, cos, sin, body, pairs);
  }
  if (r < rows) rotate_half_rows_grouped<Arch>(x + r * stride, 1, stride, cos, sin, pairs);
}

/// Long rows: as rotate_half_rows_paired.
template <class Arch>
void rotate_interleaved_rows_paired(float* x, std::size_t rows, std::size_t stride, const float* cos2,
                                    const float* sin2, std::size_t pairs) {
  using B = xsimd::batch<float, Arch>;
  using Mask = xsimd::batch<uint32_t, Arch>;
  constexpr auto swap = xsimd::make_batch_constant<Mask, SwapAdjacent>();
  constexpr std::size_t N = B::size;
  const std::size_t lanes = 2 * pairs;
  const std::size_t body = lanes - lanes % N;
  std::size_t r = 0;
  for (; r + 2 <= rows; r += 2) {
    float* x0 = x + r * stride;
    float* x1 = x0 + stride;
    std::size_t i = 0;
    for (; i + 2 * N <= body; i += 2 * N) {
      const B c0 = B::load_unaligned(cos2 + i), c1 = B::load_unaligned(cos2 + i + N);
      const B s0 = B::load_unaligned(sin2 + i), s1 = B::load_unaligned(sin2 + i + N);
      rotate_adjacent(x0 + i, c0, s0, swap);
      rotate_adjacent(x0 + i + N, c1, s1, swap);
      rotate_adjacent(x1 + i, c0, s0, swap);
      rotate_adjacent(x1 + i + N, c1, s1, swap);
    }
    if (i < body) {
      const B c = B::load_unaligned(cos2 + i);
      const B s = B::load_unaligned(sin2 + i);
      rotate_adjacent(x0 + i, c, s, swap);
      rotate_adjacent(x1 + i, c, s, swap);
    }
    rotate_interleaved_scalar(x0, cos2, sin2, body, lanes);
    rotate_interleaved_scalar(x1, cos2, sin2, body, lanes);
  }
  if (r < rows) rotate_interleaved_rows_grouped<Arch>(x + r * stride, 1, stride, cos2, sin2, pairs);
}

/// [c0 c1 ...], [s0 s1 ...] -> [c0 c0 c1 c1 ...], [-s0 s0 -s1 s1 ...].
template <class Arch>
void expand_interleaved(const float* cos, const float* sin, std::size_t pairs, float* cos2, float* sin2) {
  using B = xsimd::batch<float, Arch>;
  std::size_t i = 0;
  if constexpr (B::size == 4) {  // zip_lo/zip_hi interleave whole registers only at 128 bits (TOOLCHAIN.md 8)
    for (; i + 4 <= pairs; i += 4) {
      const B c = B::load_unaligned(cos + i);
      const B s = B::load_unaligned(sin + i);
      xsimd::zip_lo(c, c).store_unaligned(cos2 + 2 * i);
      xsimd::zip_hi(c, c).store_unaligned(cos2 + 2 * i + 4);
      xsimd::zip_lo(-s, s).store_unaligned(sin2 + 2 * i);
      xsimd::zip_hi(-s, s).store_unaligned(sin2 + 2 * i + 4);
    }
  }
  for (; i < pairs; ++i) {
    cos2[2 * i] = cos[i];
    cos2[2 * i + 1] = cos[i];
    sin2[2 * i] = -sin[i];
    sin2[2 * i + 1] = sin[i];
  }
}

template <class Arch>
void phasor_step(double* c, double* s, const double* cw, const double* sw, std::size_t n) {
  using B = xsimd::batch<double, Arch>;
  std::size_t i = 0;
  for (; i + B::size <= n; i += B::size) {
    const B c0 = B::load_unaligned(c + i);
    const B s0 = B::load_unaligned(s + i);
    const B a = B::load_unaligned(cw + i);
    const B b = B::load_unaligned(sw + i);
    xsimd::fms(c0, a, s0 * b).store_unaligned(c + i);
    xsimd::fma(s0, a, c0 * b).store_unaligned(s + i);
  }
  for (; i < n; ++i) {
    const double c0 = c[i];
    const double s0 = s[i];
    c[i] = c0 * cw[i] - s0 * sw[i];
    s[i] = s0 * cw[i] + c0 * sw[i];
  }
}

}  // namespace posenc::kernels::simd
