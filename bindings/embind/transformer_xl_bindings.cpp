// Transformer-XL bindings: the relative sinusoid R, the relative shift, and the four-term score.
#include "attention_args.hpp"
#include "boundary.hpp"
#include "posenc/transformer_xl.hpp"
#include "posenc_boundary.hpp"

namespace posenc::bindings {

Status txl_relative_sinusoid_binding(const TxlRelativeSinusoidArgs& a) {
  TxlSinusoidParams p;
  POSENC_RETURN_IF_ERROR(to_size("kLen", a.k_len, &p.k_len));
  p.d_model = a.d_model;
  p.clamp_len = a.clamp_len;
  p.base = a.base;
  return txl_relative_sinusoid(p, ptr<float>(a.out));
}

Status txl_rel_shift_binding(const TxlRelShiftArgs& a) {
  std::size_t h = 0, q = 0, k = 0;
  POSENC_RETURN_IF_ERROR(to_size("heads", a.heads, &h));
  POSENC_RETURN_IF_ERROR(to_size("qLen", a.q_len, &q));
  POSENC_RETURN_IF_ERROR(to_size("kLen", a.k_len, &k));
  return txl_rel_shift(h, q, k, ptr<const float>(a.bd), a.mask_future, ptr<float>(a.out));
}

Status txl_score_binding(const TxlScoreArgs& a) {
  AttentionShape s;
  POSENC_RETURN_IF_ERROR(shape_from(a.heads, a.heads, a.q_len, a.k_len, a.head_dim, 0, &s));
  const TxlScoreInputs in{ptr<const float>(a.q), ptr<const float>(a.k), ptr<const float>(a.r), ptr<const float>(a.u),
                          ptr<const float>(a.v)};
  return txl_score(s, in, a.mask_future, ptr<float>(a.out));
}

}  // namespace posenc::bindings
