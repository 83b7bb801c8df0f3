// Attention helper bindings: logits, scores and outputs for small sizes (optional mask, bias, RoPE).
#include "attention_args.hpp"
#include "boundary.hpp"
#include "posenc/attention.hpp"
#include "posenc_boundary.hpp"

namespace posenc::bindings {
namespace {

/// The options of an argument block; rotaryDim 0 means no RoPE.
template <class Args>
Status options_of(const Args& a, AttentionOptions* o) {
  POSENC_RETURN_IF_ERROR(to_size("queryOffset", a.query_offset, &o->query_offset));
  o->scale = scale_of(a);
  o->causal = a.causal;
  o->bias = optional_ptr<const float>(a.bias);
  POSENC_RETURN_IF_ERROR(to_size("bias heads", a.bias_heads, &o->bias_heads));
  if (a.rotary_dim != 0) {
    AttentionRope rope;
    rope.config.rotary_dim = a.rotary_dim;
    rope.config.base = a.rope_base;
    rope.pairing = a.pairing;
    o->rope = rope;
  }
  return {};
}

}  // namespace

/// The [heads, qLen, kLen] logits or their softmax scores at `out`.
Status attention_matrix_binding(const AttentionMatrixArgs& a) {
  AttentionShape s;
  AttentionOptions o;
  POSENC_RETURN_IF_ERROR(shape_of(a, &s));
  POSENC_RETURN_IF_ERROR(options_of(a, &o));
  const auto* q = ptr<const float>(a.q);
  const auto* k = ptr<const float>(a.k);
  switch (a.kind) {
    case AttentionMatrix::logits: return attention_logits(s, q, k, o, ptr<float>(a.out));
    case AttentionMatrix::scores: return attention_scores(s, q, k, o, ptr<float>(a.out));
  }
  return Status(StatusCode::invalid_argument, "unknown attention matrix kind");
}

Status attention_output_binding(const AttentionOutputArgs& a) {
  AttentionShape s;
  AttentionOptions o;
  POSENC_RETURN_IF_ERROR(shape_from(a.heads, a.kv_heads, a.q_len, a.k_len, a.head_dim, a.value_dim, &s));
  POSENC_RETURN_IF_ERROR(options_of(a, &o));
  return attention_output(s, ptr<const float>(a.q), ptr<const float>(a.k), ptr<const float>(a.v), o, ptr<float>(a.out),
                          optional_ptr<float>(a.scores_out));
}

}  // namespace posenc::bindings
