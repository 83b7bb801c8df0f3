// ALiBi (Press, Smith and Lewis 2022, "Train Short, Test Long", sec. 3): logits get -m_h * distance.
// Slopes follow the paper's get_slopes (also BLOOM build_alibi_tensor, MPT, ggml soft_max): a
// geometric series for the largest power of two c <= n heads, then the odd terms of the 2c series.
// Values are formed in double (slope * distance) and rounded once.
//
// Every form depends on the query only through j - (queryOffset + i) (causal, symmetric) or not at
// all (bloom), so each head needs one vector of qLen + kLen - 1 values (or one row) and the rows
// are memcpy'd slices of it: the cost is a memory fill.
#include "posenc/alibi.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "encodings/detail/checks.hpp"
#include "encodings/detail/relative_rows.hpp"
#include "kernels/kernels.hpp"

namespace posenc {
namespace {

Status check_params(const AlibiParams& p) {
  if (p.num_heads < 1) return detail::invalid("numHeads must be an integer >= 1, got " + std::to_string(p.num_heads));
  POSENC_RETURN_IF_ERROR(detail::check_positive("maxBias", p.max_bias));
  if (p.form != AlibiForm::causal && p.form != AlibiForm::symmetric && p.form != AlibiForm::bloom) {
    return detail::invalid("form must be 'causal', 'symmetric' or 'bloom'");
  }
  if (p.attention_mask != nullptr && p.form != AlibiForm::bloom) {
    return detail::invalid("attentionMask is only used by form 'bloom'");
  }
  POSENC_RETURN_IF_ERROR(detail::check_size("batch", p.batch));
  if (p.attention_mask == nullptr && p.batch != 1) {
    return detail::invalid("batch must be 1 without an attentionMask, got " + std::to_string(p.batch));
  }
  std::size_t rows = 0;
  POSENC_RETURN_IF_ERROR(detail::checked_product({p.batch, static_cast<std::size_t>(p.num_heads)}, "the output", &rows));
  POSENC_RETURN_IF_ERROR(detail::check_relative_lengths(p.q_len, p.k_len, p.query_offset, rows));
  if (p.attention_mask != nullptr) {
    for (std::size_t i = 0; i < p.batch * p.k_len; ++i) {
      if (p.attention_mask[i] != 0 && p.attention_mask[i] != 1) {
        return detail::invalid("attentionMask[" + std::to_string(i) + "] must be 0 or 1, got " +
                               std::to_string(p.attention_mask[i]));
      }
    }
  }
  return {};
}

/// BLOOM key positions of one mask row: (cumsum(mask) - 1) * mask.
void bloom_key_positions(const std::int32_t* mask, std::size_t k_len, double* out) {
  long long count = 0;
  for (std::size_t j = 0; j < k_len; ++j) {
    count += mask[j];
    out[j] = static_cast<double>((count - 1) * mask[j]);
  }
}

}  // namespace

Status alibi_slopes(int num_heads, double max_bias, double* out) {
  if (num_heads < 1) return detail::invalid("numHeads must be an integer >= 1, got " + std::to_string(num_heads));
  POSENC_RETURN_IF_ERROR(detail::check_positive("maxBias", max_bias));
  int c = 1;
  while (c <= num_heads / 2) c *= 2;  // the largest power of two <= numHeads
  const double cd = static_cast<double>(c);
  for (int h = 1; h <= c; ++h) out[h - 1] = std::exp2(-max_bias * h / cd);
  for (int k = 1; k <= num_heads - c; ++k) out[c + k - 1] = std::exp2(-max_bias * (2 * k - 1) / (2 * cd));
  return {};
}

Status alibi_bias_diagonals(const AlibiParams& p, float* out) {
  POSENC_RETURN_IF_ERROR(check_params(p));
  if (p.form == AlibiForm::bloom) return detail::invalid("form 'bloom' has no diagonal vectors; use its rows");
  const auto heads = static_cast<std::size_t>(p.num_heads);
  std::vector<double> slopes;
  POSENC_RETURN_IF_ERROR(detail::allocate(slopes, heads));
  POSENC_RETURN_IF_ERROR(alibi_slopes(p.num_heads, p.max_bias, slopes.data()));
  const std::size_t diag_len = p.q_len + p.k_len - 1;
  const bool symmetric = p.form == AlibiForm::symmetric;
  // The signed distance of each diagonal index, shared by the heads: causal -(i - j) = rel,
  // symmetric -|i - j| = -|rel|. Then every head is one multiply per value, a loop the compiler
  // vectorises.
  std::vector<double> distance;
  POSENC_RETURN_IF_ERROR(detail::allocate(distance, diag_len));
  for (std::size_t t = 0; t < diag_len; ++t) {
    const auto rel = static_cast<double>(detail::relative_of(t, p.q_len, p.query_offset));
    distance[t] = symmetric ? -std::fabs(rel) : rel;
  }
  // Keys after the query (rel > 0) are the diagonal indices from `future` on.
  const long long first_future = static_cast<long long>(p.q_len - 1 + p.query_offset) + 1;
  const std::size_t future = p.mask_future ? static_cast<std::size_t>(std::min<long long>(
                                                 first_future, static_cast<long long>(diag_len)))
                                           : diag_len;
  for (std::size_t h = 0; h < heads; ++h) {
    float* diag = out + h * diag_len;
    const double m = slopes[h];
    for (std::size_t t = 0; t < future; ++t) {
      diag[t] = static_cast<float>(m * distance[t] + 0.0);  // + 0.0 turns -0 (symmetric, i = j) into 0
    }
    std::fill(diag + future, diag + diag_len, -std::numeric_limits<float>::infinity());
  }
  return {};
}

Status alibi_bloom_rows(const AlibiParams& p, float* out) {
  POSENC_RETURN_IF_ERROR(check_params(p));
  if (p.form != AlibiForm::bloom) return detail::invalid("only form 'bloom' has one row per head");
  const auto heads = static_cast<std::size_t>(p.num_heads);
  std::vector<double> slopes, key_pos;
  POSENC_RETURN_IF_ERROR(detail::allocate(slopes, heads));
  POSENC_RETURN_IF_ERROR(detail::allocate(key_pos, p.k_len));
  POSENC_RETURN_IF_ERROR(alibi_slopes(p.num_heads, p.max_bias, slopes.data()));
  for (std::size_t b = 0; b < p.batch; ++b) {
    if (p.attention_mask != nullptr) {
      bloom_key_positions(p.attention_mask + b * p.k_len, p.k_len, key_pos.data());
    } else {
      for (std::size_t j = 0; j < p.k_len; ++j) key_pos[j] = static_cast<double>(j);
    }
    for (std::size_t h = 0; h < heads; ++h) {
      float* row = out + (b * heads + h) * p.k_len;
      for (std::size_t j = 0; j < p.k_len; ++j) row[j] = static_cast<float>(slopes[h] * key_pos[j]);
    }
  }
  return {};
}

Status alibi_bias(const AlibiParams& p, float* out) {
  POSENC_RETURN_IF_ERROR(check_params(p));
  const auto heads = static_cast<std::size_t>(p.num_heads);
  const std::size_t matrix = p.q_len * p.k_len;
  if (p.form == AlibiForm::bloom) {
    std::vector<float> rows;
    POSENC_RETURN_IF_ERROR(detail::allocate(rows, p.batch * heads * p.k_len));
    POSENC_RETURN_IF_ERROR(alibi_bloom_rows(p, rows.data()));
    for (std::size_t bh = 0; bh < p.batch * heads; ++bh) {
      const float* row = rows.data() + bh * p.k_len;
      for (std::size_t i = 0; i < p.q_len; ++i) {
        float* dst = out + bh * matrix + i * p.k_len;
        const std::size_t visible = p.mask_future ? std::min(p.k_len, p.query_offset + i + 1) : p.k_len;
        kernels::copy(dst, row, visible);
        std::fill(dst + visible, dst + p.k_len, -std::numeric_limits<float>::infinity());
      }
    }
    return {};
  }
  const std::size_t diag_len = p.q_len + p.k_len - 1;
  std::vector<float> diag;
  POSENC_RETURN_IF_ERROR(detail::allocate(diag, heads * diag_len));
  POSENC_RETURN_IF_ERROR(alibi_bias_diagonals(p, diag.data()));
  for (std::size_t h = 0; h < heads; ++h) {
    detail::fill_shifted_rows(diag.data() + h * diag_len, p.q_len, p.k_len, out + h * matrix);
  }
  return {};
}

}  // namespace posenc
