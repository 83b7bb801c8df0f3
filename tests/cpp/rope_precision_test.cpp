// The precision oracle (src/encodings/rope_precision.cpp): exact float16/bfloat16 rounding, zero
// error where the pipelines are exact (position 0), the size of the float32 angle error at large
// positions, bucket maxima, and its argument checks.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "posenc/rope_precision.hpp"
#include "rope_test_util.hpp"

using posenc::AngleRecipe;
using posenc::NumberFormat;
using posenc::PrecisionRecipe;
using posenc::PrecisionReference;
using posenc::round_to_format;

TEST_CASE("round_to_format rounds to nearest, ties to even, with subnormals and overflow", "[precision]") {
  const double u = std::ldexp(1.0, -10);  // float16 spacing at 1
  CHECK(round_to_format(1 + u / 2, NumberFormat::float16) == 1.0);              // tie: to the even 1
  CHECK(round_to_format(1 + 1.5 * u, NumberFormat::float16) == 1 + 2 * u);      // tie: to the even 1 + 2u
  CHECK(round_to_format(1 + 0.6 * u, NumberFormat::float16) == 1 + u);
  CHECK(round_to_format(-1 - 0.4 * u, NumberFormat::float16) == -1.0);
  CHECK(round_to_format(65519.0, NumberFormat::float16) == 65504.0);
  CHECK(std::isinf(round_to_format(65520.0, NumberFormat::float16)));
  CHECK(round_to_format(std::ldexp(1.0, -25), NumberFormat::float16) == 0.0);   // half the smallest subnormal: to even 0
  CHECK(round_to_format(std::ldexp(3.0, -26), NumberFormat::float16) == std::ldexp(1.0, -24));
  CHECK(round_to_format(std::ldexp(3.0, -25), NumberFormat::float16) == std::ldexp(2.0, -24));  // tie: even
  const double v = std::ldexp(1.0, -7);  // bfloat16 spacing at 1
  CHECK(round_to_format(1 + v / 2, NumberFormat::bfloat16) == 1.0);
  CHECK(round_to_format(1 + 1.5 * v, NumberFormat::bfloat16) == 1 + 2 * v);
  CHECK(round_to_format(3.0e38, NumberFormat::bfloat16) == std::ldexp(226.0, 120));  // spacing 2^120 in [2^127, 2^128)
  CHECK(std::isinf(round_to_format(3.4e38, NumberFormat::bfloat16)));
  CHECK(round_to_format(0.1, NumberFormat::float32) == static_cast<double>(0.1f));
  // Every result is the nearest representable value: within half a spacing, on the grid
  std::uint64_t state = 7;
  for (int n = 0; n < 20000; ++n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double x = std::ldexp(static_cast<double>(state >> 11) / 9007199254740992.0 - 0.5, static_cast<int>(state % 36) - 20);  // |x| < 2^14
    for (NumberFormat f : {NumberFormat::float16, NumberFormat::bfloat16}) {
      const int bits = f == NumberFormat::float16 ? 10 : 7;
      const int min_exp = f == NumberFormat::float16 ? -14 : -126;
      const double r = round_to_format(x, f);
      int e = 0;
      std::frexp(x, &e);
      const double spacing = std::ldexp(1.0, std::max(e - 1, min_exp) - bits);
      CHECK(std::fabs(r - x) <= spacing / 2);
      CHECK(std::fmod(r, spacing) == 0.0);
    }
  }
}

TEST_CASE("round_float_to_format (on float32 bits) equals round_to_format", "[precision]") {
  std::uint64_t state = 11;
  for (int n = 0; n < 200000; ++n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    std::uint32_t bits = static_cast<std::uint32_t>(state >> 32);
    if ((bits & 0x7F800000u) == 0x7F800000u) continue;  // infinities and NaN
    if (n % 2 == 0) bits = (bits & 0x807FFFFFu) | ((100u + (bits >> 23) % 50u) << 23);  // exponents around float16's range
    float x = 0.0f;
    std::memcpy(&x, &bits, sizeof x);
    for (NumberFormat f : {NumberFormat::float16, NumberFormat::bfloat16, NumberFormat::float32}) {
      const double want = round_to_format(x, f);
      const float got = posenc::round_float_to_format(x, f);
      if (static_cast<double>(got) != want) FAIL("x = " << x << " format " << static_cast<int>(f) << ": " << got << " vs " << want);
    }
  }
  CHECK(posenc::round_float_to_format(65519.0f, NumberFormat::float16) == 65504.0f);
  CHECK(std::isinf(posenc::round_float_to_format(-65520.0f, NumberFormat::float16)));
}

namespace {

std::vector<double> run(const PrecisionReference& ref, const PrecisionRecipe& recipe, double start, std::size_t count,
                        std::size_t bucket) {
  const std::size_t buckets = (count + bucket - 1) / bucket;
  std::vector<double> out(2 * posenc::precision_variants(recipe.recipe) * buckets, -1.0);
  REQUIRE(posenc::rope_precision(ref, recipe, start, count, bucket, out.data()).ok());
  return out;
}

std::vector<double> float32_values(const std::vector<double>& w) {
  std::vector<double> out(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) out[i] = static_cast<float>(w[i]);
  return out;
}

}  // namespace

TEST_CASE("rope_precision: exact at position 0, float32 angles cost ~p * ulp(w) at large positions", "[precision]") {
  const std::vector<double> w = posenc::test::default_freq_f64(128, 500000.0);
  const std::vector<double> w32 = float32_values(w);
  const PrecisionReference ref{w.data(), w.size(), 1.0};
  PrecisionRecipe hf;
  hf.pipeline_freq = w32.data();
  PrecisionRecipe ggml;
  ggml.recipe = AngleRecipe::ggml;
  ggml.theta_scale = static_cast<float>(std::pow(500000.0f, -2.0f / 128.0f));

  for (const PrecisionRecipe* r : {&hf, &ggml}) {
    const auto at0 = run(ref, *r, 0.0, 1, 1);
    const std::size_t variants = posenc::precision_variants(r->recipe);
    for (std::size_t v = 0; v < variants; ++v) CHECK(at0[2 * v] == 0.0);  // cos 0 = 1, sin 0 = 0 in every format
    CHECK(at0[1] < 1e-7);                                                 // float32: one rounding of a unit vector
  }
  // At position 10^6 a float32 angle is known to ~0.03 (its spacing is 0.0625): errors of 1e-3..1e-1
  const auto far = run(ref, hf, 1e6, 64, 64);
  CHECK(far[0] > 1e-3);
  CHECK(far[0] < 0.1);
  const auto farg = run(ref, ggml, 1e6, 64, 64);
  CHECK(farg[0] > 1e-3);
  CHECK(farg[0] < 0.2);
  // bfloat16 rows (spacing 2^-8 near 1) are off by up to 2^-9 already at small positions
  const auto small = run(ref, hf, 1.0, 100, 100);
  CHECK(small[4] > 1e-3);
  CHECK(small[4] <= std::ldexp(1.0, -9) + 1e-6);
  CHECK(small[2] < small[4]);  // float16 rows finer than bfloat16
  // A float16 KV cache rounds each result to float16: ~2^-12 for values below 1
  const auto cache = run(ref, ggml, 1.0, 100, 100);
  CHECK(cache[3] > 1e-4);
  CHECK(cache[3] < 1e-3);
}

TEST_CASE("rope_precision buckets hold the maximum of their positions", "[precision]") {
  const std::vector<double> w = posenc::test::default_freq_f64(64, 10000.0);
  const std::vector<double> w32 = float32_values(w);
  PrecisionRecipe hf;
  hf.pipeline_freq = w32.data();
  const PrecisionReference ref{w.data(), w.size(), 1.0};
  const auto each = run(ref, hf, 5000.0, 10, 1);
  const auto grouped = run(ref, hf, 5000.0, 10, 4);  // buckets [0, 4), [4, 8), [8, 10)
  for (std::size_t series = 0; series < 6; ++series) {
    for (std::size_t b = 0; b < 3; ++b) {
      double m = 0;
      for (std::size_t t = 4 * b; t < std::min<std::size_t>(10, 4 * b + 4); ++t) m = std::fmax(m, each[series * 10 + t]);
      CHECK(grouped[series * 3 + b] == m);
    }
  }
}

TEST_CASE("rope_precision checks its arguments", "[precision][errors]") {
  const std::vector<double> w = {1.0, 0.1};
  const std::vector<double> bad = {1.0, 0.1};  // 0.1 is not a float32 value
  PrecisionRecipe hf;
  hf.pipeline_freq = bad.data();
  const PrecisionReference ref{w.data(), 2, 1.0};
  std::vector<double> out(12);
  auto s = posenc::rope_precision(ref, hf, 0.0, 2, 1, out.data());
  CHECK_THAT(s.message(), Catch::Contains("must be a float32 value"));
  const std::vector<double> ok = float32_values(w);
  hf.pipeline_freq = ok.data();
  CHECK(posenc::rope_precision(ref, hf, 0.0, 0, 1, out.data()).code() == posenc::StatusCode::invalid_argument);
  CHECK(posenc::rope_precision(ref, hf, std::nan(""), 2, 1, out.data()).code() == posenc::StatusCode::invalid_argument);
  CHECK(posenc::rope_precision(PrecisionReference{w.data(), 2, 0.0}, hf, 0.0, 2, 1, out.data()).code() ==
        posenc::StatusCode::invalid_argument);
  CHECK(posenc::rope_precision(ref, hf, 0.0, 2, 1, out.data()).ok());
}
