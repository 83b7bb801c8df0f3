// Axis maps: which position axis drives each rotated pair, for the RoPE forms whose tokens have
// positions along several axes (M-RoPE's temporal/height/width ids, Pixtral's row/column ids).
#pragma once

#include <cstddef>
#include <vector>

#include "posenc/status.hpp"

namespace posenc::detail {

/// M-RoPE over `pairs` pairs (`sections` must sum to it). Sectioned (Qwen2-VL, HF
/// apply_multimodal_rotary_pos_emb): section a's consecutive pairs take axis a. Interleaved
/// (Qwen3-VL, HF apply_interleaved_mrope; exactly 3 sections): pair i takes axis 1 if i % 3 == 1
/// and i < 3 sections[1], axis 2 if i % 3 == 2 and i < 3 sections[2], axis 0 otherwise.
Status mrope_axis_map(const std::vector<int>& sections, bool interleaved, std::size_t pairs,
                      std::vector<std::size_t>* axis_of_pair);

/// Pixtral (HF PixtralRotaryEmbedding) over `pairs` pairs (even): the first half of the pairs
/// take the row (axis 0), the second half the column (axis 1).
Status pixtral_axis_map(std::size_t pairs, std::vector<std::size_t>* axis_of_pair);

}  // namespace posenc::detail
