// RoPE bindings: frequencies (with scaling and diagnostics), angles, in-place rotation of q/k, and
// cos/sin tables (caches, ONNX semantics).
#include <algorithm>
#include <cmath>

#include "boundary.hpp"
#include "posenc/rope.hpp"
#include "posenc_boundary.hpp"
#include "rope_spec.hpp"

namespace posenc::bindings {

/// Writes the frequencies of a RoPE spec at `out` as a RopeFrequencyBlock (NaN where a variant's
/// diagnostics do not apply).
Status rope_frequencies_binding(const RopeFrequenciesArgs& a) {
  RopeFrequencies f;
  POSENC_RETURN_IF_ERROR(rope_frequencies(config_of(a), &f));
  const std::size_t p = f.inv_freq.size();
  auto& block = *ptr<RopeFrequencyBlock>(a.out);
  block.attention_factor = f.attention_factor;
  block.effective_base = f.effective_base;
  block.factor = f.factor;
  block.seq_len = f.seq_len;
  block.yarn_low = f.yarn_low;
  block.yarn_high = f.yarn_high;
  block.longrope_long = f.longrope_long ? 1.0 : 0.0;
  std::copy(f.inv_freq.begin(), f.inv_freq.end(), block.inv_freq(p));
  const double nan = std::nan("");
  double* ramp = block.yarn_ramp(p);
  double* band = block.llama3_band(p);
  double* blend = block.llama3_blend(p);
  for (std::size_t i = 0; i < p; ++i) {
    ramp[i] = f.yarn_ramp.empty() ? nan : f.yarn_ramp[i];
    band[i] = f.llama3_band.empty() ? nan : static_cast<double>(f.llama3_band[i]);
    blend[i] = f.llama3_blend.empty() ? nan : f.llama3_blend[i];
  }
  return {};
}

Status rope_apply_binding(const RopeApplyArgs& a) {
  RopeTensors t;
  POSENC_RETURN_IF_ERROR(tensors_of(a, &t));
  return rope_apply(config_of(a), a.pairing, positions_of(a), t);
}

/// Writes count * rotaryDim/2 angles (position * inverse frequency) at `out`.
Status rope_angles_binding(const RopeAnglesArgs& a) {
  std::size_t n = 0;
  POSENC_RETURN_IF_ERROR(to_size("positionIds length", a.count, &n));
  return rope_angles(config_of(a), ptr<const double>(a.ids), n, ptr<double>(a.out));
}

Status rope_fill_table_binding(const RopeFillTableArgs& a) {
  std::size_t n = 0;
  POSENC_RETURN_IF_ERROR(to_size("maxPositions", a.rows, &n));
  const RopeRotation rotation{Pairing::half, a.rotary_dim, ptr<const double>(a.inv_freq), a.attention_factor};
  return rope_fill_table(rotation, n, ptr<float>(a.cos), ptr<float>(a.sin));
}

/// cos2/sin2: the expanded rows of an interleaved cache (rope_expand_interleaved), or 0.
Status rope_apply_table_binding(const RopeApplyTableArgs& a) {
  RopeTensors t;
  POSENC_RETURN_IF_ERROR(tensors_of(a, &t));
  RopeTable table;
  POSENC_RETURN_IF_ERROR(table_of(a, &table));
  return rope_apply_table(table, a.pairing, a.rotary_dim, positions_of(a), t);
}

/// Expands n cos/sin values (a whole [rows, pairs] table) for the interleaved pairing.
void rope_expand_table_binding(const RopeExpandTableArgs& a) {
  rope_expand_interleaved(ptr<const float>(a.cos), ptr<const float>(a.sin), static_cast<std::size_t>(a.n),
                          ptr<float>(a.cos2), ptr<float>(a.sin2));
}

}  // namespace posenc::bindings
