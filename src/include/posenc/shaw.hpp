// Relative position representations of Shaw, Uszkoreit and Vaswani 2018 ("Self-Attention with
// Relative Position Representations", eqs. 3-5): learned vectors a^K_ij, a^V_ij indexed by the
// clipped distance key minus query, added to the keys and the values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "posenc/attention.hpp"
#include "posenc/status.hpp"

namespace posenc {

/// The clipped relative index window: query i sits at queryOffset + i, key j at j.
///   index(i, j) = clip(j - (queryOffset + i), -k, k) + k,   k = maxRelativePosition
/// (key minus query, as tensor2tensor's _generate_relative_positions_matrix), a row of a
/// [2k+1, d] table.
struct ShawWindow {
  int max_relative_position = 0;  ///< k >= 1
  std::size_t q_len = 0;
  std::size_t k_len = 0;
  std::size_t query_offset = 0;
};

/// The index matrix [qLen, kLen].
Status shaw_relative_indices(const ShawWindow& window, std::int32_t* out);

/// Gathers a table [2k+1, width] into [qLen, kLen, width]: out[i, j, :] = table[index(i, j), :].
/// `table_rows` must be 2k+1.
Status shaw_gather(const ShawWindow& window, const float* table, std::size_t table_rows, std::size_t width,
                   float* out);

/// Tables of relative key (and optionally value) vectors, shared by every head as in the paper.
struct ShawTables {
  const float* keys = nullptr;    ///< a^K table [2k+1, headDim]
  const float* values = nullptr;  ///< a^V table [2k+1, valueDim], or null (plain values)
  std::size_t rows = 0;           ///< 2k+1
};

/// Options of the Shaw attention functions; the window's q_len/k_len come from the shape.
struct ShawAttentionOptions {
  int max_relative_position = 0;  ///< k; tables.rows must be 2k+1
  std::size_t query_offset = 0;
  std::optional<double> scale;    ///< default 1/sqrt(headDim)
  bool causal = false;            ///< mask keys j > queryOffset + i (-Infinity logits)
};

/// Logits e_ij = scale * q_i . (k_j + a^K_ij), [heads, qLen, kLen] (eq. 4).
Status shaw_logits(const AttentionShape& shape, const float* q, const float* k, const ShawTables& tables,
                   const ShawAttentionOptions& options, float* out);

/// Output z_i = sum_j softmax_j(e_ij) (v_j + a^V_ij), [heads, qLen, valueDim] (eq. 3). Fully masked
/// rows give zero rows (see attention_scores).
Status shaw_attention(const AttentionShape& shape, const float* q, const float* k, const float* v,
                      const ShawTables& tables, const ShawAttentionOptions& options, float* out);

}  // namespace posenc
