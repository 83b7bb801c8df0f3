// Transformer-XL relative attention (Dai et al. 2019, eq. 3 and appendix B): a relative sinusoid
// matrix R, the "relative shift" that realigns position-based scores, and the four-term score
//   A_ij = (q_i + u) . k_j + (q_i + v) . (W_kR R_{i-j}).
#pragma once

#include <cstddef>

#include "posenc/attention.hpp"
#include "posenc/status.hpp"

namespace posenc {

/// The relative sinusoid of Transformer-XL: row r holds R at distance t_r = kLen-1-r (descending,
/// clamped to clampLen when clampLen > 0), half layout:
///   R[r] = [sin(t_r w_0) .. sin(t_r w_{d/2-1}), cos(t_r w_0) .. cos(t_r w_{d/2-1})],  w_i = base^(-2i/d)
struct TxlSinusoidParams {
  std::size_t k_len = 0;   ///< memLen + qLen
  int d_model = 0;         ///< even, >= 2
  int clamp_len = 0;       ///< >= 0; 0 disables clamping
  double base = 10000.0;
};

/// R as [kLen, dModel].
Status txl_relative_sinusoid(const TxlSinusoidParams& params, float* out);

/// Hugging Face's `_rel_shift` on `heads` matrices [qLen, kLen]: prepend a zero column, view the
/// result as [kLen+1, qLen], drop the first row, view as [qLen, kLen]. For j <= kLen - qLen + i it
/// gives out[i, j] = bd[i, j + qLen - 1 - i]; the other entries ("future" keys) hold what the view
/// arithmetic puts there (0 at j = kLen - qLen + i + 1, then bd[i + 1, j - (kLen - qLen) - i - 2]),
/// or -Infinity when `mask_future` is set.
Status txl_rel_shift(std::size_t heads, std::size_t q_len, std::size_t k_len, const float* bd, bool mask_future,
                     float* out);

/// Inputs of the four-term score, per head h (shape: heads, q_len, k_len >= q_len, head_dim):
///   q [heads, qLen, d], k [heads, kLen, d], r = W_kR R projected per head [heads, kLen, d]
///   (Hugging Face's r_head_k, row r for distance kLen-1-r), u and v [heads, d]
///   (r_w_bias and r_r_bias).
struct TxlScoreInputs {
  const float* q = nullptr;
  const float* k = nullptr;
  const float* r = nullptr;
  const float* u = nullptr;
  const float* v = nullptr;
};

/// The unscaled score AC + BD [heads, qLen, kLen] with AC[i,j] = (q_i + u).k_j and
/// BD = rel_shift((q_i + v).r_m); entries with j > memLen + i follow txl_rel_shift (garbage, or
/// -Infinity with `mask_future`). Hugging Face multiplies by 1/sqrt(d) afterwards.
Status txl_score(const AttentionShape& shape, const TxlScoreInputs& inputs, bool mask_future, float* out);

}  // namespace posenc
