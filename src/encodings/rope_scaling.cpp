// RoPE frequencies and every scaling variant, in double precision (docs/encodings.md#83-configuration-keys to #88-longrope-phi-3-phi-35, #811-what-each-variant-exposes).
//
// Sources, restated in our own words:
//   linear   Chen et al. 2023, "Extending context window ... via positional interpolation":
//            positions divided by the factor, i.e. w_i / factor.
//   ntk      bloc97's NTK-aware rescaling (lucidrains `theta_rescale_factor`): base * f^(r/(r-2)).
//   dynamic  HF transformers `_compute_dynamic_ntk_parameters`: the NTK base computed from the
//            current length L = max(seqLen, maxPositionEmbeddings); with HunYuan's alpha
//            (HunYuanDenseV1RotaryEmbedding) base * alpha^(r/(r-2)) until L exceeds it.
//   yarn     Peng et al. 2023, "YaRN", sec. 3.2-3.4, as HF transformers v5 computes it: a linear
//            ramp over pairs between the correction dims of beta_fast and beta_slow rotations
//            blends w_i (extrapolation) into w_i / factor (interpolation); attention factor
//            0.1 ln f + 1 (or DeepSeek's mscale ratio). ggml's attn_factor convention as an option.
//   llama3   Meta's Llama 3.1 `apply_scaling` (also HF `_compute_llama3_parameters`): wavelengths
//            shorter than original/high_freq_factor keep w_i, longer than original/low_freq_factor
//            get w_i / factor, the band between is blended.
//   longrope Ding et al. 2024, "LongRoPE", as Phi-3 uses it (HF `_compute_longrope_parameters`):
//            w_i / ext_i with a short or a long list; attention factor sqrt(1 + ln f / ln original).
#include "posenc/rope_scaling.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "encodings/detail/checks.hpp"
#include "encodings/detail/derived.hpp"
#include "encodings/detail/power_frequencies.hpp"
#include "encodings/detail/scratch.hpp"

namespace posenc {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const char* type_name(RopeScalingType type) {
  switch (type) {
    case RopeScalingType::none: return "default";
    case RopeScalingType::linear: return "linear";
    case RopeScalingType::ntk: return "ntk";
    case RopeScalingType::dynamic: return "dynamic";
    case RopeScalingType::yarn: return "yarn";
    case RopeScalingType::llama3: return "llama3";
    case RopeScalingType::longrope: return "longrope";
  }
  return "?";
}

/// `scaling.<name>` must be present, finite and > 0.
Status required_positive(const std::optional<double>& value, const char* name, RopeScalingType type, double* out) {
  if (!value) {
    return detail::invalid(std::string("scaling.") + name + " is required for scaling type '" + type_name(type) + "'");
  }
  POSENC_RETURN_IF_ERROR(detail::check_positive((std::string("scaling.") + name).c_str(), *value));
  *out = *value;
  return {};
}

/// An optional `scaling.<name>`, if present, must be finite and > 0.
Status optional_positive(const std::optional<double>& value, const char* name) {
  if (!value) return {};
  return detail::check_positive((std::string("scaling.") + name).c_str(), *value);
}

/// The NTK-aware exponent r/(r-2) is undefined for r = 2.
Status check_ntk_dim(int rotary_dim, RopeScalingType type) {
  if (rotary_dim < 4) {
    return detail::invalid(std::string("rotaryDim must be >= 4 for scaling type '") + type_name(type) +
                           "' (its exponent rotaryDim/(rotaryDim-2) is undefined at 2), got " +
                           std::to_string(rotary_dim));
  }
  return {};
}

/// The NTK-aware base base * ratio^(r/(r-2)) and its frequencies; `cause` is the input the ratio
/// comes from (scaling.factor or scaling.alpha).
Status ntk_base(const RopeConfig& c, double ratio, const detail::Cause& cause, RopeFrequencies* out) {
  const double r = c.rotary_dim;
  out->effective_base = c.base * std::pow(ratio, r / (r - 2.0));
  POSENC_RETURN_IF_ERROR(detail::check_derived("the rescaled base", out->effective_base, cause, true));
  POSENC_RETURN_IF_ERROR(detail::power_frequencies(c.rotary_dim, out->effective_base, out->inv_freq.size(), &out->inv_freq));
  return detail::check_derived_frequencies(out->inv_freq.data(), out->inv_freq.size(), cause);
}

Status scale_linear(const RopeConfig& c, RopeFrequencies* out) {
  POSENC_RETURN_IF_ERROR(required_positive(c.scaling.factor, "factor", c.scaling.type, &out->factor));
  for (double& w : out->inv_freq) w /= out->factor;
  return detail::check_derived_frequencies(out->inv_freq.data(), out->inv_freq.size(), {"scaling.factor", out->factor});
}

Status scale_ntk(const RopeConfig& c, RopeFrequencies* out) {
  POSENC_RETURN_IF_ERROR(check_ntk_dim(c.rotary_dim, c.scaling.type));
  POSENC_RETURN_IF_ERROR(required_positive(c.scaling.factor, "factor", c.scaling.type, &out->factor));
  return ntk_base(c, out->factor, {"scaling.factor", out->factor}, out);
}

Status scale_dynamic(const RopeConfig& c, RopeFrequencies* out) {
  const RopeScaling& s = c.scaling;
  POSENC_RETURN_IF_ERROR(check_ntk_dim(c.rotary_dim, s.type));
  POSENC_RETURN_IF_ERROR(optional_positive(s.alpha, "alpha"));
  if (!s.alpha) POSENC_RETURN_IF_ERROR(required_positive(s.factor, "factor", s.type, &out->factor));
  POSENC_RETURN_IF_ERROR(optional_positive(s.factor, "factor"));
  out->factor = s.factor.value_or(kNaN);
  double max_pos = 0;
  POSENC_RETURN_IF_ERROR(required_positive(s.max_position_embeddings, "maxPositionEmbeddings", s.type, &max_pos));
  // HF: without a current length (model load) the reference length is used, so nothing changes.
  const double length = std::fmax(c.seq_len.value_or(max_pos), max_pos);
  out->seq_len = length;
  // HunYuan's alpha (HF HunYuanDenseV1RotaryEmbedding) holds until dynamic_rope_update first grows
  // past maxPositionEmbeddings, where HF recomputes _compute_dynamic_ntk_parameters from factor.
  if (s.alpha && length <= max_pos) return ntk_base(c, *s.alpha, {"scaling.alpha", *s.alpha}, out);
  if (!s.factor) {
    return detail::invalid("scaling.factor is required for lengths beyond maxPositionEmbeddings (" +
                           detail::format_number(max_pos) + ", got " + detail::format_number(length) +
                           "): there HF's dynamic update computes the base from factor, not from alpha");
  }
  const double f = *s.factor;
  return ntk_base(c, f * length / max_pos - (f - 1.0), {"scaling.factor", f}, out);
}

/// YaRN's correction dimension: the (fractional) pair index whose wavelength fits `rotations`
/// times into the original context.
double yarn_correction_dim(double rotations, double rotary_dim, double base, double original) {
  return rotary_dim * std::log(original / (rotations * 2.0 * kPi)) / (2.0 * std::log(base));
}

/// get_mscale of the YaRN reference code: 0.1 * m * ln(s) + 1, and 1 for s <= 1.
double yarn_mscale(double scale, double m) { return scale <= 1.0 ? 1.0 : 0.1 * m * std::log(scale) + 1.0; }

Status scale_yarn(const RopeConfig& c, RopeFrequencies* out) {
  const RopeScaling& s = c.scaling;
  POSENC_RETURN_IF_ERROR(optional_positive(s.factor, "factor"));
  POSENC_RETURN_IF_ERROR(optional_positive(s.max_position_embeddings, "maxPositionEmbeddings"));
  POSENC_RETURN_IF_ERROR(optional_positive(s.original_max_position_embeddings, "originalMaxPositionEmbeddings"));
  POSENC_RETURN_IF_ERROR(optional_positive(s.attention_factor, "attentionFactor"));
  POSENC_RETURN_IF_ERROR(optional_positive(s.ggml_attn_factor, "ggmlAttnFactor"));
  POSENC_RETURN_IF_ERROR(detail::check_positive("scaling.betaFast", s.beta_fast));
  POSENC_RETURN_IF_ERROR(detail::check_positive("scaling.betaSlow", s.beta_slow));
  if (s.mscale) POSENC_RETURN_IF_ERROR(detail::check_finite("scaling.mscale", *s.mscale));
  if (s.mscale_all_dim) POSENC_RETURN_IF_ERROR(detail::check_finite("scaling.mscaleAllDim", *s.mscale_all_dim));
  if (s.attention_factor && s.ggml_attn_factor) {
    return detail::invalid("give scaling.attentionFactor (HF: replaces the derived factor) or scaling.ggmlAttnFactor "
                           "(ggml: multiplies it), not both");
  }
  // HF falls back to max_position_embeddings when the original length is not given.
  const std::optional<double> original =
      s.original_max_position_embeddings ? s.original_max_position_embeddings : s.max_position_embeddings;
  if (!original) {
    return detail::invalid("scaling.originalMaxPositionEmbeddings (or maxPositionEmbeddings) is required for scaling type 'yarn'");
  }
  const bool ratio_known = s.max_position_embeddings && s.original_max_position_embeddings;
  if (s.factor && !(s.hf_v4_factor && ratio_known)) {
    out->factor = *s.factor;  // transformers v5: a given factor is used as is
  } else if (ratio_known) {
    out->factor = *s.max_position_embeddings / *s.original_max_position_embeddings;
  } else {
    return detail::invalid("scaling.factor (or maxPositionEmbeddings with originalMaxPositionEmbeddings) is required "
                           "for scaling type 'yarn'");
  }
  const double f = out->factor;

  detail::Cause attention_cause{"scaling.factor", f};
  if (s.attention_factor) {
    out->attention_factor = *s.attention_factor;
    attention_cause = {"scaling.attentionFactor", *s.attention_factor};
  } else if (s.ggml_attn_factor) {
    out->attention_factor = *s.ggml_attn_factor * (1.0 + 0.1 * std::log(f));
    attention_cause = {"scaling.ggmlAttnFactor", *s.ggml_attn_factor};
  } else if (s.mscale && s.mscale_all_dim && *s.mscale != 0.0 && *s.mscale_all_dim != 0.0) {
    out->attention_factor = yarn_mscale(f, *s.mscale) / yarn_mscale(f, *s.mscale_all_dim);
    attention_cause = {"scaling.mscale", *s.mscale};
  } else {
    out->attention_factor = yarn_mscale(f, 1.0);
  }
  POSENC_RETURN_IF_ERROR(detail::check_output_scale("the attention factor", out->attention_factor, attention_cause));

  const double r = c.rotary_dim;
  double low = yarn_correction_dim(s.beta_fast, r, c.base, *original);
  double high = yarn_correction_dim(s.beta_slow, r, c.base, *original);
  if (s.truncate) {
    low = std::floor(low);
    high = std::ceil(high);
  }
  low = std::fmax(low, 0.0);
  high = std::fmin(high, r - 1.0);  // r - 1 although pairs stop at r/2 - 1: HF and ggml both clamp so
  if (low == high) high += 0.001;   // a zero-width ramp would divide by zero
  out->yarn_low = low;
  out->yarn_high = high;

  const std::size_t pairs = out->inv_freq.size();
  POSENC_RETURN_IF_ERROR(detail::allocate(out->yarn_ramp, pairs));
  for (std::size_t i = 0; i < pairs; ++i) {
    const double ramp = std::fmin(std::fmax((static_cast<double>(i) - low) / (high - low), 0.0), 1.0);
    out->yarn_ramp[i] = ramp;
    const double w = out->inv_freq[i];
    out->inv_freq[i] = w * (1.0 - ramp) + (w / f) * ramp;
  }
  return detail::check_derived_frequencies(out->inv_freq.data(), pairs, {"scaling.factor", f});
}

Status scale_llama3(const RopeConfig& c, RopeFrequencies* out) {
  const RopeScaling& s = c.scaling;
  const double f = s.factor.value_or(8.0);  // Llama 3.1 values as defaults
  const double original = s.original_max_position_embeddings.value_or(8192.0);
  POSENC_RETURN_IF_ERROR(detail::check_positive("scaling.factor", f));
  POSENC_RETURN_IF_ERROR(detail::check_positive("scaling.originalMaxPositionEmbeddings", original));
  POSENC_RETURN_IF_ERROR(detail::check_positive("scaling.lowFreqFactor", s.low_freq_factor));
  POSENC_RETURN_IF_ERROR(detail::check_positive("scaling.highFreqFactor", s.high_freq_factor));
  // HF _validate_llama3_parameters only warns when high <= low: equal factors (Llama 4 Scout) leave
  // the blended band empty. high < low has no meaning and is refused.
  if (s.high_freq_factor < s.low_freq_factor) {
    return detail::invalid("scaling.highFreqFactor must be at least scaling.lowFreqFactor (" +
                           detail::format_number(s.low_freq_factor) + "), got " +
                           detail::format_number(s.high_freq_factor));
  }
  out->factor = f;
  const double low_wavelen = original / s.low_freq_factor;    // longer: divided by factor
  const double high_wavelen = original / s.high_freq_factor;  // shorter: unchanged
  const std::size_t pairs = out->inv_freq.size();
  POSENC_RETURN_IF_ERROR(detail::allocate(out->llama3_band, pairs));
  POSENC_RETURN_IF_ERROR(detail::allocate(out->llama3_blend, pairs));
  for (std::size_t i = 0; i < pairs; ++i) {
    const double w = out->inv_freq[i];
    const double wavelen = 2.0 * kPi / w;
    if (wavelen < high_wavelen) {
      out->llama3_band[i] = Llama3Band::unchanged;
      out->llama3_blend[i] = 1.0;
    } else if (wavelen > low_wavelen) {
      out->llama3_band[i] = Llama3Band::divided;
      out->llama3_blend[i] = 0.0;
      out->inv_freq[i] = w / f;
    } else if (s.high_freq_factor == s.low_freq_factor) {
      // Equal factors: a wavelength exactly at original/lowFreqFactor is 0/0 in HF's blend (NaN).
      return detail::invalid("pair " + std::to_string(i) + " has a wavelength of exactly original/lowFreqFactor with " +
                             "lowFreqFactor == highFreqFactor: its blend weight is 0/0");
    } else {  // both boundaries belong to the blended band, as in HF
      const double blend = (original / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
      out->llama3_band[i] = Llama3Band::blended;
      out->llama3_blend[i] = blend;
      out->inv_freq[i] = (1.0 - blend) * w / f + blend * w;
    }
  }
  return detail::check_derived_frequencies(out->inv_freq.data(), pairs, {"scaling.factor", f});
}

Status scale_longrope(const RopeConfig& c, RopeFrequencies* out) {
  const RopeScaling& s = c.scaling;
  const std::size_t pairs = out->inv_freq.size();
  POSENC_RETURN_IF_ERROR(optional_positive(s.factor, "factor"));
  POSENC_RETURN_IF_ERROR(optional_positive(s.max_position_embeddings, "maxPositionEmbeddings"));
  POSENC_RETURN_IF_ERROR(optional_positive(s.original_max_position_embeddings, "originalMaxPositionEmbeddings"));
  POSENC_RETURN_IF_ERROR(optional_positive(s.attention_factor, "attentionFactor"));
  POSENC_RETURN_IF_ERROR(optional_positive(s.llama_cpp_context_length, "llamaCppContextLength"));
  for (const auto* list : {&s.short_factor, &s.long_factor}) {
    const char* name = list == &s.short_factor ? "scaling.shortFactor" : "scaling.longFactor";
    if (list->size() != pairs) {
      return detail::error(StatusCode::shape_mismatch, std::string(name) + " must have rotaryDim/2 = " +
                                                           std::to_string(pairs) + " entries, got " +
                                                           std::to_string(list->size()));
    }
    for (std::size_t i = 0; i < pairs; ++i) {
      POSENC_RETURN_IF_ERROR(detail::check_positive((std::string(name) + "[" + std::to_string(i) + "]").c_str(), (*list)[i]));
    }
  }
  const std::optional<double> original =
      s.original_max_position_embeddings ? s.original_max_position_embeddings : s.max_position_embeddings;
  if (!original) {
    return detail::invalid("scaling.originalMaxPositionEmbeddings (or maxPositionEmbeddings) is required for scaling type 'longrope'");
  }
  if (s.factor) {
    out->factor = *s.factor;
  } else if (s.max_position_embeddings) {
    out->factor = *s.max_position_embeddings / *original;
  } else if (!s.attention_factor) {
    return detail::invalid("scaling.factor (or maxPositionEmbeddings, or attentionFactor) is required for scaling type 'longrope'");
  } else {
    out->factor = kNaN;  // not needed: the attention factor is given
  }
  if (s.attention_factor) {
    out->attention_factor = *s.attention_factor;
    POSENC_RETURN_IF_ERROR(detail::check_output_scale("the attention factor", out->attention_factor,
                                                      {"scaling.attentionFactor", *s.attention_factor}));
  } else {
    out->attention_factor = out->factor <= 1.0 ? 1.0 : std::sqrt(1.0 + std::log(out->factor) / std::log(*original));
    // sqrt(1 + ln factor / ln original): an original length of 1 divides by ln 1 = 0 (HF raises).
    const char* original_name = s.original_max_position_embeddings ? "scaling.originalMaxPositionEmbeddings"
                                                                    : "scaling.maxPositionEmbeddings";
    POSENC_RETURN_IF_ERROR(
        detail::check_output_scale("the attention factor", out->attention_factor, {original_name, *original}));
  }
  if (s.llama_cpp_context_length) {  // llama.cpp: decided once from the context size
    out->seq_len = *s.llama_cpp_context_length;
    out->longrope_long = *s.llama_cpp_context_length > *original;
  } else {  // HF: from the current length; none (model load) means the short list
    out->seq_len = c.seq_len.value_or(kNaN);
    out->longrope_long = c.seq_len && *c.seq_len > *original;
  }
  const std::vector<double>& ext = out->longrope_long ? s.long_factor : s.short_factor;
  const char* list_name = out->longrope_long ? "scaling.longFactor" : "scaling.shortFactor";
  for (std::size_t i = 0; i < pairs; ++i) {
    out->inv_freq[i] /= ext[i];
    if (!std::isfinite(out->inv_freq[i])) {  // named by its own list entry
      return detail::check_derived_frequencies(out->inv_freq.data(), i + 1,
                                               {list_name, ext[i], static_cast<std::ptrdiff_t>(i)});
    }
  }
  return {};
}

}  // namespace

Status rope_frequencies_at(const RopeConfig& config, double length, RopeFrequencies* out) {
  const RopeScaling& s = config.scaling;
  const bool reads_length = s.type == RopeScalingType::dynamic ||
                            (s.type == RopeScalingType::longrope && !s.llama_cpp_context_length);
  if (config.seq_len || !reads_length) return rope_frequencies(config, out);
  RopeConfig at = config;
  at.seq_len = length;
  return rope_frequencies(at, out);
}

Status rope_default_inv_freq(int rotary_dim, double base, std::vector<double>* inv_freq) {
  if (rotary_dim < 2 || rotary_dim % 2 != 0) {
    return detail::invalid("rotaryDim must be an even integer >= 2, got " + std::to_string(rotary_dim));
  }
  POSENC_RETURN_IF_ERROR(detail::check_positive("base", base));
  POSENC_RETURN_IF_ERROR(detail::power_frequencies(rotary_dim, base, static_cast<std::size_t>(rotary_dim / 2), inv_freq));
  return detail::check_derived_frequencies(inv_freq->data(), inv_freq->size(), {"base", base});
}

Status rope_frequencies(const RopeConfig& config, RopeFrequencies* out) {
  *out = RopeFrequencies{};
  out->effective_base = config.base;
  out->seq_len = kNaN;
  out->yarn_low = out->yarn_high = kNaN;
  if (config.seq_len) POSENC_RETURN_IF_ERROR(detail::check_finite("seqLen", *config.seq_len));
  POSENC_RETURN_IF_ERROR(rope_default_inv_freq(config.rotary_dim, config.base, &out->inv_freq));
  switch (config.scaling.type) {
    case RopeScalingType::none: return {};
    case RopeScalingType::linear: return scale_linear(config, out);
    case RopeScalingType::ntk: return scale_ntk(config, out);
    case RopeScalingType::dynamic: return scale_dynamic(config, out);
    case RopeScalingType::yarn: return scale_yarn(config, out);
    case RopeScalingType::llama3: return scale_llama3(config, out);
    case RopeScalingType::longrope: return scale_longrope(config, out);
  }
  return detail::invalid("scaling.type must be one of default, linear, ntk, dynamic, yarn, llama3, longrope, got " +
                         std::to_string(static_cast<int>(config.scaling.type)));
}

}  // namespace posenc
