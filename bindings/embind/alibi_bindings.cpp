// ALiBi bindings: slopes and bias tensors (causal, symmetric, BLOOM forms).
#include <emscripten/bind.h>

#include "boundary.hpp"
#include "posenc/alibi.hpp"

namespace posenc::bindings {
namespace {

int alibi_slopes_binding(int num_heads, double max_bias, std::uintptr_t out) {
  return guarded([&] { return alibi_slopes(num_heads, max_bias, ptr<double>(out)); });
}

/// The parameters of a bias call (sizes already checked to be integers by the JS layer).
Status params_from(int num_heads, double max_bias, int form, bool mask_future, int q_len, int k_len, int query_offset,
                   std::uintptr_t attention_mask, int batch, AlibiParams* p) {
  p->num_heads = num_heads;
  p->max_bias = max_bias;
  p->form = static_cast<AlibiForm>(form);
  p->mask_future = mask_future;
  POSENC_RETURN_IF_ERROR(to_size("qLen", q_len, &p->q_len));
  POSENC_RETURN_IF_ERROR(to_size("kLen", k_len, &p->k_len));
  POSENC_RETURN_IF_ERROR(to_size("queryOffset", query_offset, &p->query_offset));
  POSENC_RETURN_IF_ERROR(to_size("batch", batch, &p->batch));
  p->attention_mask = attention_mask == 0 ? nullptr : ptr<const std::int32_t>(attention_mask);
  return {};
}

/// The bias [batch, heads, qLen, kLen] written at `out`: one vector per head (or row per batch and
/// head for bloom), then every row a memory.copy of a slice of it.
int alibi_bias_binding(std::uintptr_t out, int num_heads, double max_bias, int form, bool mask_future, int q_len,
                       int k_len, int query_offset, std::uintptr_t attention_mask, int batch) {
  return guarded([&] {
    AlibiParams p;
    POSENC_RETURN_IF_ERROR(params_from(num_heads, max_bias, form, mask_future, q_len, k_len, query_offset,
                                       attention_mask, batch, &p));
    return alibi_bias(p, ptr<float>(out));
  });
}

}  // namespace
}  // namespace posenc::bindings

EMSCRIPTEN_BINDINGS(posenc_alibi) {
  using namespace posenc::bindings;
  emscripten::function("alibiSlopes", &alibi_slopes_binding);
  emscripten::function("alibiBias", &alibi_bias_binding);
}
