// The RoPE scaling parameters as the JS layer passes them: one block of doubles in the heap
// (bindings/js/rope-spec.ts writes it). NaN marks an absent optional value.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "boundary.hpp"
#include "posenc/rope.hpp"
#include "posenc/rope_scaling.hpp"

namespace posenc::bindings {

/// Slots of the scaling block; the short and long LongRoPE lists follow the header, in that order.
/// Keep in sync with SCALING_SLOTS in bindings/js/rope-spec.ts.
enum ScalingSlot : std::size_t {
  kScalingType = 0,
  kScalingFactor,
  kScalingMaxPositions,
  kScalingOriginalMaxPositions,
  kScalingBetaFast,
  kScalingBetaSlow,
  kScalingMscale,
  kScalingMscaleAllDim,
  kScalingAttentionFactor,
  kScalingGgmlAttnFactor,
  kScalingTruncate,
  kScalingHfV4Factor,
  kScalingLowFreqFactor,
  kScalingHighFreqFactor,
  kScalingLlamaCppContextLength,
  kScalingShortCount,
  kScalingLongCount,
  kScalingHeader,
};

inline std::optional<double> present(double v) { return std::isnan(v) ? std::nullopt : std::optional<double>(v); }

/// Reads a scaling block (0 = no scaling).
inline RopeScaling scaling_from(std::uintptr_t address) {
  RopeScaling s;
  if (address == 0) return s;
  const double* b = ptr<const double>(address);
  s.type = static_cast<RopeScalingType>(static_cast<int>(b[kScalingType]));
  s.factor = present(b[kScalingFactor]);
  s.max_position_embeddings = present(b[kScalingMaxPositions]);
  s.original_max_position_embeddings = present(b[kScalingOriginalMaxPositions]);
  s.beta_fast = present(b[kScalingBetaFast]).value_or(s.beta_fast);
  s.beta_slow = present(b[kScalingBetaSlow]).value_or(s.beta_slow);
  s.mscale = present(b[kScalingMscale]);
  s.mscale_all_dim = present(b[kScalingMscaleAllDim]);
  s.attention_factor = present(b[kScalingAttentionFactor]);
  s.ggml_attn_factor = present(b[kScalingGgmlAttnFactor]);
  s.truncate = present(b[kScalingTruncate]).value_or(1.0) != 0.0;
  s.hf_v4_factor = present(b[kScalingHfV4Factor]).value_or(0.0) != 0.0;
  s.low_freq_factor = present(b[kScalingLowFreqFactor]).value_or(s.low_freq_factor);
  s.high_freq_factor = present(b[kScalingHighFreqFactor]).value_or(s.high_freq_factor);
  s.llama_cpp_context_length = present(b[kScalingLlamaCppContextLength]);
  const auto n_short = static_cast<std::size_t>(b[kScalingShortCount]);
  const auto n_long = static_cast<std::size_t>(b[kScalingLongCount]);
  const double* lists = b + kScalingHeader;
  s.short_factor.assign(lists, lists + n_short);
  s.long_factor.assign(lists + n_short, lists + n_short + n_long);
  return s;
}

/// A RopeConfig from the arguments every RoPE binding shares.
inline RopeConfig config_from(int rotary_dim, double base, std::uintptr_t scaling, double seq_len) {
  RopeConfig c;
  c.rotary_dim = rotary_dim;
  c.base = base;
  c.scaling = scaling_from(scaling);
  c.seq_len = present(seq_len);
  return c;
}

/// q/k shapes as the JS layer resolved them (sizes already checked to be integers).
inline Status tensors_from(std::uintptr_t q, int q_heads, std::uintptr_t k, int k_heads, int batch, int seq,
                           int head_dim, int layout, RopeTensors* t) {
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

}  // namespace posenc::bindings
