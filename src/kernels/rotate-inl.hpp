// Vectorised RoPE pair rotations (see posenc/rope.hpp for the two pairings) and elementwise helpers.
// Each functor is a vector body plus a scalar tail, so any length and any alignment work.
#pragma once

#include <cstddef>
#include <xsimd/xsimd.hpp>

namespace posenc::kernels::simd {

/// Lane permutation (1, 0, 3, 2, ...): swaps each adjacent pair of lanes.
struct SwapAdjacent {
  static constexpr unsigned get(unsigned i, unsigned) { return i ^ 1u; }
};

template <class Arch>
void rotate_half(float* x, const float* cos, const float* sin, std::size_t pairs) {
  using B = xsimd::batch<float, Arch>;
  float* hi = x + pairs;
  std::size_t i = 0;
  for (; i + B::size <= pairs; i += B::size) {
    const B a = B::load_unaligned(x + i);
    const B b = B::load_unaligned(hi + i);
    const B c = B::load_unaligned(cos + i);
    const B s = B::load_unaligned(sin + i);
    xsimd::fms(a, c, b * s).store_unaligned(x + i);
    xsimd::fma(a, s, b * c).store_unaligned(hi + i);
  }
  for (; i < pairs; ++i) {
    const float a = x[i];
    const float b = hi[i];
    x[i] = a * cos[i] - b * sin[i];
    hi[i] = a * sin[i] + b * cos[i];
  }
}

template <class Arch>
void rotate_interleaved(float* x, const float* cos2, const float* sin2, std::size_t pairs) {
  using B = xsimd::batch<float, Arch>;
  using Mask = xsimd::batch<uint32_t, Arch>;
  constexpr auto swap = xsimd::make_batch_constant<Mask, SwapAdjacent>();
  const std::size_t lanes = 2 * pairs;
  std::size_t i = 0;
  for (; i + B::size <= lanes; i += B::size) {
    const B v = B::load_unaligned(x + i);
    const B c = B::load_unaligned(cos2 + i);
    const B s = B::load_unaligned(sin2 + i);
    xsimd::fma(v, c, xsimd::swizzle(v, swap) * s).store_unaligned(x + i);
  }
  for (; i < lanes; i += 2) {  // B::size is even, so the tail holds whole pairs
    const float a = x[i];
    const float b = x[i + 1];
    x[i] = a * cos2[i] + b * sin2[i];
    x[i + 1] = b * cos2[i + 1] + a * sin2[i + 1];
  }
}

template <class Arch>
void add(float* dst, const float* src, std::size_t n) {
  using B = xsimd::batch<float, Arch>;
  std::size_t i = 0;
  for (; i + B::size <= n; i += B::size) {
    (B::load_unaligned(dst + i) + B::load_unaligned(src + i)).store_unaligned(dst + i);
  }
  for (; i < n; ++i) dst[i] += src[i];
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
