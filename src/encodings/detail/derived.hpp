// Checks on the quantities posenc derives from a caller's parameters (inverse frequencies, rescaled
// bases, attention factors, xPos scales, angles): every such quantity is checked here, where it is
// formed, and an error names the input that made it unusable ("scaling.factor 1e-300 makes inverse
// frequency 3 Infinity"), so no accepted parameter can turn into a NaN or infinite output.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstddef>
#include <string>

#include "encodings/detail/checks.hpp"
#include "posenc/positions.hpp"
#include "posenc/status.hpp"

namespace posenc::detail {

/// The input a derived quantity is computed from, as messages name it: {"scaling.factor", 1e-300},
/// or an entry of a list, {"scaling.shortFactor", 0.5, 3}. Plain pointers: checks that pass build no
/// string (a decode step checks its frequencies at every call).
struct Cause {
  const char* name;
  double value;
  std::ptrdiff_t index = -1;  ///< the entry of a list, or -1
};

inline std::string describe(const Cause& cause) {
  std::string name = cause.name;
  if (cause.index >= 0) name += "[" + std::to_string(cause.index) + "]";
  return name + " " + format_number(cause.value);
}

// The messages are built out of line: the checks below are a compare per value on the hot path (a
// decode step runs them at every call), and inlining the string code into them cost rope.apply a
// sixth of its time at one token (tests/bench/ab-rope.mjs).
[[gnu::noinline, gnu::cold]] inline Status derived_error(const Cause& cause, const char* what, double value,
                                                          const char* requirement) {
  return invalid(describe(cause) + " makes " + what + " " + format_number(value) + " (" + requirement + ")");
}

[[gnu::noinline, gnu::cold]] inline Status frequency_error(const Cause& cause, std::size_t i, double value) {
  return invalid(describe(cause) + " makes inverse frequency " + std::to_string(i) + " " + format_number(value) +
                 " (it must be finite)");
}

/// A derived quantity `what` (e.g. "the rescaled base") must be finite, and > 0 with `positive`.
inline Status check_derived(const char* what, double value, const Cause& cause, bool positive = false) {
  if (std::isfinite(value) && (!positive || value > 0)) return {};
  return derived_error(cause, what, value, positive ? "it must be finite and > 0" : "it must be finite");
}

/// Derived inverse frequencies (radians per position) must all be finite. `cause.index` >= 0 names
/// a per-pair input (the list entry of each pair).
inline Status check_derived_frequencies(const double* freq, std::size_t n, const Cause& cause) {
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(freq[i])) return frequency_error(cause, i, freq[i]);
  }
  return {};
}

/// A factor that multiplies cosines and sines before they are rounded to float32 (an attention
/// factor, an xPos scale) must be finite, > 0 and at most FLT_MAX, or the rounded values would be
/// infinite.
inline Status check_output_scale(const char* what, double value, const Cause& cause) {
  if (std::isfinite(value) && value > 0 && value <= FLT_MAX) return {};
  return derived_error(cause, what, value,
                       "it multiplies float32 cosines and sines, so it must be > 0 and at most 3.4028235e+38");
}

/// The largest |position| among the tokens of a [batch, seq] call (a range: its two ends).
inline double max_abs_position(const Positions& positions, std::size_t batch, std::size_t seq) {
  if (positions.is_range()) {
    return std::fmax(std::fabs(positions.offset), std::fabs(positions.offset + static_cast<double>(seq - 1)));
  }
  const std::size_t n = positions.per_batch ? batch * seq : seq;
  double m = 0.0;  // plain compares: std::fmax is a libc call under wasm (its NaN rule has no instruction)
  for (std::size_t i = 0; i < n; ++i) m = std::fabs(positions.ids[i]) > m ? std::fabs(positions.ids[i]) : m;
  return m;
}

/// Every angle p * w_i with |p| <= max_abs_position must be finite. Rounding is monotonic, so the
/// largest position times the largest frequency bounds every angle: one product checks them all.
/// OUT_OF_RANGE, naming the position (`positions_name`, e.g. "positionIds") and the frequency.
[[gnu::noinline, gnu::cold]] inline Status angle_error(const char* positions_name, double max_abs_position,
                                                        std::size_t pair, double frequency) {
  return error(StatusCode::out_of_range, std::string(positions_name) + " reach |position| " +
                                             format_number(max_abs_position) + ", where inverse frequency " +
                                             std::to_string(pair) + " (" + format_number(frequency) +
                                             ") makes the angle position * frequency overflow to Infinity");
}

inline Status check_angles(const char* positions_name, double max_abs_position, const double* freq, std::size_t n) {
  double widest = 0.0;  // frequencies are finite here (checked where formed)
  for (std::size_t i = 0; i < n; ++i) widest = std::fabs(freq[i]) > widest ? std::fabs(freq[i]) : widest;
  if (std::isfinite(max_abs_position * widest)) return {};
  std::size_t pair = 0;
  while (pair + 1 < n && std::fabs(freq[pair]) != widest) ++pair;
  return angle_error(positions_name, max_abs_position, pair, freq[pair]);
}

}  // namespace posenc::detail
