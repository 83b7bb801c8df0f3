// WebAssembly SIMD double->float narrowing, which xsimd 8.1 cannot express and clang 14
// otherwise scalarises. Each function handles whole groups of 4 and returns how many it did.
#pragma once

#include <wasm_simd128.h>

#include <cstddef>

namespace posenc::kernels::wasm {

/// Four doubles (two f64x2) scaled and demoted into one f32x4 [x0 x1 x2 x3].
inline v128_t demote4(const double* x, v128_t scale) {
  const v128_t lo = wasm_f32x4_demote_f64x2_zero(wasm_f64x2_mul(wasm_v128_load(x), scale));
  const v128_t hi = wasm_f32x4_demote_f64x2_zero(wasm_f64x2_mul(wasm_v128_load(x + 2), scale));
  return wasm_i64x2_shuffle(lo, hi, 0, 2);
}

inline std::size_t narrow_contiguous(const double* src, std::size_t n, double scale, float* dst) {
  const v128_t s = wasm_f64x2_splat(scale);
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) wasm_v128_store(dst + i, demote4(src + i, s));
  return i;
}

inline std::size_t narrow_interleave(const double* a, const double* b, std::size_t n, double scale, float* dst) {
  const v128_t s = wasm_f64x2_splat(scale);
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t fa = demote4(a + i, s);
    const v128_t fb = demote4(b + i, s);
    wasm_v128_store(dst + 2 * i, wasm_i32x4_shuffle(fa, fb, 0, 4, 1, 5));
    wasm_v128_store(dst + 2 * i + 4, wasm_i32x4_shuffle(fa, fb, 2, 6, 3, 7));
  }
  return i;
}

}  // namespace posenc::kernels::wasm

namespace posenc::kernels::wasm {

/// One phasor step on two f64x2 halves of four pairs: (c, s) <- (c cw - s sw, s cw + c sw), stored back.
struct Step4 {
  v128_t c0, c1, s0, s1;
};

inline Step4 step4(double* c, double* s, const double* cw, const double* sw) {
  const v128_t c0 = wasm_v128_load(c), c1 = wasm_v128_load(c + 2);
  const v128_t s0 = wasm_v128_load(s), s1 = wasm_v128_load(s + 2);
  const v128_t a0 = wasm_v128_load(cw), a1 = wasm_v128_load(cw + 2);
  const v128_t b0 = wasm_v128_load(sw), b1 = wasm_v128_load(sw + 2);
  Step4 r;
  r.c0 = wasm_f64x2_sub(wasm_f64x2_mul(c0, a0), wasm_f64x2_mul(s0, b0));
  r.c1 = wasm_f64x2_sub(wasm_f64x2_mul(c1, a1), wasm_f64x2_mul(s1, b1));
  r.s0 = wasm_f64x2_add(wasm_f64x2_mul(s0, a0), wasm_f64x2_mul(c0, b0));
  r.s1 = wasm_f64x2_add(wasm_f64x2_mul(s1, a1), wasm_f64x2_mul(c1, b1));
  wasm_v128_store(c, r.c0);
  wasm_v128_store(c + 2, r.c1);
  wasm_v128_store(s, r.s0);
  wasm_v128_store(s + 2, r.s1);
  return r;
}

/// Two f64x2 (times scale unless Scaled is false) -> one f32x4.
template <bool Scaled>
inline v128_t demote2(v128_t lo, v128_t hi, v128_t scale) {
  if (Scaled) {
    lo = wasm_f64x2_mul(lo, scale);
    hi = wasm_f64x2_mul(hi, scale);
  }
  return wasm_i64x2_shuffle(wasm_f32x4_demote_f64x2_zero(lo), wasm_f32x4_demote_f64x2_zero(hi), 0, 2);
}

template <bool Scaled>
inline std::size_t phasor_step_narrow(double* c, double* s, const double* cw, const double* sw, std::size_t n,
                                      double scale, float* cos_out, float* sin_out) {
  const v128_t k = wasm_f64x2_splat(scale);
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const Step4 r = step4(c + i, s + i, cw + i, sw + i);
    if (cos_out != nullptr) wasm_v128_store(cos_out + i, demote2<Scaled>(r.c0, r.c1, k));
    if (sin_out != nullptr) wasm_v128_store(sin_out + i, demote2<Scaled>(r.s0, r.s1, k));
  }
  return i;
}

template <bool Scaled>
inline std::size_t phasor_step_narrow_interleave(double* c, double* s, const double* cw, const double* sw,
                                                 std::size_t n, double scale, float* dst) {
  const v128_t k = wasm_f64x2_splat(scale);
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const Step4 r = step4(c + i, s + i, cw + i, sw + i);
    const v128_t fs = demote2<Scaled>(r.s0, r.s1, k);
    const v128_t fc = demote2<Scaled>(r.c0, r.c1, k);
    wasm_v128_store(dst + 2 * i, wasm_i32x4_shuffle(fs, fc, 0, 4, 1, 5));
    wasm_v128_store(dst + 2 * i + 4, wasm_i32x4_shuffle(fs, fc, 2, 6, 3, 7));
  }
  return i;
}

}  // namespace posenc::kernels::wasm
