// Angle rows from anchors and offsets in float arithmetic: for rows r < rows and pairs i < n,
//   sin((p0 + r) w) = sin(p0 w) cos(r w) + cos(p0 w) sin(r w)
//   cos((p0 + r) w) = cos(p0 w) cos(r w) - sin(p0 w) sin(r w)
// with the anchor row (p0) and the offset rows (r) each computed in double and rounded once to
// float. No error accumulates from row to row: each value carries the roundings of four inputs, two
// products and a sum, at most ~5.2 * 2^-24 (3.1e-7) in absolute terms.
#pragma once

#include <cstddef>
#include <xsimd/xsimd.hpp>

namespace posenc::kernels::simd {

/// Contiguous outputs: cos_out/sin_out + r * row_stride (either may be null).
template <class Arch>
void anchor_rows(const float* s0, const float* c0, const float* sk, const float* ck, std::size_t n, std::size_t rows,
                 float* cos_out, float* sin_out, std::size_t row_stride) {
  using B = xsimd::batch<float, Arch>;
  constexpr std::size_t N = B::size;
  for (std::size_t r = 0; r < rows; ++r) {
    const float* skr = sk + r * n;
    const float* ckr = ck + r * n;
    float* co = cos_out == nullptr ? nullptr : cos_out + r * row_stride;
    float* so = sin_out == nullptr ? nullptr : sin_out + r * row_stride;
    std::size_t i = 0;
    for (; i + N <= n; i += N) {
      const B a = B::load_unaligned(s0 + i), b = B::load_unaligned(c0 + i);
      const B c = B::load_unaligned(ckr + i), s = B::load_unaligned(skr + i);
      if (so != nullptr) (a * c + b * s).store_unaligned(so + i);
      if (co != nullptr) (b * c - a * s).store_unaligned(co + i);
    }
    for (; i < n; ++i) {
      if (so != nullptr) so[i] = s0[i] * ckr[i] + c0[i] * skr[i];
      if (co != nullptr) co[i] = c0[i] * ckr[i] - s0[i] * skr[i];
    }
  }
}

/// One offset row into [sin, cos] pairs, given the anchor batches a = sin, b = cos (B::size 4).
template <class B>
inline void anchor_pairs4(const B& a, const B& b, const float* ckr, const float* skr, float* out) {
  const B c = B::load_unaligned(ckr);
  const B s = B::load_unaligned(skr);
  const B so = a * c + b * s;
  const B co = b * c - a * s;
  xsimd::zip_lo(so, co).store_unaligned(out);
  xsimd::zip_hi(so, co).store_unaligned(out + 4);
}

inline void anchor_pairs_scalar(const float* s0, const float* c0, const float* ckr, const float* skr, std::size_t from,
                                std::size_t n, float* out) {
  for (std::size_t i = from; i < n; ++i) {
    out[2 * i] = s0[i] * ckr[i] + c0[i] * skr[i];
    out[2 * i + 1] = c0[i] * ckr[i] - s0[i] * skr[i];
  }
}

/// [sin, cos] pairs: dst + r * row_stride + 2i. Two rows per pass share the anchor loads (fewer
/// loads per store; within the noise of `npm run bench` against one row per pass).
template <class Arch>
void anchor_rows_interleave(const float* s0, const float* c0, const float* sk, const float* ck, std::size_t n,
                            std::size_t rows, float* dst, std::size_t row_stride) {
  using B = xsimd::batch<float, Arch>;
  std::size_t r = 0;
  for (; r < rows; r += 2) {
    const bool two = r + 1 < rows;
    const float* sk0 = sk + r * n;
    const float* ck0 = ck + r * n;
    float* out0 = dst + r * row_stride;
    std::size_t i = 0;
    if constexpr (B::size == 4) {  // zip_lo/zip_hi interleave whole registers only at 128 bits (docs/building.md#8-xsimd-81-under-wasm)
      if (two) {
        for (; i + 4 <= n; i += 4) {
          const B a = B::load_unaligned(s0 + i), b = B::load_unaligned(c0 + i);
          anchor_pairs4(a, b, ck0 + i, sk0 + i, out0 + 2 * i);
          anchor_pairs4(a, b, ck0 + n + i, sk0 + n + i, out0 + row_stride + 2 * i);
        }
      } else {
        for (; i + 4 <= n; i += 4) {
          anchor_pairs4(B::load_unaligned(s0 + i), B::load_unaligned(c0 + i), ck0 + i, sk0 + i, out0 + 2 * i);
        }
      }
    }
    anchor_pairs_scalar(s0, c0, ck0, sk0, i, n, out0);
    if (two) anchor_pairs_scalar(s0, c0, ck0 + n, sk0 + n, i, n, out0 + row_stride);
  }
}

/// out = a c + b s, or out += a c + b s when Accumulate, elementwise: the rows of an anchored
/// sinusoidal table (posenc/sinusoidal.hpp), whose four inputs already carry each column's
/// partner and sign, so any column order takes the same contiguous loop. Two batches deep. Tried
/// and measured with `npm run bench -- --filter sinusoidal-add`: four batches deep and column
/// blocks kept in L1 were slower; packing (a, b) and (c, s) into two streams took V8's code from
/// five address computations and three spills per pass to none (tests/bench/annotate.sh
/// sinusoidal-fast-add) but no time, the loop then waiting on L2, so the plain layout stays.
template <class Arch, bool Accumulate>
void combine(const float* a, const float* b, const float* c, const float* s, std::size_t n, float* out) {
  using B = xsimd::batch<float, Arch>;
  constexpr std::size_t N = B::size;
  std::size_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    B v0 = B::load_unaligned(a + i) * B::load_unaligned(c + i) + B::load_unaligned(b + i) * B::load_unaligned(s + i);
    B v1 = B::load_unaligned(a + i + N) * B::load_unaligned(c + i + N) +
           B::load_unaligned(b + i + N) * B::load_unaligned(s + i + N);
    if constexpr (Accumulate) {
      v0 = B::load_unaligned(out + i) + v0;
      v1 = B::load_unaligned(out + i + N) + v1;
    }
    v0.store_unaligned(out + i);
    v1.store_unaligned(out + i + N);
  }
  for (; i < n; ++i) {
    const float v = a[i] * c[i] + b[i] * s[i];
    out[i] = Accumulate ? out[i] + v : v;
  }
}

}  // namespace posenc::kernels::simd
