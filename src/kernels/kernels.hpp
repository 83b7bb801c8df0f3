// The kernel layer: small, branch-free loops over contiguous arrays that assume valid input.
// Validation happens above, in src/encodings. No SIMD type appears in this header.
//
// Two implementations share these signatures: posenc::kernels (xsimd, built for the target's best
// architecture: wasm SIMD under Emscripten, AVX2/FMA natively) and posenc::kernels::reference
// (plain scalar C++, the test oracle).
#pragma once

#include <cstddef>
#include <cstdint>

namespace posenc::kernels {

#define POSENC_KERNEL_DECLARATIONS                                                                  \
  /** sin_out[i] = sin(angles[i]), cos_out[i] = cos(angles[i]), evaluated in double: within 4e-16 \
      for any finite angle (exact reduction; sincos-inl.hpp). Outputs must not alias `angles`. */   \
  void sincos(const double* angles, std::size_t n, double* sin_out, double* cos_out);              \
  /** Advances phasors one step: (c, s) <- (c cw - s sw, s cw + c sw), i.e. angle += step angle. */ \
  void phasor_step(double* c, double* s, const double* cw, const double* sw, std::size_t n);        \
  /** `rows` phasor steps; after step r (r < rows) writes cos_out[r * row_stride + i] =             \
      float(c[i] * scale) and sin_out[r * row_stride + i] = float(s[i] * scale) (a null output is   \
      skipped). c and s end at the last step. */                                                    \
  void phasor_rows_narrow(double* c, double* s, const double* cw, const double* sw, std::size_t n,   \
                          std::size_t rows, double scale, float* cos_out, float* sin_out,           \
                          std::size_t row_stride);                                                  \
  /** The same, writing [sin, cos] pairs: dst[r * row_stride + 2i] = float(s[i] * scale),           \
      dst[r * row_stride + 2i + 1] = float(c[i] * scale). */                                        \
  void phasor_rows_narrow_interleave(double* c, double* s, const double* cw, const double* sw,      \
                                     std::size_t n, std::size_t rows, double scale, float* dst,     \
                                     std::size_t row_stride);                                       \
  /** Rows from float anchors and offsets (anchor-inl.hpp): for r < rows, i < n, with the offset     \
      row r at sk/ck + r * n: sin_out[r * row_stride + i] = s0[i] ck[r, i] + c0[i] sk[r, i] and      \
      cos_out[...] = c0[i] ck[r, i] - s0[i] sk[r, i] (a null output is skipped). */                  \
  void anchor_rows(const float* s0, const float* c0, const float* sk, const float* ck, std::size_t n, \
                   std::size_t rows, float* cos_out, float* sin_out, std::size_t row_stride);       \
  /** The same, writing [sin, cos] pairs at dst + r * row_stride + 2i. */                            \
  void anchor_rows_interleave(const float* s0, const float* c0, const float* sk, const float* ck,   \
                              std::size_t n, std::size_t rows, float* dst, std::size_t row_stride); \
  /** out[i] = a[i] c[i] + b[i] s[i]: a row of an anchored sinusoidal table (anchor, partner,      \
      offset cos, signed offset sin; see posenc/sinusoidal.hpp). */                                 \
  void combine(const float* a, const float* b, const float* c, const float* s, std::size_t n,       \
               float* out);                                                                         \
  /** x[i] += a[i] c[i] + b[i] s[i] (the same row, added; the row is rounded before the add). */     \
  void combine_add(const float* a, const float* b, const float* c, const float* s, std::size_t n,   \
                   float* x);                                                                       \
  /** dst[i * stride] = float(src[i] * scale). */                                                   \
  void narrow(const double* src, std::size_t n, double scale, float* dst, std::size_t stride);      \
  /** dst[2i] = float(a[i] * scale), dst[2i + 1] = float(b[i] * scale): two rows interleaved. */     \
  void narrow_interleave(const double* a, const double* b, std::size_t n, double scale, float* dst); \
  /** RoPE, half pairing, for `tokens` tokens in one call (the drivers' loop, without a call per     \
      token): token t's `rows` head rows start at x + t * token_stride + r * row_stride and each   \
      pair i < pairs becomes (x[i], x[i + pairs]) <- (a c_i - b s_i, a s_i + b c_i), with c, s the \
      rows cos_rows[t], sin_rows[t]. `grouped`: the order of rotate-inl.hpp that keeps cos/sin     \
      batches in registers across a token's rows (fewest instructions while the rows are in cache); \
      otherwise one row after another in memory order. Both give the same values. `partner` > 0:    \
      pair i is (x[i], x[i + partner]) instead (Gemma 4's proportional RoPE rotates the first pairs \
      of a head whose halves are wider); 0 means `pairs`. */                                        \
  void rotate_half_tokens(float* x, std::size_t tokens, std::size_t token_stride, std::size_t rows,  \
                          std::size_t row_stride, const float* const* cos_rows,                     \
                          const float* const* sin_rows, std::size_t pairs, bool grouped,            \
                          std::size_t partner = 0);                                                 \
  /** The same for the interleaved pairing, on 2*pairs lanes per row with the expanded rows         \
      cos2 = [c0 c0 c1 c1 ...], sin2 = [-s0 s0 -s1 s1 ...]: x <- x cos2 + swap_adjacent(x) sin2. */ \
  void rotate_interleaved_tokens(float* x, std::size_t tokens, std::size_t token_stride,            \
                                 std::size_t rows, std::size_t row_stride,                          \
                                 const float* const* cos2_rows, const float* const* sin2_rows,      \
                                 std::size_t pairs, bool grouped);                                  \
  /** RoPE with cos/sin rows in double, either pairing: pair i of a head row is (x[i * pair_stride], \
      x[i * pair_stride + partner]) (half: stride 1, partner = pairs; interleaved: stride 2,        \
      partner 1) and becomes (a c - b s, a s + b c), evaluated in double and rounded to float once \
      (a context shift rotates stored keys call after call: each call adds one rounding). Token t's \
      rows are as in rotate_half_tokens. */                                                         \
  void rotate_tokens_exact(float* x, std::size_t tokens, std::size_t token_stride, std::size_t rows, \
                           std::size_t row_stride, const double* const* cos_rows,                   \
                           const double* const* sin_rows, std::size_t pairs,                        \
                           std::size_t pair_stride, std::size_t partner);                           \
  /** cos2 = [c0 c0 c1 c1 ...], sin2 = [-s0 s0 -s1 s1 ...] (the rows rotate_interleaved_tokens takes). */ \
  void expand_interleaved(const float* cos, const float* sin, std::size_t pairs, float* cos2,       \
                          float* sin2);                                                             \
  /** dst[i] += src[i]. */                                                                          \
  void add(float* dst, const float* src, std::size_t n);                                            \
  /** dst[i] = src[i] (non-overlapping). */                                                         \
  void copy(float* dst, const float* src, std::size_t n);                                           \
  void copy(std::int32_t* dst, const std::int32_t* src, std::size_t n);                             \
  /** Toeplitz rows: out[i, :] = diag[qLen - 1 - i .. qLen - 1 - i + kLen), out [qLen, kLen]. */    \
  void shifted_rows(const float* diag, std::size_t q_len, std::size_t k_len, float* out);           \
  void shifted_rows(const std::int32_t* diag, std::size_t q_len, std::size_t k_len, std::int32_t* out);

POSENC_KERNEL_DECLARATIONS

/// The name of the SIMD architecture the kernels were compiled for ("sse4.1" under wasm, where
/// Emscripten translates SSE4.1 to wasm SIMD; e.g. "fma3+avx2" natively).
const char* simd_arch_name();

namespace reference {
POSENC_KERNEL_DECLARATIONS
}  // namespace reference

#undef POSENC_KERNEL_DECLARATIONS

}  // namespace posenc::kernels
