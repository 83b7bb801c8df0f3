// RoPE bindings: frequencies (with scaling and diagnostics), angles, in-place rotation of q/k, and
// cos/sin tables (caches, ONNX semantics).
#include <emscripten/bind.h>

#include <algorithm>
#include <cmath>

#include "boundary.hpp"
#include "posenc/rope.hpp"
#include "rope_spec.hpp"

namespace posenc::bindings {
namespace {

/// Writes the frequencies of a RoPE spec at `out` (4 * rotaryDim/2 + 7 doubles, p = rotaryDim/2):
///   [0, p)        inverse frequencies
///   p + 0..6      attention factor, effective base, factor, seqLen used (NaN: none),
///                 YaRN low, YaRN high (NaN unless yarn), LongRoPE long list in use (0/1)
///   p + 7 + [0, p)   YaRN ramp per pair (NaN unless yarn)
///   p + 7 + [p, 2p)  Llama 3 band per pair (0 unchanged, 1 blended, 2 divided; NaN unless llama3)
///   p + 7 + [2p, 3p) Llama 3 blend weight s per pair (NaN unless llama3)
/// Keep in sync with readFrequencies() in bindings/js/rope-spec.ts.
int rope_frequencies_binding(int rotary_dim, double base, std::uintptr_t scaling, double seq_len, std::uintptr_t out) {
  return guarded([&] {
    RopeFrequencies f;
    POSENC_RETURN_IF_ERROR(rope_frequencies(config_from(rotary_dim, base, scaling, seq_len), &f));
    const std::size_t p = f.inv_freq.size();
    double* dst = ptr<double>(out);
    std::copy(f.inv_freq.begin(), f.inv_freq.end(), dst);
    const double nan = std::nan("");
    const double header[7] = {f.attention_factor, f.effective_base, f.factor, f.seq_len,
                              f.yarn_low, f.yarn_high, f.longrope_long ? 1.0 : 0.0};
    std::copy(header, header + 7, dst + p);
    double* ramp = dst + p + 7;
    double* band = ramp + p;
    double* blend = band + p;
    for (std::size_t i = 0; i < p; ++i) {
      ramp[i] = f.yarn_ramp.empty() ? nan : f.yarn_ramp[i];
      band[i] = f.llama3_band.empty() ? nan : static_cast<double>(f.llama3_band[i]);
      blend[i] = f.llama3_blend.empty() ? nan : f.llama3_blend[i];
    }
    return Status();
  });
}

int rope_apply_binding(std::uintptr_t q, int q_heads, std::uintptr_t k, int k_heads, int batch, int seq,
                       int head_dim, int layout, int pairing, int rotary_dim, double base, std::uintptr_t scaling,
                       double seq_len, double offset, std::uintptr_t ids, bool per_batch) {
  return guarded([&] {
    RopeTensors t;
    POSENC_RETURN_IF_ERROR(tensors_from(q, q_heads, k, k_heads, batch, seq, head_dim, layout, &t));
    return rope_apply(config_from(rotary_dim, base, scaling, seq_len), static_cast<Pairing>(pairing),
                      positions_from(offset, ids, per_batch), t);
  });
}

/// Writes count * rotaryDim/2 angles (position * inverse frequency) at `out`.
int rope_angles_binding(int rotary_dim, double base, std::uintptr_t scaling, double seq_len, std::uintptr_t ids,
                        int count, std::uintptr_t out) {
  return guarded([&] {
    std::size_t n = 0;
    POSENC_RETURN_IF_ERROR(to_size("positionIds length", count, &n));
    return rope_angles(config_from(rotary_dim, base, scaling, seq_len), ptr<const double>(ids), n, ptr<double>(out));
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

/// cos2/sin2: the expanded rows of an interleaved cache (rope_expand_interleaved), or 0.
int rope_apply_table_binding(std::uintptr_t cos, std::uintptr_t sin, std::uintptr_t cos2, std::uintptr_t sin2,
                             int rows, int pairs, int pairing, int rotary_dim, std::uintptr_t q, int q_heads,
                             std::uintptr_t k, int k_heads, int batch, int seq, int head_dim, int layout, double offset,
                             std::uintptr_t ids, bool per_batch) {
  return guarded([&] {
    RopeTensors t;
    POSENC_RETURN_IF_ERROR(tensors_from(q, q_heads, k, k_heads, batch, seq, head_dim, layout, &t));
    RopeTable table{ptr<const float>(cos), ptr<const float>(sin), 0, 0, ptr<const float>(cos2), ptr<const float>(sin2)};
    POSENC_RETURN_IF_ERROR(to_size("table rows", rows, &table.rows));
    POSENC_RETURN_IF_ERROR(to_size("table width", pairs, &table.pairs));
    return rope_apply_table(table, static_cast<Pairing>(pairing), rotary_dim, positions_from(offset, ids, per_batch),
                            t);
  });
}

/// Expands n cos/sin values (a whole [rows, pairs] table) for the interleaved pairing.
void rope_expand_table_binding(std::uintptr_t cos, std::uintptr_t sin, int n, std::uintptr_t cos2, std::uintptr_t sin2) {
  rope_expand_interleaved(ptr<const float>(cos), ptr<const float>(sin), static_cast<std::size_t>(n), ptr<float>(cos2),
                          ptr<float>(sin2));
}

}  // namespace
}  // namespace posenc::bindings

EMSCRIPTEN_BINDINGS(posenc_rope) {
  using namespace posenc::bindings;
  emscripten::function("ropeFrequencies", &rope_frequencies_binding);
  emscripten::function("ropeApply", &rope_apply_binding);
  emscripten::function("ropeAngles", &rope_angles_binding);
  emscripten::function("ropeFillTable", &rope_fill_table_binding);
  emscripten::function("ropeApplyTable", &rope_apply_table_binding);
  emscripten::function("ropeExpandTable", &rope_expand_table_binding);
}
