// Attention helper bindings: logits, scores and outputs for small sizes (optional mask, bias, RoPE).
#include <emscripten/bind.h>

#include "attention_args.hpp"
#include "boundary.hpp"
#include "posenc/attention.hpp"

namespace posenc::bindings {
namespace {

/// Shapes and options of one call; rope_dim 0 means no RoPE.
Status prepare(int heads, int kv_heads, int q_len, int k_len, int head_dim, int value_dim, bool has_scale, double scale,
               bool causal, int query_offset, std::uintptr_t bias, int bias_heads, int rotary_dim, double rope_base,
               int pairing, AttentionShape* s, AttentionOptions* o) {
  POSENC_RETURN_IF_ERROR(shape_from(heads, kv_heads, q_len, k_len, head_dim, value_dim, s));
  POSENC_RETURN_IF_ERROR(to_size("queryOffset", query_offset, &o->query_offset));
  o->scale = scale_from(has_scale, scale);
  o->causal = causal;
  o->bias = bias == 0 ? nullptr : ptr<const float>(bias);
  POSENC_RETURN_IF_ERROR(to_size("bias heads", bias_heads, &o->bias_heads));
  if (rotary_dim != 0) {
    AttentionRope rope;
    rope.config.rotary_dim = rotary_dim;
    rope.config.base = rope_base;
    rope.pairing = static_cast<Pairing>(pairing);
    o->rope = rope;
  }
  return {};
}

/// The [heads, qLen, kLen] logits (softmax false) or their softmax scores (softmax true) at `out`.
int attention_matrix_binding(std::uintptr_t q, std::uintptr_t k, int heads, int kv_heads, int q_len, int k_len,
                             int head_dim, bool has_scale, double scale, bool causal, int query_offset,
                             std::uintptr_t bias, int bias_heads, int rotary_dim, double rope_base, int pairing,
                             bool softmax, std::uintptr_t out) {
  return guarded([&] {
    AttentionShape s;
    AttentionOptions o;
    POSENC_RETURN_IF_ERROR(prepare(heads, kv_heads, q_len, k_len, head_dim, 0, has_scale, scale, causal, query_offset,
                                   bias, bias_heads, rotary_dim, rope_base, pairing, &s, &o));
    return softmax ? attention_scores(s, ptr<const float>(q), ptr<const float>(k), o, ptr<float>(out))
                   : attention_logits(s, ptr<const float>(q), ptr<const float>(k), o, ptr<float>(out));
  });
}

int attention_output_binding(std::uintptr_t q, std::uintptr_t k, std::uintptr_t v, int heads, int kv_heads, int q_len,
                             int k_len, int head_dim, int value_dim, bool has_scale, double scale, bool causal,
                             int query_offset, std::uintptr_t bias, int bias_heads, int rotary_dim, double rope_base,
                             int pairing, std::uintptr_t out, std::uintptr_t scores_out) {
  return guarded([&] {
    AttentionShape s;
    AttentionOptions o;
    POSENC_RETURN_IF_ERROR(prepare(heads, kv_heads, q_len, k_len, head_dim, value_dim, has_scale, scale, causal,
                                   query_offset, bias, bias_heads, rotary_dim, rope_base, pairing, &s, &o));
    return attention_output(s, ptr<const float>(q), ptr<const float>(k), ptr<const float>(v), o, ptr<float>(out),
                            scores_out == 0 ? nullptr : ptr<float>(scores_out));
  });
}

}  // namespace
}  // namespace posenc::bindings

EMSCRIPTEN_BINDINGS(posenc_attention) {
  using namespace posenc::bindings;
  emscripten::function("attentionMatrix", &attention_matrix_binding);
  emscripten::function("attentionOutput", &attention_output_binding);
}
