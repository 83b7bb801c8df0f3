// ALiBi slopes and bias forms against docs/encodings.md section 7: the slope lists for 8, 12 and 20
// heads, MPT's construction of the list (written here independently), and each bias form.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "posenc/alibi.hpp"

using namespace posenc;

namespace {

std::vector<double> slopes(int n, double max_bias = 8) {
  std::vector<double> s(static_cast<std::size_t>(n));
  REQUIRE(alibi_slopes(n, max_bias, s.data()).ok());
  return s;
}

/// MPT's build: the 2^ceil(log2 n) geometric series, odd-indexed terms first, then even, first n.
std::vector<double> mpt_slopes(int n, double max_bias) {
  int c = 1;
  while (c < n) c *= 2;
  std::vector<double> series;
  for (int h = 1; h <= c; ++h) series.push_back(std::pow(2.0, -max_bias * h / c));
  if (c == n) return series;
  std::vector<double> out;
  for (std::size_t i = 1; i < series.size(); i += 2) out.push_back(series[i]);
  for (std::size_t i = 0; i < series.size(); i += 2) out.push_back(series[i]);
  out.resize(static_cast<std::size_t>(n));
  return out;
}

constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<float> bias(AlibiParams p) {
  std::vector<float> out(p.batch * static_cast<std::size_t>(p.num_heads) * p.q_len * p.k_len, 12345.0f);
  const Status s = alibi_bias(p, out.data());
  INFO(s.message());
  REQUIRE(s.ok());
  return out;
}

}  // namespace

TEST_CASE("alibi slopes: the lists of docs/encodings.md for 8, 12 and 20 heads", "[alibi]") {
  const auto s8 = slopes(8);
  for (int h = 0; h < 8; ++h) CHECK(s8[h] == std::ldexp(1.0, -(h + 1)));
  const auto s12 = slopes(12);
  for (int h = 0; h < 8; ++h) CHECK(s12[h] == s8[h]);
  const std::vector<double> tail12 = {-0.5, -1.5, -2.5, -3.5};
  for (int k = 0; k < 4; ++k) CHECK(s12[8 + k] == Approx(std::pow(2.0, tail12[k])).epsilon(1e-15));
  const auto s20 = slopes(20);
  for (int h = 0; h < 16; ++h) CHECK(s20[h] == Approx(std::pow(2.0, -0.5 * (h + 1))).epsilon(1e-15));
  const std::vector<double> tail20 = {-0.25, -0.75, -1.25, -1.75};
  for (int k = 0; k < 4; ++k) CHECK(s20[16 + k] == Approx(std::pow(2.0, tail20[k])).epsilon(1e-15));
}

TEST_CASE("alibi slopes equal MPT's construction for 1..100 heads and other maxBias", "[alibi]") {
  for (double max_bias : {8.0, 16.0, 3.5}) {
    for (int n = 1; n <= 100; ++n) {
      const auto got = slopes(n, max_bias);
      const auto want = mpt_slopes(n, max_bias);
      for (int h = 0; h < n; ++h) {
        INFO("heads " << n << " maxBias " << max_bias << " head " << h);
        REQUIRE(got[h] == Approx(want[h]).epsilon(1e-14));
      }
    }
  }
}

TEST_CASE("alibi causal form: -m (i - j), future keys -Infinity or the formula", "[alibi]") {
  // Short rows (SIMD copies) and rows of 300 keys (bulk copies); offsets that leave every key, some
  // keys or no key in the future.
  struct Shape {
    std::size_t q_len, k_len, offset;
  };
  for (const Shape shape : {Shape{6, 13, 0}, Shape{6, 13, 5}, Shape{3, 300, 0}, Shape{3, 300, 150}, Shape{2, 300, 400}}) {
    const std::size_t offset = shape.offset;
    for (bool mask : {true, false}) {
      AlibiParams p;
      p.num_heads = 12;
      p.q_len = shape.q_len;
      p.k_len = shape.k_len;
      p.query_offset = offset;
      p.mask_future = mask;
      const auto out = bias(p);
      const auto m = slopes(12);
      for (std::size_t h = 0; h < 12; ++h)
        for (std::size_t i = 0; i < p.q_len; ++i)
          for (std::size_t j = 0; j < p.k_len; ++j) {
            const double qi = static_cast<double>(offset + i);
            const float got = out[(h * p.q_len + i) * p.k_len + j];
            if (mask && static_cast<double>(j) > qi) {
              REQUIRE(got == -kInf);
            } else {
              REQUIRE(got == static_cast<float>(-m[h] * (qi - static_cast<double>(j))));
            }
          }
    }
  }
}

TEST_CASE("alibi symmetric form: -m |i - j|", "[alibi]") {
  AlibiParams p;
  p.num_heads = 5;
  p.form = AlibiForm::symmetric;
  p.mask_future = false;
  p.q_len = 7;
  p.k_len = 7;
  p.max_bias = 4;
  const auto out = bias(p);
  const auto m = slopes(5, 4);
  for (std::size_t h = 0; h < 5; ++h)
    for (std::size_t i = 0; i < 7; ++i)
      for (std::size_t j = 0; j < 7; ++j)
        REQUIRE(out[(h * 7 + i) * 7 + j] == static_cast<float>(-m[h] * std::fabs(double(i) - double(j))));
  CHECK_FALSE(std::signbit(out[0]));  // the diagonal is +0, not -0
}

TEST_CASE("alibi bloom form: m * keyPos, key positions from the attention mask", "[alibi]") {
  const std::vector<std::int32_t> mask = {0, 0, 1, 1, 1, /* row 2 */ 1, 1, 1, 1, 0};
  const std::vector<std::vector<double>> key_pos = {{0, 0, 0, 1, 2}, {0, 1, 2, 3, 0}};
  AlibiParams p;
  p.num_heads = 3;
  p.form = AlibiForm::bloom;
  p.mask_future = false;
  p.q_len = 2;
  p.k_len = 5;
  p.attention_mask = mask.data();
  p.batch = 2;
  const auto out = bias(p);
  const auto m = slopes(3);
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t h = 0; h < 3; ++h)
      for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 5; ++j)
          REQUIRE(out[((b * 3 + h) * 2 + i) * 5 + j] == static_cast<float>(m[h] * key_pos[b][j]));
  // Without a mask the key positions are j; with mask_future the causal part stays, the rest is -inf.
  AlibiParams q;
  q.num_heads = 2;
  q.form = AlibiForm::bloom;
  q.q_len = 3;
  q.k_len = 4;
  q.query_offset = 1;
  q.mask_future = true;
  const auto masked = bias(q);
  for (std::size_t h = 0; h < 2; ++h)
    for (std::size_t i = 0; i < 3; ++i)
      for (std::size_t j = 0; j < 4; ++j) {
        const float got = masked[(h * 3 + i) * 4 + j];
        if (j > 1 + i) REQUIRE(got == -kInf);
        else REQUIRE(got == static_cast<float>(slopes(2)[h] * double(j)));
      }
}

TEST_CASE("alibi bloom and paper forms give the same softmax on causal rows", "[alibi]") {
  AlibiParams p;
  p.num_heads = 4;
  p.q_len = 5;
  p.k_len = 5;
  const auto paper = bias(p);
  p.form = AlibiForm::bloom;
  const auto bloom = bias(p);
  for (std::size_t r = 0; r < 4 * 5; ++r) {
    // Each causal row differs by a constant m * i, which softmax ignores.
    const std::size_t i = r % 5;
    const double shift = bloom[r * 5] - paper[r * 5];
    for (std::size_t j = 0; j <= i; ++j) REQUIRE(bloom[r * 5 + j] - paper[r * 5 + j] == Approx(shift).margin(1e-6));
  }
}

TEST_CASE("alibi diagonals and bloom rows are what the bias expands", "[alibi]") {
  for (auto form : {AlibiForm::causal, AlibiForm::symmetric}) {
    AlibiParams p;
    p.num_heads = 3;
    p.form = form;
    p.q_len = 4;
    p.k_len = 6;
    p.query_offset = 1;
    const std::size_t diag_len = 9;
    std::vector<float> diag(3 * diag_len);
    REQUIRE(alibi_bias_diagonals(p, diag.data()).ok());
    const auto full = bias(p);
    for (std::size_t h = 0; h < 3; ++h)
      for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t j = 0; j < 6; ++j) REQUIRE(full[(h * 4 + i) * 6 + j] == diag[h * diag_len + 3 - i + j]);
  }
  AlibiParams b;
  b.num_heads = 2;
  b.form = AlibiForm::bloom;
  b.q_len = 3;
  b.k_len = 4;
  std::vector<float> rows(2 * 4);
  REQUIRE(alibi_bloom_rows(b, rows.data()).ok());
  for (std::size_t h = 0; h < 2; ++h)
    for (std::size_t j = 0; j < 4; ++j) REQUIRE(rows[h * 4 + j] == static_cast<float>(slopes(2)[h] * double(j)));
  CHECK_THAT(alibi_bias_diagonals(b, rows.data()).message(), Catch::Contains("form 'bloom' has no diagonal vectors"));
  b.form = AlibiForm::causal;
  CHECK_THAT(alibi_bloom_rows(b, rows.data()).message(), Catch::Contains("only form 'bloom'"));
}

TEST_CASE("alibi rejects bad arguments", "[alibi][errors]") {
  std::vector<double> s(4);
  CHECK_THAT(alibi_slopes(0, 8, s.data()).message(), Catch::Contains("numHeads must be an integer >= 1"));
  CHECK_THAT(alibi_slopes(4, std::nan(""), s.data()).message(), Catch::Contains("maxBias"));
  CHECK_THAT(alibi_slopes(4, 0, s.data()).message(), Catch::Contains("maxBias must be a finite number > 0"));
  std::vector<float> out(64);
  auto fails = [&](AlibiParams p, const char* needle) {
    const Status st = alibi_bias(p, out.data());
    INFO(st.message());
    CHECK(st.code() == StatusCode::invalid_argument);
    CHECK_THAT(st.message(), Catch::Contains(needle));
  };
  AlibiParams ok;
  ok.num_heads = 2;
  ok.q_len = 2;
  ok.k_len = 2;
  CHECK(alibi_bias(ok, out.data()).ok());
  AlibiParams p = ok;
  p.q_len = 0;
  fails(p, "qLen");
  p = ok;
  p.k_len = 0;
  fails(p, "kLen");
  p = ok;
  p.max_bias = -1;
  fails(p, "maxBias");
  p = ok;
  p.form = static_cast<AlibiForm>(7);
  fails(p, "form");
  const std::vector<std::int32_t> mask = {1, 2};
  p = ok;
  p.attention_mask = mask.data();
  fails(p, "attentionMask is only used by form 'bloom'");
  p.form = AlibiForm::bloom;
  fails(p, "attentionMask[1] must be 0 or 1, got 2");
  p = ok;
  p.batch = 2;
  fails(p, "batch must be 1 without an attentionMask");
}
