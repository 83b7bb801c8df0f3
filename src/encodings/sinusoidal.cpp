// Sinusoidal absolute encoding (Vaswani et al. 2017, sec. 3.5): PE[p, 2i] = sin(p w_i),
// PE[p, 2i+1] = cos(p w_i), w_i = base^(-2i/d). Column j uses exponent 2 floor(j/2) / d, which also
// defines odd widths (the last column is a sine; HF XLM's create_sinusoidal_embeddings agrees).
#include "posenc/sinusoidal.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "encodings/detail/anchored_rows.hpp"
#include "encodings/detail/angle_rows.hpp"
#include "encodings/detail/checks.hpp"
#include "encodings/detail/derived.hpp"
#include "encodings/detail/power_frequencies.hpp"
#include "encodings/detail/sinusoid_columns.hpp"
#include "kernels/kernels.hpp"

namespace posenc {
namespace {

/// Writes `count` rows (row_stride floats apart) for the given positions.
Status write_rows(const SinusoidalParams& p, const std::vector<double>& freq, const Positions& positions,
                  std::size_t first_token, std::size_t count, float* out, std::size_t row_stride) {
  const detail::ColumnPlan plan = detail::plan_columns(p);
  auto run = [&](const double* w, std::size_t n, detail::AngleSink sink) -> Status {
    if (!positions.is_range()) {
      detail::angle_rows_list(w, n, positions.ids + first_token, count, sink);
      return {};
    }
    const double start = positions.offset + static_cast<double>(first_token);
    if (p.precision == SinusoidPrecision::fast) return detail::angle_rows_range_fast(w, n, start, count, sink);
    detail::angle_rows_range(w, n, start, count, sink);
    return {};
  };
  if (plan.full_pairs > 0) {
    POSENC_RETURN_IF_ERROR(run(freq.data(), plan.full_pairs,
                               detail::AngleSink{out + plan.sin_offset, out + plan.cos_offset, row_stride,
                                                 plan.elem_stride, 1.0}));
  }
  if (plan.extra_sine) {
    POSENC_RETURN_IF_ERROR(run(freq.data() + plan.full_pairs, 1,
                               detail::AngleSink{out + plan.extra_sine_column, nullptr, row_stride, 1, 1.0}));
  }
  return {};
}

/// Every angle of these positions must be finite (detail/derived.hpp).
Status check_angles(const Positions& positions, std::size_t batch, std::size_t seq, const std::vector<double>& freq) {
  return detail::check_angles(positions.is_range() ? "the positions offset .. offset + length - 1" : "positionIds",
                              detail::max_abs_position(positions, batch, seq), freq.data(), freq.size());
}

}  // namespace

Status validate(const SinusoidalParams& p) {
  if (p.dim < 1) return detail::invalid("dim must be an integer >= 1, got " + std::to_string(p.dim));
  POSENC_RETURN_IF_ERROR(detail::check_positive("base", p.base));
  if (p.layout != SinusoidLayout::interleaved && p.layout != SinusoidLayout::half) {
    return detail::invalid("layout must be 'interleaved' or 'half'");
  }
  if (p.precision != SinusoidPrecision::exact && p.precision != SinusoidPrecision::fast) {
    return detail::invalid("precision must be 'exact' or 'fast'");
  }
  return {};
}

double sinusoid_frequency(const SinusoidalParams& p, int pair) {
  return std::pow(p.base, -2.0 * static_cast<double>(pair) / static_cast<double>(p.dim));
}

Status sinusoidal_frequencies(const SinusoidalParams& p, double* out) {
  POSENC_RETURN_IF_ERROR(validate(p));
  if (out == nullptr) return detail::invalid("out must be given");
  std::vector<double> freq;
  POSENC_RETURN_IF_ERROR(detail::sinusoid_frequencies(p, &freq));
  std::copy(freq.begin(), freq.end(), out);
  return {};
}

Status sinusoidal_table(const SinusoidalParams& p, const Positions& positions, std::size_t count, float* out) {
  POSENC_RETURN_IF_ERROR(validate(p));
  POSENC_RETURN_IF_ERROR(detail::check_size("length", count));
  if (positions.per_batch) return detail::invalid("positionIds must be one list for a table, not one per batch row");
  POSENC_RETURN_IF_ERROR(detail::check_positions_finite(positions, 1, count));
  std::size_t total = 0;
  POSENC_RETURN_IF_ERROR(detail::checked_product({count, static_cast<std::size_t>(p.dim)}, "the table", &total));
  std::vector<double> freq;
  POSENC_RETURN_IF_ERROR(detail::sinusoid_frequencies(p, &freq));
  POSENC_RETURN_IF_ERROR(check_angles(positions, 1, count, freq));
  return write_rows(p, freq, positions, 0, count, out, static_cast<std::size_t>(p.dim));
}

Status sinusoidal_add(const SinusoidalParams& p, const Positions& positions, std::size_t batch, std::size_t seq,
                      float* x) {
  POSENC_RETURN_IF_ERROR(validate(p));
  POSENC_RETURN_IF_ERROR(detail::check_size("batch", batch));
  POSENC_RETURN_IF_ERROR(detail::check_size("seq", seq));
  POSENC_RETURN_IF_ERROR(detail::check_positions_finite(positions, batch, seq));
  const std::size_t d = static_cast<std::size_t>(p.dim);
  std::size_t total = 0;
  POSENC_RETURN_IF_ERROR(detail::checked_product({batch, seq, d}, "x", &total));

  std::vector<double> freq;
  POSENC_RETURN_IF_ERROR(detail::sinusoid_frequencies(p, &freq));
  POSENC_RETURN_IF_ERROR(check_angles(positions, batch, seq, freq));
  if (p.precision == SinusoidPrecision::fast && positions.is_range() && seq >= 2 * detail::kAnchorRows &&
      detail::range_steps_exactly(freq.data(), freq.size(), positions.offset, seq)) {
    // The fast rows' anchor and offset blocks for these positions, added straight into every
    // batch row: no full rows are written anywhere (the rows equal sinusoidal_table's).
    std::size_t floats = 0;
    POSENC_RETURN_IF_ERROR(anchored_table_floats(seq, d, &floats));
    std::vector<float> storage;
    POSENC_RETURN_IF_ERROR(detail::allocate(storage, floats));
    POSENC_RETURN_IF_ERROR(detail::build_anchored_rows(p, freq, positions.offset, seq, storage.data()));
    const detail::AnchoredBlocks blocks(storage.data(), seq, d);
    for (std::size_t b = 0; b < batch; ++b) {
      for (std::size_t t = 0; t < seq; ++t) blocks.add_row(t, x + (b * seq + t) * d);
    }
    return {};
  }
  // Tokens are encoded a chunk at a time into scratch rows (at most ~256 KB), then added to every
  // batch row that shares those positions.
  const std::size_t chunk = std::clamp<std::size_t>((std::size_t{1} << 16) / d, 1, 64);
  std::vector<float> rows;
  POSENC_RETURN_IF_ERROR(detail::allocate(rows, std::min(chunk, seq) * d));
  const std::size_t groups = positions.per_batch ? batch : 1;
  const std::size_t rows_per_group = positions.per_batch ? 1 : batch;
  for (std::size_t g = 0; g < groups; ++g) {
    const Positions row_positions =
        positions.per_batch ? Positions::list(positions.ids + g * seq) : positions;
    for (std::size_t s0 = 0; s0 < seq; s0 += chunk) {
      const std::size_t n = std::min(chunk, seq - s0);
      POSENC_RETURN_IF_ERROR(write_rows(p, freq, row_positions, s0, n, rows.data(), d));
      for (std::size_t r = 0; r < rows_per_group; ++r) {
        const std::size_t b = g + r;
        kernels::add(x + (b * seq + s0) * d, rows.data(), n * d);
      }
    }
  }
  return {};
}

}  // namespace posenc
