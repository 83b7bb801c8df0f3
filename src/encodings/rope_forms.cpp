// 2-D axial RoPE, M-RoPE and xPos: the rotation of rope.cpp with other angle and scale rows.
//
//   2-D axial  lucidrains rotary-embedding-torch `get_axial_freqs`: one RoPE per image axis, the
//              blocks concatenated (rows first), pairs interleaved inside each block.
//   M-RoPE     Qwen2-VL (Wang et al. 2024, sec. 2.1), HF `apply_multimodal_rotary_pos_emb`: the
//              pairs are split into temporal/height/width sections, each driven by its own id.
//   xPos       Sun et al. 2022, eq. 7: q scaled by zeta^((m-c)/B), k by zeta^(-(n-c)/B), per pair.
// Angles are formed and their cos/sin evaluated in double precision, as everywhere in RoPE.
#include "posenc/rope_forms.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "encodings/detail/angle_rows.hpp"
#include "encodings/detail/checks.hpp"
#include "encodings/detail/rope_driver.hpp"
#include "kernels/kernels.hpp"

namespace posenc {
namespace {

constexpr double kPi = 3.14159265358979323846;

/// A run of pairs [begin, end) whose angles use position axis `axis`.
struct Section {
  std::size_t begin, end, axis;
};

Status check_axis_positions(const AxisPositions& p, std::size_t batch, std::size_t seq) {
  if (p.ids == nullptr) return detail::check_positions_finite(Positions::range(p.offset), batch, seq);
  std::size_t n = 0;
  POSENC_RETURN_IF_ERROR(detail::checked_product({p.axes, p.per_batch ? batch : 1, seq}, "positionIds", &n));
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(p.ids[i])) {
      return detail::invalid("positionIds[" + std::to_string(i) + "] must be a finite number, got " +
                             detail::format_number(p.ids[i]));
    }
  }
  return {};
}

/// max(id) + 1 over every axis and token: HF's current length for [3, batch, seq] ids.
double length_of(const AxisPositions& p, std::size_t batch, std::size_t seq) {
  if (p.ids == nullptr) return p.offset + static_cast<double>(seq);
  const std::size_t n = p.axes * (p.per_batch ? batch : 1) * seq;
  return *std::max_element(p.ids, p.ids + n) + 1.0;
}

/// Rotates q and k with pair i's angle = position[axis of i's section] * freq[i], cos/sin times `scale`.
Status apply_sections(const std::vector<double>& freq, const std::vector<Section>& sections, double scale,
                      Pairing pairing, const AxisPositions& pos, const RopeTensors& t) {
  const std::size_t pairs = freq.size();
  detail::ChunkRows rows;
  POSENC_RETURN_IF_ERROR(rows.allocate(pairs, pairing, true));
  double range[detail::kRopeChunkTokens];
  const std::size_t groups = pos.per_batch ? t.batch : 1;
  const std::size_t rows_per_group = pos.per_batch ? 1 : t.batch;
  for (std::size_t g = 0; g < groups; ++g) {
    for (std::size_t s0 = 0; s0 < t.seq; s0 += detail::kRopeChunkTokens) {
      const std::size_t n = std::min(detail::kRopeChunkTokens, t.seq - s0);
      for (std::size_t j = 0; j < n; ++j) range[j] = pos.offset + static_cast<double>(s0 + j);
      for (const Section& sec : sections) {
        if (sec.end == sec.begin) continue;
        const double* p = pos.ids == nullptr ? range : pos.row(sec.axis, g, t.batch, t.seq) + s0;
        const detail::AngleSink sink{rows.sin.data() + sec.begin, rows.cos.data() + sec.begin, pairs, 1, scale};
        detail::angle_rows_list(freq.data() + sec.begin, sec.end - sec.begin, p, n, sink);
      }
      for (std::size_t j = 0; j < n; ++j) {
        rows.point(j, rows.cos.data() + j * pairs, rows.sin.data() + j * pairs, pairs, pairing);
      }
      for (std::size_t r = 0; r < rows_per_group; ++r) {
        detail::rotate_tokens(t, pairing, pairs, g + r, s0, n, rows.cos_ptr, rows.sin_ptr);
      }
    }
  }
  return {};
}

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
  POSENC_RETURN_IF_ERROR(check_axis_positions(positions, t.batch, t.seq));
  const std::size_t per_axis = axis_freq.size();
  std::vector<double> freq;
  POSENC_RETURN_IF_ERROR(detail::allocate(freq, 2 * per_axis));
  std::copy(axis_freq.begin(), axis_freq.end(), freq.begin());
  std::copy(axis_freq.begin(), axis_freq.end(), freq.begin() + static_cast<std::ptrdiff_t>(per_axis));
  return apply_sections(freq, {{0, per_axis, 0}, {per_axis, 2 * per_axis, 1}}, 1.0, Pairing::interleaved, positions, t);
}

Status rope_apply_multimodal(const RopeConfig& config, Pairing pairing, const std::vector<int>& sections,
                             const AxisPositions& positions, const RopeTensors& t) {
  POSENC_RETURN_IF_ERROR(detail::check_rope_tensors(t, pairing, config.rotary_dim));
  if (sections.empty()) return detail::invalid("mropeSection must hold at least one section");
  std::vector<Section> runs;
  std::size_t next = 0;
  for (std::size_t a = 0; a < sections.size(); ++a) {
    if (sections[a] < 0) {
      return detail::invalid("mropeSection[" + std::to_string(a) + "] must be an integer >= 0, got " +
                             std::to_string(sections[a]));
    }
    runs.push_back({next, next + static_cast<std::size_t>(sections[a]), a});
    next += static_cast<std::size_t>(sections[a]);
  }
  const auto pairs = static_cast<std::size_t>(config.rotary_dim / 2);
  if (next != pairs) {
    return detail::error(StatusCode::shape_mismatch, "mropeSection must sum to rotaryDim/2 = " +
                                                         std::to_string(pairs) + ", got " + std::to_string(next));
  }
  if (positions.axes != sections.size()) {
    return detail::error(StatusCode::shape_mismatch, "positionIds must have one row per mropeSection entry (" +
                                                         std::to_string(sections.size()) + "), got " +
                                                         std::to_string(positions.axes));
  }
  POSENC_RETURN_IF_ERROR(check_axis_positions(positions, t.batch, t.seq));
  RopeFrequencies freq;
  POSENC_RETURN_IF_ERROR(rope_frequencies_at(config, length_of(positions, t.batch, t.seq), &freq));
  return apply_sections(freq.inv_freq, runs, freq.attention_factor, pairing, positions, t);
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

  const std::size_t pairs = freq.inv_freq.size();
  const double r = config.rotary_dim;
  std::vector<double> log_zeta, angle, s, c;
  POSENC_RETURN_IF_ERROR(detail::allocate(log_zeta, pairs));
  POSENC_RETURN_IF_ERROR(detail::allocate(angle, pairs));
  POSENC_RETURN_IF_ERROR(detail::allocate(s, pairs));
  POSENC_RETURN_IF_ERROR(detail::allocate(c, pairs));
  for (std::size_t i = 0; i < pairs; ++i) {
    log_zeta[i] = std::log((2.0 * static_cast<double>(i) + xpos.gamma * r) / ((1.0 + xpos.gamma) * r));
  }
  const double center = xpos.center.value_or(std::floor(static_cast<double>(t.seq) / 2.0));

  detail::ChunkRows q_rows, k_rows;
  POSENC_RETURN_IF_ERROR(q_rows.allocate(pairs, pairing, true));
  POSENC_RETURN_IF_ERROR(k_rows.allocate(pairs, pairing, true));
  const std::size_t groups = positions.per_batch ? t.batch : 1;
  const std::size_t rows_per_group = positions.per_batch ? 1 : t.batch;
  for (std::size_t g = 0; g < groups; ++g) {
    for (std::size_t s0 = 0; s0 < t.seq; s0 += detail::kRopeChunkTokens) {
      const std::size_t n = std::min(detail::kRopeChunkTokens, t.seq - s0);
      for (std::size_t j = 0; j < n; ++j) {
        const double p = positions.at(g, s0 + j, t.seq);
        for (std::size_t i = 0; i < pairs; ++i) angle[i] = p * freq.inv_freq[i];
        kernels::sincos(angle.data(), pairs, s.data(), c.data());
        const double power = (p - center) / xpos.scale_base;
        float* qc = q_rows.cos.data() + j * pairs;
        float* qs = q_rows.sin.data() + j * pairs;
        float* kc = k_rows.cos.data() + j * pairs;
        float* ks = k_rows.sin.data() + j * pairs;
        for (std::size_t i = 0; i < pairs; ++i) {
          const double up = freq.attention_factor * std::exp(power * log_zeta[i]);
          const double down = freq.attention_factor * std::exp(-power * log_zeta[i]);
          qc[i] = static_cast<float>(c[i] * up);
          qs[i] = static_cast<float>(s[i] * up);
          kc[i] = static_cast<float>(c[i] * down);
          ks[i] = static_cast<float>(s[i] * down);
        }
        q_rows.point(j, qc, qs, pairs, pairing);
        k_rows.point(j, kc, ks, pairs, pairing);
      }
      for (std::size_t rr = 0; rr < rows_per_group; ++rr) {
        detail::rotate_tokens(t, pairing, pairs, g + rr, s0, n, q_rows.cos_ptr, q_rows.sin_ptr, k_rows.cos_ptr,
                              k_rows.sin_ptr);
      }
    }
  }
  return {};
}

}  // namespace posenc
