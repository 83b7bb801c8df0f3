// Rotary position embedding (Su et al. 2021, RoFormer): each pair (a, b) of a q or k head is
// rotated by theta_i = p * w_i, w_i = base^(-2i/r) (r = rotaryDim). Angles are formed and their
// cosines/sines evaluated in double precision (HF and ggml use float32, which costs several hundredths
// at position 1e6; see docs/encodings.md#82-precision), so only the final rotated values carry float rounding.
#include "posenc/rope.hpp"

#include <algorithm>
#include <cmath>

#include "encodings/detail/angle_rows.hpp"
#include "encodings/detail/checks.hpp"
#include "encodings/detail/derived.hpp"
#include "encodings/detail/rope_driver.hpp"
#include "encodings/detail/rope_rows.hpp"

namespace posenc {
namespace {

Status check_rotation(const RopeRotation& r) {
  if (r.inv_freq == nullptr) return detail::invalid("invFreq must be given");
  const std::size_t pairs = static_cast<std::size_t>(std::max(r.rotary_dim, 0)) / 2;
  for (std::size_t i = 0; i < pairs; ++i) {
    if (!std::isfinite(r.inv_freq[i])) {
      return detail::invalid("invFreq[" + std::to_string(i) + "] must be a finite number, got " +
                             detail::format_number(r.inv_freq[i]));
    }
  }
  POSENC_RETURN_IF_ERROR(detail::check_positive("attentionFactor", r.attention_factor));
  return detail::check_output_scale("the scale of cos and sin", r.attention_factor, {"attentionFactor", r.attention_factor});
}

}  // namespace

double rope_length_of(const Positions& positions, std::size_t batch, std::size_t seq) {
  if (positions.is_range()) return positions.offset + static_cast<double>(seq);
  const std::size_t n = positions.per_batch ? batch * seq : seq;
  double last = positions.ids[0];
  for (std::size_t i = 1; i < n; ++i) last = std::fmax(last, positions.ids[i]);
  return last + 1.0;
}

Status rope_apply(const RopeConfig& config, Pairing pairing, const Positions& positions, const RopeTensors& t) {
  POSENC_RETURN_IF_ERROR(detail::check_rope_tensors(t, pairing, config.rotary_dim));
  POSENC_RETURN_IF_ERROR(detail::check_positions_finite(positions, t.batch, t.seq));
  RopeFrequencies freq;
  POSENC_RETURN_IF_ERROR(rope_frequencies_at(config, rope_length_of(positions, t.batch, t.seq), &freq));
  return rope_apply(RopeRotation{pairing, config.rotary_dim, freq.inv_freq.data(), freq.attention_factor}, positions, t);
}

Status rope_apply(const RopeRotation& rotation, const Positions& positions, const RopeTensors& t) {
  POSENC_RETURN_IF_ERROR(detail::check_rope_tensors(t, rotation.pairing, rotation.rotary_dim));
  POSENC_RETURN_IF_ERROR(check_rotation(rotation));
  POSENC_RETURN_IF_ERROR(detail::check_positions_finite(positions, t.batch, t.seq));

  const auto pairs = static_cast<std::size_t>(rotation.rotary_dim / 2);
  detail::AngleRows rows;
  POSENC_RETURN_IF_ERROR(rows.init(rotation.inv_freq, pairs, rotation.attention_factor, rotation.pairing,
                                   detail::single_axis(positions), nullptr, t.batch, t.seq));
  detail::drive_rope(t, {rotation.pairing, pairs}, positions.per_batch, rows);
  return {};
}

Status rope_angles(const RopeConfig& config, const double* positions, std::size_t count, double* out) {
  if (positions == nullptr || out == nullptr) return detail::invalid("positionIds must be given");
  POSENC_RETURN_IF_ERROR(detail::check_size("positionIds length", count));
  POSENC_RETURN_IF_ERROR(detail::check_positions_finite(Positions::list(positions), 1, count));
  RopeFrequencies freq;
  POSENC_RETURN_IF_ERROR(rope_frequencies_at(config, rope_length_of(Positions::list(positions), 1, count), &freq));
  const std::size_t pairs = freq.inv_freq.size();
  std::size_t total = 0;
  POSENC_RETURN_IF_ERROR(detail::checked_product({count, pairs}, "the angles", &total));
  POSENC_RETURN_IF_ERROR(detail::check_angles("positionIds", detail::max_abs_position(Positions::list(positions), 1, count),
                                              freq.inv_freq.data(), pairs));
  for (std::size_t t = 0; t < count; ++t) {
    for (std::size_t i = 0; i < pairs; ++i) out[t * pairs + i] = positions[t] * freq.inv_freq[i];
  }
  return {};
}

Status rope_fill_table(const RopeRotation& rotation, std::size_t rows, float* cos, float* sin) {
  if (rotation.rotary_dim < 2 || rotation.rotary_dim % 2 != 0) {
    return detail::invalid("rotaryDim must be an even integer >= 2, got " + std::to_string(rotation.rotary_dim));
  }
  POSENC_RETURN_IF_ERROR(check_rotation(rotation));
  POSENC_RETURN_IF_ERROR(detail::check_size("maxPositions", rows));
  const auto pairs = static_cast<std::size_t>(rotation.rotary_dim / 2);
  std::size_t total = 0;
  POSENC_RETURN_IF_ERROR(detail::checked_product({rows, pairs}, "the cos/sin table", &total));
  POSENC_RETURN_IF_ERROR(detail::check_angles("the table's positions 0 .. maxPositions - 1", static_cast<double>(rows - 1),
                                              rotation.inv_freq, pairs));
  detail::angle_rows_range(rotation.inv_freq, pairs, 0.0, rows,
                           detail::AngleSink{sin, cos, pairs, 1, rotation.attention_factor});
  return {};
}

void rope_expand_interleaved(const float* cos, const float* sin, std::size_t n, float* cos2, float* sin2) {
  detail::expand_interleaved(cos, sin, n, cos2, sin2);
}

Status rope_apply_table(const RopeTable& table, Pairing pairing, int rotary_dim, const Positions& positions,
                        const RopeTensors& t) {
  POSENC_RETURN_IF_ERROR(detail::check_rope_tensors(t, pairing, rotary_dim));
  if (table.cos == nullptr || table.sin == nullptr) return detail::invalid("cos and sin tables must be given");
  POSENC_RETURN_IF_ERROR(detail::check_size("table rows", table.rows));
  if (static_cast<std::size_t>(rotary_dim) != 2 * table.pairs) {
    return detail::error(StatusCode::shape_mismatch, "the cos/sin tables have " + std::to_string(table.pairs) +
                                                         " values per row, but rotaryDim " +
                                                         std::to_string(rotary_dim) + " needs rotaryDim/2 = " +
                                                         std::to_string(rotary_dim / 2));
  }
  if ((table.cos2 == nullptr) != (table.sin2 == nullptr)) return detail::invalid("cos2 and sin2 must be given together");
  POSENC_RETURN_IF_ERROR(detail::check_row_ids(table.rows, positions, t.batch, t.seq));

  detail::TableRows rows(table, pairing, positions, t.seq);
  POSENC_RETURN_IF_ERROR(rows.allocate());
  detail::drive_rope(t, {pairing, table.pairs}, positions.per_batch, rows);
  return {};
}

}  // namespace posenc
