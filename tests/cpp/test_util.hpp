// Shared helpers for the Catch2 suites: deterministic random data and float64 reference formulas.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace posenc::test {

/// Deterministic uniform numbers in [lo, hi) (a small LCG, so native and wasm runs see the same data).
inline std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::vector<float> v(n);
  std::uint64_t state = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (auto& x : v) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double u = static_cast<double>(state >> 11) / 9007199254740992.0;
    x = static_cast<float>(lo + (hi - lo) * u);
  }
  return v;
}

inline double max_abs(const std::vector<float>& v) {
  double m = 0;
  for (float x : v) m = std::fmax(m, std::fabs(static_cast<double>(x)));
  return m;
}

inline double max_abs_diff(const float* a, const float* b, std::size_t n) {
  double m = 0;
  for (std::size_t i = 0; i < n; ++i) m = std::fmax(m, std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
  return m;
}

/// Float64 RoPE of one head row (the formula of docs/encodings.md#81-the-rotation-and-its-two-pairings), returned as doubles.
inline std::vector<double> rope_row_f64(const float* x, std::size_t head_dim, std::size_t rotary_dim, bool interleaved,
                                        double position, double base, double attention = 1.0) {
  std::vector<double> out(x, x + head_dim);
  const std::size_t pairs = rotary_dim / 2;
  for (std::size_t i = 0; i < pairs; ++i) {
    const double w = std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(rotary_dim));
    const double th = position * w;
    const double c = std::cos(th) * attention;
    const double s = std::sin(th) * attention;
    const std::size_t ia = interleaved ? 2 * i : i;
    const std::size_t ib = interleaved ? 2 * i + 1 : i + pairs;
    const double a = x[ia];
    const double b = x[ib];
    out[ia] = a * c - b * s;
    out[ib] = a * s + b * c;
  }
  return out;
}

/// Float64 sinusoid value of column j (interleaved paper layout) at position p.
inline double sinusoid_f64(double p, std::size_t j, std::size_t dim, double base) {
  const double w = std::pow(base, -2.0 * static_cast<double>(j / 2) / static_cast<double>(dim));
  return (j % 2 == 0) ? std::sin(p * w) : std::cos(p * w);
}

}  // namespace posenc::test
