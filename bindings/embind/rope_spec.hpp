// The RoPE arguments every RoPE binding shares: the scaling block (RopeScalingBlock, written by
// bindings/js/families/rope/spec.ts through the generated writer), the spec and the q/k tensors.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "boundary.hpp"
#include "posenc/rope.hpp"
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

}  // namespace posenc::bindings
