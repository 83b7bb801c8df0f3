// Scaled dot-product attention (Vaswani et al. 2017, eq. 1) for small sizes, in double precision:
// logits = scale * q k^T + bias (masked entries -Infinity), scores = softmax over keys, output =
// scores v. Optional RoPE (Su et al. 2021) rotates copies of q and k first through rope_apply.
#include "posenc/attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "encodings/detail/attention_core.hpp"
#include "encodings/detail/checks.hpp"
#include "encodings/detail/relative_rows.hpp"

namespace posenc {
namespace {

constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

/// q and k as the products see them: the caller's arrays, or rotated copies.
struct PreparedInputs {
  const float* q = nullptr;
  const float* k = nullptr;
  std::vector<float> q_rotated, k_rotated;
  double scale = 1.0;
};

Status check_bias(const AttentionShape& s, const AttentionOptions& o) {
  if (o.bias == nullptr) return {};
  if (o.bias_heads != 1 && o.bias_heads != s.heads) {
    return detail::error(StatusCode::shape_mismatch, "bias must have " + std::to_string(s.heads) +
                                                         " heads (or 1, shared by every head), got " +
                                                         std::to_string(o.bias_heads));
  }
  const std::size_t n = o.bias_heads * s.q_len * s.k_len;
  for (std::size_t i = 0; i < n; ++i) {
    const float b = o.bias[i];
    if (std::isnan(b) || b == std::numeric_limits<float>::infinity()) {
      return detail::invalid("bias[" + std::to_string(i) + "] must be a finite number or -Infinity, got " +
                             detail::format_number(b));
    }
  }
  return {};
}

/// Rotates `len` rows of `heads` heads (positions offset..offset+len-1) in place with RoPE.
Status rotate(const AttentionRope& rope, float* x, std::size_t heads, std::size_t len, std::size_t head_dim,
              std::size_t offset) {
  RopeTensors t;
  t.q = x;
  t.q_heads = heads;
  t.batch = 1;
  t.seq = len;
  t.head_dim = head_dim;
  t.layout = HeadLayout::bhsd;  // [1, heads, seq, headDim] is our [heads, len, headDim]
  return rope_apply(rope.config, rope.pairing, Positions::range(static_cast<double>(offset)), t);
}

Status prepare(const AttentionShape& s, const float* q, const float* k, const float* v, const AttentionOptions& o,
               PreparedInputs* in) {
  POSENC_RETURN_IF_ERROR(detail::check_attention_shape(s, v != nullptr));
  POSENC_RETURN_IF_ERROR(detail::check_relative_lengths(s.q_len, s.k_len, o.query_offset, s.heads));
  POSENC_RETURN_IF_ERROR(detail::resolve_scale(o.scale, s.head_dim, &in->scale));
  const std::size_t q_size = s.heads * s.q_len * s.head_dim;
  const std::size_t k_size = s.kv_heads * s.k_len * s.head_dim;
  POSENC_RETURN_IF_ERROR(detail::check_finite_values("q", q, q_size));
  POSENC_RETURN_IF_ERROR(detail::check_finite_values("k", k, k_size));
  if (v != nullptr) POSENC_RETURN_IF_ERROR(detail::check_finite_values("v", v, s.kv_heads * s.k_len * s.value_dim));
  POSENC_RETURN_IF_ERROR(check_bias(s, o));
  in->q = q;
  in->k = k;
  if (o.rope.has_value()) {
    POSENC_RETURN_IF_ERROR(detail::allocate(in->q_rotated, q_size));
    POSENC_RETURN_IF_ERROR(detail::allocate(in->k_rotated, k_size));
    in->q_rotated.assign(q, q + q_size);
    in->k_rotated.assign(k, k + k_size);
    POSENC_RETURN_IF_ERROR(rotate(*o.rope, in->q_rotated.data(), s.heads, s.q_len, s.head_dim, o.query_offset));
    POSENC_RETURN_IF_ERROR(rotate(*o.rope, in->k_rotated.data(), s.kv_heads, s.k_len, s.head_dim, 0));
    in->q = in->q_rotated.data();
    in->k = in->k_rotated.data();
  }
  return {};
}

/// Logits of query i of head h into row[0..kLen), in double.
void logits_row(const AttentionShape& s, const PreparedInputs& in, const AttentionOptions& o, std::size_t h,
                std::size_t i, double* row) {
  const float* qi = in.q + (h * s.q_len + i) * s.head_dim;
  const float* kh = in.k + detail::kv_head_of(s, h) * s.k_len * s.head_dim;
  const float* bias = o.bias == nullptr ? nullptr
                                        : o.bias + ((o.bias_heads == 1 ? 0 : h) * s.q_len + i) * s.k_len;
  for (std::size_t j = 0; j < s.k_len; ++j) {
    if (o.causal && detail::is_future(i, j, o.query_offset)) {
      row[j] = kMinusInf;
      continue;
    }
    double x = in.scale * detail::dot(qi, kh + j * s.head_dim, s.head_dim);
    if (bias != nullptr) x += static_cast<double>(bias[j]);
    row[j] = x;
  }
}

/// Runs `per_row(h, i, row)` on the logits of every query row.
template <class F>
Status for_each_row(const AttentionShape& s, const PreparedInputs& in, const AttentionOptions& o, F&& per_row) {
  std::vector<double> row;
  POSENC_RETURN_IF_ERROR(detail::allocate(row, s.k_len));
  for (std::size_t h = 0; h < s.heads; ++h) {
    for (std::size_t i = 0; i < s.q_len; ++i) {
      logits_row(s, in, o, h, i, row.data());
      per_row(h, i, row.data());
    }
  }
  return {};
}

void store(const double* row, std::size_t n, float* out) {
  for (std::size_t j = 0; j < n; ++j) out[j] = static_cast<float>(row[j]);
}

}  // namespace

Status attention_logits(const AttentionShape& s, const float* q, const float* k, const AttentionOptions& o,
                        float* out) {
  PreparedInputs in;
  POSENC_RETURN_IF_ERROR(prepare(s, q, k, nullptr, o, &in));
  return for_each_row(s, in, o, [&](std::size_t h, std::size_t i, const double* row) {
    store(row, s.k_len, out + (h * s.q_len + i) * s.k_len);
  });
}

Status attention_scores(const AttentionShape& s, const float* q, const float* k, const AttentionOptions& o,
                        float* out) {
  PreparedInputs in;
  POSENC_RETURN_IF_ERROR(prepare(s, q, k, nullptr, o, &in));
  return for_each_row(s, in, o, [&](std::size_t h, std::size_t i, double* row) {
    detail::softmax_in_place(row, s.k_len);
    store(row, s.k_len, out + (h * s.q_len + i) * s.k_len);
  });
}

Status attention_output(const AttentionShape& s, const float* q, const float* k, const float* v,
                        const AttentionOptions& o, float* out, float* scores_out) {
  if (v == nullptr) return detail::invalid("v must be given");
  PreparedInputs in;
  POSENC_RETURN_IF_ERROR(prepare(s, q, k, v, o, &in));
  std::vector<double> z;
  POSENC_RETURN_IF_ERROR(detail::allocate(z, s.value_dim));
  return for_each_row(s, in, o, [&](std::size_t h, std::size_t i, double* row) {
    detail::softmax_in_place(row, s.k_len);
    if (scores_out != nullptr) store(row, s.k_len, scores_out + (h * s.q_len + i) * s.k_len);
    const float* vh = v + detail::kv_head_of(s, h) * s.k_len * s.value_dim;
    std::fill(z.begin(), z.end(), 0.0);
    for (std::size_t j = 0; j < s.k_len; ++j) {
      if (row[j] == 0.0) continue;
      const float* vj = vh + j * s.value_dim;
      for (std::size_t c = 0; c < s.value_dim; ++c) z[c] += row[j] * static_cast<double>(vj[c]);
    }
    store(z.data(), s.value_dim, out + (h * s.q_len + i) * s.value_dim);
  });
}

}  // namespace posenc
