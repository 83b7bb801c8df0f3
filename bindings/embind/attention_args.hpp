// Argument conversion shared by the attention-shaped bindings (attention, Shaw, Transformer-XL).
#pragma once

#include <optional>

#include "boundary.hpp"
#include "posenc/attention.hpp"

namespace posenc::bindings {

/// An AttentionShape from the sizes the JS layer resolved (already checked to be integers).
inline Status shape_from(int heads, int kv_heads, int q_len, int k_len, int head_dim, int value_dim,
                         AttentionShape* s) {
  POSENC_RETURN_IF_ERROR(to_size("heads", heads, &s->heads));
  POSENC_RETURN_IF_ERROR(to_size("kvHeads", kv_heads, &s->kv_heads));
  POSENC_RETURN_IF_ERROR(to_size("qLen", q_len, &s->q_len));
  POSENC_RETURN_IF_ERROR(to_size("kLen", k_len, &s->k_len));
  POSENC_RETURN_IF_ERROR(to_size("headDim", head_dim, &s->head_dim));
  return to_size("valueDim", value_dim, &s->value_dim);
}

/// The shape of an argument block with the fields heads, kvHeads, qLen, kLen, headDim (valueDim 0).
template <class Args>
Status shape_of(const Args& a, AttentionShape* s) {
  return shape_from(a.heads, a.kv_heads, a.q_len, a.k_len, a.head_dim, 0, s);
}

/// The scale of an argument block: hasScale false means the default 1/sqrt(headDim).
template <class Args>
std::optional<double> scale_of(const Args& a) {
  return a.has_scale ? std::optional<double>(a.scale) : std::nullopt;
}

}  // namespace posenc::bindings
