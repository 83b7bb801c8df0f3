// ALiBi bindings: slopes and bias tensors (causal, symmetric, BLOOM forms).
#include "boundary.hpp"
#include "posenc/alibi.hpp"
#include "posenc_boundary.hpp"

namespace posenc::bindings {

Status alibi_slopes_binding(const AlibiSlopesArgs& a) {
  return alibi_slopes(a.num_heads, a.max_bias, ptr<double>(a.out));
}

/// The bias [batch, heads, qLen, kLen] written at `out`: one vector per head (or row per batch and
/// head for bloom), then every row a memory.copy of a slice of it.
Status alibi_bias_binding(const AlibiBiasArgs& a) {
  AlibiParams p;
  p.num_heads = a.num_heads;
  p.max_bias = a.max_bias;
  p.form = a.form;
  p.mask_future = a.mask_future;
  POSENC_RETURN_IF_ERROR(to_size("qLen", a.q_len, &p.q_len));
  POSENC_RETURN_IF_ERROR(to_size("kLen", a.k_len, &p.k_len));
  POSENC_RETURN_IF_ERROR(to_size("queryOffset", a.query_offset, &p.query_offset));
  POSENC_RETURN_IF_ERROR(to_size("batch", a.batch, &p.batch));
  p.attention_mask = optional_ptr<const std::int32_t>(a.attention_mask);
  return alibi_bias(p, ptr<float>(a.out));
}

}  // namespace posenc::bindings
