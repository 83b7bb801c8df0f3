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

/* Where a step's rows go: contiguous cos and sin rows (either may be null), or [sin, cos] pairs at
   `pairs` (interleave). */
typedef struct {
  float* cos_out;
  float* sin_out;
  float* pairs;
  size_t row_stride;
} rows_out;

/* `interleave` and `scaled` are constants in each instantiation below: a run-time flag would put a
   multiply and a select into every step (clang keeps both arms), 20-30% of the kernel's time. */
#define INLINE static inline __attribute__((always_inline))

INLINE void write4(rows_out o, size_t r, size_t i, phasor4 p, v128_t k, bool interleave, bool scaled) {
  if (interleave) {
    float* out = o.pairs + r * o.row_stride + 2 * i;
    /* [s0 s1 _ _] and [c0 c1 _ _] -> [s0 c0 s1 c1] */
    store(out, wasm_i32x4_shuffle(demote(p.s0, k, scaled), demote(p.c0, k, scaled), 0, 4, 1, 5));
    store(out + 4, wasm_i32x4_shuffle(demote(p.s1, k, scaled), demote(p.c1, k, scaled), 0, 4, 1, 5));
    return;
  }
  const size_t at = r * o.row_stride + i;
  if (o.cos_out != NULL) store(o.cos_out + at, wasm_i64x2_shuffle(demote(p.c0, k, scaled), demote(p.c1, k, scaled), 0, 2));
  if (o.sin_out != NULL) store(o.sin_out + at, wasm_i64x2_shuffle(demote(p.s0, k, scaled), demote(p.s1, k, scaled), 0, 2));
}

INLINE void write1(rows_out o, size_t r, size_t j, double c, double s, double scale, bool interleave) {
  if (interleave) {
    o.pairs[r * o.row_stride + 2 * j] = (float)(s * scale);
    o.pairs[r * o.row_stride + 2 * j + 1] = (float)(c * scale);
    return;
  }
  if (o.cos_out != NULL) o.cos_out[r * o.row_stride + j] = (float)(c * scale);
  if (o.sin_out != NULL) o.sin_out[r * o.row_stride + j] = (float)(s * scale);
}

/* Groups of four pairs step `rows` times with the phasors in registers, writing each row; then the
   last n % 4 pairs step and narrow row by row, as the SIMD128 build does them. */
INLINE void step_rows(double* c, double* s, const double* cw, const double* sw, size_t n, size_t rows, double scale,
                      rows_out o, bool interleave, bool scaled) {
  const v128_t k = wasm_f64x2_splat(scale);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    phasor4 p = load4(c + i, s + i);
    const v128_t a0 = load(cw + i), a1 = load(cw + i + 2), b0 = load(sw + i), b1 = load(sw + i + 2);
    for (size_t r = 0; r < rows; ++r) {
      p = step(p, a0, a1, b0, b1);
      write4(o, r, i, p, k, interleave, scaled);
    }
    store4(c + i, s + i, p);
  }
  if (i == n) return;
  for (size_t r = 0; r < rows; ++r) {
    tail_step(c, s, cw, sw, i, n);
    for (size_t j = i; j < n; ++j) write1(o, r, j, c[j], s[j], scale, interleave);
  }
}

KEEP void phasor_rows_narrow(double* c, double* s, const double* cw, const double* sw, size_t n, size_t rows,
                             double scale, float* cos_out, float* sin_out, size_t row_stride) {
  const rows_out o = {cos_out, sin_out, NULL, row_stride};
  if (scale == 1.0) {
    step_rows(c, s, cw, sw, n, rows, scale, o, false, false);
  } else {
    step_rows(c, s, cw, sw, n, rows, scale, o, false, true);
  }
}

KEEP void phasor_rows_narrow_interleave(double* c, double* s, const double* cw, const double* sw, size_t n,
                                        size_t rows, double scale, float* dst, size_t row_stride) {
  const rows_out o = {NULL, NULL, dst, row_stride};
  if (scale == 1.0) {
    step_rows(c, s, cw, sw, n, rows, scale, o, true, false);
  } else {
    step_rows(c, s, cw, sw, n, rows, scale, o, true, true);
  }
}
