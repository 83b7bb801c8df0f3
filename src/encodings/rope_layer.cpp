// One model layer's RoPE form on q and k (docs/encodings.md#812-proportional-rope-gemma-4 to #816-query-scaling-by-position-llama-4-ministral-3): the form says which lanes
// rotate (rope_driver.hpp RopeLanes), with which frequencies and along which position axis
// (rope_axes.hpp), and whether q's rows carry a query scale (rope_query_rows.hpp); the RoPE driver
// does the rest. Sources, restated:
//   proportional  HF modeling_rope_utils.py _compute_proportional_rope_parameters (Gemma 4):
//                 rope_angles = int(partial * head_dim // 2) frequencies base^(-2i/head_dim) / factor,
//                 zeros for the other pairs of the half pairing over the whole head.
//   mrope         HF Qwen2-VL apply_multimodal_rotary_pos_emb; Qwen3-VL apply_interleaved_mrope.
//   decoupled     HF DeepseekV2Attention / DeepseekV3Attention: q = [q_nope, q_rot], the key's
//                 rotary part shared by every head; rope_interleave: apply_rotary_pos_emb_interleave.
//   pixtral       HF PixtralRotaryEmbedding: freqs = base^(-2j/head_dim); row ids with freqs[::2]
//                 on the first half of the pairs, column ids with freqs[1::2] on the second.
//   query scale   HF Llama4TextAttention.forward (attn_temperature_tuning), Ministral 3
//                 get_llama_4_attn_scale.
#include "posenc/rope_layer.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>

#include "encodings/detail/checks.hpp"
#include "encodings/detail/rope_axes.hpp"
#include "encodings/detail/rope_driver.hpp"
#include "encodings/detail/rope_query_rows.hpp"
#include "encodings/detail/rope_rows.hpp"

namespace posenc {
namespace {

Status check_query_scale(const QueryScale& q) {
  POSENC_RETURN_IF_ERROR(detail::check_finite("queryScale.scale", q.scale));
  POSENC_RETURN_IF_ERROR(detail::check_positive("queryScale.floorScale", q.floor_scale));
  return detail::check_finite("queryScale.positionOffset", q.position_offset);
}

/// The query scale at every token's position must be finite and fit float32 (it multiplies float32
/// queries). It is monotonic in the position, so the first and last positions bound it; a position
/// where floor((p + positionOffset) / floorScale) < 0 makes log1p -Infinity or NaN.
Status check_query_scales(const QueryScale& q, const Positions& positions, std::size_t batch, std::size_t seq) {
  double lowest = positions.offset;
  double highest = positions.offset + static_cast<double>(seq - 1);
  if (!positions.is_range()) {
    const std::size_t n = positions.per_batch ? batch * seq : seq;
    const auto [lo, hi] = std::minmax_element(positions.ids, positions.ids + n);
    lowest = *lo;
    highest = *hi;
  }
  for (double p : {lowest, highest}) {
    const double v = query_scale_at(q, p);
    if (!std::isfinite(v) || std::fabs(v) > FLT_MAX) {
      return detail::invalid("position " + detail::format_number(p) +
                             " makes the query scale 1 + scale * log1p(floor((p + positionOffset) / floorScale)) " +
                             detail::format_number(v) + " (it multiplies float32 queries, so it must be finite and "
                             "at most 3.4028235e+38 in magnitude)");
    }
  }
  return {};
}

/// The lanes `form` rotates when its spec has rotary_dim `r`.
Status layer_lanes(const RopeLayerForm& form, int r, RopeHeadLanes* out) {
  if (r < 2 || r % 2 != 0) return detail::invalid("rotaryDim must be an even integer >= 2, got " + std::to_string(r));
  const auto half = static_cast<std::size_t>(r / 2);
  *out = RopeHeadLanes{form.pairing, half, 0, 0, false};
  switch (form.kind) {
    case RopeFormKind::standard:
    case RopeFormKind::mrope:
    case RopeFormKind::pixtral:
      return {};
    case RopeFormKind::proportional:
      if (form.rotated_pairs > half) {
        return detail::invalid("rotatedPairs must be at most headDim/2 = " + std::to_string(half) + ", got " +
                               std::to_string(form.rotated_pairs));
      }
      out->pairs = form.rotated_pairs;
      if (form.pairing == Pairing::half) out->half_span = half;
      return {};
    case RopeFormKind::decoupled:
      out->first_lane = form.first_lane;
      if (form.deinterleave) {
        out->pairing = Pairing::half;
        out->deinterleave = true;
      }
      return {};
  }
  return detail::invalid("form must be standard, proportional, mrope, decoupled or pixtral, got " +
                         std::to_string(static_cast<int>(form.kind)));
}

/// The lanes of a head the rotation touches: 2 * pairs, or the two halves the half span reaches.
std::size_t covered_lanes(const RopeHeadLanes& lanes) {
  return lanes.pairing == Pairing::half && lanes.half_span != 0 ? 2 * lanes.half_span : 2 * lanes.pairs;
}

/// Shapes of q/k for `lanes`; forms defined over the whole head want exactly that head (checked as
/// such, so that a proportional layer with no rotated pair is a valid layer).
Status check_layer_tensors(const RopeTensors& t, const RopeLayerForm& form, int r, const RopeHeadLanes& lanes) {
  const bool whole_head = form.kind == RopeFormKind::proportional || form.kind == RopeFormKind::pixtral;
  if (whole_head && t.head_dim != static_cast<std::size_t>(r)) {
    return detail::error(StatusCode::shape_mismatch,
                         std::string(form.kind == RopeFormKind::pixtral ? "Pixtral's 2-D" : "proportional") +
                             " RoPE is defined over the whole head of " + std::to_string(r) +
                             " lanes (its rotaryDim), but the tensors' head size is " + std::to_string(t.head_dim));
  }
  const int lanes_checked = whole_head ? r : static_cast<int>(covered_lanes(lanes));
  return detail::check_rope_tensors(t, lanes.pairing, lanes_checked, lanes.first_lane);
}

/// Multiplies every lane of q (k is not touched) by the query scale at its token's position, each
/// lane once, as HF multiplies the query (no lane reads another: a NaN or an infinity stays where
/// it is). Tokens whose scale is 1 are left as they are.
void scale_query_rows(const QueryScale& scale, const Positions& positions, const RopeTensors& t) {
  const std::size_t d = t.head_dim, heads = t.q_heads;
  for (std::size_t b = 0; b < t.batch; ++b) {
    for (std::size_t s = 0; s < t.seq; ++s) {
      const auto factor = static_cast<float>(query_scale_at(scale, positions.at(b, s, t.seq)));
      if (factor == 1.0f) continue;
      for (std::size_t h = 0; h < heads; ++h) {
        const std::size_t row = t.layout == HeadLayout::bshd ? (b * t.seq + s) * heads + h : (b * heads + h) * t.seq + s;
        float* x = t.q + row * d;
        for (std::size_t j = 0; j < d; ++j) x[j] *= factor;
      }
    }
  }
}

/// Pixtral ids index HF's [patches, patches] table: integers from 0 to patches_per_side - 1.
Status check_patch_ids(const AxisPositions& p, std::size_t patches, std::size_t batch, std::size_t seq) {
  if (p.axes != 2) {
    return detail::error(StatusCode::shape_mismatch,
                         "Pixtral's 2-D RoPE takes 2 position axes (row, column), got " + std::to_string(p.axes));
  }
  if (patches == 0) return {};
  if (p.ids == nullptr) return detail::invalid("Pixtral's 2-D RoPE needs row and column ids, not a range");
  const std::size_t n = 2 * (p.per_batch ? batch : 1) * seq;
  for (std::size_t i = 0; i < n; ++i) {
    const double id = p.ids[i];
    if (id != std::floor(id) || id < 0 || id >= static_cast<double>(patches)) {
      return detail::error(StatusCode::out_of_range, "positionIds[" + std::to_string(i) + "] is " + detail::format_number(id) +
                                                         ": Pixtral's row and column ids are integers from 0 to " +
                                                         std::to_string(patches - 1) + " (image_size / patch_size - 1)");
    }
  }
  return {};
}

/// Rotates with `rows`, wrapped with the query scale when one is given.
template <class Rows>
Status drive(const RopeTensors& t, const RopeHeadLanes& lanes, bool per_batch, Rows& rows, const QueryScale* scale,
             const AxisPositions& positions) {
  if (lanes.pairs == 0) {  // nothing rotates (proportional RoPE with no rotated pair): the query scale alone
    if (scale != nullptr) scale_query_rows(*scale, detail::first_axis(positions), t);
    return {};
  }
  const detail::RopeLanes driver_lanes{lanes.pairing, lanes.pairs, lanes.first_lane, lanes.half_span};
  if (lanes.deinterleave) POSENC_RETURN_IF_ERROR(detail::deinterleave_lanes(t, lanes.first_lane, lanes.pairs));
  if (scale == nullptr) {
    detail::drive_rope(t, driver_lanes, per_batch, rows);
    return {};
  }
  const std::size_t row_floats = lanes.pairing == Pairing::half ? lanes.pairs : 2 * lanes.pairs;
  detail::QueryScaledRows<Rows> scaled(rows, *scale, positions, t.batch, t.seq, row_floats);
  POSENC_RETURN_IF_ERROR(scaled.allocate());
  detail::drive_rope(t, driver_lanes, per_batch, scaled);
  return {};
}

}  // namespace

double query_scale_at(const QueryScale& q, double p) {
  return 1.0 + q.scale * std::log1p(std::floor((p + q.position_offset) / q.floor_scale));
}

Status rope_layer_pairs(const RopeConfig& config, const RopeLayerForm& form, double length, RopeLayerPairs* out) {
  *out = RopeLayerPairs{};
  POSENC_RETURN_IF_ERROR(layer_lanes(form, config.rotary_dim, &out->lanes));
  RopeFrequencies f;
  POSENC_RETURN_IF_ERROR(std::isnan(length) ? rope_frequencies(config, &f) : rope_frequencies_at(config, length, &f));
  out->attention_factor = f.attention_factor;
  const std::size_t pairs = out->lanes.pairs;
  POSENC_RETURN_IF_ERROR(detail::allocate(out->freq, pairs));
  if (form.kind == RopeFormKind::pixtral) {  // freqs[::2] for the rows, then freqs[1::2] for the columns
    POSENC_RETURN_IF_ERROR(detail::pixtral_axis_map(pairs, &out->axis_of_pair));
    for (std::size_t i = 0; i < pairs; ++i) out->freq[i] = f.inv_freq[i < pairs / 2 ? 2 * i : 2 * (i - pairs / 2) + 1];
    out->axes = 2;
    return {};
  }
  for (std::size_t i = 0; i < pairs; ++i) out->freq[i] = f.inv_freq[i];  // proportional: the first pairs
  if (form.kind == RopeFormKind::mrope) {
    POSENC_RETURN_IF_ERROR(detail::mrope_axis_map(form.sections, form.interleaved_sections, pairs, &out->axis_of_pair));
    out->axes = form.sections.size();
  }
  return {};
}

Status rope_apply_layer(const RopeConfig& config, const RopeLayerForm& form, const AxisPositions& positions,
                        const QueryScale* query_scale, const RopeTensors& t) {
  RopeHeadLanes lanes;
  POSENC_RETURN_IF_ERROR(layer_lanes(form, config.rotary_dim, &lanes));
  POSENC_RETURN_IF_ERROR(check_layer_tensors(t, form, config.rotary_dim, lanes));
  POSENC_RETURN_IF_ERROR(detail::check_axis_positions(positions, t.batch, t.seq));
  if (form.kind == RopeFormKind::pixtral) POSENC_RETURN_IF_ERROR(check_patch_ids(positions, form.patches_per_side, t.batch, t.seq));
  if (query_scale != nullptr) {
    POSENC_RETURN_IF_ERROR(check_query_scale(*query_scale));
    if (positions.axes != 1) return detail::invalid("a query scale takes one position per token, got " + std::to_string(positions.axes) + " axes");
    POSENC_RETURN_IF_ERROR(check_query_scales(*query_scale, detail::first_axis(positions), t.batch, t.seq));
  }
  RopeLayerPairs pairs;
  POSENC_RETURN_IF_ERROR(rope_layer_pairs(config, form, detail::axis_length_of(positions, t.batch, t.seq), &pairs));
  if (positions.axes != 1 && positions.axes != pairs.axes) {
    return detail::error(StatusCode::shape_mismatch, "positionIds must have " + std::to_string(pairs.axes) +
                                                         " rows (one per position axis) or 1, got " +
                                                         std::to_string(positions.axes));
  }
  // One axis given to a multi-axis form (text in M-RoPE: every axis equal) needs no map.
  const std::size_t* axis_of_pair = positions.axes == 1 ? nullptr : pairs.axis_of_pair.data();
  detail::AngleRows rows;
  POSENC_RETURN_IF_ERROR(rows.init(pairs.freq.data(), pairs.lanes.pairs, pairs.attention_factor, pairs.lanes.pairing,
                                   positions, axis_of_pair, t.batch, t.seq));
  return drive(t, pairs.lanes, positions.per_batch, rows, query_scale, positions);
}

Status rope_apply_lanes_table(const RopeTable& table, const RopeHeadLanes& lanes, const Positions& positions,
                              const QueryScale* query_scale, const RopeTensors& t) {
  POSENC_RETURN_IF_ERROR(detail::check_rope_tensors(t, lanes.pairing, static_cast<int>(covered_lanes(lanes)), lanes.first_lane));
  if (lanes.half_span != 0 && lanes.half_span < lanes.pairs) {
    return detail::invalid("halfSpan must be 0 or at least the rotated pairs (" + std::to_string(lanes.pairs) + "), got " +
                           std::to_string(lanes.half_span));
  }
  if (table.cos == nullptr || table.sin == nullptr) return detail::invalid("cos and sin tables must be given");
  if ((table.cos2 == nullptr) != (table.sin2 == nullptr)) return detail::invalid("cos2 and sin2 must be given together");
  POSENC_RETURN_IF_ERROR(detail::check_size("table rows", table.rows));
  if (table.pairs != lanes.pairs) {
    return detail::error(StatusCode::shape_mismatch, "the cos/sin tables have " + std::to_string(table.pairs) +
                                                         " values per row, but the layer rotates " +
                                                         std::to_string(lanes.pairs) + " pairs");
  }
  POSENC_RETURN_IF_ERROR(detail::check_row_ids(table.rows, positions, t.batch, t.seq));
  if (query_scale != nullptr) {
    POSENC_RETURN_IF_ERROR(check_query_scale(*query_scale));
    POSENC_RETURN_IF_ERROR(check_query_scales(*query_scale, positions, t.batch, t.seq));
  }
  detail::TableRows rows(table, lanes.pairing, positions, t.seq);
  POSENC_RETURN_IF_ERROR(rows.allocate());
  return drive(t, lanes, positions.per_batch, rows, query_scale, detail::single_axis(positions));
}

Status rope_scale_queries(const QueryScale& scale, const Positions& positions, const RopeTensors& t) {
  if (t.k != nullptr) return detail::invalid("a query scale changes q only; k must not be given");
  POSENC_RETURN_IF_ERROR(check_query_scale(scale));
  if (t.head_dim % 2 != 0) return detail::invalid("headDim must be even, got " + std::to_string(t.head_dim));
  POSENC_RETURN_IF_ERROR(detail::check_rope_tensors(t, Pairing::half, static_cast<int>(t.head_dim)));
  POSENC_RETURN_IF_ERROR(detail::check_positions_finite(positions, t.batch, t.seq));
  POSENC_RETURN_IF_ERROR(check_query_scales(scale, positions, t.batch, t.seq));
  scale_query_rows(scale, positions, t);
  return {};
}

}  // namespace posenc
