// RoPE bindings: frequencies, in-place rotation of q/k, and cos/sin tables (caches, ONNX semantics).
#include <emscripten/bind.h>

#include <algorithm>

#include "boundary.hpp"
#include "posenc/rope.hpp"

namespace posenc::bindings {
namespace {

/// q/k shapes as the JS layer resolved them (sizes already checked to be integers).
Status tensors_from(std::uintptr_t q, int q_heads, std::uintptr_t k, int k_heads, int batch, int seq, int head_dim,
                    int layout, RopeTensors* t) {
  t->q = ptr<float>(q);
  t->k = k == 0 ? nullptr : ptr<float>(k);
  POSENC_RETURN_IF_ERROR(to_size("q heads", q_heads, &t->q_heads));
  POSENC_RETURN_IF_ERROR(to_size("k heads", k_heads, &t->k_heads));
  POSENC_RETURN_IF_ERROR(to_size("batch", batch, &t->batch));
  POSENC_RETURN_IF_ERROR(to_size("seq", seq, &t->seq));
  POSENC_RETURN_IF_ERROR(to_size("headDim", head_dim, &t->head_dim));
  t->layout = static_cast<HeadLayout>(layout);
  return {};
}

/// Writes rotaryDim/2 inverse frequencies to `out` and the attention factor after them.
int rope_frequencies_binding(int rotary_dim, double base, std::uintptr_t out) {
  return guarded([&] {
    RopeFrequencies freq;
    POSENC_RETURN_IF_ERROR(rope_frequencies(RopeConfig{rotary_dim, base}, &freq));
    double* dst = std::copy(freq.inv_freq.begin(), freq.inv_freq.end(), ptr<double>(out));
    *dst = freq.attention_factor;
    return Status();
  });
}

int rope_apply_binding(std::uintptr_t q, int q_heads, std::uintptr_t k, int k_heads, int batch, int seq,
                       int head_dim, int layout, int pairing, int rotary_dim, double base, double offset,
                       std::uintptr_t ids, bool per_batch) {
  return guarded([&] {
    RopeTensors t;
    POSENC_RETURN_IF_ERROR(tensors_from(q, q_heads, k, k_heads, batch, seq, head_dim, layout, &t));
    return rope_apply(RopeConfig{rotary_dim, base}, static_cast<Pairing>(pairing),
                      positions_from(offset, ids, per_batch), t);
  });
}

int rope_fill_table_binding(int rotary_dim, std::uintptr_t inv_freq, double attention_factor, int rows,
                            std::uintptr_t cos, std::uintptr_t sin) {
  return guarded([&] {
    std::size_t n = 0;
    POSENC_RETURN_IF_ERROR(to_size("maxPositions", rows, &n));
    const RopeRotation rotation{Pairing::half, rotary_dim, ptr<const double>(inv_freq), attention_factor};
    return rope_fill_table(rotation, n, ptr<float>(cos), ptr<float>(sin));
  });
}

int rope_apply_table_binding(std::uintptr_t cos, std::uintptr_t sin, int rows, int pairs, int pairing,
                             int rotary_dim, std::uintptr_t q, int q_heads, std::uintptr_t k, int k_heads, int batch,
                             int seq, int head_dim, int layout, double offset, std::uintptr_t ids, bool per_batch) {
  return guarded([&] {
    RopeTensors t;
    POSENC_RETURN_IF_ERROR(tensors_from(q, q_heads, k, k_heads, batch, seq, head_dim, layout, &t));
    RopeTable table{ptr<const float>(cos), ptr<const float>(sin), 0, 0};
    POSENC_RETURN_IF_ERROR(to_size("table rows", rows, &table.rows));
    POSENC_RETURN_IF_ERROR(to_size("table width", pairs, &table.pairs));
    return rope_apply_table(table, static_cast<Pairing>(pairing), rotary_dim, positions_from(offset, ids, per_batch),
                            t);
  });
}

}  // namespace
}  // namespace posenc::bindings

EMSCRIPTEN_BINDINGS(posenc_rope) {
  using namespace posenc::bindings;
  emscripten::function("ropeFrequencies", &rope_frequencies_binding);
  emscripten::function("ropeApply", &rope_apply_binding);
  emscripten::function("ropeFillTable", &rope_fill_table_binding);
  emscripten::function("ropeApplyTable", &rope_apply_table_binding);
}
