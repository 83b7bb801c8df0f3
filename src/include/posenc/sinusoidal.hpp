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
///            3.2e-7, nothing accumulates along the table, faster (docs/performance.md).
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

/// The ceil(dim/2) frequencies base^(-2i/dim) into `out`, in double precision. Fails when `params`
/// are invalid or a frequency is not finite (a base so close to 0 that base^(-2i/dim) overflows).
Status sinusoidal_frequencies(const SinusoidalParams& params, double* out);

/// Writes the table rows for `count` positions into `out` ([count, dim], row-major).
/// `positions.per_batch` must be false here (there is no batch).
Status sinusoidal_table(const SinusoidalParams& params, const Positions& positions, std::size_t count,
                        float* out);

/// Adds the encoding in place to `x` of shape [batch, seq, dim]: x[b, s, :] += PE(position(b, s)).
Status sinusoidal_add(const SinusoidalParams& params, const Positions& positions, std::size_t batch,
                      std::size_t seq, float* x);

/// A `precision: 'fast'` table of rows 0..rows-1 kept compactly. Every value of a fast table is an
/// anchor row (a multiple of 32) combined with an offset row (0..31) by the angle-addition
/// identities, so the table can keep just those: 2 dim (ceil(rows / 32) + 32) floats instead of
/// rows * dim (1/14 of the memory at 8192 rows). Each stored block already carries the column's
/// partner function and sign, so row p is one elementwise expression whatever the layout:
///
///     row(p) = A[m] * C[r] + B[m] * S[r],   m = floor(p / 32), r = p mod 32
///     sine column of w:   A = sin(32 m w), B = cos(32 m w), C = cos(r w), S =  sin(r w)
///     cosine column of w: A = cos(32 m w), B = sin(32 m w), C = cos(r w), S = -sin(r w)
///
/// with every stored value computed in double and rounded once. For rows >= 64 the rows are those
/// of sinusoidal_table(precision fast) over the same positions: the same bits in the wasm build; a
/// native compiler may fuse a multiply-add in one and not the other (then they differ by a rounding).
/// `data` layout: A [anchors, dim], B [anchors, dim], C [32, dim], S [32, dim], anchors = ceil(rows / 32).
struct AnchoredSinusoidTable {
  const float* data = nullptr;
  std::size_t rows = 0;
  std::size_t dim = 0;
};

/// Floats an anchored table of `rows` x `dim` needs (size_overflow if that does not fit a size_t).
Status anchored_table_floats(std::size_t rows, std::size_t dim, std::size_t* floats);

/// Fills `storage` (anchored_table_floats floats) with the table of `params` (precision ignored:
/// the layout is the fast one) for positions 0..rows-1.
Status anchored_table_build(const SinusoidalParams& params, std::size_t rows, float* storage);

/// Gathers rows: out[t, :] = row(position(t)) for t < count. Positions must be integer ids in
/// [0, rows), as for a learned table (posenc/learned.hpp).
Status anchored_table_lookup(const AnchoredSinusoidTable& table, const Positions& positions, std::size_t count,
                             float* out);

/// Adds rows in place: x[b, s, :] += row(position(b, s)) for x of shape [batch, seq, dim].
Status anchored_table_add(const AnchoredSinusoidTable& table, const Positions& positions, std::size_t batch,
                          std::size_t seq, float* x);

}  // namespace posenc
