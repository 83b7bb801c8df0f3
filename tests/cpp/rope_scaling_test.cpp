// RoPE scaling variants against float64 formulas written here from docs/encodings.md#83-configuration-keys to #88-longrope-phi-3-phi-35, the
// worked values of the spec (YaRN 20/46/1.13863, Llama 3.1 bands, Phi-3.5 1.190238), the edge
// cases of section 10, the diagnostics of 8.11 and every error status.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "posenc/rope.hpp"
#include "posenc/rope_scaling.hpp"
#include "rope_test_util.hpp"
#include "test_util.hpp"

using namespace posenc;
using posenc::test::default_freq_f64;
using posenc::test::kPi;

namespace {

RopeFrequencies freq_of(int r, double base, const RopeScaling& s, std::optional<double> seq_len = std::nullopt) {
  RopeConfig c = posenc::test::config_of(r, base, s, seq_len);
  RopeFrequencies f;
  const Status st = rope_frequencies(c, &f);
  INFO(st.message());
  REQUIRE(st.ok());
  REQUIRE(f.inv_freq.size() == static_cast<std::size_t>(r / 2));
  return f;
}

Status status_of(int r, double base, const RopeScaling& s, std::optional<double> seq_len = std::nullopt) {
  RopeFrequencies f;
  return rope_frequencies(posenc::test::config_of(r, base, s, seq_len), &f);
}

void check_close(const std::vector<double>& got, const std::vector<double>& want, double rel = 1e-14) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("pair " << i);
    CHECK(got[i] == Approx(want[i]).epsilon(rel));
  }
}

RopeScaling of_type(RopeScalingType type) {
  RopeScaling s;
  s.type = type;
  return s;
}

/// A YaRN frequency list from the formula of docs/encodings.md#86-yarn, for comparison.
std::vector<double> yarn_f64(int r, double base, double f, double original, double beta_fast, double beta_slow,
                             bool truncate, double* low_out = nullptr, double* high_out = nullptr) {
  auto corr = [&](double n) { return r * std::log(original / (n * 2 * kPi)) / (2 * std::log(base)); };
  double low = corr(beta_fast), high = corr(beta_slow);
  if (truncate) {
    low = std::floor(low);
    high = std::ceil(high);
  }
  low = std::max(low, 0.0);
  high = std::min(high, r - 1.0);
  if (low == high) high += 0.001;
  if (low_out) *low_out = low;
  if (high_out) *high_out = high;
  auto w = default_freq_f64(r, base);
  for (std::size_t i = 0; i < w.size(); ++i) {
    const double ramp = std::min(std::max((i - low) / (high - low), 0.0), 1.0);
    w[i] = w[i] * (1 - ramp) + w[i] / f * ramp;
  }
  return w;
}

/// Phi-3.5-mini-like factor lists: plausible values of the right length (48 = r/2 for r = 96),
/// made up for the test (the real lists are not needed to test the selection and the formula).
std::vector<double> phi_like_list(double start, double step) {
  std::vector<double> v(48);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = start + step * static_cast<double>(i);
  return v;
}

RopeScaling phi35_longrope() {
  RopeScaling s = of_type(RopeScalingType::longrope);
  s.short_factor = phi_like_list(1.0, 0.02);
  s.long_factor = phi_like_list(1.1, 1.3);
  s.original_max_position_embeddings = 4096;
  s.max_position_embeddings = 131072;
  return s;
}

}  // namespace

TEST_CASE("no scaling: w_i = base^(-2i/r), attention factor 1", "[rope][scaling]") {
  const auto f = freq_of(64, 500000, RopeScaling{});
  check_close(f.inv_freq, default_freq_f64(64, 500000));
  CHECK(f.attention_factor == 1.0);
  CHECK(f.effective_base == 500000);
  CHECK(f.factor == 1.0);
  CHECK(std::isnan(f.seq_len));
}

TEST_CASE("linear: w_i / factor", "[rope][scaling]") {
  RopeScaling s = of_type(RopeScalingType::linear);
  s.factor = 4;
  const auto f = freq_of(32, 10000, s);
  auto want = default_freq_f64(32, 10000);
  for (double& w : want) w /= 4;
  check_close(f.inv_freq, want);
  CHECK(f.attention_factor == 1.0);
  CHECK(f.factor == 4);
}

TEST_CASE("static NTK: base * factor^(r/(r-2))", "[rope][scaling]") {
  RopeScaling s = of_type(RopeScalingType::ntk);
  s.factor = 8;
  const auto f = freq_of(128, 10000, s);
  const double base = 10000 * std::pow(8.0, 128.0 / 126.0);
  CHECK(f.effective_base == Approx(base).epsilon(1e-15));
  check_close(f.inv_freq, default_freq_f64(128, base));
  CHECK(f.attention_factor == 1.0);
}

TEST_CASE("dynamic NTK below, at and above maxPositionEmbeddings", "[rope][scaling]") {
  RopeScaling s = of_type(RopeScalingType::dynamic);
  s.factor = 2;
  s.max_position_embeddings = 2048;
  const auto plain = default_freq_f64(64, 10000);
  for (double seq : {1.0, 1000.0, 2048.0}) {
    INFO("seqLen " << seq);
    const auto f = freq_of(64, 10000, s, seq);
    CHECK(f.inv_freq == freq_of(64, 10000, RopeScaling{}).inv_freq);  // exactly the unscaled frequencies
    CHECK(f.effective_base == 10000);
    CHECK(f.seq_len == 2048);
  }
  CHECK(freq_of(64, 10000, s).inv_freq == freq_of(64, 10000, RopeScaling{}).inv_freq);  // no length: model load
  for (double seq : {2049.0, 4096.0, 100000.0}) {
    INFO("seqLen " << seq);
    const auto f = freq_of(64, 10000, s, seq);
    const double base = 10000 * std::pow(2.0 * seq / 2048 - 1.0, 64.0 / 62.0);
    CHECK(f.effective_base == Approx(base).epsilon(1e-14));
    check_close(f.inv_freq, default_freq_f64(64, base));
    CHECK(f.seq_len == seq);
    CHECK(f.inv_freq[5] < plain[5]);
  }
}

TEST_CASE("dynamic NTK with HunYuan's alpha: the alpha base up to maxPositionEmbeddings, factor's formula beyond", "[rope][scaling]") {
  // HF HunYuanDenseV1RotaryEmbedding: base * alpha^(d/(d-2)) at model load; dynamic_rope_update
  // recomputes _compute_dynamic_ntk_parameters (factor) once the length exceeds max_position_embeddings.
  RopeScaling s = of_type(RopeScalingType::dynamic);
  s.alpha = 1000;
  s.max_position_embeddings = 32768;
  const double alpha_base = 10000 * std::pow(1000.0, 128.0 / 126.0);
  for (std::optional<double> seq : {std::optional<double>(), std::optional<double>(5.0), std::optional<double>(32768.0)}) {
    const auto f = freq_of(128, 10000, s, seq);
    CHECK(f.effective_base == Approx(alpha_base).epsilon(1e-14));
    check_close(f.inv_freq, default_freq_f64(128, alpha_base));
  }
  CHECK(status_of(128, 10000, s, 32769.0).code() == StatusCode::invalid_argument);  // beyond: factor needed
  s.factor = 1;
  const auto beyond = freq_of(128, 10000, s, 65536.0);
  CHECK(beyond.effective_base == Approx(10000 * std::pow(2.0, 128.0 / 126.0)).epsilon(1e-14));
  s.alpha = -1;
  CHECK(status_of(128, 10000, s, 10.0).code() == StatusCode::invalid_argument);
}

TEST_CASE("YaRN worked example: r 128, base 10000, original 4096, factor 4 -> low 20, high 46, 1.13863", "[rope][scaling][yarn]") {
  RopeScaling s = of_type(RopeScalingType::yarn);
  s.factor = 4;
  s.original_max_position_embeddings = 4096;
  const auto f = freq_of(128, 10000, s);
  CHECK(f.yarn_low == 20);
  CHECK(f.yarn_high == 46);
  CHECK(f.attention_factor == Approx(1.13863).margin(5e-6));
  CHECK(f.attention_factor == Approx(0.1 * std::log(4.0) + 1).epsilon(1e-15));
  CHECK(f.factor == 4);
  check_close(f.inv_freq, yarn_f64(128, 10000, 4, 4096, 32, 1, true));
  REQUIRE(f.yarn_ramp.size() == 64);
  CHECK(f.yarn_ramp[20] == 0);
  CHECK(f.yarn_ramp[33] == Approx(13.0 / 26));
  CHECK(f.yarn_ramp[46] == 1);
  CHECK(f.yarn_ramp[63] == 1);
  CHECK(f.inv_freq[0] == Approx(1.0));               // fastest pair extrapolated
  CHECK(f.inv_freq[63] == Approx(default_freq_f64(128, 10000)[63] / 4).epsilon(1e-14));  // slowest interpolated
}

TEST_CASE("YaRN truncate=false keeps the fractional correction range", "[rope][scaling][yarn]") {
  RopeScaling s = of_type(RopeScalingType::yarn);
  s.factor = 32;
  s.original_max_position_embeddings = 4096;
  s.truncate = false;  // gpt-oss
  const auto f = freq_of(64, 150000, s);
  double low = 0, high = 0;
  const auto want = yarn_f64(64, 150000, 32, 4096, 32, 1, false, &low, &high);
  CHECK(f.yarn_low == Approx(low).epsilon(1e-14));
  CHECK(f.yarn_high == Approx(high).epsilon(1e-14));
  CHECK(f.yarn_low != std::floor(f.yarn_low));
  check_close(f.inv_freq, want);
  s.truncate = true;
  CHECK(freq_of(64, 150000, s).inv_freq != f.inv_freq);
}

TEST_CASE("YaRN attention factor: given, DeepSeek mscale ratio, falsy mscaleAllDim, ggml attn_factor", "[rope][scaling][yarn]") {
  RopeScaling s = of_type(RopeScalingType::yarn);
  s.factor = 40;
  s.original_max_position_embeddings = 4096;
  s.attention_factor = 0.75;
  CHECK(freq_of(64, 10000, s).attention_factor == 0.75);
  s.attention_factor.reset();
  s.mscale = 0.707;
  s.mscale_all_dim = 0.707;
  CHECK(freq_of(64, 10000, s).attention_factor == 1.0);  // exactly 1: DeepSeek-V2/V3
  s.mscale = 1.0;
  s.mscale_all_dim = 0.5;
  CHECK(freq_of(64, 10000, s).attention_factor ==
        Approx((0.1 * std::log(40.0) + 1) / (0.05 * std::log(40.0) + 1)).epsilon(1e-15));
  s.mscale_all_dim = 0.0;  // falsy: back to 0.1 ln f + 1
  CHECK(freq_of(64, 10000, s).attention_factor == Approx(0.1 * std::log(40.0) + 1).epsilon(1e-15));
  s.mscale.reset();
  s.mscale_all_dim.reset();
  s.ggml_attn_factor = 0.5;
  CHECK(freq_of(64, 10000, s).attention_factor == Approx(0.5 * (1 + 0.1 * std::log(40.0))).epsilon(1e-15));
  s.ggml_attn_factor.reset();
  s.factor = 0.5;  // no extension: factor 1
  CHECK(freq_of(64, 10000, s).attention_factor == 1.0);
}

TEST_CASE("YaRN factor: v5 keeps a given factor, derives a missing one; hfV4Factor overrides", "[rope][scaling][yarn]") {
  RopeScaling s = of_type(RopeScalingType::yarn);
  s.original_max_position_embeddings = 4096;
  s.max_position_embeddings = 32768;
  CHECK(freq_of(64, 10000, s).factor == 8);  // missing: max / original
  s.factor = 4;
  CHECK(freq_of(64, 10000, s).factor == 4);  // v5: as given
  s.hf_v4_factor = true;
  CHECK(freq_of(64, 10000, s).factor == 8);  // transformers 4.x: replaced by the ratio
  RopeScaling fallback = of_type(RopeScalingType::yarn);  // no original: max_position_embeddings is the original
  fallback.factor = 4;
  fallback.max_position_embeddings = 4096;
  check_close(freq_of(128, 10000, fallback).inv_freq, yarn_f64(128, 10000, 4, 4096, 32, 1, true));
}

TEST_CASE("YaRN clamps high to r - 1 and widens an empty ramp by 0.001", "[rope][scaling][yarn]") {
  RopeScaling s = of_type(RopeScalingType::yarn);
  s.factor = 4;
  s.original_max_position_embeddings = 1e10;  // both correction dims beyond r - 1 = 7
  auto f = freq_of(8, 10000, s);
  CHECK(f.yarn_low == 7);
  CHECK(f.yarn_high == Approx(7.001).epsilon(1e-15));
  check_close(f.inv_freq, default_freq_f64(8, 10000));  // every pair below the ramp: unchanged
  s.original_max_position_embeddings = 4096;
  s.truncate = false;
  s.beta_fast = 2;
  s.beta_slow = 2;  // equal betas: low == high
  f = freq_of(64, 10000, s);
  CHECK(f.yarn_high - f.yarn_low == Approx(0.001).epsilon(1e-9));
  check_close(f.inv_freq, yarn_f64(64, 10000, 4, 4096, 2, 2, false));
}

TEST_CASE("Llama 3.1 8B: pairs 0-28 unchanged, 29-34 blended, 35-63 divided by 8", "[rope][scaling][llama3]") {
  RopeScaling s = of_type(RopeScalingType::llama3);
  s.factor = 8;
  s.low_freq_factor = 1;
  s.high_freq_factor = 4;
  s.original_max_position_embeddings = 8192;
  const auto f = freq_of(128, 500000, s);
  const auto w = default_freq_f64(128, 500000);
  for (std::size_t i = 0; i < 64; ++i) {
    INFO("pair " << i);
    if (i <= 28) {
      CHECK(f.llama3_band[i] == Llama3Band::unchanged);
      CHECK(f.inv_freq[i] == Approx(w[i]).epsilon(1e-15));
      CHECK(f.llama3_blend[i] == 1);
    } else if (i <= 34) {
      CHECK(f.llama3_band[i] == Llama3Band::blended);
      const double sw = (8192 / (2 * kPi / w[i]) - 1) / 3;
      CHECK(f.llama3_blend[i] == Approx(sw).epsilon(1e-14));
      CHECK(f.inv_freq[i] == Approx((1 - sw) * w[i] / 8 + sw * w[i]).epsilon(1e-14));
      CHECK(sw > 0);
      CHECK(sw < 1);
    } else {
      CHECK(f.llama3_band[i] == Llama3Band::divided);
      CHECK(f.inv_freq[i] == Approx(w[i] / 8).epsilon(1e-15));
      CHECK(f.llama3_blend[i] == 0);
    }
  }
  CHECK(f.attention_factor == 1.0);
  CHECK(freq_of(128, 500000, of_type(RopeScalingType::llama3)).inv_freq == f.inv_freq);  // Llama 3.1 defaults
}

TEST_CASE("LongRoPE Phi-3.5-mini: factor 32, attention 1.190238, short up to original, long beyond", "[rope][scaling][longrope]") {
  const RopeScaling s = phi35_longrope();
  const auto w = default_freq_f64(96, 10000);
  for (double seq : {1.0, 4096.0}) {
    INFO("seqLen " << seq);
    const auto f = freq_of(96, 10000, s, seq);
    CHECK_FALSE(f.longrope_long);
    for (std::size_t i = 0; i < 48; ++i) CHECK(f.inv_freq[i] == Approx(1.0 / (s.short_factor[i] * std::pow(10000.0, 2.0 * i / 96))).epsilon(1e-14));
  }
  for (double seq : {4097.0, 131072.0}) {
    INFO("seqLen " << seq);
    const auto f = freq_of(96, 10000, s, seq);
    CHECK(f.longrope_long);
    for (std::size_t i = 0; i < 48; ++i) CHECK(f.inv_freq[i] == Approx(w[i] / s.long_factor[i]).epsilon(1e-14));
  }
  const auto f = freq_of(96, 10000, s, 5000.0);
  CHECK(f.factor == 32);
  CHECK(f.attention_factor == Approx(1.190238).margin(5e-7));
  CHECK(f.attention_factor == Approx(std::sqrt(1 + std::log(32.0) / std::log(4096.0))).epsilon(1e-15));
  CHECK_FALSE(freq_of(96, 10000, s).longrope_long);  // no current length: model load, short list
}

TEST_CASE("LongRoPE: explicit factor and attention factor; llama.cpp decides from the context size", "[rope][scaling][longrope]") {
  RopeScaling s = phi35_longrope();
  s.factor = 16;
  CHECK(freq_of(96, 10000, s, 1.0).attention_factor == Approx(std::sqrt(1 + std::log(16.0) / std::log(4096.0))));
  s.attention_factor = 1.5;
  CHECK(freq_of(96, 10000, s, 1.0).attention_factor == 1.5);
  s.factor = 1;
  s.attention_factor.reset();
  CHECK(freq_of(96, 10000, s, 1.0).attention_factor == 1.0);
  s.llama_cpp_context_length = 8192;  // n_ctx > n_ctx_orig: long list even for a short call
  CHECK(freq_of(96, 10000, s, 10.0).longrope_long);
  s.llama_cpp_context_length = 4096;
  CHECK_FALSE(freq_of(96, 10000, s, 100000.0).longrope_long);
}

TEST_CASE("scaling parameters are checked with statuses naming them", "[rope][scaling][errors]") {
  auto expect = [](const Status& st, StatusCode code, const char* needle) {
    INFO(st.message());
    CHECK(st.code() == code);
    CHECK(st.message().find(needle) != std::string::npos);
  };
  expect(status_of(64, 10000, of_type(RopeScalingType::linear)), StatusCode::invalid_argument, "scaling.factor is required");
  RopeScaling lin = of_type(RopeScalingType::linear);
  lin.factor = -1;
  expect(status_of(64, 10000, lin), StatusCode::invalid_argument, "scaling.factor must be a finite number > 0");
  RopeScaling ntk = of_type(RopeScalingType::ntk);
  ntk.factor = 2;
  expect(status_of(2, 10000, ntk), StatusCode::invalid_argument, "rotaryDim must be >= 4");
  RopeScaling dyn = of_type(RopeScalingType::dynamic);
  dyn.factor = 2;
  expect(status_of(64, 10000, dyn), StatusCode::invalid_argument, "scaling.maxPositionEmbeddings is required");
  dyn.max_position_embeddings = 2048;
  expect(status_of(64, 10000, dyn, NAN), StatusCode::invalid_argument, "seqLen");
  RopeScaling yarn = of_type(RopeScalingType::yarn);
  yarn.factor = 4;
  expect(status_of(64, 10000, yarn), StatusCode::invalid_argument, "originalMaxPositionEmbeddings");
  yarn.original_max_position_embeddings = 4096;
  yarn.beta_fast = 0;
  expect(status_of(64, 10000, yarn), StatusCode::invalid_argument, "scaling.betaFast");
  yarn.beta_fast = 32;
  yarn.attention_factor = 1.2;
  yarn.ggml_attn_factor = 1.0;
  expect(status_of(64, 10000, yarn), StatusCode::invalid_argument, "not both");
  RopeScaling no_factor = of_type(RopeScalingType::yarn);
  no_factor.original_max_position_embeddings = 4096;
  expect(status_of(64, 10000, no_factor), StatusCode::invalid_argument, "scaling.factor (or maxPositionEmbeddings");
  RopeScaling l3 = of_type(RopeScalingType::llama3);
  l3.low_freq_factor = 2;
  l3.high_freq_factor = 1;
  expect(status_of(64, 10000, l3), StatusCode::invalid_argument, "scaling.highFreqFactor must be at least");
  RopeScaling lr = phi35_longrope();
  lr.long_factor.pop_back();
  expect(status_of(96, 10000, lr), StatusCode::shape_mismatch, "scaling.longFactor must have rotaryDim/2 = 48 entries, got 47");
  lr = phi35_longrope();
  lr.short_factor[3] = 0;
  expect(status_of(96, 10000, lr), StatusCode::invalid_argument, "scaling.shortFactor[3]");
  lr = phi35_longrope();
  lr.original_max_position_embeddings.reset();
  lr.max_position_embeddings.reset();
  expect(status_of(96, 10000, lr), StatusCode::invalid_argument, "originalMaxPositionEmbeddings");
  RopeScaling bad = of_type(static_cast<RopeScalingType>(42));
  expect(status_of(64, 10000, bad), StatusCode::invalid_argument, "scaling.type");
  expect(status_of(7, 10000, RopeScaling{}), StatusCode::invalid_argument, "rotaryDim");
}

TEST_CASE("rope_apply with scaling: scaled frequencies, attention factor on rotated lanes only", "[rope][scaling]") {
  RopeScaling yarn = of_type(RopeScalingType::yarn);
  yarn.factor = 4;
  yarn.original_max_position_embeddings = 64;
  const auto w = yarn_f64(16, 10000, 4, 64, 32, 1, true);
  const double attention = 0.1 * std::log(4.0) + 1;
  const std::size_t head_dim = 24, seq = 5;  // partial rotary: lanes 16..23 pass through
  for (auto pairing : {Pairing::half, Pairing::interleaved}) {
    auto q = posenc::test::random_floats(seq * head_dim, 3, -2, 2);
    const auto q0 = q;
    const RopeTensors t{q.data(), 1, nullptr, 0, 1, seq, head_dim, HeadLayout::bshd};
    REQUIRE(rope_apply(posenc::test::config_of(16, 10000, yarn), pairing, Positions::range(0), t).ok());
    for (std::size_t s = 0; s < seq; ++s) {
      std::vector<double> angle(8), scale(8, attention);
      for (std::size_t i = 0; i < 8; ++i) angle[i] = static_cast<double>(s) * w[i];
      const auto want = posenc::test::rotate_row_f64(q0.data() + s * head_dim, head_dim, 16,
                                                     pairing == Pairing::interleaved, angle, scale);
      CHECK(posenc::test::row_error(q.data() + s * head_dim, want, 2.0) <= 1e-6);
      for (std::size_t j = 16; j < head_dim; ++j) CHECK(q[s * head_dim + j] == q0[s * head_dim + j]);
    }
    for (std::size_t j = 0; j < 16; ++j) {  // position 0: rotated lanes multiplied by the attention factor
      CHECK(q[j] == Approx(q0[j] * attention).epsilon(1e-6));
    }
  }
}

TEST_CASE("position 0 is exactly the identity for every variant whose attention factor is 1", "[rope][scaling]") {
  std::vector<RopeScaling> variants(5);
  variants[0] = of_type(RopeScalingType::linear);
  variants[0].factor = 4;
  variants[1] = of_type(RopeScalingType::ntk);
  variants[1].factor = 4;
  variants[2] = of_type(RopeScalingType::dynamic);
  variants[2].factor = 4;
  variants[2].max_position_embeddings = 16;
  variants[3] = of_type(RopeScalingType::llama3);
  variants[4] = of_type(RopeScalingType::yarn);
  variants[4].factor = 4;
  variants[4].original_max_position_embeddings = 4096;
  variants[4].mscale = 1;
  variants[4].mscale_all_dim = 1;
  for (const auto& s : variants) {
    INFO("type " << static_cast<int>(s.type));
    auto q = posenc::test::random_floats(3 * 40, 5);
    const auto q0 = q;
    const double ids[3] = {0, 0, 0};
    const RopeTensors t{q.data(), 1, nullptr, 0, 1, 3, 40, HeadLayout::bshd};
    REQUIRE(rope_apply(posenc::test::config_of(32, 10000, s, 100.0), Pairing::half, Positions::list(ids), t).ok());
    CHECK(q == q0);
  }
}

TEST_CASE("the current length defaults to max(position) + 1 (LongRoPE at original and original + 1)", "[rope][scaling][longrope]") {
  const RopeScaling s = phi35_longrope();
  auto run = [&](const Positions& pos, std::optional<double> seq_len) {
    auto q = posenc::test::random_floats(2 * 96, 8);
    const RopeTensors t{q.data(), 1, nullptr, 0, 1, 2, 96, HeadLayout::bshd};
    REQUIRE(rope_apply(posenc::test::config_of(96, 10000, s, seq_len), Pairing::half, pos, t).ok());
    return q;
  };
  const double at_original[2] = {10, 4095};  // max + 1 = 4096: short
  const double beyond[2] = {10, 4096};       // max + 1 = 4097: long
  CHECK(run(Positions::list(at_original), std::nullopt) == run(Positions::list(at_original), 4096.0));
  CHECK(run(Positions::list(at_original), std::nullopt) != run(Positions::list(at_original), 4097.0));
  CHECK(run(Positions::list(beyond), std::nullopt) == run(Positions::list(beyond), 4097.0));
  CHECK(run(Positions::range(4094), std::nullopt) == run(Positions::range(4094), 4096.0));
  CHECK(run(Positions::range(4095), std::nullopt) == run(Positions::range(4095), 4097.0));
}

TEST_CASE("rope_angles: position * inv_freq in float64", "[rope][scaling]") {
  RopeScaling s = of_type(RopeScalingType::linear);
  s.factor = 2;
  const double ids[3] = {0, 7, 1e6};
  std::vector<double> out(3 * 8);
  REQUIRE(rope_angles(posenc::test::config_of(16, 10000, s), ids, 3, out.data()).ok());
  const auto w = default_freq_f64(16, 10000);
  for (std::size_t t = 0; t < 3; ++t)
    for (std::size_t i = 0; i < 8; ++i) CHECK(out[t * 8 + i] == Approx(ids[t] * w[i] / 2).epsilon(1e-15));
  const double bad[2] = {1, NAN};
  CHECK(rope_angles(posenc::test::config_of(16, 10000), bad, 2, out.data()).code() == StatusCode::invalid_argument);
}

TEST_CASE("derived quantities are checked where they are formed and name their input", "[rope][scaling][errors]") {
  // issue 15: accepted parameters that made inverse frequencies or attention factors non-finite.
  auto expect = [](const Status& st, StatusCode code, const std::string& part) {
    INFO(st.message());
    CHECK(st.code() == code);
    CHECK(st.message().find(part) != std::string::npos);
  };
  RopeScaling linear;
  linear.type = RopeScalingType::linear;
  linear.factor = 5e-324;
  expect(status_of(8, 10000, linear), StatusCode::invalid_argument, "scaling.factor 5e-324 makes inverse frequency 0 Infinity");
  linear.factor = 1e-40;  // w_0 = 1e40: huge but finite, so accepted
  CHECK(freq_of(8, 10000, linear).inv_freq[0] == Approx(1e40));

  expect(status_of(64, 5e-324, RopeScaling{}), StatusCode::invalid_argument, "base 5e-324 makes inverse frequency");

  RopeScaling yarn;
  yarn.type = RopeScalingType::yarn;
  yarn.factor = 4;
  yarn.original_max_position_embeddings = 64;
  yarn.attention_factor = 1e300;
  expect(status_of(8, 10000, yarn), StatusCode::invalid_argument, "scaling.attentionFactor 1e+300 makes the attention factor");

  RopeScaling longrope;
  longrope.type = RopeScalingType::longrope;
  longrope.short_factor = longrope.long_factor = {1, 1, 1, 1};
  longrope.original_max_position_embeddings = 1;
  longrope.max_position_embeddings = 4096;
  expect(status_of(8, 10000, longrope), StatusCode::invalid_argument,
         "scaling.originalMaxPositionEmbeddings 1 makes the attention factor Infinity");

  RopeScaling ntk;
  ntk.type = RopeScalingType::ntk;
  ntk.factor = 1e300;
  expect(status_of(8, 10000, ntk), StatusCode::invalid_argument, "scaling.factor 1e+300 makes the rescaled base Infinity");
}

TEST_CASE("an angle that overflows a double is OUT_OF_RANGE", "[rope][errors]") {
  RopeConfig c = posenc::test::config_of(4, 0.5, RopeScaling{});  // w_1 = sqrt(2)
  const double positions[1] = {1.7e308};
  double out[2];
  const Status st = rope_angles(c, positions, 1, out);
  INFO(st.message());
  CHECK(st.code() == StatusCode::out_of_range);
  const double fine[1] = {1e300};
  CHECK(rope_angles(c, fine, 1, out).ok());
}
