// The RoPE arguments the RoPE bindings share: the scaling block (RopeScalingBlock, written by
// bindings/js/families/rope/spec.ts through the generated writer), the spec, the q/k tensors, a
// cos/sin table, positions along axes and M-RoPE's section list.
#pragma once

#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "boundary.hpp"
#include "posenc/rope.hpp"
#include "posenc/rope_forms.hpp"
#include "posenc/rope_scaling.hpp"
#include "posenc_boundary.hpp"

namespace posenc::bindings {

/// A value of a block of doubles: NaN marks it absent.
inline std::optional<double> present(double v) { return std::isnan(v) ? std::nullopt : std::optional<double>(v); }

/// Reads a scaling block (0 = no scaling).
inline RopeScaling scaling_from(std::uintptr_t address) {
  RopeScaling s;
  if (address == 0) return s;
  const auto& b = *ptr<const RopeScalingBlock>(address);
  s.type = static_cast<RopeScalingType>(static_cast<int>(b.type));
  s.factor = present(b.factor);
  s.max_position_embeddings = present(b.max_position_embeddings);
  s.original_max_position_embeddings = present(b.original_max_position_embeddings);
  s.beta_fast = present(b.beta_fast).value_or(s.beta_fast);
  s.beta_slow = present(b.beta_slow).value_or(s.beta_slow);
  s.mscale = present(b.mscale);
  s.mscale_all_dim = present(b.mscale_all_dim);
  s.attention_factor = present(b.attention_factor);
  s.ggml_attn_factor = present(b.ggml_attn_factor);
  s.truncate = present(b.truncate).value_or(1.0) != 0.0;
  s.hf_v4_factor = present(b.hf_v4_factor).value_or(0.0) != 0.0;
  s.low_freq_factor = present(b.low_freq_factor).value_or(s.low_freq_factor);
  s.high_freq_factor = present(b.high_freq_factor).value_or(s.high_freq_factor);
  s.llama_cpp_context_length = present(b.llama_cpp_context_length);
  s.alpha = present(b.alpha);
  const auto n_short = static_cast<std::size_t>(b.short_factor_count);
  const auto n_long = static_cast<std::size_t>(b.long_factor_count);
  s.short_factor.assign(b.short_factor(), b.short_factor() + n_short);
  s.long_factor.assign(b.long_factor(), b.long_factor() + n_long);
  return s;
}

/// A RopeConfig from an argument block with the fields rotaryDim, base, scaling and seqLen.
template <class Args>
RopeConfig config_of(const Args& a) {
  RopeConfig c;
  c.rotary_dim = a.rotary_dim;
  c.base = a.base;
  c.scaling = scaling_from(a.scaling);
  c.seq_len = present(a.seq_len);
  return c;
}

/// q/k of an argument block with the fields q, qHeads, k, kHeads, batch, seq, headDim and layout
/// (sizes already checked to be integers).
template <class Args>
Status tensors_of(const Args& a, RopeTensors* t) {
  t->q = ptr<float>(a.q);
  t->k = optional_ptr<float>(a.k);
  POSENC_RETURN_IF_ERROR(to_size("q heads", a.q_heads, &t->q_heads));
  POSENC_RETURN_IF_ERROR(to_size("k heads", a.k_heads, &t->k_heads));
  POSENC_RETURN_IF_ERROR(to_size("batch", a.batch, &t->batch));
  POSENC_RETURN_IF_ERROR(to_size("seq", a.seq, &t->seq));
  POSENC_RETURN_IF_ERROR(to_size("headDim", a.head_dim, &t->head_dim));
  t->layout = a.layout;
  return {};
}

/// The cos/sin table of an argument block with the fields cos, sin, cos2, sin2 (0: none), rows and
/// pairs.
template <class Args>
Status table_of(const Args& a, RopeTable* table) {
  *table = RopeTable{ptr<const float>(a.cos), ptr<const float>(a.sin), 0, 0, optional_ptr<const float>(a.cos2),
                     optional_ptr<const float>(a.sin2)};
  POSENC_RETURN_IF_ERROR(to_size("table rows", a.rows, &table->rows));
  return to_size("table width", a.pairs, &table->pairs);
}

/// Axis-major ids ([axes, seq] or [axes, batch, seq]) at `ids`, or, with ids = 0, a range from `offset`.
inline AxisPositions axis_positions(std::size_t axes, double offset, std::uintptr_t ids, bool per_batch) {
  AxisPositions p;
  p.axes = axes;
  p.offset = offset;
  p.ids = optional_ptr<const double>(ids);
  p.per_batch = per_batch;
  return p;
}

/// M-RoPE's pairs per section from `count` doubles at `address`: each must be an integer from 0 to
/// INT_MAX before it becomes an int (a conversion of anything else is undefined).
inline Status sections_from(std::uintptr_t address, int count, std::vector<int>* sections) {
  std::size_t n = 0;
  POSENC_RETURN_IF_ERROR(to_size("mropeSection length", count, &n));
  const double* values = optional_ptr<const double>(address);
  if (n > 0 && values == nullptr) return Status(StatusCode::invalid_argument, "mropeSection must be given");
  sections->resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double v = values[i];
    if (!(v >= 0 && v <= INT_MAX && v == std::floor(v))) {
      return Status(StatusCode::invalid_argument, "mropeSection[" + std::to_string(i) + "] must be an integer from 0 to " +
                                                      std::to_string(INT_MAX) + ", got " + number_text(v));
    }
    (*sections)[i] = static_cast<int>(v);
  }
  return {};
}

}  // namespace posenc::bindings
