// The RoPE forms of current models (docs/encodings.md#812-proportional-rope-gemma-4 to #816-query-scaling-by-position-llama-4-ministral-3), each a piece of the one RoPE
// driver: where the rotated pairs sit in a head (Gemma 4's proportional RoPE, DeepSeek's decoupled
// block), which position axis drives each pair (M-RoPE, Pixtral) and a per-position query scale
// (Llama 4, Ministral 3).
#pragma once

#include <cstddef>
#include <vector>

#include "posenc/rope.hpp"
#include "posenc/rope_forms.hpp"
#include "posenc/status.hpp"

namespace posenc {

/// How a layer's RoPE places its frequencies on a head, beyond its spec.
enum class RopeFormKind : int {
  standard = 0,      ///< the leading rotaryDim lanes (any pairing)
  proportional = 1,  ///< Gemma 4 (HF _compute_proportional_rope_parameters): see RopeLayerForm::rotated_pairs
  mrope = 2,         ///< Qwen2-VL sections / Qwen3-VL interleaved slots (HF apply_multimodal_rotary_pos_emb, apply_interleaved_mrope)
  decoupled = 3,     ///< DeepSeek-V2/V3 MLA: a rotary block after the content lanes
  pixtral = 4,       ///< Pixtral's 2-D image RoPE (HF PixtralRotaryEmbedding)
};

/// A layer's form. With the spec's RopeConfig: rotary_dim is the head size for proportional and
/// pixtral (the exponent's denominator), qk_rope_head_dim for decoupled, the rotated lanes otherwise.
struct RopeLayerForm {
  RopeFormKind kind = RopeFormKind::standard;
  Pairing pairing = Pairing::half;
  /// proportional: the first `rotated_pairs` pairs of the half pairing over the whole head rotate,
  /// pair i = (x[i], x[i + headDim/2]); the other pairs (frequency 0) pass through.
  std::size_t rotated_pairs = 0;
  /// decoupled: the qk_nope_head_dim content lanes in front of the rotary block of a q or k head
  /// (0 when the tensors hold the rotary block alone).
  std::size_t first_lane = 0;
  /// decoupled with DeepSeek-V3's rope_interleave (HF apply_rotary_pos_emb_interleave): the block's
  /// lanes [x0 x1 x2 x3 ...] are reordered to [x0 x2 ... x1 x3 ...] and then rotated in the half
  /// pairing, so the block leaves in that order.
  bool deinterleave = false;
  /// mrope: pairs per position axis (sum rotaryDim/2). Sectioned: consecutive blocks; interleaved
  /// (3 sections): pair i takes the height id if i % 3 == 1 and i < 3 sections[1], the width id if
  /// i % 3 == 2 and i < 3 sections[2], the temporal id otherwise.
  std::vector<int> sections;
  bool interleaved_sections = false;
  /// pixtral: patches per side of the largest image (image_size / patch_size); row and column ids
  /// must be integers below it, as they index HF's table.
  std::size_t patches_per_side = 0;
};

/// Queries multiplied by 1 + scale * ln(1 + floor((p + position_offset) / floor_scale)) at
/// position p: Llama 4's attn_temperature_tuning (attn_scale, floor_scale, offset 1; HF
/// Llama4TextAttention.forward) and Ministral 3's llama_4_scaling_beta (beta,
/// original_max_position_embeddings, offset 0; HF get_llama_4_attn_scale).
struct QueryScale {
  double scale = 0.0;
  double floor_scale = 1.0;
  double position_offset = 0.0;
};

/// The query multiplier at position p (validated QueryScale).
double query_scale_at(const QueryScale& q, double p);

/// The lanes a form rotates: `pairs` pairs in `pairing` from lane `first_lane`; in the half
/// pairing pair i is (first_lane + i, first_lane + i + half_span); `deinterleave` as in
/// RopeLayerForm.
struct RopeHeadLanes {
  Pairing pairing = Pairing::half;
  std::size_t pairs = 0;
  std::size_t first_lane = 0;
  std::size_t half_span = 0;
  bool deinterleave = false;
};

/// What a layer rotates with at a given length, pair by pair in lane order.
struct RopeLayerPairs {
  RopeHeadLanes lanes;
  std::vector<double> freq;               ///< lanes.pairs angular frequencies
  std::vector<std::size_t> axis_of_pair;  ///< the position axis of each pair (empty: one axis)
  std::size_t axes = 1;                   ///< position axes the form reads
  double attention_factor = 1.0;          ///< multiplies cos and sin
};

/// The pairs of `form` with the frequencies of `config` at current length `length` (dynamic NTK,
/// LongRoPE; config.seq_len, when given, wins; NaN: as at model load).
Status rope_layer_pairs(const RopeConfig& config, const RopeLayerForm& form, double length, RopeLayerPairs* out);

/// One layer's RoPE on q and k (k may be null), in place, and its query scale on q when given.
/// `positions.axes` is 1 or the form's axes (M-RoPE: one axis means text, every axis equal).
/// The current length is max(position) + 1 over every id, as HF derives it.
Status rope_apply_layer(const RopeConfig& config, const RopeLayerForm& form, const AxisPositions& positions,
                        const QueryScale* query_scale, const RopeTensors& tensors);

/// Rotates the lanes `lanes` of q and k with rows of a cos/sin table of lanes.pairs values per row
/// (a cached layer: rope_fill_table of rope_layer_pairs' frequencies) and scales q when
/// `query_scale` is given. Positions must be integer rows of the table.
Status rope_apply_lanes_table(const RopeTable& table, const RopeHeadLanes& lanes, const Positions& positions,
                              const QueryScale* query_scale, const RopeTensors& tensors);

/// Multiplies q (tensors.k must be null) by its query scale at each token's position: a layer
/// without RoPE that scales its queries (Llama 4's NoPE layers). headDim must be even.
Status rope_scale_queries(const QueryScale& scale, const Positions& positions, const RopeTensors& tensors);

}  // namespace posenc
