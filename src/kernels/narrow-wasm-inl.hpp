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
