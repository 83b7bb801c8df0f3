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

#define INLINE static inline __attribute__((always_inline))

/* One batch of 4 lanes at p: the half pairing rotates them with their partners at p + partner; the
   interleaved pairing rotates them within themselves (the expanded cos2/sin2 rows). */
INLINE void rotate_batch(float* p, size_t partner, v128_t c, v128_t s, bool half) {
  if (half) {
    rotate_pairs(p, p + partner, c, s);
  } else {
    rotate_adjacent(p, c, s);
  }
}

/* The lanes from `from` on, in plain multiplies as the SIMD128 build does them. */
INLINE void rotate_tail(float* row, const float* cos, const float* sin, size_t from, size_t lanes, size_t partner,
                        bool half) {
  if (half) {
    for (size_t j = from; j < lanes; ++j) {
      const float a = row[j], b = row[j + partner];
      row[j] = a * cos[j] - b * sin[j];
      row[j + partner] = a * sin[j] + b * cos[j];
    }
  } else {
    for (size_t j = from; j < lanes; j += 2) { /* whole pairs: lanes is even */
      const float a = row[j], b = row[j + 1];
      row[j] = a * cos[j] + b * sin[j];
      row[j + 1] = b * cos[j + 1] + a * sin[j + 1];
    }
  }
}

/* `rows` rows `stride` floats apart sharing cos/sin rows of `lanes` lanes (half: `pairs`;
   interleaved: 2 pairs). 16 lanes of cos/sin stay in registers across every row. `half` is a
   constant in each instantiation. */
INLINE void rotate_rows(float* x, size_t rows, size_t stride, const float* cos, const float* sin, size_t lanes,
                        size_t partner, bool half) {
  size_t i = 0;
  for (; i + 16 <= lanes; i += 16) {
    const v128_t c0 = load(cos + i), c1 = load(cos + i + 4), c2 = load(cos + i + 8), c3 = load(cos + i + 12);
    const v128_t s0 = load(sin + i), s1 = load(sin + i + 4), s2 = load(sin + i + 8), s3 = load(sin + i + 12);
    float* p = x + i;
    for (size_t r = 0; r < rows; ++r, p += stride) {
      rotate_batch(p, partner, c0, s0, half);
      rotate_batch(p + 4, partner, c1, s1, half);
      rotate_batch(p + 8, partner, c2, s2, half);
      rotate_batch(p + 12, partner, c3, s3, half);
    }
  }
  for (; i + 4 <= lanes; i += 4) {
    const v128_t c = load(cos + i), s = load(sin + i);
    float* p = x + i;
    for (size_t r = 0; r < rows; ++r, p += stride) rotate_batch(p, partner, c, s, half);
  }
  if (i == lanes) return;
  for (size_t r = 0; r < rows; ++r) rotate_tail(x + r * stride, cos, sin, i, lanes, partner, half);
}

/* Tokens t < tokens, each `rows` rows sharing cos_rows[t]/sin_rows[t], grouped (every row of a token
   per cos/sin batch) or one row after another in memory order. */
INLINE void rotate_tokens(float* x, size_t tokens, size_t token_stride, size_t rows, size_t row_stride,
                          const float* const* cos_rows, const float* const* sin_rows, size_t lanes, size_t partner,
                          bool grouped, bool half) {
  for (size_t t = 0; t < tokens; ++t, x += token_stride) {
    if (grouped) {
      rotate_rows(x, rows, row_stride, cos_rows[t], sin_rows[t], lanes, partner, half);
    } else {
      for (size_t r = 0; r < rows; ++r) {
        rotate_rows(x + r * row_stride, 1, row_stride, cos_rows[t], sin_rows[t], lanes, partner, half);
      }
    }
  }
}

/** rotate_half_tokens (kernels.hpp). partner 0 means `pairs`. */
KEEP void rotate_half_tokens(float* x, size_t tokens, size_t token_stride, size_t rows, size_t row_stride,
                             const float* const* cos_rows, const float* const* sin_rows, size_t pairs, bool grouped,
                             size_t partner) {
  rotate_tokens(x, tokens, token_stride, rows, row_stride, cos_rows, sin_rows, pairs, partner == 0 ? pairs : partner,
                grouped, true);
}

/** rotate_interleaved_tokens (kernels.hpp), on the expanded rows cos2/sin2. */
KEEP void rotate_interleaved_tokens(float* x, size_t tokens, size_t token_stride, size_t rows, size_t row_stride,
                                    const float* const* cos2_rows, const float* const* sin2_rows, size_t pairs,
                                    bool grouped) {
  rotate_tokens(x, tokens, token_stride, rows, row_stride, cos2_rows, sin2_rows, 2 * pairs, 0, grouped, false);
}
