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

/// The phasors of four pairs, as two f64x2 halves each, kept in registers across steps.
struct Phasor4 {
  v128_t c0, c1, s0, s1;
};

/// One step: (c, s) <- (c cw - s sw, s cw + c sw).
inline Phasor4 step(const Phasor4& p, v128_t a0, v128_t a1, v128_t b0, v128_t b1) {
  return Phasor4{wasm_f64x2_sub(wasm_f64x2_mul(p.c0, a0), wasm_f64x2_mul(p.s0, b0)),
                 wasm_f64x2_sub(wasm_f64x2_mul(p.c1, a1), wasm_f64x2_mul(p.s1, b1)),
                 wasm_f64x2_add(wasm_f64x2_mul(p.s0, a0), wasm_f64x2_mul(p.c0, b0)),
                 wasm_f64x2_add(wasm_f64x2_mul(p.s1, a1), wasm_f64x2_mul(p.c1, b1))};
}

/// f64x2 (times scale unless Scaled is false) -> two floats in lanes 0-1 of an f32x4.
template <bool Scaled>
inline v128_t demote(v128_t v, v128_t scale) {
  return wasm_f32x4_demote_f64x2_zero(Scaled ? wasm_f64x2_mul(v, scale) : v);
}

/// Advances groups of four pairs `rows` steps with the phasors in registers, calling
/// write(r, i, p) with the phasors after step r of the group at pair i, and stores the last
/// phasors. Each group's steps form a dependency chain, but consecutive groups are independent,
/// so the processor overlaps them; c, s, cw and sw are loaded and c, s stored once per `rows` rows.
template <class Write>
inline std::size_t phasor_rows(double* c, double* s, const double* cw, const double* sw, std::size_t n,
                               std::size_t rows, Write write) {
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    Phasor4 p{wasm_v128_load(c + i), wasm_v128_load(c + i + 2), wasm_v128_load(s + i), wasm_v128_load(s + i + 2)};
    const v128_t a0 = wasm_v128_load(cw + i), a1 = wasm_v128_load(cw + i + 2);
    const v128_t b0 = wasm_v128_load(sw + i), b1 = wasm_v128_load(sw + i + 2);
    for (std::size_t r = 0; r < rows; ++r) {
      p = step(p, a0, a1, b0, b1);
      write(r, i, p);
    }
    wasm_v128_store(c + i, p.c0);
    wasm_v128_store(c + i + 2, p.c1);
    wasm_v128_store(s + i, p.s0);
    wasm_v128_store(s + i + 2, p.s1);
  }
  return i;
}

/// phasor_rows writing each row at cos_out/sin_out + r * row_stride (one output may be null).
template <bool Scaled>
inline std::size_t phasor_rows_narrow(double* c, double* s, const double* cw, const double* sw, std::size_t n,
                                      std::size_t rows, double scale, float* cos_out, float* sin_out,
                                      std::size_t row_stride) {
  const v128_t k = wasm_f64x2_splat(scale);
  return phasor_rows(c, s, cw, sw, n, rows, [&](std::size_t r, std::size_t i, const Phasor4& p) {
    const std::size_t at = r * row_stride + i;
    if (cos_out != nullptr) {
      wasm_v128_store(cos_out + at, wasm_i64x2_shuffle(demote<Scaled>(p.c0, k), demote<Scaled>(p.c1, k), 0, 2));
    }
    if (sin_out != nullptr) {
      wasm_v128_store(sin_out + at, wasm_i64x2_shuffle(demote<Scaled>(p.s0, k), demote<Scaled>(p.s1, k), 0, 2));
    }
  });
}

/// phasor_rows writing [sin, cos] pairs: row r at dst + r * row_stride + 2i.
template <bool Scaled>
inline std::size_t phasor_rows_narrow_interleave(double* c, double* s, const double* cw, const double* sw,
                                                 std::size_t n, std::size_t rows, double scale, float* dst,
                                                 std::size_t row_stride) {
  const v128_t k = wasm_f64x2_splat(scale);
  return phasor_rows(c, s, cw, sw, n, rows, [&](std::size_t r, std::size_t i, const Phasor4& p) {
    float* out = dst + r * row_stride + 2 * i;
    // [s0 s1 _ _] and [c0 c1 _ _] -> [s0 c0 s1 c1]: one shuffle per two pairs.
    wasm_v128_store(out, wasm_i32x4_shuffle(demote<Scaled>(p.s0, k), demote<Scaled>(p.c0, k), 0, 4, 1, 5));
    wasm_v128_store(out + 4, wasm_i32x4_shuffle(demote<Scaled>(p.s1, k), demote<Scaled>(p.c1, k), 0, 4, 1, 5));
  });
}

}  // namespace posenc::kernels::wasm
