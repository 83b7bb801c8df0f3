// Vectorised RoPE pair rotations (see posenc/rope.hpp for the two pairings), plus the phasor step
// of the float64 angle rows. Each loop is a vector body plus a scalar tail, so any length and any
// alignment work.
//
// Speed notes (measured with `npm run bench`, see tests/bench): under wasm these loops run at a few
// instructions per vector, so loop overhead and redundant loads matter as much as memory traffic.
// rotate_rows_grouped / rotate_rows_sequential rotate several head rows that share one cos/sin row
// (the heads of a token) with no call per row: in batch groups (rows inside, each cos/sin batch
// loaded once for every row; fewest instructions) or one row after another in memory order (what
// the prefetchers follow best); the RoPE driver picks the order (rope_driver.cpp). One loop serves both
// pairings: HalfPairing and InterleavedPairing say what a batch at lane i rotates.
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

inline void rotate_half_scalar(float* x, const float* cos, const float* sin, std::size_t from, std::size_t pairs,
                               std::size_t partner) {
  for (std::size_t i = from; i < pairs; ++i) {
    const float a = x[i];
    const float b = x[i + partner];
    x[i] = a * cos[i] - b * sin[i];
    x[i + partner] = a * sin[i] + b * cos[i];
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

/// The half pairing as the row loops below see it: cos/sin rows of `pairs` lanes, and the batch at
/// lane i of a row rotates x[i..] with its partners x[i + partner..] (partner = pairs, or wider for
/// a head whose first pairs alone rotate).
template <class B>
struct HalfPairing {
  std::size_t pairs;
  std::size_t partner;
  std::size_t lanes() const { return pairs; }
  void batch(float* p, const B& c, const B& s) const { rotate_pairs(p, p + partner, c, s); }
  /// Four consecutive batches, the partners' address formed once (5% of 128 x 8 x 64 when not).
  void batch4(float* p, const B (&c)[4], const B (&s)[4]) const {
    constexpr std::size_t N = B::size;
    float* q = p + partner;
    rotate_pairs(p, q, c[0], s[0]);
    rotate_pairs(p + N, q + N, c[1], s[1]);
    rotate_pairs(p + 2 * N, q + 2 * N, c[2], s[2]);
    rotate_pairs(p + 3 * N, q + 3 * N, c[3], s[3]);
  }
  void tail(float* row, const float* cos, const float* sin, std::size_t from) const {
    rotate_half_scalar(row, cos, sin, from, pairs, partner);
  }
};

/// The interleaved pairing: expanded cos2/sin2 rows of 2 pairs lanes, each batch rotated within itself.
template <class B, class Swap>
struct InterleavedPairing {
  std::size_t pairs;
  Swap swap;
  std::size_t lanes() const { return 2 * pairs; }
  void batch(float* p, const B& c, const B& s) const { rotate_adjacent(p, c, s, swap); }
  void batch4(float* p, const B (&c)[4], const B (&s)[4]) const {
    for (std::size_t j = 0; j < 4; ++j) rotate_adjacent(p + j * B::size, c[j], s[j], swap);
  }
  void tail(float* row, const float* cos2, const float* sin2, std::size_t from) const {
    rotate_interleaved_scalar(row, cos2, sin2, from, 2 * pairs);
  }
};

/// Grouped order: four batches of cos/sin stay in registers while every row is rotated with them;
/// per row only the row's own loads and stores and one pointer bump.
template <class B, class Pairing>
void rotate_rows_grouped(float* x, std::size_t rows, std::size_t stride, const float* cos, const float* sin,
                         Pairing pairing) {  // by value: its fields stay in registers across the stores
  constexpr std::size_t N = B::size;
  const std::size_t lanes = pairing.lanes();
  std::size_t i = 0;
  for (; i + 4 * N <= lanes; i += 4 * N) {
    const B c[4] = {B::load_unaligned(cos + i), B::load_unaligned(cos + i + N), B::load_unaligned(cos + i + 2 * N),
                    B::load_unaligned(cos + i + 3 * N)};
    const B s[4] = {B::load_unaligned(sin + i), B::load_unaligned(sin + i + N), B::load_unaligned(sin + i + 2 * N),
                    B::load_unaligned(sin + i + 3 * N)};
    float* p = x + i;
    for (std::size_t r = 0; r < rows; ++r, p += stride) pairing.batch4(p, c, s);
  }
  for (; i + N <= lanes; i += N) {
    const B c = B::load_unaligned(cos + i);
    const B s = B::load_unaligned(sin + i);
    float* p = x + i;
    for (std::size_t r = 0; r < rows; ++r, p += stride) pairing.batch(p, c, s);
  }
  if (i < lanes) {
    for (std::size_t r = 0; r < rows; ++r) pairing.tail(x + r * stride, cos, sin, i);
  }
}

/// Memory order: one row after another, each walked from start to end four batches at a time, so
/// the whole call is one sequential stream (bshd: a token's head rows are adjacent). The hardware
/// prefetchers follow that best once the data no longer fits in cache: walking two rows side by
/// side (two streams 512 bytes apart in one page) was measured slower than one row at a time
/// (rope_driver.cpp says when each order is used; docs/performance.md has the figures). cos/sin
/// are reloaded per row from L1.
template <class B, class Pairing>
void rotate_rows_sequential(float* x, std::size_t rows, std::size_t stride, const float* cos, const float* sin,
                            Pairing pairing) {
  for (std::size_t r = 0; r < rows; ++r, x += stride) rotate_rows_grouped<B>(x, 1, stride, cos, sin, pairing);
}

/// Tokens t < tokens, each `rows` rows of one pairing sharing cos_rows[t]/sin_rows[t], in either order.
template <class B, class Pairing>
void rotate_tokens(float* x, std::size_t tokens, std::size_t token_stride, std::size_t rows, std::size_t row_stride,
                   const float* const* cos_rows, const float* const* sin_rows, const Pairing& pairing, bool grouped) {
  for (std::size_t t = 0; t < tokens; ++t) {
    if (grouped) {
      rotate_rows_grouped<B>(x + t * token_stride, rows, row_stride, cos_rows[t], sin_rows[t], pairing);
    } else {
      rotate_rows_sequential<B>(x + t * token_stride, rows, row_stride, cos_rows[t], sin_rows[t], pairing);
    }
  }
}

/// [c0 c1 ...], [s0 s1 ...] -> [c0 c0 c1 c1 ...], [-s0 s0 -s1 s1 ...].
template <class Arch>
void expand_interleaved(const float* cos, const float* sin, std::size_t pairs, float* cos2, float* sin2) {
  using B = xsimd::batch<float, Arch>;
  std::size_t i = 0;
  if constexpr (B::size == 4) {  // zip_lo/zip_hi interleave whole registers only at 128 bits (docs/building.md#8-xsimd-81-under-wasm)
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
