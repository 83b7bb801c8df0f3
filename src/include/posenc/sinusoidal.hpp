// Sinusoidal absolute position encoding (Vaswani et al. 2017, "Attention Is All You Need", sec. 3.5).
#pragma once

#include <cstddef>

#include "posenc/positions.hpp"
#include "posenc/status.hpp"

namespace posenc {

/// Column order of a sinusoidal table row.
///
///     interleaved (the paper):  [sin(p w0), cos(p w0), sin(p w1), cos(p w1), ...]
///     half (Transformer-XL, GPT-J caches): [sin(p w0), sin(p w1), ..., cos(p w0), cos(p w1), ...]
///
/// Both hold the same columns. For an odd `dim` the last interleaved column is the sine of pair
/// (dim-1)/2 (exponent (dim-1)/dim); the half layout then has ceil(dim/2) sines and floor(dim/2)
/// cosines, i.e. it is the same set of columns, sines first.
enum class SinusoidLayout : int { interleaved = 0, half = 1 };

/// How table values are computed from the double-precision angles (both form p * w_i in double).
///
///     exact: sin and cos evaluated in double and rounded once to float (error <= half an ulp).
///     fast:  every 32nd row and the first 32 rows computed that way; the rows between combine
///            them by the angle-addition identities in float arithmetic. Absolute error at most
///            3.2e-7, nothing accumulates along the table, 1.4-2x faster (`npm run bench`).
///            Ranges of positions only; explicit position lists are always exact.
enum class SinusoidPrecision : int { exact = 0, fast = 1 };

struct SinusoidalParams {
  int dim = 0;             ///< width of a row, >= 1 (odd allowed)
  double base = 10000.0;   ///< w_i = base^(-2i/dim); finite and > 0
  SinusoidLayout layout = SinusoidLayout::interleaved;
  SinusoidPrecision precision = SinusoidPrecision::exact;
};

/// Checks `params`: dim >= 1, base finite and > 0, a known layout and precision.
Status validate(const SinusoidalParams& params);

/// The angular frequency of pair `i`: base^(-2i/dim), in double precision.
double sinusoid_frequency(const SinusoidalParams& params, int pair);

/// Writes the table rows for `count` positions into `out` ([count, dim], row-major).
/// `positions.per_batch` must be false here (there is no batch).
Status sinusoidal_table(const SinusoidalParams& params, const Positions& positions, std::size_t count,
                        float* out);

/// Adds the encoding in place to `x` of shape [batch, seq, dim]: x[b, s, :] += PE(position(b, s)).
Status sinusoidal_add(const SinusoidalParams& params, const Positions& positions, std::size_t batch,
                      std::size_t seq, float* x);

}  // namespace posenc
