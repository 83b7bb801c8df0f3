// The precision oracle: RoPE evaluated step by step the way upstream float32/float16/bfloat16
// pipelines evaluate it, against the float64 formula. Every float32 step is a C++ float operation
// (this file is compiled with -ffp-contract=off, so no product is fused into a sum, as in the
// upstream C semantics); float16 and bfloat16 roundings are exact round-to-nearest-even
// (round_to_format). cosf, sinf are taken correctly rounded: the float64 value rounded to float32
// (glibc's and PyTorch's agree with it to within one ulp).
#include "posenc/rope_precision.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "encodings/detail/checks.hpp"
#include "encodings/detail/derived.hpp"
#include "kernels/kernels.hpp"

namespace posenc {
namespace {

float to_f32(double x) { return static_cast<float>(x); }

/// Rounds a float32 value to `format` (a float32 value already in float32 is returned as is).
float round_float(float x, NumberFormat format) {
  return format == NumberFormat::float32 ? x : round_float_to_format(x, format);
}

/// ggml rope_yarn_ramp(low, high, i0) with i0 = 2 * pair, in float32.
float yarn_ramp(float low, float high, std::size_t pair) {
  const float y = (static_cast<float>(pair) - low) / std::max(0.001f, high - low);
  return 1.0f - std::min(1.0f, std::max(0.0f, y));
}

/// The cos/sin rows one recipe gives at position p (float32 values), before any format cast.
class RecipeRows {
 public:
  RecipeRows(const PrecisionRecipe& r, std::size_t pairs)
      : r_(r), pairs_(pairs), angles_(pairs), c_(pairs), s_(pairs), c32_(pairs), s32_(pairs) {
    if (r.recipe == AngleRecipe::ggml && r.ext_factor != 0.0) {
      // rope_yarn: mscale *= 1 + 0.1 logf(1 / freq_scale), in float32, for every pair alike
      const float inv_scale = 1.0f / to_f32(r.freq_scale);
      yarn_mscale_ = to_f32(r.attention) * (1.0f + 0.1f * to_f32(std::log(static_cast<double>(inv_scale))));
    }
  }

  /// Fills cos()/sin() for position p.
  void at(double p) {
    const float p32 = to_f32(p);  // HF position_ids.float(); ggml (float) pos[i2]
    if (r_.recipe == AngleRecipe::hf) {
      for (std::size_t i = 0; i < pairs_; ++i) angles_[i] = static_cast<float>(to_f32(r_.pipeline_freq[i]) * p32);
      kernels::sincos(angles_.data(), pairs_, s_.data(), c_.data());
      const float a = to_f32(r_.attention);
      for (std::size_t i = 0; i < pairs_; ++i) {
        c32_[i] = to_f32(c_[i]) * a;  // emb.cos() * attention_scaling, both float32
        s32_[i] = to_f32(s_[i]) * a;
      }
      return;
    }
    // ggml_rope_cache_init: theta = p, then theta *= theta_scale after each pair
    const float theta_scale = to_f32(r_.theta_scale);
    const float freq_scale = to_f32(r_.freq_scale);
    const float ext_factor = to_f32(r_.ext_factor);
    const float low = to_f32(r_.corr_low), high = to_f32(r_.corr_high);
    float theta = p32;
    for (std::size_t i = 0; i < pairs_; ++i) {
      const float ff = r_.pipeline_freq == nullptr ? 1.0f : to_f32(r_.pipeline_freq[i]);
      const float theta_extrap = theta / ff;
      const float theta_interp = freq_scale * theta_extrap;
      float t = theta_interp;
      if (ext_factor != 0.0f) {
        const float ramp_mix = yarn_ramp(low, high, i) * ext_factor;
        const float interp_part = theta_interp * (1.0f - ramp_mix);
        const float extrap_part = theta_extrap * ramp_mix;
        t = interp_part + extrap_part;
      }
      angles_[i] = t;
      theta = theta * theta_scale;
    }
    kernels::sincos(angles_.data(), pairs_, s_.data(), c_.data());
    const float mscale = ext_factor != 0.0f ? yarn_mscale_ : to_f32(r_.attention);
    for (std::size_t i = 0; i < pairs_; ++i) {
      c32_[i] = to_f32(c_[i]) * mscale;
      s32_[i] = to_f32(s_[i]) * mscale;
    }
  }

  /// The rows of the last position, float32 values.
  const float* cos() const { return c32_.data(); }
  const float* sin() const { return s32_.data(); }

 private:
  const PrecisionRecipe& r_;
  std::size_t pairs_;
  float yarn_mscale_ = 1.0f;
  std::vector<double> angles_, c_, s_;
  std::vector<float> c32_, s32_;
};

/// Rounding to a format known at compile time (the variants' inner loops are instantiated per format).
template <NumberFormat F>
float round_to(float x) {
  return F == NumberFormat::float32 ? x : round_float_to_format(x, F);
}

/// The exact values of one position and the unit vector a variant rotates.
struct PositionValues {
  const double* c_exact;  ///< attention * cos(p w_i), float64
  const double* s_exact;
  const float* c;         ///< the recipe's float32 rows
  const float* s;
  const float* unit_a;    ///< the unit vector in the variant's input format
  const float* unit_b;
  std::size_t pairs;
};

/// The largest row error and rotation error of one variant at one position. Rows: the format the
/// rows are cast to; Ops: each product and sum (hf); Storage: the stored result (ggml).
template <NumberFormat Rows, NumberFormat Ops, NumberFormat Storage, bool Hf>
void variant_errors(const PositionValues& p, double* row_error, double* rotation_error) {
  double rows_max = 0.0, rotation_max = 0.0;
  for (std::size_t i = 0; i < p.pairs; ++i) {
    const float c = round_to<Rows>(p.c[i]), s = round_to<Rows>(p.s[i]);
    rows_max = std::max(rows_max, std::max(std::fabs(c - p.c_exact[i]), std::fabs(s - p.s_exact[i])));
    const float a = p.unit_a[i], b = p.unit_b[i];
    float ra, rb;
    if (Hf) {  // q * cos + rotate_half(q) * sin: rotate_half negates exactly
      const float ac = round_to<Ops>(a * c), nbs = round_to<Ops>(-b * s);
      const float bc = round_to<Ops>(b * c), as = round_to<Ops>(a * s);
      ra = round_to<Ops>(ac + nbs);
      rb = round_to<Ops>(bc + as);
    } else {  // rotate_pairs: x0 * cos - x1 * sin in float, then stored
      const float ac = a * c, bs = b * s, as = a * s, bc = b * c;
      ra = round_to<Storage>(ac - bs);
      rb = round_to<Storage>(as + bc);
    }
    const double ea = static_cast<double>(a) * p.c_exact[i] - static_cast<double>(b) * p.s_exact[i];
    const double eb = static_cast<double>(a) * p.s_exact[i] + static_cast<double>(b) * p.c_exact[i];
    rotation_max = std::max(rotation_max, std::max(std::fabs(ra - ea), std::fabs(rb - eb)));
  }
  *row_error = rows_max;
  *rotation_error = rotation_max;
}

/// A variant: the format its input vector is in, and its instantiated error loop.
struct Variant {
  NumberFormat input;
  void (*errors)(const PositionValues&, double*, double*);
};

std::vector<Variant> variants_of(AngleRecipe recipe) {
  using F = NumberFormat;
  if (recipe == AngleRecipe::hf) {  // activations (rows, each op) in float32, float16, bfloat16
    return {{F::float32, variant_errors<F::float32, F::float32, F::float32, true>},
            {F::float16, variant_errors<F::float16, F::float16, F::float32, true>},
            {F::bfloat16, variant_errors<F::bfloat16, F::bfloat16, F::float32, true>}};
  }  // a float32 tensor; a float16 KV cache (rows and arithmetic in float32, the result stored as float16)
  return {{F::float32, variant_errors<F::float32, F::float32, F::float32, false>},
          {F::float16, variant_errors<F::float32, F::float32, F::float16, false>}};
}

Status check_list(const char* name, const double* values, std::size_t n, bool float32_values) {
  if (values == nullptr) return detail::invalid(std::string(name) + " must be given");
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(values[i])) {
      return detail::invalid(std::string(name) + "[" + std::to_string(i) + "] must be a finite number, got " +
                             detail::format_number(values[i]));
    }
    if (float32_values && static_cast<double>(to_f32(values[i])) != values[i]) {
      return detail::invalid(std::string(name) + "[" + std::to_string(i) + "] must be a float32 value, got " +
                             detail::format_number(values[i]));
    }
  }
  return {};
}

}  // namespace

double round_to_format(double x, NumberFormat format) {
  if (format == NumberFormat::float32) return static_cast<float>(x);
  if (!std::isfinite(x) || x == 0.0) return x;
  const bool half = format == NumberFormat::float16;
  const int mantissa_bits = half ? 10 : 7;
  const int min_exponent = half ? -14 : -126;  // exponent of the smallest normal number
  const double largest = half ? 65504.0 : std::ldexp(255.0, 120);
  int e = 0;
  std::frexp(x, &e);  // |x| in [2^(e-1), 2^e)
  const double quantum = std::ldexp(1.0, std::max(e - 1, min_exponent) - mantissa_bits);
  const double r = std::nearbyint(x / quantum) * quantum;  // x / quantum is exact; nearbyint rounds ties to even
  if (std::fabs(r) > largest) return std::copysign(std::numeric_limits<double>::infinity(), x);
  return r;
}

float round_float_to_format(float x, NumberFormat format) {
  if (format == NumberFormat::float32 || !std::isfinite(x)) return x;
  std::uint32_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  const std::uint32_t sign = bits & 0x80000000u;
  std::uint32_t magnitude = bits ^ sign;
  if (format == NumberFormat::bfloat16) {
    // Keep the top 16 bits: add half of the dropped part, minus one unless the kept part is odd
    // (ties to even); a carry moves into the exponent, past the largest value into infinity.
    magnitude += 0x7FFFu + ((magnitude >> 16) & 1u);
    magnitude &= 0xFFFF0000u;
  } else if (magnitude < 0x38800000u) {
    // Below 2^-14 float16 values are multiples of 2^-24: in [0.5, 1) float32 values are
    // multiples of 2^-24, so adding and removing 0.5 rounds to that grid (ties to even).
    float v = 0.0f;
    std::memcpy(&v, &magnitude, sizeof v);
    v = (v + 0.5f) - 0.5f;
    std::memcpy(&magnitude, &v, sizeof v);
  } else {
    magnitude += 0x0FFFu + ((magnitude >> 13) & 1u);  // keep 10 of 23 mantissa bits, ties to even
    magnitude &= 0xFFFFE000u;
    if (magnitude > 0x477FE000u) magnitude = 0x7F800000u;  // above 65504: infinity
  }
  bits = magnitude | sign;
  float out = 0.0f;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

std::size_t precision_variants(AngleRecipe recipe) { return recipe == AngleRecipe::hf ? 3 : 2; }

Status rope_precision(const PrecisionReference& reference, const PrecisionRecipe& recipe, double start, std::size_t count,
                      std::size_t bucket, double* out) {
  if (recipe.recipe != AngleRecipe::hf && recipe.recipe != AngleRecipe::ggml) return detail::invalid("recipe must be 'hf' or 'ggml'");
  const std::size_t pairs = reference.pairs;
  POSENC_RETURN_IF_ERROR(detail::check_size("pairs", pairs));
  POSENC_RETURN_IF_ERROR(check_list("invFreq", reference.inv_freq, pairs, false));
  POSENC_RETURN_IF_ERROR(detail::check_positive("attentionFactor", reference.attention_factor));
  const bool hf = recipe.recipe == AngleRecipe::hf;
  if (hf || recipe.pipeline_freq != nullptr) {
    POSENC_RETURN_IF_ERROR(check_list(hf ? "the float32 inverse frequencies" : "freqFactors", recipe.pipeline_freq, pairs, true));
  }
  for (double v : {recipe.attention, recipe.theta_scale, recipe.freq_scale, recipe.ext_factor, recipe.corr_low, recipe.corr_high}) {
    POSENC_RETURN_IF_ERROR(detail::check_finite("the pipeline's parameters", v));
  }
  POSENC_RETURN_IF_ERROR(detail::check_size("contextLength", count));
  POSENC_RETURN_IF_ERROR(detail::check_size("bucket", bucket));
  POSENC_RETURN_IF_ERROR(detail::check_finite("start", start));
  POSENC_RETURN_IF_ERROR(detail::check_finite("the last position", start + static_cast<double>(count - 1)));
  POSENC_RETURN_IF_ERROR(detail::check_angles("the positions start .. start + contextLength - 1",
                                              detail::max_abs_position(Positions::range(start), 1, count),
                                              reference.inv_freq, pairs));
  if (out == nullptr) return detail::invalid("out must be given");

  const std::vector<Variant> variants = variants_of(recipe.recipe);
  const std::size_t buckets = count / bucket + (count % bucket != 0);
  std::fill(out, out + 2 * variants.size() * buckets, 0.0);
  // The unit vector of each pair, and its value in each variant's input format
  std::vector<float> unit_a(pairs * variants.size()), unit_b(pairs * variants.size());
  for (std::size_t v = 0; v < variants.size(); ++v) {
    for (std::size_t i = 0; i < pairs; ++i) {
      unit_a[v * pairs + i] = round_float(to_f32(std::cos(0.5 + static_cast<double>(i))), variants[v].input);
      unit_b[v * pairs + i] = round_float(to_f32(std::sin(0.5 + static_cast<double>(i))), variants[v].input);
    }
  }
  std::vector<double> angles(pairs), c64(pairs), s64(pairs);
  RecipeRows rows(recipe, pairs);
  const double att = reference.attention_factor;
  for (std::size_t t = 0; t < count; ++t) {
    const double p = start + static_cast<double>(t);
    for (std::size_t i = 0; i < pairs; ++i) angles[i] = p * reference.inv_freq[i];
    kernels::sincos(angles.data(), pairs, s64.data(), c64.data());
    for (std::size_t i = 0; i < pairs; ++i) {
      c64[i] *= att;
      s64[i] *= att;
    }
    rows.at(p);
    for (std::size_t i = 0; i < pairs; ++i) {
      if (!std::isfinite(rows.cos()[i]) || !std::isfinite(rows.sin()[i])) {
        return detail::error(StatusCode::out_of_range,
                             "the float32 pipeline's angle or cos/sin of pair " + std::to_string(i) + " at position " +
                                 detail::format_number(p) + " is not finite (its float32 angles overflow): no error can be measured");
      }
    }
    const std::size_t b = t / bucket;
    for (std::size_t v = 0; v < variants.size(); ++v) {
      const PositionValues values{c64.data(), s64.data(), rows.cos(), rows.sin(), unit_a.data() + v * pairs,
                                  unit_b.data() + v * pairs, pairs};
      double row_error = 0.0, rotation_error = 0.0;
      variants[v].errors(values, &row_error, &rotation_error);
      double& row_max = out[(2 * v) * buckets + b];
      double& rotation_max = out[(2 * v + 1) * buckets + b];
      row_max = std::max(row_max, row_error);
      rotation_max = std::max(rotation_max, rotation_error);
    }
  }
  return {};
}

}  // namespace posenc
