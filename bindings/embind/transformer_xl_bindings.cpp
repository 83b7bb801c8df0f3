// Transformer-XL bindings: the relative sinusoid R, the relative shift, and the four-term score.
#include <emscripten/bind.h>

#include "attention_args.hpp"
#include "boundary.hpp"
#include "posenc/transformer_xl.hpp"

namespace posenc::bindings {
namespace {

int txl_relative_sinusoid_binding(std::uintptr_t out, int k_len, int d_model, int clamp_len, double base) {
  return guarded([&] {
    TxlSinusoidParams p;
    POSENC_RETURN_IF_ERROR(to_size("kLen", k_len, &p.k_len));
    p.d_model = d_model;
    p.clamp_len = clamp_len;
    p.base = base;
    return txl_relative_sinusoid(p, ptr<float>(out));
  });
}

int txl_rel_shift_binding(std::uintptr_t bd, int heads, int q_len, int k_len, bool mask_future, std::uintptr_t out) {
  return guarded([&] {
    std::size_t h = 0, q = 0, k = 0;
    POSENC_RETURN_IF_ERROR(to_size("heads", heads, &h));
    POSENC_RETURN_IF_ERROR(to_size("qLen", q_len, &q));
    POSENC_RETURN_IF_ERROR(to_size("kLen", k_len, &k));
    return txl_rel_shift(h, q, k, ptr<const float>(bd), mask_future, ptr<float>(out));
  });
}

int txl_score_binding(std::uintptr_t q, std::uintptr_t k, std::uintptr_t r, std::uintptr_t u, std::uintptr_t v,
                      int heads, int q_len, int k_len, int head_dim, bool mask_future, std::uintptr_t out) {
  return guarded([&] {
    AttentionShape s;
    POSENC_RETURN_IF_ERROR(shape_from(heads, heads, q_len, k_len, head_dim, 0, &s));
    const TxlScoreInputs in{ptr<const float>(q), ptr<const float>(k), ptr<const float>(r), ptr<const float>(u),
                            ptr<const float>(v)};
    return txl_score(s, in, mask_future, ptr<float>(out));
  });
}

}  // namespace
}  // namespace posenc::bindings

EMSCRIPTEN_BINDINGS(posenc_transformer_xl) {
  using namespace posenc::bindings;
  emscripten::function("txlRelativeSinusoid", &txl_relative_sinusoid_binding);
  emscripten::function("txlRelShift", &txl_rel_shift_binding);
  emscripten::function("txlScore", &txl_score_binding);
}
