// ALiBi, attention with linear biases (Press, Smith and Lewis 2022, "Train Short, Test Long"):
// a per-head slope times the query-key distance, added to the attention logits.
#pragma once

#include <cstddef>
#include <cstdint>

#include "posenc/status.hpp"

namespace posenc {

/// Writes the `num_heads` slopes (float64) to `out`. With c = 2^floor(log2 n):
///   m_h = 2^(-maxBias h / c), h = 1..c, then for n > c the odd terms of the 2c-head series
///   2^(-maxBias (2k - 1) / (2c)), k = 1..n-c  (paper, BLOOM, MPT and ggml agree).
Status alibi_slopes(int num_heads, double max_bias, double* out);

/// Which values the bias holds (query i at queryOffset + i, key j at j):
///   causal    (paper, ggml):         bias[h, i, j] = -m_h (i - j)
///   symmetric (encoders):            bias[h, i, j] = -m_h |i - j|
///   bloom     (BLOOM, fairseq):      bias[h, i, j] =  m_h keyPos_j   (same softmax on causal rows)
enum class AlibiForm : int { causal = 0, symmetric = 1, bloom = 2 };

struct AlibiParams {
  int num_heads = 0;          ///< >= 1
  double max_bias = 8.0;      ///< finite, > 0
  AlibiForm form = AlibiForm::causal;
  /// Keys after the query (j > queryOffset + i) hold -Infinity, so the bias is also the causal
  /// mask. Otherwise they hold the form's formula. (The JS API defaults this to form == causal.)
  bool mask_future = true;
  std::size_t q_len = 0;
  std::size_t k_len = 0;
  std::size_t query_offset = 0;
  /// bloom only: a 0/1 attention mask [batch, kLen] or null. Key positions are then
  /// (cumsum(mask) - 1) * mask per batch row (left padding does not shift them); without it they are j.
  const std::int32_t* attention_mask = nullptr;
  std::size_t batch = 1;      ///< rows of attention_mask
};

/// The bias [batch, heads, qLen, kLen] (batch is 1 without a mask).
Status alibi_bias(const AlibiParams& params, float* out);

/// causal and symmetric forms: the bias depends on i and j only through rel = j - (queryOffset + i),
/// so each head's matrix is Toeplitz. Writes one vector per head ([heads, qLen + kLen - 1]):
/// diag[h, t] = bias at rel = t - (qLen - 1) - queryOffset; row i of head h is
/// diag[h, qLen - 1 - i .. qLen - 1 - i + kLen).
Status alibi_bias_diagonals(const AlibiParams& params, float* out);

/// bloom form: the unmasked row of every query, rows[b, h, j] = m_h keyPos_j ([batch, heads, kLen]).
/// With mask_future, row i keeps columns j <= queryOffset + i and holds -Infinity after them.
Status alibi_bloom_rows(const AlibiParams& params, float* out);

}  // namespace posenc
