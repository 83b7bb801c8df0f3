// RoPE row rotations with relaxed SIMD's fused multiply-add: the twins of rotate_half_tokens and
// rotate_interleaved_tokens (src/kernels/kernels.hpp, rotate-inl.hpp). The driver uses them for the
// grouped order only (calls that fit in cache); streaming calls take the built-in kernels.
#include "relaxed.h"

/* (lo, hi) <- (lo c - hi s, lo s + hi c) on 4 pairs: two fused multiply-adds a lane. */
static inline void rotate_pairs(float* lo, float* hi, v128_t c, v128_t s) {
  const v128_t a = load(lo);
  const v128_t b = load(hi);
  store(lo, wasm_f32x4_relaxed_nmadd(b, s, wasm_f32x4_mul(a, c)));  /* a c - b s */
  store(hi, wasm_f32x4_relaxed_madd(a, s, wasm_f32x4_mul(b, c)));   /* a s + b c */
}

/* x <- x cos2 + swap_adjacent(x) sin2 on 4 lanes (2 interleaved pairs). */
static inline void rotate_adjacent(float* x, v128_t c, v128_t s) {
  const v128_t v = load(x);
  const v128_t swapped = wasm_i32x4_shuffle(v, v, 1, 0, 3, 2);
  store(x, wasm_f32x4_relaxed_madd(v, c, wasm_f32x4_mul(swapped, s)));
}

/* Half pairing: `rows` rows `stride` floats apart, sharing cos/sin rows of `pairs` lanes; pair i is
   (x[i], x[i + partner]). Grouped: 16 lanes of cos/sin stay in registers across every row. */
static inline __attribute__((always_inline)) void half_rows(float* x, size_t rows, size_t stride, const float* cos, const float* sin, size_t pairs,
                      size_t partner) {
  size_t i = 0;
  for (; i + 16 <= pairs; i += 16) {
    const v128_t c0 = load(cos + i), c1 = load(cos + i + 4), c2 = load(cos + i + 8), c3 = load(cos + i + 12);
    const v128_t s0 = load(sin + i), s1 = load(sin + i + 4), s2 = load(sin + i + 8), s3 = load(sin + i + 12);
    float* p = x + i;
    for (size_t r = 0; r < rows; ++r, p += stride) {
      float* q = p + partner;
      rotate_pairs(p, q, c0, s0);
      rotate_pairs(p + 4, q + 4, c1, s1);
      rotate_pairs(p + 8, q + 8, c2, s2);
      rotate_pairs(p + 12, q + 12, c3, s3);
    }
  }
  for (; i + 4 <= pairs; i += 4) {
    const v128_t c = load(cos + i), s = load(sin + i);
    float* p = x + i;
    for (size_t r = 0; r < rows; ++r, p += stride) rotate_pairs(p, p + partner, c, s);
  }
  for (float* row = x; i < pairs && row != x + rows * stride; row += stride) {
    for (size_t j = i; j < pairs; ++j) {  /* scalar tail: plain multiplies, as the SIMD128 build */
      const float a = row[j], b = row[j + partner];
      row[j] = a * cos[j] - b * sin[j];
      row[j + partner] = a * sin[j] + b * cos[j];
    }
  }
}

/* Interleaved pairing on 2 pairs lanes with the expanded rows cos2/sin2 (kernels.hpp). */
static inline __attribute__((always_inline)) void interleaved_rows(float* x, size_t rows, size_t stride, const float* cos2, const float* sin2,
                             size_t lanes) {
  size_t i = 0;
  for (; i + 16 <= lanes; i += 16) {
    const v128_t c0 = load(cos2 + i), c1 = load(cos2 + i + 4), c2 = load(cos2 + i + 8), c3 = load(cos2 + i + 12);
    const v128_t s0 = load(sin2 + i), s1 = load(sin2 + i + 4), s2 = load(sin2 + i + 8), s3 = load(sin2 + i + 12);
    float* p = x + i;
    for (size_t r = 0; r < rows; ++r, p += stride) {
      rotate_adjacent(p, c0, s0);
      rotate_adjacent(p + 4, c1, s1);
      rotate_adjacent(p + 8, c2, s2);
      rotate_adjacent(p + 12, c3, s3);
    }
  }
  for (; i + 4 <= lanes; i += 4) {
    const v128_t c = load(cos2 + i), s = load(sin2 + i);
    float* p = x + i;
    for (size_t r = 0; r < rows; ++r, p += stride) rotate_adjacent(p, c, s);
  }
  for (float* row = x; i < lanes && row != x + rows * stride; row += stride) {
    for (size_t j = i; j < lanes; j += 2) {  /* whole pairs: lanes is even */
      const float a = row[j], b = row[j + 1];
      row[j] = a * cos2[j] + b * sin2[j];
      row[j + 1] = b * cos2[j + 1] + a * sin2[j + 1];
    }
  }
}

/** rotate_half_tokens (kernels.hpp): grouped = every row of a token per cos/sin batch; otherwise one
    row after another in memory order. partner 0 means `pairs`. */
KEEP void rotate_half_tokens(float* x, size_t tokens, size_t token_stride, size_t rows, size_t row_stride,
                             const float* const* cos_rows, const float* const* sin_rows, size_t pairs, bool grouped,
                             size_t partner) {
  if (partner == 0) partner = pairs;
  for (size_t t = 0; t < tokens; ++t, x += token_stride) {
    if (grouped) {
      half_rows(x, rows, row_stride, cos_rows[t], sin_rows[t], pairs, partner);
    } else {
      for (size_t r = 0; r < rows; ++r) half_rows(x + r * row_stride, 1, row_stride, cos_rows[t], sin_rows[t], pairs, partner);
    }
  }
}

/** rotate_interleaved_tokens (kernels.hpp), the same two orders. */
KEEP void rotate_interleaved_tokens(float* x, size_t tokens, size_t token_stride, size_t rows, size_t row_stride,
                                    const float* const* cos2_rows, const float* const* sin2_rows, size_t pairs,
                                    bool grouped) {
  for (size_t t = 0; t < tokens; ++t, x += token_stride) {
    if (grouped) {
      interleaved_rows(x, rows, row_stride, cos2_rows[t], sin2_rows[t], 2 * pairs);
    } else {
      for (size_t r = 0; r < rows; ++r) {
        interleaved_rows(x + r * row_stride, 1, row_stride, cos2_rows[t], sin2_rows[t], 2 * pairs);
      }
    }
  }
}
