// Shaw et al. 2018 relative position bindings: index matrix, table gather, logits and attention.
#include <emscripten/bind.h>

#include "attention_args.hpp"
#include "boundary.hpp"
#include "posenc/shaw.hpp"

namespace posenc::bindings {
namespace {

Status window_from(int q_len, int k_len, int max_relative_position, int query_offset, ShawWindow* w) {
  w->max_relative_position = max_relative_position;
  POSENC_RETURN_IF_ERROR(to_size("qLen", q_len, &w->q_len));
  POSENC_RETURN_IF_ERROR(to_size("kLen", k_len, &w->k_len));
  return to_size("queryOffset", query_offset, &w->query_offset);
}

Status options_from(int max_relative_position, int query_offset, bool has_scale, double scale, bool causal,
                    ShawAttentionOptions* o) {
  o->max_relative_position = max_relative_position;
  POSENC_RETURN_IF_ERROR(to_size("queryOffset", query_offset, &o->query_offset));
  o->scale = scale_from(has_scale, scale);
  o->causal = causal;
  return {};
}

int shaw_relative_indices_binding(std::uintptr_t out, int q_len, int k_len, int max_relative_position,
                                  int query_offset) {
  return guarded([&] {
    ShawWindow w;
    POSENC_RETURN_IF_ERROR(window_from(q_len, k_len, max_relative_position, query_offset, &w));
    return shaw_relative_indices(w, ptr<std::int32_t>(out));
  });
}

int shaw_gather_binding(std::uintptr_t table, int rows, int width, std::uintptr_t out, int q_len, int k_len,
                        int max_relative_position, int query_offset) {
  return guarded([&] {
    ShawWindow w;
    POSENC_RETURN_IF_ERROR(window_from(q_len, k_len, max_relative_position, query_offset, &w));
    std::size_t r = 0, d = 0;
    POSENC_RETURN_IF_ERROR(to_size("table rows", rows, &r));
    POSENC_RETURN_IF_ERROR(to_size("table width", width, &d));
    return shaw_gather(w, ptr<const float>(table), r, d, ptr<float>(out));
  });
}

int shaw_logits_binding(std::uintptr_t q, std::uintptr_t k, int heads, int kv_heads, int q_len, int k_len,
                        int head_dim, std::uintptr_t relative_keys, int rows, int max_relative_position,
                        int query_offset, bool has_scale, double scale, bool causal, std::uintptr_t out) {
  return guarded([&] {
    AttentionShape s;
    ShawAttentionOptions o;
    ShawTables t;
    POSENC_RETURN_IF_ERROR(shape_from(heads, kv_heads, q_len, k_len, head_dim, 0, &s));
    POSENC_RETURN_IF_ERROR(options_from(max_relative_position, query_offset, has_scale, scale, causal, &o));
    t.keys = ptr<const float>(relative_keys);
    POSENC_RETURN_IF_ERROR(to_size("relativeKeys rows", rows, &t.rows));
    return shaw_logits(s, ptr<const float>(q), ptr<const float>(k), t, o, ptr<float>(out));
  });
}

int shaw_attention_binding(std::uintptr_t q, std::uintptr_t k, std::uintptr_t v, int heads, int kv_heads, int q_len,
                           int k_len, int head_dim, int value_dim, std::uintptr_t relative_keys,
                           std::uintptr_t relative_values, int rows, int max_relative_position, int query_offset,
                           bool has_scale, double scale, bool causal, std::uintptr_t out) {
  return guarded([&] {
    AttentionShape s;
    ShawAttentionOptions o;
    ShawTables t;
    POSENC_RETURN_IF_ERROR(shape_from(heads, kv_heads, q_len, k_len, head_dim, value_dim, &s));
    POSENC_RETURN_IF_ERROR(options_from(max_relative_position, query_offset, has_scale, scale, causal, &o));
    t.keys = ptr<const float>(relative_keys);
    t.values = relative_values == 0 ? nullptr : ptr<const float>(relative_values);
    POSENC_RETURN_IF_ERROR(to_size("relativeKeys rows", rows, &t.rows));
    return shaw_attention(s, ptr<const float>(q), ptr<const float>(k), ptr<const float>(v), t, o, ptr<float>(out));
  });
}

}  // namespace
}  // namespace posenc::bindings

EMSCRIPTEN_BINDINGS(posenc_shaw) {
  using namespace posenc::bindings;
  emscripten::function("shawRelativeIndices", &shaw_relative_indices_binding);
  emscripten::function("shawGather", &shaw_gather_binding);
  emscripten::function("shawLogits", &shaw_logits_binding);
  emscripten::function("shawAttention", &shaw_attention_binding);
}
