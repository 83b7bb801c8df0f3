// 2-D axial RoPE, M-RoPE and xPos: the RoPE driver with other rows (a per-pair position axis; xPos's
// distinct q and k rows).
//
//   2-D axial  lucidrains rotary-embedding-torch `get_axial_freqs`: one RoPE per image axis, the
//              blocks concatenated (rows first), pairs interleaved inside each block.
//   M-RoPE     Qwen2-VL (Wang et al. 2024, sec. 2.1), HF `apply_multimodal_rotary_pos_emb`: the
//              pairs are split into temporal/height/width sections, each driven by its own id;
//              Qwen3-VL's interleaved slots (HF `apply_interleaved_mrope`), see rope_axes.hpp.
//   xPos       Sun et al. 2022, eq. 7: q scaled by zeta^((m-c)/B), k by zeta^(-(n-c)/B), per pair.
// Angles are formed and their cos/sin evaluated in double precision, as everywhere in RoPE.
#include "posenc/rope_forms.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "encodings/detail/checks.hpp"
#include "encodings/detail/derived.hpp"
#include "encodings/detail/rope_axes.hpp"
#include "encodings/detail/rope_driver.hpp"
#include "encodings/detail/rope_rows.hpp"
#include "kernels/kernels.hpp"

namespace posenc {
namespace {

constexpr double kPi = 3.14159265358979323846;

/// Rotates q and k with pair i's angle = position[axis_of_pair[i]] * freq[i], cos/sin times `scale`.
Status apply_mapped(const std::vector<double>& freq, const std::vector<std::size_t>& axis_of_pair, double scale,
                    Pairing pairing, const AxisPositions& pos, const RopeTensors& t) {
  detail::AngleRows rows;
  POSENC_RETURN_IF_ERROR(rows.init(freq.data(), freq.size(), scale, pairing, pos, axis_of_pair.data(), t.batch, t.seq));
  detail::drive_rope(t, {pairing, freq.size()}, pos.per_batch, rows);
  return {};
}

/// xPos's rows (the driver's row source): RoPE's cos/sin times zeta_i^((p - c)/B) for queries and
/// zeta_i^(-(p - c)/B) for keys, in double, rounded once.
class XPosRows {
 public:
  Status init(const RopeFrequencies& freq, int rotary_dim, Pairing pairing, const XPosConfig& xpos,
              const Positions& positions, std::size_t batch, std::size_t seq) {
    freq_ = &freq;
    pairing_ = pairing;
    positions_ = &positions;
    seq_ = seq;
    scale_base_ = xpos.scale_base;
    center_ = xpos.center.value_or(std::floor(static_cast<double>(seq) / 2.0));
    const std::size_t pairs = freq.inv_freq.size();
    POSENC_RETURN_IF_ERROR(detail::allocate(log_zeta_, pairs));
    POSENC_RETURN_IF_ERROR(detail::allocate(angle_, pairs));
    POSENC_RETURN_IF_ERROR(detail::allocate(s_, pairs));
    POSENC_RETURN_IF_ERROR(detail::allocate(c_, pairs));
    const double r = rotary_dim;
    for (std::size_t i = 0; i < pairs; ++i) {
      log_zeta_[i] = std::log((2.0 * static_cast<double>(i) + xpos.gamma * r) / ((1.0 + xpos.gamma) * r));
    }
    POSENC_RETURN_IF_ERROR(check_scales(positions, batch, seq));
    POSENC_RETURN_IF_ERROR(q_rows_.allocate(pairs, pairing, true));
    return k_rows_.allocate(pairs, pairing, true);
  }

  /// The angles and the largest scale factor * zeta_i^(|p - c| / B) of any token must be finite
  /// (and the scale at most FLT_MAX: it multiplies float32 rows).
  Status check_scales(const Positions& positions, std::size_t batch, std::size_t seq) const {
    const std::size_t pairs = freq_->inv_freq.size();
    POSENC_RETURN_IF_ERROR(detail::check_angles(positions.is_range() ? "the positions offset .. offset + seq - 1" : "positionIds",
                                                detail::max_abs_position(positions, batch, seq), freq_->inv_freq.data(), pairs));
    double distance = 0.0;  // the largest |p - c|
    if (positions.is_range()) {
      distance = std::fmax(std::fabs(positions.offset - center_),
                           std::fabs(positions.offset + static_cast<double>(seq - 1) - center_));
    } else {
      const std::size_t n = positions.per_batch ? batch * seq : seq;
      for (std::size_t i = 0; i < n; ++i) distance = std::fmax(distance, std::fabs(positions.ids[i] - center_));
    }
    double log_zeta = 0.0;
    for (double l : log_zeta_) log_zeta = std::fmax(log_zeta, std::fabs(l));
    const double widest = freq_->attention_factor * std::exp(distance / scale_base_ * log_zeta);
    return detail::check_output_scale("the xPos scale zeta^(|position - center| / scaleBase) of some token", widest,
                                      {"scaleBase", scale_base_});
  }

  detail::ChunkRowPointers chunk(std::size_t g, std::size_t s0, std::size_t count) {
    const std::size_t pairs = freq_->inv_freq.size();
    const double factor = freq_->attention_factor;
    for (std::size_t j = 0; j < count; ++j) {
      const double p = positions_->at(g, s0 + j, seq_);
      for (std::size_t i = 0; i < pairs; ++i) angle_[i] = p * freq_->inv_freq[i];
      kernels::sincos(angle_.data(), pairs, s_.data(), c_.data());
      const double power = (p - center_) / scale_base_;
      float* qc = q_rows_.cos.data() + j * pairs;
      float* qs = q_rows_.sin.data() + j * pairs;
      float* kc = k_rows_.cos.data() + j * pairs;
      float* ks = k_rows_.sin.data() + j * pairs;
      for (std::size_t i = 0; i < pairs; ++i) {
        const double up = factor * std::exp(power * log_zeta_[i]);
        const double down = factor * std::exp(-power * log_zeta_[i]);
        qc[i] = static_cast<float>(c_[i] * up);
        qs[i] = static_cast<float>(s_[i] * up);
        kc[i] = static_cast<float>(c_[i] * down);
        ks[i] = static_cast<float>(s_[i] * down);
      }
      q_rows_.point(j, qc, qs, pairs, pairing_);
      k_rows_.point(j, kc, ks, pairs, pairing_);
    }
    return {q_rows_.cos_ptr, q_rows_.sin_ptr, k_rows_.cos_ptr, k_rows_.sin_ptr};
  }

 private:
  const RopeFrequencies* freq_ = nullptr;
  Pairing pairing_ = Pairing::half;
  const Positions* positions_ = nullptr;
  std::size_t seq_ = 0;
  double scale_base_ = 1.0, center_ = 0.0;
  std::vector<double> log_zeta_, angle_, s_, c_;
  detail::ChunkRows q_rows_, k_rows_;
};

}  // namespace

Status rope_axial_inv_freq(const RopeAxialConfig& c, std::vector<double>* inv_freq) {
  if (c.rotary_dim < 4 || c.rotary_dim % 4 != 0) {
    return detail::invalid("rotaryDim must be a multiple of 4 for 2-D RoPE (two axis blocks of even width), got " +
                           std::to_string(c.rotary_dim));
  }
  const int axis_dim = c.rotary_dim / 2;
  const auto n = static_cast<std::size_t>(axis_dim / 2);
  if (c.freqs == AxialFrequencies::lang) return rope_default_inv_freq(axis_dim, c.base, inv_freq);
  if (c.freqs != AxialFrequencies::pixel) return detail::invalid("freqs must be 'lang' or 'pixel'");
  POSENC_RETURN_IF_ERROR(detail::check_positive("maxFreq", c.max_freq));
  POSENC_RETURN_IF_ERROR(detail::allocate(*inv_freq, n));
  const double last = c.max_freq / 2.0;  // linspace(1, maxFreq/2, n) * pi
  for (std::size_t k = 0; k < n; ++k) {
    const double step = n == 1 ? 0.0 : static_cast<double>(k) / static_cast<double>(n - 1);
    (*inv_freq)[k] = kPi * (1.0 + (last - 1.0) * step);
  }
  return {};
}

Status rope_axial_grid(std::size_t rows, std::size_t cols, AxialFrequencies freqs, std::vector<double>* ids) {
  POSENC_RETURN_IF_ERROR(detail::check_size("grid[0]", rows));
  POSENC_RETURN_IF_ERROR(detail::check_size("grid[1]", cols));
  std::size_t n = 0;
  POSENC_RETURN_IF_ERROR(detail::checked_product({2, rows, cols}, "grid", &n));
  POSENC_RETURN_IF_ERROR(detail::allocate(*ids, n));
  auto coordinate = [freqs](std::size_t index, std::size_t count) {
    if (freqs == AxialFrequencies::lang) return static_cast<double>(index);
    return count == 1 ? -1.0 : -1.0 + 2.0 * static_cast<double>(index) / static_cast<double>(count - 1);
  };
  const std::size_t tokens = rows * cols;
  for (std::size_t s = 0; s < tokens; ++s) {
    (*ids)[s] = coordinate(s / cols, rows);
    (*ids)[tokens + s] = coordinate(s % cols, cols);
  }
  return {};
}

Status rope_apply_axial(const RopeAxialConfig& config, const AxisPositions& positions, const RopeTensors& t) {
  POSENC_RETURN_IF_ERROR(detail::check_rope_tensors(t, Pairing::interleaved, config.rotary_dim));
  std::vector<double> axis_freq;
  POSENC_RETURN_IF_ERROR(rope_axial_inv_freq(config, &axis_freq));
  if (positions.axes != 2) {
    return detail::error(StatusCode::shape_mismatch, "2-D RoPE needs 2 position axes (row, column), got " +
                                                         std::to_string(positions.axes));
  }
  POSENC_RETURN_IF_ERROR(detail::check_axis_positions(positions, t.batch, t.seq));
  const std::size_t per_axis = axis_freq.size();
  std::vector<double> freq;
  std::vector<std::size_t> axis_of_pair;  // the row block, then the column block
  POSENC_RETURN_IF_ERROR(detail::allocate(freq, 2 * per_axis));
  POSENC_RETURN_IF_ERROR(detail::allocate(axis_of_pair, 2 * per_axis));
  for (std::size_t i = 0; i < 2 * per_axis; ++i) {
    freq[i] = axis_freq[i % per_axis];
    axis_of_pair[i] = i / per_axis;
  }
  return apply_mapped(freq, axis_of_pair, 1.0, Pairing::interleaved, positions, t);
}

Status rope_apply_multimodal(const RopeConfig& config, Pairing pairing, const std::vector<int>& sections,
                             const AxisPositions& positions, const RopeTensors& t, bool interleaved) {
  POSENC_RETURN_IF_ERROR(detail::check_rope_tensors(t, pairing, config.rotary_dim));
  const auto pairs = static_cast<std::size_t>(config.rotary_dim / 2);
  std::vector<std::size_t> axis_of_pair;
  POSENC_RETURN_IF_ERROR(detail::mrope_axis_map(sections, interleaved, pairs, &axis_of_pair));
  if (positions.axes != sections.size()) {
    return detail::error(StatusCode::shape_mismatch, "positionIds must have one row per mropeSection entry (" +
                                                         std::to_string(sections.size()) + "), got " +
                                                         std::to_string(positions.axes));
  }
  POSENC_RETURN_IF_ERROR(detail::check_axis_positions(positions, t.batch, t.seq));
  RopeFrequencies freq;
  POSENC_RETURN_IF_ERROR(rope_frequencies_at(config, detail::axis_length_of(positions, t.batch, t.seq), &freq));
  return apply_mapped(freq.inv_freq, axis_of_pair, freq.attention_factor, pairing, positions, t);
}

Status rope_apply_xpos(const RopeConfig& config, Pairing pairing, const XPosConfig& xpos, const Positions& positions,
                       const RopeTensors& t) {
  POSENC_RETURN_IF_ERROR(detail::check_rope_tensors(t, pairing, config.rotary_dim));
  POSENC_RETURN_IF_ERROR(detail::check_positive("gamma", xpos.gamma));
  POSENC_RETURN_IF_ERROR(detail::check_positive("scaleBase", xpos.scale_base));
  if (xpos.center) POSENC_RETURN_IF_ERROR(detail::check_finite("center", *xpos.center));
  POSENC_RETURN_IF_ERROR(detail::check_positions_finite(positions, t.batch, t.seq));
  RopeFrequencies freq;
  POSENC_RETURN_IF_ERROR(rope_frequencies_at(config, rope_length_of(positions, t.batch, t.seq), &freq));

  XPosRows rows;
  POSENC_RETURN_IF_ERROR(rows.init(freq, config.rotary_dim, pairing, xpos, positions, t.batch, t.seq));
  detail::drive_rope(t, {pairing, freq.inv_freq.size()}, positions.per_batch, rows);
  return {};
}

}  // namespace posenc
