// RoPE frequencies and their scaling variants (linear, NTK-aware, dynamic NTK, YaRN, Llama 3.1,
// LongRoPE): the one place that turns a RoPE configuration into inverse frequencies and an
// attention factor, in double precision, together with the quantities that define each variant.
#pragma once

#include <optional>
#include <vector>

#include "posenc/status.hpp"

namespace posenc {

/// How the unscaled frequencies w_i = base^(-2i/r) are changed for longer contexts.
/// The names follow Hugging Face's `rope_type` (plus `ntk`, static NTK-aware scaling, which HF
/// has no type for; lucidrains calls it `theta_rescale_factor`).
enum class RopeScalingType : int {
  none = 0,      ///< w_i unchanged (HF "default")
  linear = 1,    ///< position interpolation: w_i / factor
  ntk = 2,       ///< static NTK-aware: base' = base * factor^(r/(r-2))
  dynamic = 3,   ///< HF "dynamic": NTK base rescaled from the current length
  yarn = 4,      ///< YaRN (Peng et al. 2023), HF v5 semantics
  llama3 = 5,    ///< Llama 3.1 band-wise interpolation
  longrope = 6,  ///< LongRoPE (Phi-3 / Phi-3.5): per-pair factor lists
};

/// Parameters of a scaling variant. Only those of `type` are read; absent optionals take the
/// defaults documented beside them. Names in error messages are the JS ones (`scaling.factor`).
struct RopeScaling {
  RopeScalingType type = RopeScalingType::none;
  /// linear, ntk, dynamic (unless alpha): required. yarn: if absent, maxPositionEmbeddings / originalMaxPositionEmbeddings.
  /// llama3: default 8. longrope: if absent, maxPositionEmbeddings / originalMaxPositionEmbeddings
  /// (only the attention factor uses it).
  std::optional<double> factor;
  /// dynamic: required (the reference length, HF `max_position_embeddings`). yarn/longrope: used
  /// to derive `factor`, and as the original length when that is absent (HF fallback).
  std::optional<double> max_position_embeddings;
  /// yarn: the pre-extension context of the correction range. llama3: default 8192. longrope: the
  /// length above which the long list is used.
  std::optional<double> original_max_position_embeddings;

  // --- dynamic ---
  /// HunYuan's NTK alpha (HF HunYuanDenseV1RotaryEmbedding): up to maxPositionEmbeddings the base
  /// is base * alpha^(r/(r-2)) (HF's model-load frequencies); beyond it HF's dynamic update
  /// recomputes the dynamic formula from `factor` (then required), alpha no longer applying.
  std::optional<double> alpha;

  // --- yarn ---
  double beta_fast = 32.0;  ///< rotations at which pairs start being interpolated
  double beta_slow = 1.0;   ///< rotations at which pairs are fully interpolated
  std::optional<double> mscale;          ///< DeepSeek: with mscaleAllDim (both non-zero), the attention factor is their ratio
  std::optional<double> mscale_all_dim;
  bool truncate = true;     ///< floor/ceil the correction range (HF `truncate`; gpt-oss sets false)
  /// ggml/llama.cpp `attn_factor`: the attention factor becomes ggmlAttnFactor * (1 + 0.1 ln factor).
  std::optional<double> ggml_attn_factor;
  /// transformers 4.x (2025 revision): factor is replaced by maxPositionEmbeddings /
  /// originalMaxPositionEmbeddings whenever both are known (v5, the default, keeps a given factor).
  bool hf_v4_factor = false;

  // --- yarn and longrope ---
  /// Replaces the derived attention factor (HF `attention_factor`).
  std::optional<double> attention_factor;

  // --- llama3 ---
  double low_freq_factor = 1.0;
  double high_freq_factor = 4.0;

  // --- longrope ---
  std::vector<double> short_factor;  ///< r/2 divisors used up to originalMaxPositionEmbeddings
  std::vector<double> long_factor;   ///< r/2 divisors used beyond it
  /// llama.cpp: the list is chosen once from the context size (n_ctx > n_ctx_orig) instead of from
  /// the current length of each call (HF).
  std::optional<double> llama_cpp_context_length;
};

/// What defines a RoPE's frequencies.
struct RopeConfig {
  int rotary_dim = 0;     ///< even, >= 2
  double base = 10000.0;  ///< theta: w_i = base^(-2i/rotaryDim)
  RopeScaling scaling;    ///< default: none
  /// The current sequence length, read by dynamic NTK and LongRoPE. Absent: as at model load in
  /// HF (dynamic NTK unscaled, LongRoPE short list); rope_apply and rope_angles instead default it
  /// to max(position) + 1, as HF's forward does.
  std::optional<double> seq_len;
};

/// Llama 3.1 treatment of one pair.
enum class Llama3Band : int { unchanged = 0, blended = 1, divided = 2 };

/// The frequencies a RopeConfig defines, and the quantities that define its variant (docs/encodings.md#811-what-each-variant-exposes).
struct RopeFrequencies {
  std::vector<double> inv_freq;   ///< rotaryDim/2 angular frequencies, radians per position
  double attention_factor = 1.0;  ///< multiplies cos and sin of the rotated lanes
  double effective_base = 0.0;    ///< the base of the default formula (ntk, dynamic: rescaled)
  double factor = 1.0;            ///< the scaling factor in use (1 for none)
  double seq_len = 0.0;           ///< the current length used (dynamic, longrope); NaN when none applies
  double yarn_low = 0.0;          ///< yarn: correction range after truncation and clamping
  double yarn_high = 0.0;
  std::vector<double> yarn_ramp;  ///< yarn: per pair, 0 = original frequency, 1 = divided by factor
  std::vector<Llama3Band> llama3_band;  ///< llama3: per pair
  std::vector<double> llama3_blend;     ///< llama3: weight s of the original frequency (1 unchanged, 0 divided)
  bool longrope_long = false;           ///< longrope: the long list is in use
};

/// Computes the frequencies of `config` in double precision.
Status rope_frequencies(const RopeConfig& config, RopeFrequencies* out);

/// Inverse frequencies of the unscaled RoPE: w_i = base^(-2i/rotaryDim), i < rotaryDim/2, in double.
Status rope_default_inv_freq(int rotary_dim, double base, std::vector<double>* inv_freq);

/// The frequencies used by a call whose tokens reach position `length - 1`: `config.seq_len` when
/// given, else `length` (HF's max(position_ids) + 1) for the variants that read the current length.
Status rope_frequencies_at(const RopeConfig& config, double length, RopeFrequencies* out);

}  // namespace posenc
