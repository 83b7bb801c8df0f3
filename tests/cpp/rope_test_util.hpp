// Float64 references for the RoPE scaling and forms suites, written from docs/encodings.md section 8
// independently of src/ (no posenc function is used to compute an expected value).
#pragma once

#include <cmath>
#include <cstddef>
#include <optional>
#include <vector>

#include "posenc/rope_scaling.hpp"

namespace posenc::test {

constexpr double kPi = 3.14159265358979323846;

/// A RopeConfig without brace-elision warnings.
inline RopeConfig config_of(int rotary_dim, double base = 10000.0, const RopeScaling& scaling = RopeScaling{},
                            std::optional<double> seq_len = std::nullopt) {
  RopeConfig c;
  c.rotary_dim = rotary_dim;
  c.base = base;
  c.scaling = scaling;
  c.seq_len = seq_len;
  return c;
}

/// w_i = base^(-2i/r), i < r/2.
inline std::vector<double> default_freq_f64(int r, double base) {
  std::vector<double> w(static_cast<std::size_t>(r / 2));
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = 1.0 / std::pow(base, 2.0 * static_cast<double>(i) / r);
  return w;
}

/// Rotates pair i of one head row by angle[i] and multiplies it by scale[i] (float64).
inline std::vector<double> rotate_row_f64(const float* x, std::size_t head_dim, std::size_t rotary_dim, bool interleaved,
                                          const std::vector<double>& angle, const std::vector<double>& scale) {
  std::vector<double> out(x, x + head_dim);
  const std::size_t pairs = rotary_dim / 2;
  for (std::size_t i = 0; i < pairs; ++i) {
    const std::size_t ia = interleaved ? 2 * i : i;
    const std::size_t ib = interleaved ? 2 * i + 1 : i + pairs;
    const double a = x[ia], b = x[ib];
    const double c = std::cos(angle[i]) * scale[i], s = std::sin(angle[i]) * scale[i];
    out[ia] = a * c - b * s;
    out[ib] = a * s + b * c;
  }
  return out;
}

/// Worst |got - want| / max|x| over one row.
inline double row_error(const float* got, const std::vector<double>& want, double scale) {
  double worst = 0;
  for (std::size_t j = 0; j < want.size(); ++j) worst = std::fmax(worst, std::fabs(got[j] - want[j]) / scale);
  return worst;
}

}  // namespace posenc::test
