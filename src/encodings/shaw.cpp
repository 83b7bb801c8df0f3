// Shaw, Uszkoreit and Vaswani 2018, "Self-Attention with Relative Position Representations":
//   a_ij = W[clip(j - i, -k, k) + k]                                      (eqs. 5-6)
//   e_ij = q_i . (k_j + a^K_ij) / sqrt(d),   z_i = sum_j softmax_j(e_ij) (v_j + a^V_ij)   (eqs. 3-4)
// with query i at its absolute position queryOffset + i when decoding with a cache. The index sign
// (key minus query) is the one of tensor2tensor's _generate_relative_positions_matrix.
//
// The relative terms are computed the efficient way the paper describes (sec. 3.3): q_i . a^K_ij
// takes one product per distinct table row, and the a^V term sums the softmax weights that share a
// table row before multiplying by it.
#include "posenc/shaw.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "encodings/detail/attention_core.hpp"
#include "encodings/detail/checks.hpp"
#include "encodings/detail/relative_rows.hpp"

namespace posenc {
namespace {

Status check_window(const ShawWindow& w, std::size_t rows = 1) {
  if (w.max_relative_position < 1) {
    return detail::invalid("maxRelativePosition must be an integer >= 1, got " +
                           std::to_string(w.max_relative_position));
  }
  return detail::check_relative_lengths(w.q_len, w.k_len, w.query_offset, rows);
}

Status check_table_rows(const char* name, int max_relative_position, std::size_t rows) {
  const std::size_t expected = 2 * static_cast<std::size_t>(max_relative_position) + 1;
  if (rows != expected) {
    return detail::error(StatusCode::shape_mismatch,
                         std::string(name) + " must have 2 * maxRelativePosition + 1 = " + std::to_string(expected) +
                             " rows, got " + std::to_string(rows));
  }
  return {};
}

/// The table row for relative position `rel` (key minus query).
inline std::size_t row_of(long long rel, int k) {
  return static_cast<std::size_t>(std::clamp<long long>(rel, -k, k) + k);
}

/// Logits of query row i of head h (double), with the relative-key products computed once per
/// table row that this query row uses.
struct ShawRowContext {
  const AttentionShape& s;
  const float* q;
  const float* k;
  const ShawTables& tables;
  const ShawAttentionOptions& o;
  double scale;
  std::vector<double> qa;  // q_i . a^K[r], per table row r

  void logits(std::size_t h, std::size_t i, double* row) {
    const int kmax = o.max_relative_position;
    const float* qi = q + (h * s.q_len + i) * s.head_dim;
    const float* kh = k + detail::kv_head_of(s, h) * s.k_len * s.head_dim;
    const long long pos = static_cast<long long>(o.query_offset + i);
    const std::size_t r_first = row_of(0 - pos, kmax);
    const std::size_t r_last = row_of(static_cast<long long>(s.k_len - 1) - pos, kmax);
    for (std::size_t r = r_first; r <= r_last; ++r) qa[r] = detail::dot(qi, tables.keys + r * s.head_dim, s.head_dim);
    for (std::size_t j = 0; j < s.k_len; ++j) {
      if (o.causal && detail::is_future(i, j, o.query_offset)) {
        row[j] = -std::numeric_limits<double>::infinity();
        continue;
      }
      const double qk = detail::dot(qi, kh + j * s.head_dim, s.head_dim);
      row[j] = scale * (qk + qa[row_of(static_cast<long long>(j) - pos, kmax)]);
    }
  }
};

Status prepare(const AttentionShape& s, const float* q, const float* k, const float* v, const ShawTables& t,
               const ShawAttentionOptions& o, double* scale) {
  POSENC_RETURN_IF_ERROR(detail::check_attention_shape(s, v != nullptr));
  POSENC_RETURN_IF_ERROR(check_window(ShawWindow{o.max_relative_position, s.q_len, s.k_len, o.query_offset}, s.heads));
  if (t.keys == nullptr) return detail::invalid("relativeKeys must be given");
  POSENC_RETURN_IF_ERROR(check_table_rows("relativeKeys", o.max_relative_position, t.rows));
  POSENC_RETURN_IF_ERROR(detail::resolve_scale(o.scale, s.head_dim, scale));
  POSENC_RETURN_IF_ERROR(detail::check_finite_values("q", q, s.heads * s.q_len * s.head_dim));
  POSENC_RETURN_IF_ERROR(detail::check_finite_values("k", k, s.kv_heads * s.k_len * s.head_dim));
  POSENC_RETURN_IF_ERROR(detail::check_finite_values("relativeKeys", t.keys, t.rows * s.head_dim));
  if (v != nullptr) {
    POSENC_RETURN_IF_ERROR(detail::check_finite_values("v", v, s.kv_heads * s.k_len * s.value_dim));
    if (t.values != nullptr) {
      POSENC_RETURN_IF_ERROR(detail::check_finite_values("relativeValues", t.values, t.rows * s.value_dim));
    }
  }
  return {};
}

}  // namespace

Status shaw_relative_indices(const ShawWindow& w, std::int32_t* out) {
  POSENC_RETURN_IF_ERROR(check_window(w));
  return detail::fill_relative_matrix<std::int32_t>(
      w.q_len, w.k_len, w.query_offset,
      [k = w.max_relative_position](long long rel) { return static_cast<std::int32_t>(row_of(rel, k)); }, out);
}

Status shaw_gather(const ShawWindow& w, const float* table, std::size_t table_rows, std::size_t width, float* out) {
  POSENC_RETURN_IF_ERROR(check_window(w));
  POSENC_RETURN_IF_ERROR(detail::check_size("width", width));
  POSENC_RETURN_IF_ERROR(check_table_rows("table", w.max_relative_position, table_rows));
  std::size_t total = 0;
  POSENC_RETURN_IF_ERROR(detail::checked_product({w.q_len, w.k_len, width, sizeof(float)}, "the output", &total));
  const int kmax = w.max_relative_position;
  for (std::size_t i = 0; i < w.q_len; ++i) {
    const long long pos = static_cast<long long>(w.query_offset + i);
    for (std::size_t j = 0; j < w.k_len; ++j) {
      const float* src = table + row_of(static_cast<long long>(j) - pos, kmax) * width;
      std::copy(src, src + width, out + (i * w.k_len + j) * width);
    }
  }
  return {};
}

Status shaw_logits(const AttentionShape& s, const float* q, const float* k, const ShawTables& t,
                   const ShawAttentionOptions& o, float* out) {
  double scale = 1.0;
  POSENC_RETURN_IF_ERROR(prepare(s, q, k, nullptr, t, o, &scale));
  ShawRowContext ctx{s, q, k, t, o, scale, {}};
  std::vector<double> row;
  POSENC_RETURN_IF_ERROR(detail::allocate(ctx.qa, t.rows));
  POSENC_RETURN_IF_ERROR(detail::allocate(row, s.k_len));
  for (std::size_t h = 0; h < s.heads; ++h) {
    for (std::size_t i = 0; i < s.q_len; ++i) {
      ctx.logits(h, i, row.data());
      float* dst = out + (h * s.q_len + i) * s.k_len;
      for (std::size_t j = 0; j < s.k_len; ++j) dst[j] = static_cast<float>(row[j]);
    }
  }
  return {};
}

Status shaw_attention(const AttentionShape& s, const float* q, const float* k, const float* v, const ShawTables& t,
                      const ShawAttentionOptions& o, float* out) {
  if (v == nullptr) return detail::invalid("v must be given");
  double scale = 1.0;
  POSENC_RETURN_IF_ERROR(prepare(s, q, k, v, t, o, &scale));
  ShawRowContext ctx{s, q, k, t, o, scale, {}};
  std::vector<double> row, z, weight_per_row;
  POSENC_RETURN_IF_ERROR(detail::allocate(ctx.qa, t.rows));
  POSENC_RETURN_IF_ERROR(detail::allocate(row, s.k_len));
  POSENC_RETURN_IF_ERROR(detail::allocate(z, s.value_dim));
  POSENC_RETURN_IF_ERROR(detail::allocate(weight_per_row, t.rows));
  const int kmax = o.max_relative_position;
  for (std::size_t h = 0; h < s.heads; ++h) {
    const float* vh = v + detail::kv_head_of(s, h) * s.k_len * s.value_dim;
    for (std::size_t i = 0; i < s.q_len; ++i) {
      ctx.logits(h, i, row.data());
      detail::softmax_in_place(row.data(), s.k_len);
      std::fill(z.begin(), z.end(), 0.0);
      std::fill(weight_per_row.begin(), weight_per_row.end(), 0.0);
      const long long pos = static_cast<long long>(o.query_offset + i);
      for (std::size_t j = 0; j < s.k_len; ++j) {
        const double p = row[j];
        if (p == 0.0) continue;
        const float* vj = vh + j * s.value_dim;
        for (std::size_t c = 0; c < s.value_dim; ++c) z[c] += p * static_cast<double>(vj[c]);
        weight_per_row[row_of(static_cast<long long>(j) - pos, kmax)] += p;
      }
      if (t.values != nullptr) {
        for (std::size_t r = 0; r < t.rows; ++r) {
          if (weight_per_row[r] == 0.0) continue;
          const float* ar = t.values + r * s.value_dim;
          for (std::size_t c = 0; c < s.value_dim; ++c) z[c] += weight_per_row[r] * static_cast<double>(ar[c]);
        }
      }
      float* dst = out + (h * s.q_len + i) * s.value_dim;
      for (std::size_t c = 0; c < s.value_dim; ++c) dst[c] = static_cast<float>(z[c]);
    }
  }
  return {};
}

}  // namespace posenc
