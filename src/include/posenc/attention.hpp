// Attention helpers for small sizes: logits, softmax scores and outputs of scaled dot-product
// attention (Vaswani et al. 2017, eq. 1) with an optional causal mask, an additive bias (T5,
// ALiBi, ...) and RoPE applied to q and k first. Evaluated in double precision; meant for checking
// a setup and for teaching, not as a fast attention kernel.
#pragma once

#include <cstddef>
#include <optional>

#include "posenc/rope.hpp"
#include "posenc/status.hpp"

namespace posenc {

/// Shapes of one attention call (row-major, head-major):
///   q [heads, qLen, headDim], k [kvHeads, kLen, headDim], v [kvHeads, kLen, valueDim].
/// `heads` must be a multiple of `kvHeads` (grouped-query attention: query head h reads key/value
/// head h / (heads / kvHeads)). Keys sit at positions 0..kLen-1; query i at queryOffset + i.
struct AttentionShape {
  std::size_t heads = 1;
  std::size_t kv_heads = 1;
  std::size_t q_len = 0;
  std::size_t k_len = 0;
  std::size_t head_dim = 0;
  std::size_t value_dim = 0;  ///< only used by calls that take v
};

/// RoPE applied to copies of q (positions queryOffset + i) and k (positions j) before the products.
struct AttentionRope {
  RopeConfig config;            ///< rotaryDim (even, 2..headDim) and base
  Pairing pairing = Pairing::half;
};

/// What modifies the logits `scale * q_i . k_j`.
struct AttentionOptions {
  std::optional<double> scale;     ///< default 1/sqrt(headDim); finite
  bool causal = false;             ///< mask keys j > queryOffset + i
  std::size_t query_offset = 0;    ///< absolute position of query 0 (KV-cache decoding)
  /// Additive bias [biasHeads, qLen, kLen] with biasHeads == heads or 1 (shared by all heads), or
  /// null. Entries may be -Infinity (masked); NaN and +Infinity are errors.
  const float* bias = nullptr;
  std::size_t bias_heads = 0;
  std::optional<AttentionRope> rope;  ///< rotate q and k first
};

/// Logits `scale * q_i . k_j + bias[h, i, j]` as [heads, qLen, kLen]; masked entries are -Infinity.
Status attention_logits(const AttentionShape& shape, const float* q, const float* k, const AttentionOptions& options,
                        float* out);

/// Softmax of the logits over keys, [heads, qLen, kLen], computed in double. A row whose every
/// entry is masked (-Infinity) has no defined softmax: posenc returns all zeros for it (and a zero
/// output row), never NaN.
Status attention_scores(const AttentionShape& shape, const float* q, const float* k, const AttentionOptions& options,
                        float* out);

/// The attention output `z_i = sum_j softmax_j(logits_i) v_j` as [heads, qLen, valueDim]. When
/// `scores_out` is not null it also receives the scores ([heads, qLen, kLen]).
Status attention_output(const AttentionShape& shape, const float* q, const float* k, const float* v,
                        const AttentionOptions& options, float* out, float* scores_out = nullptr);

}  // namespace posenc
