// The SIMD kernels, instantiated once for the architecture this file is compiled for
// (xsimd::default_arch: sse4_1 -> wasm SIMD under Emscripten, e.g. fma3<avx2> natively).
#include <cmath>

#include "kernels/kernels.hpp"
#include "kernels/anchor-inl.hpp"
#include "kernels/elementwise-inl.hpp"
#include "kernels/rotate-inl.hpp"
#include "kernels/sincos-inl.hpp"
#if defined(__wasm_simd128__)
#include "kernels/narrow-wasm-inl.hpp"
#endif

namespace posenc::kernels {

using Arch = xsimd::default_arch;

void sincos(const double* angles, std::size_t n, double* sin_out, double* cos_out) {
  using B = xsimd::batch<double, Arch>;
  auto large = B(0.0) != B(0.0);  // lanes beyond the polynomial path's exact reduction, ORed over the loop
  std::size_t i = 0;
  for (; i + B::size <= n; i += B::size) {
    const B theta = B::load_unaligned(angles + i);
    B s, c;
    simd::sincos_batch(theta, s, c);
    large = large || simd::beyond_reduction(theta);
    s.store_unaligned(sin_out + i);
    c.store_unaligned(cos_out + i);
  }
  if (i < n) {  // the tail goes through the same polynomial, padded into one batch
    alignas(64) double in[B::size] = {};
    alignas(64) double s_tail[B::size];
    alignas(64) double c_tail[B::size];
    for (std::size_t j = i; j < n; ++j) in[j - i] = angles[j];
    const B theta = B::load_aligned(in);
    B s, c;
    simd::sincos_batch(theta, s, c);
    large = large || simd::beyond_reduction(theta);
    s.store_aligned(s_tail);
    c.store_aligned(c_tail);
    for (std::size_t j = i; j < n; ++j) {
      sin_out[j] = s_tail[j - i];
      cos_out[j] = c_tail[j - i];
    }
  }
  // Rare (positions times frequencies beyond 3.29e6 rad): redo those lanes with exact reduction.
  if (xsimd::any(large)) {
    for (std::size_t j = 0; j < n; ++j) {
      if (!(std::fabs(angles[j]) <= simd::kMaxReducedAngle)) {
        sin_out[j] = std::sin(angles[j]);
        cos_out[j] = std::cos(angles[j]);
      }
    }
  }
}

void phasor_step(double* c, double* s, const double* cw, const double* sw, std::size_t n) {
  simd::phasor_step<Arch>(c, s, cw, sw, n);
}

// Steps fused with the narrowing, several rows per pass, so the phasors are read and written once
// per pass instead of once per row. Under wasm the steps run in registers (narrow-wasm-inl.hpp);
// natively (and for the last n % 4 pairs) plain loops, one row at a time, which compilers vectorise.
void phasor_rows_narrow(double* c, double* s, const double* cw, const double* sw, std::size_t n, std::size_t rows,
                        double scale, float* cos_out, float* sin_out, std::size_t row_stride) {
  std::size_t i0 = 0;
#if defined(__wasm_simd128__)
  i0 = scale == 1.0 ? wasm::phasor_rows_narrow<false>(c, s, cw, sw, n, rows, scale, cos_out, sin_out, row_stride)
                    : wasm::phasor_rows_narrow<true>(c, s, cw, sw, n, rows, scale, cos_out, sin_out, row_stride);
#endif
  if (i0 == n) return;
  for (std::size_t r = 0; r < rows; ++r) {  // one step, then each output: loops the compiler vectorises
    simd::phasor_step<Arch>(c + i0, s + i0, cw + i0, sw + i0, n - i0);
    if (cos_out != nullptr) narrow(c + i0, n - i0, scale, cos_out + r * row_stride + i0, 1);
    if (sin_out != nullptr) narrow(s + i0, n - i0, scale, sin_out + r * row_stride + i0, 1);
  }
}

void phasor_rows_narrow_interleave(double* c, double* s, const double* cw, const double* sw, std::size_t n,
                                   std::size_t rows, double scale, float* dst, std::size_t row_stride) {
  std::size_t i0 = 0;
#if defined(__wasm_simd128__)
  i0 = scale == 1.0 ? wasm::phasor_rows_narrow_interleave<false>(c, s, cw, sw, n, rows, scale, dst, row_stride)
                    : wasm::phasor_rows_narrow_interleave<true>(c, s, cw, sw, n, rows, scale, dst, row_stride);
#endif
  if (i0 == n) return;
  for (std::size_t r = 0; r < rows; ++r) {
    simd::phasor_step<Arch>(c + i0, s + i0, cw + i0, sw + i0, n - i0);
    narrow_interleave(s + i0, c + i0, n - i0, scale, dst + r * row_stride + 2 * i0);
  }
}

void anchor_rows(const float* s0, const float* c0, const float* sk, const float* ck, std::size_t n, std::size_t rows,
                 float* cos_out, float* sin_out, std::size_t row_stride) {
  simd::anchor_rows<Arch>(s0, c0, sk, ck, n, rows, cos_out, sin_out, row_stride);
}

void anchor_rows_interleave(const float* s0, const float* c0, const float* sk, const float* ck, std::size_t n,
                            std::size_t rows, float* dst, std::size_t row_stride) {
  simd::anchor_rows_interleave<Arch>(s0, c0, sk, ck, n, rows, dst, row_stride);
}

void combine(const float* a, const float* b, const float* c, const float* s, std::size_t n, float* out) {
  simd::combine<Arch, false>(a, b, c, s, n, out);
}

void combine_add(const float* a, const float* b, const float* c, const float* s, std::size_t n, float* x) {
  simd::combine<Arch, true>(a, b, c, s, n, x);
}

// xsimd 8.1 has no double->float batch conversion. Natively, compilers vectorise these plain loops
// well (vcvtpd2ps); under wasm, clang 14 scalarises them lane by lane, so the wasm build uses
// f32x4.demote_f64x2_zero directly (see narrow-wasm-inl.hpp).
void narrow(const double* src, std::size_t n, double scale, float* dst, std::size_t stride) {
  std::size_t i = 0;
  if (stride == 1) {
#if defined(__wasm_simd128__)
    i = wasm::narrow_contiguous(src, n, scale, dst);
#endif
    for (; i < n; ++i) dst[i] = static_cast<float>(src[i] * scale);
  } else {
    for (; i < n; ++i) dst[i * stride] = static_cast<float>(src[i] * scale);
  }
}

void narrow_interleave(const double* a, const double* b, std::size_t n, double scale, float* dst) {
  std::size_t i = 0;
#if defined(__wasm_simd128__)
  i = wasm::narrow_interleave(a, b, n, scale, dst);
#endif
  for (; i < n; ++i) {
    dst[2 * i] = static_cast<float>(a[i] * scale);
    dst[2 * i + 1] = static_cast<float>(b[i] * scale);
  }
}

void rotate_half_tokens(float* x, std::size_t tokens, std::size_t token_stride, std::size_t rows,
                        std::size_t row_stride, const float* const* cos_rows, const float* const* sin_rows,
                        std::size_t pairs, bool grouped, std::size_t partner) {
  using B = xsimd::batch<float, Arch>;
  simd::rotate_tokens<B>(x, tokens, token_stride, rows, row_stride, cos_rows, sin_rows,
                         simd::HalfPairing<B>{pairs, partner == 0 ? pairs : partner}, grouped);
}

void rotate_interleaved_tokens(float* x, std::size_t tokens, std::size_t token_stride, std::size_t rows,
                               std::size_t row_stride, const float* const* cos2_rows, const float* const* sin2_rows,
                               std::size_t pairs, bool grouped) {
  using B = xsimd::batch<float, Arch>;
  using Mask = xsimd::batch<uint32_t, Arch>;
  constexpr auto swap = xsimd::make_batch_constant<Mask, simd::SwapAdjacent>();
  simd::rotate_tokens<B>(x, tokens, token_stride, rows, row_stride, cos2_rows, sin2_rows,
                         simd::InterleavedPairing<B, decltype(swap)>{pairs, swap}, grouped);
}

// Plain loops: a context shift is rare and memory-bound, and with the pair stride known (1 or 2)
// compilers vectorise the half pairing's loop (float -> double -> float) by themselves.
namespace {
template <std::size_t PairStride>
void rotate_rows_exact(float* row, const double* c, const double* s, std::size_t pairs, std::size_t partner) {
  for (std::size_t i = 0; i < pairs; ++i) {
    const double a = row[i * PairStride];
    const double b = row[i * PairStride + partner];
    row[i * PairStride] = static_cast<float>(a * c[i] - b * s[i]);
    row[i * PairStride + partner] = static_cast<float>(a * s[i] + b * c[i]);
  }
}
}  // namespace

void rotate_tokens_exact(float* x, std::size_t tokens, std::size_t token_stride, std::size_t rows,
                         std::size_t row_stride, const double* const* cos_rows, const double* const* sin_rows,
                         std::size_t pairs, std::size_t pair_stride, std::size_t partner) {
  for (std::size_t t = 0; t < tokens; ++t) {
    for (std::size_t r = 0; r < rows; ++r) {
      float* row = x + t * token_stride + r * row_stride;
      if (pair_stride == 1) {
        rotate_rows_exact<1>(row, cos_rows[t], sin_rows[t], pairs, partner);
      } else {
        rotate_rows_exact<2>(row, cos_rows[t], sin_rows[t], pairs, partner);
      }
    }
  }
}

void expand_interleaved(const float* cos, const float* sin, std::size_t pairs, float* cos2, float* sin2) {
  simd::expand_interleaved<Arch>(cos, sin, pairs, cos2, sin2);
}

void add(float* dst, const float* src, std::size_t n) { simd::add<Arch>(dst, src, n); }

void copy(float* dst, const float* src, std::size_t n) { simd::copy<Arch>(dst, src, n); }

void copy(std::int32_t* dst, const std::int32_t* src, std::size_t n) { simd::copy<Arch>(dst, src, n); }

void shifted_rows(const float* diag, std::size_t q_len, std::size_t k_len, float* out) {
  simd::shifted_rows<Arch>(diag, q_len, k_len, out);
}

void shifted_rows(const std::int32_t* diag, std::size_t q_len, std::size_t k_len, std::int32_t* out) {
  simd::shifted_rows<Arch>(diag, q_len, k_len, out);
}

const char* simd_arch_name() { return Arch::name(); }

}  // namespace posenc::kernels
