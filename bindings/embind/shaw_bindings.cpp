// Shaw et al. 2018 relative position bindings: index matrix, table gather, logits and attention.
#include "attention_args.hpp"
#include "boundary.hpp"
#include "posenc/shaw.hpp"
#include "posenc_boundary.hpp"

namespace posenc::bindings {
namespace {

/// The window of an argument block (fields qLen, kLen, maxRelativePosition, queryOffset).
template <class Args>
Status window_of(const Args& a, ShawWindow* w) {
  w->max_relative_position = a.max_relative_position;
  POSENC_RETURN_IF_ERROR(to_size("qLen", a.q_len, &w->q_len));
  POSENC_RETURN_IF_ERROR(to_size("kLen", a.k_len, &w->k_len));
  return to_size("queryOffset", a.query_offset, &w->query_offset);
}

/// The attention options of an argument block.
template <class Args>
Status options_of(const Args& a, ShawAttentionOptions* o) {
  o->max_relative_position = a.max_relative_position;
  POSENC_RETURN_IF_ERROR(to_size("queryOffset", a.query_offset, &o->query_offset));
  o->scale = scale_of(a);
  o->causal = a.causal;
  return {};
}

}  // namespace

Status shaw_relative_indices_binding(const ShawRelativeIndicesArgs& a) {
  ShawWindow w;
  POSENC_RETURN_IF_ERROR(window_of(a, &w));
  return shaw_relative_indices(w, ptr<std::int32_t>(a.out));
}

Status shaw_gather_binding(const ShawGatherArgs& a) {
  ShawWindow w;
  POSENC_RETURN_IF_ERROR(window_of(a, &w));
  std::size_t r = 0, d = 0;
  POSENC_RETURN_IF_ERROR(to_size("table rows", a.rows, &r));
  POSENC_RETURN_IF_ERROR(to_size("table width", a.width, &d));
  return shaw_gather(w, ptr<const float>(a.table), r, d, ptr<float>(a.out));
}

Status shaw_logits_binding(const ShawLogitsArgs& a) {
  AttentionShape s;
  ShawAttentionOptions o;
  ShawTables t;
  POSENC_RETURN_IF_ERROR(shape_of(a, &s));
  POSENC_RETURN_IF_ERROR(options_of(a, &o));
  t.keys = ptr<const float>(a.relative_keys);
  POSENC_RETURN_IF_ERROR(to_size("relativeKeys rows", a.rows, &t.rows));
  return shaw_logits(s, ptr<const float>(a.q), ptr<const float>(a.k), t, o, ptr<float>(a.out));
}

Status shaw_attention_binding(const ShawAttentionArgs& a) {
  AttentionShape s;
  ShawAttentionOptions o;
  ShawTables t;
  POSENC_RETURN_IF_ERROR(shape_from(a.heads, a.kv_heads, a.q_len, a.k_len, a.head_dim, a.value_dim, &s));
  POSENC_RETURN_IF_ERROR(options_of(a, &o));
  t.keys = ptr<const float>(a.relative_keys);
  t.values = optional_ptr<const float>(a.relative_values);
  POSENC_RETURN_IF_ERROR(to_size("relativeKeys rows", a.rows, &t.rows));
  return shaw_attention(s, ptr<const float>(a.q), ptr<const float>(a.k), ptr<const float>(a.v), t, o,
                        ptr<float>(a.out));
}

}  // namespace posenc::bindings
