// Vectorised sine and cosine of double-precision angles, written for positional encodings:
// angles p * w reach 1e6 rad and more, where xsimd 8.1's own sin/cos fall back to a per-lane
// reduction and (under wasm) to scalar float->int conversions (docs/building.md section 8).
//
// Method: Cody-Waite reduction by pi/2 with a three-piece constant, the quadrant kept in floating
// point (no float->int conversion anywhere), and Taylor polynomials on |r| <= pi/4. That reduction
// is exact to double rounding only while k * kPio2Mid is exact (|k| <= 2^21); larger angles
// are flagged (beyond_reduction) and recomputed with std::sin/std::cos, whose reduction is
// exact for every finite double (glibc and musl's __rem_pio2 switch to Payne-Hanek for large ones).
#pragma once

#include <xsimd/xsimd.hpp>

namespace posenc::kernels::simd {

// pi/2 = kPio2Hi + kPio2Mid + kPio2Lo, the first two with 31 and 32 significant bits, so k * kPio2Hi
// and k * kPio2Mid are exact for |k| <= 2^21 (angles up to 2^21 pi/2 ~ 3.29e6 rad). Beyond that the
// products round and the reduced angle loses bits (under wasm, which has no fused multiply-add:
// 2.4e-6 off at 1e12 rad, meaningless by 1e16), so larger angles take the scalar path.
// tests/cpp/kernels_test.cpp checks both sides of the bound and every binade up to 1.8e308.
constexpr double kTwoOverPi = 0.6366197723675814;
constexpr double kPio2Hi = 1.5707963267341256;
constexpr double kPio2Mid = 6.077100506303966e-11;
constexpr double kPio2Lo = 2.0222662487959506e-21;

// Taylor coefficients: sin r = r + r^3 (S1 + z S2 + ...), cos r = 1 - z/2 + z^2 (C1 + z C2 + ...),
// z = r^2. On |r| <= pi/4 the first omitted terms are below 5e-17 (sin) and 3e-18 (cos).
constexpr double kS1 = -1.0 / 6.0;
constexpr double kS2 = 1.0 / 120.0;
constexpr double kS3 = -1.0 / 5040.0;
constexpr double kS4 = 1.0 / 362880.0;
constexpr double kS5 = -1.0 / 39916800.0;
constexpr double kS6 = 1.0 / 6227020800.0;
constexpr double kS7 = -1.0 / 1307674368000.0;
constexpr double kC1 = 1.0 / 24.0;
constexpr double kC2 = -1.0 / 720.0;
constexpr double kC3 = 1.0 / 40320.0;
constexpr double kC4 = -1.0 / 3628800.0;
constexpr double kC5 = 1.0 / 479001600.0;
constexpr double kC6 = -1.0 / 87178291200.0;
constexpr double kC7 = 1.0 / 20922789888000.0;

/// Angles whose quadrant count nearbyint(theta * 2/pi) stays within 2^21 (3.29e6 is just below
/// 2^21 pi/2 = 3294198.4): sincos_batch is exact for them.
constexpr double kMaxReducedAngle = 3.29e6;

/// Lanes sincos_batch cannot reduce exactly (|theta| > kMaxReducedAngle, or infinite). The caller
/// ORs these masks over its loop and redoes the flagged lanes with std::sin/std::cos afterwards, so
/// the loop itself stays branch-free.
template <class B>
inline auto beyond_reduction(B theta) {
  return xsimd::abs(theta) > B(kMaxReducedAngle);
}

/// sin and cos of every lane by the polynomial path; exact for |theta| <= kMaxReducedAngle only.
template <class B>
inline void sincos_batch(B theta, B& sin_out, B& cos_out) {
  const B k = xsimd::nearbyint(theta * B(kTwoOverPi));
  const B r = ((theta - k * B(kPio2Hi)) - k * B(kPio2Mid)) - k * B(kPio2Lo);
  const B z = r * r;

  B ps = xsimd::fma(z, B(kS7), B(kS6));
  ps = xsimd::fma(z, ps, B(kS5));
  ps = xsimd::fma(z, ps, B(kS4));
  ps = xsimd::fma(z, ps, B(kS3));
  ps = xsimd::fma(z, ps, B(kS2));
  ps = xsimd::fma(z, ps, B(kS1));
  const B s = xsimd::fma(r * z, ps, r);

  B pc = xsimd::fma(z, B(kC7), B(kC6));
  pc = xsimd::fma(z, pc, B(kC5));
  pc = xsimd::fma(z, pc, B(kC4));
  pc = xsimd::fma(z, pc, B(kC3));
  pc = xsimd::fma(z, pc, B(kC2));
  pc = xsimd::fma(z, pc, B(kC1));
  const B c = xsimd::fma(z * z, pc, xsimd::fnma(B(0.5), z, B(1.0)));

  // Quadrant q = k mod 4 in {0, 1, 2, 3}, computed in floating point.
  const B q = k - B(4.0) * xsimd::floor(k * B(0.25));
  const auto odd = (q == B(1.0)) || (q == B(3.0));
  const B sin_mag = xsimd::select(odd, c, s);
  const B cos_mag = xsimd::select(odd, s, c);
  sin_out = xsimd::select(q >= B(2.0), -sin_mag, sin_mag);
  cos_out = xsimd::select((q == B(1.0)) || (q == B(2.0)), -cos_mag, cos_mag);
}

}  // namespace posenc::kernels::simd
