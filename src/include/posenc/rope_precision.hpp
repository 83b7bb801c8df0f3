// The precision oracle: how far RoPE computed the way float32, float16 and bfloat16 pipelines compute
// it (Hugging Face transformers, ggml) is from the float64 formula, position by position.
#pragma once

#include <cstddef>

#include "posenc/status.hpp"

namespace posenc {

/// Number formats a pipeline rounds to, each with round-to-nearest-even.
enum class NumberFormat : int { float32 = 0, float16 = 1, bfloat16 = 2 };

/// `x` rounded to `format` (round to nearest, ties to even; float16 overflows to infinity above
/// 65504 + half an ulp, subnormals included). Exact: the result is the representable value nearest x.
double round_to_format(double x, NumberFormat format);

/// The same for a float32 value, on its bits (the oracle's hot path); equal to round_to_format(x).
float round_float_to_format(float x, NumberFormat format);

/// Which upstream recipe forms the angles and cos/sin (the variants each computes are listed below).
enum class AngleRecipe : int {
  /// Hugging Face: theta = fl32(inv_freq32[i] * fl32(p)) (LlamaRotaryEmbedding.forward, autocast off);
  /// cos/sin in float32, times fl32(attention) in float32, then cast to the activation format;
  /// rotation q*cos + rotate_half(q)*sin with each product and the sum computed in float32 and
  /// rounded to the activation format. Variants: activations in float32, float16, bfloat16.
  hf = 0,
  /// ggml (ggml-cpu ops.cpp ggml_rope_cache_init / rope_yarn / rotate_pairs): theta = fl32(p), then
  /// theta *= theta_scale in float32 from pair to pair; per pair theta / freq_factor, freq_scale
  /// interpolation and the YaRN ramp in float32; cos/sin in float32 times mscale; rotation in
  /// float32 (no fused multiply-add), then stored. Variants: a float32 tensor, a float16 KV cache.
  ggml = 1,
};

/// Number of variants a recipe computes (hf: 3, ggml: 2).
std::size_t precision_variants(AngleRecipe recipe);

/// A recipe's own parameters, as the upstream code holds them (every value a float32 value).
struct PrecisionRecipe {
  AngleRecipe recipe = AngleRecipe::hf;
  /// hf: the float32 inverse frequencies (pairs values). ggml: the freq_factors, or null.
  const double* pipeline_freq = nullptr;
  /// hf: attention_scaling. ggml: attn_factor (mscale before rope_yarn's YaRN term).
  double attention = 1.0;
  // ggml only
  double theta_scale = 1.0;  ///< powf(freq_base, -2/n_dims)
  double freq_scale = 1.0;
  double ext_factor = 0.0;
  double corr_low = 0.0;     ///< ggml_rope_yarn_corr_dims
  double corr_high = 0.0;
};

/// The float64 reference: RoPE with `inv_freq` (pairs values) and `attention_factor`.
struct PrecisionReference {
  const double* inv_freq = nullptr;
  std::size_t pairs = 0;
  double attention_factor = 1.0;
};

/// Positions start, start + 1, ..., start + count - 1, grouped in buckets of `bucket` positions.
/// For each variant v of the recipe and each bucket b, writes the largest error over the bucket's
/// positions and every pair:
///   out[(2 v) * buckets + b]:     max |cos - cos64|, |sin - sin64| of the rows the pipeline rotates with
///   out[(2 v + 1) * buckets + b]: max error of a rotated unit vector: pair i holds (cos(0.5 + i),
///                                 sin(0.5 + i)) rounded to float32 then to the variant's format,
///                                 against the float64 rotation of that same vector.
/// with buckets = ceil(count / bucket). cos64 = attention * cos(p * inv_freq[i]), and so on.
Status rope_precision(const PrecisionReference& reference, const PrecisionRecipe& recipe, double start, std::size_t count,
                      std::size_t bucket, double* out);

}  // namespace posenc
