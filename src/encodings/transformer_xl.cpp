// Transformer-XL relative attention (Dai et al. 2019, eq. 3; Hugging Face transfo_xl
// PositionalEmbedding, _rel_shift and RelPartialLearnableMultiHeadAttn):
//   A_ij = (q_i + u) . k_j  +  (q_i + v) . (W_kR R_{i-j})
// R is a sinusoid of the distance in the half layout, built for distances kLen-1 down to 0 so that
// after the relative shift query i (at absolute memLen + i) meets distance memLen + i - j at key j.
#include "posenc/transformer_xl.hpp"

#include <limits>
#include <vector>

#include "encodings/detail/attention_core.hpp"
#include "encodings/detail/checks.hpp"
#include "encodings/detail/relative_rows.hpp"
#include "posenc/sinusoidal.hpp"

namespace posenc {
namespace {

/// Does row i, column j of a shifted [qLen, kLen] matrix lie after the query (j > memLen + i)?
inline bool shifted_future(std::size_t i, std::size_t j, std::size_t q_len, std::size_t k_len) {
  return j + q_len > k_len + i;
}

/// The element of `bd` ([qLen, kLen]) that Hugging Face's view arithmetic puts at (i, j); -1 means 0.
/// Flat output index f = i kLen + j reads flat index qLen + f of the [qLen, kLen + 1] zero-padded
/// matrix, whose column 0 is the zero pad.
inline long long shifted_source(std::size_t i, std::size_t j, std::size_t q_len, std::size_t k_len) {
  const std::size_t t = q_len + i * k_len + j;
  const std::size_t row = t / (k_len + 1);
  const std::size_t col = t % (k_len + 1);
  if (col == 0) return -1;
  return static_cast<long long>(row * k_len + (col - 1));
}

/// Shifts one head's [qLen, kLen] matrix.
template <class T>
void shift_matrix(const T* bd, std::size_t q_len, std::size_t k_len, bool mask_future, T* out) {
  for (std::size_t i = 0; i < q_len; ++i) {
    for (std::size_t j = 0; j < k_len; ++j) {
      T value;
      if (mask_future && shifted_future(i, j, q_len, k_len)) {
        value = -std::numeric_limits<T>::infinity();
      } else {
        const long long src = shifted_source(i, j, q_len, k_len);
        value = src < 0 ? T(0) : bd[src];
      }
      out[i * k_len + j] = value;
    }
  }
}

double dot(const double* a, const float* b, std::size_t n) {
  double sum = 0;
  for (std::size_t c = 0; c < n; ++c) sum += a[c] * static_cast<double>(b[c]);
  return sum;
}

Status check_score_inputs(const AttentionShape& s, const TxlScoreInputs& in) {
  POSENC_RETURN_IF_ERROR(detail::check_attention_shape(s, false));
  if (s.kv_heads != s.heads) {
    return detail::error(StatusCode::shape_mismatch, "k must have as many heads as q (" + std::to_string(s.heads) +
                                                         "), got " + std::to_string(s.kv_heads));
  }
  if (s.k_len < s.q_len) {
    return detail::error(StatusCode::shape_mismatch, "kLen (memLen + qLen) must be >= qLen (" +
                                                         std::to_string(s.q_len) + "), got " + std::to_string(s.k_len));
  }
  const std::size_t q_size = s.heads * s.q_len * s.head_dim;
  const std::size_t k_size = s.heads * s.k_len * s.head_dim;
  const std::size_t bias_size = s.heads * s.head_dim;
  POSENC_RETURN_IF_ERROR(detail::check_finite_values("q", in.q, q_size));
  POSENC_RETURN_IF_ERROR(detail::check_finite_values("k", in.k, k_size));
  POSENC_RETURN_IF_ERROR(detail::check_finite_values("r", in.r, k_size));
  POSENC_RETURN_IF_ERROR(detail::check_finite_values("u", in.u, bias_size));
  POSENC_RETURN_IF_ERROR(detail::check_finite_values("v", in.v, bias_size));
  return {};
}

}  // namespace

Status txl_relative_sinusoid(const TxlSinusoidParams& p, float* out) {
  POSENC_RETURN_IF_ERROR(detail::check_relative_lengths(1, p.k_len, 0));
  if (p.d_model < 2 || p.d_model % 2 != 0) {
    return detail::invalid("dModel must be an even integer >= 2, got " + std::to_string(p.d_model));
  }
  if (p.clamp_len < 0) return detail::invalid("clampLen must be an integer >= 0, got " + std::to_string(p.clamp_len));
  POSENC_RETURN_IF_ERROR(detail::check_positive("base", p.base));
  std::size_t total = 0;
  POSENC_RETURN_IF_ERROR(
      detail::checked_product({p.k_len, static_cast<std::size_t>(p.d_model), sizeof(float)}, "R", &total));
  std::vector<double> distances;
  POSENC_RETURN_IF_ERROR(detail::allocate(distances, p.k_len));
  for (std::size_t r = 0; r < p.k_len; ++r) {
    double t = static_cast<double>(p.k_len - 1 - r);
    if (p.clamp_len > 0 && t > p.clamp_len) t = p.clamp_len;
    distances[r] = t;
  }
  // The half layout of the sinusoidal table is exactly R's [sin..., cos...] for an even width.
  const SinusoidalParams table{p.d_model, p.base, SinusoidLayout::half};
  return sinusoidal_table(table, Positions::list(distances.data()), p.k_len, out);
}

Status txl_rel_shift(std::size_t heads, std::size_t q_len, std::size_t k_len, const float* bd, bool mask_future,
                     float* out) {
  POSENC_RETURN_IF_ERROR(detail::check_size("heads", heads));
  POSENC_RETURN_IF_ERROR(detail::check_relative_lengths(q_len, k_len, 0, heads));
  if (bd == out) return detail::invalid("bd and the output must be different arrays");
  for (std::size_t h = 0; h < heads; ++h) {
    shift_matrix(bd + h * q_len * k_len, q_len, k_len, mask_future, out + h * q_len * k_len);
  }
  return {};
}

Status txl_score(const AttentionShape& s, const TxlScoreInputs& in, bool mask_future, float* out) {
  POSENC_RETURN_IF_ERROR(check_score_inputs(s, in));
  const std::size_t d = s.head_dim;
  // Everything is evaluated in double and rounded once at the end.
  std::vector<double> qu, qv, bd, shifted;
  POSENC_RETURN_IF_ERROR(detail::allocate(qu, s.q_len * d));
  POSENC_RETURN_IF_ERROR(detail::allocate(qv, s.q_len * d));
  POSENC_RETURN_IF_ERROR(detail::allocate(bd, s.q_len * s.k_len));
  POSENC_RETURN_IF_ERROR(detail::allocate(shifted, s.q_len * s.k_len));
  for (std::size_t h = 0; h < s.heads; ++h) {
    const float* qh = in.q + h * s.q_len * d;
    const float* kh = in.k + h * s.k_len * d;
    const float* rh = in.r + h * s.k_len * d;
    const float* uh = in.u + h * d;
    const float* vh = in.v + h * d;
    for (std::size_t i = 0; i < s.q_len; ++i) {
      for (std::size_t c = 0; c < d; ++c) {
        qu[i * d + c] = static_cast<double>(qh[i * d + c]) + static_cast<double>(uh[c]);
        qv[i * d + c] = static_cast<double>(qh[i * d + c]) + static_cast<double>(vh[c]);
      }
    }
    for (std::size_t i = 0; i < s.q_len; ++i) {
      for (std::size_t m = 0; m < s.k_len; ++m) {
        bd[i * s.k_len + m] = dot(qv.data() + i * d, rh + m * d, d);
      }
    }
    shift_matrix(bd.data(), s.q_len, s.k_len, mask_future, shifted.data());
    float* oh = out + h * s.q_len * s.k_len;
    for (std::size_t i = 0; i < s.q_len; ++i) {
      for (std::size_t j = 0; j < s.k_len; ++j) {
        oh[i * s.k_len + j] = static_cast<float>(dot(qu.data() + i * d, kh + j * d, d) + shifted[i * s.k_len + j]);
      }
    }
  }
  return {};
}

}  // namespace posenc
