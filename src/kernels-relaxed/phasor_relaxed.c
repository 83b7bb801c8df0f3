// The fused step-and-narrow of float64 angle rows: the twins of phasor_rows_narrow and
// phasor_rows_narrow_interleave (src/kernels/kernels.hpp, narrow-wasm-inl.hpp). A phasor step
// (c, s) <- (c cw - s sw, s cw + c sw) is two multiplies and two fused multiply-adds per f64x2
// instead of four multiplies and two adds; the narrowing to float is the same.
#include "relaxed.h"

/* The phasors of four pairs, as two f64x2 halves each. */
typedef struct {
  v128_t c0, c1, s0, s1;
} phasor4;

static inline phasor4 step(phasor4 p, v128_t a0, v128_t a1, v128_t b0, v128_t b1) {
  phasor4 q;
  q.c0 = wasm_f64x2_relaxed_nmadd(p.s0, b0, wasm_f64x2_mul(p.c0, a0)); /* c cw - s sw */
  q.c1 = wasm_f64x2_relaxed_nmadd(p.s1, b1, wasm_f64x2_mul(p.c1, a1));
  q.s0 = wasm_f64x2_relaxed_madd(p.c0, b0, wasm_f64x2_mul(p.s0, a0)); /* s cw + c sw */
  q.s1 = wasm_f64x2_relaxed_madd(p.c1, b1, wasm_f64x2_mul(p.s1, a1));
  return q;
}

/* f64x2 (times k when scaled) -> two floats in lanes 0-1. */
static inline v128_t demote(v128_t v, v128_t k, bool scaled) {
  return wasm_f32x4_demote_f64x2_zero(scaled ? wasm_f64x2_mul(v, k) : v);
}

static inline phasor4 load4(const double* c, const double* s) {
  phasor4 p = {load(c), load(c + 2), load(s), load(s + 2)};
  return p;
}

static inline void store4(double* c, double* s, phasor4 p) {
  store(c, p.c0);
  store(c + 2, p.c1);
  store(s, p.s0);
  store(s + 2, p.s1);
}

/* The last n % 4 pairs, as the SIMD128 build does them: one plain step, then the narrowing. */
static void tail_step(double* c, double* s, const double* cw, const double* sw, size_t from, size_t n) {
  for (size_t j = from; j < n; ++j) {
    const double cj = c[j] * cw[j] - s[j] * sw[j];
    const double sj = s[j] * cw[j] + c[j] * sw[j];
    c[j] = cj;
    s[j] = sj;
  }
}

/* `scaled` is a constant in each instantiation below: a run-time flag would put a multiply and a
   select into every step (clang keeps both arms), 20-30% of the kernel's time. */
#define INLINE static inline __attribute__((always_inline))

INLINE void narrow_rows(double* c, double* s, const double* cw, const double* sw, size_t n, size_t rows,
                        double scale, float* cos_out, float* sin_out, size_t row_stride, bool scaled) {
  const v128_t k = wasm_f64x2_splat(scale);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    phasor4 p = load4(c + i, s + i);
    const v128_t a0 = load(cw + i), a1 = load(cw + i + 2), b0 = load(sw + i), b1 = load(sw + i + 2);
    for (size_t r = 0; r < rows; ++r) {
      p = step(p, a0, a1, b0, b1);
      const size_t at = r * row_stride + i;
      if (cos_out != NULL) store(cos_out + at, wasm_i64x2_shuffle(demote(p.c0, k, scaled), demote(p.c1, k, scaled), 0, 2));
      if (sin_out != NULL) store(sin_out + at, wasm_i64x2_shuffle(demote(p.s0, k, scaled), demote(p.s1, k, scaled), 0, 2));
    }
    store4(c + i, s + i, p);
  }
  if (i == n) return;
  for (size_t r = 0; r < rows; ++r) {
    tail_step(c, s, cw, sw, i, n);
    for (size_t j = i; j < n; ++j) {
      if (cos_out != NULL) cos_out[r * row_stride + j] = (float)(c[j] * scale);
      if (sin_out != NULL) sin_out[r * row_stride + j] = (float)(s[j] * scale);
    }
  }
}

INLINE void narrow_rows_interleave(double* c, double* s, const double* cw, const double* sw, size_t n, size_t rows,
                                   double scale, float* dst, size_t row_stride, bool scaled) {
  const v128_t k = wasm_f64x2_splat(scale);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    phasor4 p = load4(c + i, s + i);
    const v128_t a0 = load(cw + i), a1 = load(cw + i + 2), b0 = load(sw + i), b1 = load(sw + i + 2);
    for (size_t r = 0; r < rows; ++r) {
      p = step(p, a0, a1, b0, b1);
      float* out = dst + r * row_stride + 2 * i;
      /* [s0 s1 _ _] and [c0 c1 _ _] -> [s0 c0 s1 c1] */
      store(out, wasm_i32x4_shuffle(demote(p.s0, k, scaled), demote(p.c0, k, scaled), 0, 4, 1, 5));
      store(out + 4, wasm_i32x4_shuffle(demote(p.s1, k, scaled), demote(p.c1, k, scaled), 0, 4, 1, 5));
    }
    store4(c + i, s + i, p);
  }
  if (i == n) return;
  for (size_t r = 0; r < rows; ++r) {
    tail_step(c, s, cw, sw, i, n);
    for (size_t j = i; j < n; ++j) {
      dst[r * row_stride + 2 * j] = (float)(s[j] * scale);
      dst[r * row_stride + 2 * j + 1] = (float)(c[j] * scale);
    }
  }
}

KEEP void phasor_rows_narrow(double* c, double* s, const double* cw, const double* sw, size_t n, size_t rows,
                             double scale, float* cos_out, float* sin_out, size_t row_stride) {
  if (scale == 1.0) {
    narrow_rows(c, s, cw, sw, n, rows, scale, cos_out, sin_out, row_stride, false);
  } else {
    narrow_rows(c, s, cw, sw, n, rows, scale, cos_out, sin_out, row_stride, true);
  }
}

KEEP void phasor_rows_narrow_interleave(double* c, double* s, const double* cw, const double* sw, size_t n,
                                        size_t rows, double scale, float* dst, size_t row_stride) {
  if (scale == 1.0) {
    narrow_rows_interleave(c, s, cw, sw, n, rows, scale, dst, row_stride, false);
  } else {
    narrow_rows_interleave(c, s, cw, sw, n, rows, scale, dst, row_stride, true);
  }
}
