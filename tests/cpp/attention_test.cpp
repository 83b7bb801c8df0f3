// Attention helpers against naive float64 attention: logits, softmax scores and outputs with a
// causal mask (and query offset), additive biases, grouped-query heads, RoPE, and the defined
// behaviour of fully masked rows.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "attention_ref.hpp"
#include "posenc/attention.hpp"
#include "test_util.hpp"

using namespace posenc;
using test::Mat;

namespace {

struct Inputs {
  AttentionShape s;
  std::vector<float> q, k, v;
};

Inputs make(std::size_t heads, std::size_t kv_heads, std::size_t q_len, std::size_t k_len, std::size_t d,
            std::size_t dv, std::uint64_t seed) {
  return Inputs{AttentionShape{heads, kv_heads, q_len, k_len, d, dv},
                test::random_floats(heads * q_len * d, seed, -2, 2),
                test::random_floats(kv_heads * k_len * d, seed + 1, -2, 2),
                test::random_floats(kv_heads * k_len * dv, seed + 2, -2, 2)};
}

/// Naive logits of head h: scale * q k^T + bias, future keys -inf when causal.
Mat naive_logits(const Inputs& in, std::size_t h, double scale, bool causal, std::size_t offset, const float* bias,
                 std::size_t bias_heads) {
  const auto& s = in.s;
  const Mat q = test::head_of(in.q, h, s.q_len, s.head_dim);
  const Mat k = test::head_of(in.k, h / (s.heads / s.kv_heads), s.k_len, s.head_dim);
  Mat e(s.q_len, s.k_len);
  for (std::size_t i = 0; i < s.q_len; ++i)
    for (std::size_t j = 0; j < s.k_len; ++j) {
      double dot = 0;
      for (std::size_t x = 0; x < s.head_dim; ++x) dot += q.at(i, x) * k.at(j, x);
      double val = scale * dot;
      if (bias) val += bias[((bias_heads == 1 ? 0 : h) * s.q_len + i) * s.k_len + j];
      if (causal && j > offset + i) val = -INFINITY;
      e.at(i, j) = val;
    }
  return e;
}

Mat naive_output(const Inputs& in, std::size_t h, const Mat& p) {
  return test::matmul(p, test::head_of(in.v, h / (in.s.heads / in.s.kv_heads), in.s.k_len, in.s.value_dim));
}

}  // namespace

TEST_CASE("attention logits, scores and output equal naive float64 attention", "[attention]") {
  struct Case { std::size_t heads, kv, q, k, d, dv, offset; bool causal; };
  for (const Case& c : std::vector<Case>{{1, 1, 5, 5, 8, 8, 0, false}, {4, 4, 6, 6, 16, 16, 0, true},
                                         {8, 2, 3, 10, 8, 4, 7, true},  {2, 1, 4, 9, 32, 5, 2, false},
                                         {3, 3, 1, 17, 4, 4, 16, true}}) {
    INFO("heads " << c.heads << " kv " << c.kv << " q " << c.q << " k " << c.k << " causal " << c.causal);
    const Inputs in = make(c.heads, c.kv, c.q, c.k, c.d, c.dv, 7);
    AttentionOptions o;
    o.causal = c.causal;
    o.query_offset = c.offset;
    std::vector<float> logits(c.heads * c.q * c.k), scores(logits.size()), scores2(logits.size()),
        out(c.heads * c.q * c.dv);
    REQUIRE(attention_logits(in.s, in.q.data(), in.k.data(), o, logits.data()).ok());
    REQUIRE(attention_scores(in.s, in.q.data(), in.k.data(), o, scores.data()).ok());
    REQUIRE(attention_output(in.s, in.q.data(), in.k.data(), in.v.data(), o, out.data(), scores2.data()).ok());
    CHECK(scores == scores2);
    for (std::size_t h = 0; h < c.heads; ++h) {
      const Mat e = naive_logits(in, h, 1.0 / std::sqrt(double(c.d)), c.causal, c.offset, nullptr, 0);
      CHECK(test::head_error(logits, h, e) <= 4e-6);
      const Mat p = test::softmax_rows(e);
      CHECK(test::head_error(scores, h, p) <= 1e-7);
      CHECK(test::head_error(out, h, naive_output(in, h, p)) <= 1e-6);
    }
  }
}

TEST_CASE("attention with an additive bias per head or shared, -Infinity entries allowed", "[attention]") {
  const Inputs in = make(3, 3, 4, 6, 8, 8, 3);
  for (std::size_t bias_heads : {std::size_t{1}, std::size_t{3}}) {
    auto bias = test::random_floats(bias_heads * 4 * 6, 9, -3, 3);
    bias[2] = -std::numeric_limits<float>::infinity();
    AttentionOptions o;
    o.bias = bias.data();
    o.bias_heads = bias_heads;
    o.scale = 0.3;
    std::vector<float> scores(3 * 4 * 6), out(3 * 4 * 8);
    REQUIRE(attention_output(in.s, in.q.data(), in.k.data(), in.v.data(), o, out.data(), scores.data()).ok());
    for (std::size_t h = 0; h < 3; ++h) {
      const Mat p = test::softmax_rows(naive_logits(in, h, 0.3, false, 0, bias.data(), bias_heads));
      if (h == 0 || bias_heads == 1) CHECK(p.at(0, 2) == 0.0);  // bias[2] is head 0, row 0, key 2
      CHECK(test::head_error(scores, h, p) <= 1e-7);
      CHECK(test::head_error(out, h, naive_output(in, h, p)) <= 1e-6);
    }
  }
}

TEST_CASE("attention with RoPE rotates q at queryOffset + i and k at j first", "[attention]") {
  const std::size_t heads = 2, q_len = 3, k_len = 7, d = 8, offset = 4;
  Inputs in = make(heads, heads, q_len, k_len, d, d, 21);
  for (auto pairing : {Pairing::half, Pairing::interleaved}) {
    for (int rotary : {8, 4}) {
      AttentionOptions o;
      o.query_offset = offset;
      o.causal = true;
      AttentionRope rope;
      rope.config.rotary_dim = rotary;
      rope.config.base = 500.0;
      rope.pairing = pairing;
      o.rope = rope;
      std::vector<float> logits(heads * q_len * k_len);
      REQUIRE(attention_logits(in.s, in.q.data(), in.k.data(), o, logits.data()).ok());
      // Reference: rotate with the float64 RoPE formula, then naive logits.
      Inputs rotated = in;
      const bool inter = pairing == Pairing::interleaved;
      for (std::size_t h = 0; h < heads; ++h) {
        for (std::size_t i = 0; i < q_len; ++i) {
          auto row = test::rope_row_f64(in.q.data() + (h * q_len + i) * d, d, rotary, inter, double(offset + i), 500.0);
          for (std::size_t x = 0; x < d; ++x) rotated.q[(h * q_len + i) * d + x] = static_cast<float>(row[x]);
        }
        for (std::size_t j = 0; j < k_len; ++j) {
          auto row = test::rope_row_f64(in.k.data() + (h * k_len + j) * d, d, rotary, inter, double(j), 500.0);
          for (std::size_t x = 0; x < d; ++x) rotated.k[(h * k_len + j) * d + x] = static_cast<float>(row[x]);
        }
      }
      for (std::size_t h = 0; h < heads; ++h) {
        CHECK(test::head_error(logits, h, naive_logits(rotated, h, 1 / std::sqrt(double(d)), true, offset, nullptr, 0)) <= 1e-5);
      }
      // The caller's q and k are untouched.
      CHECK(in.q == make(heads, heads, q_len, k_len, d, d, 21).q);
    }
  }
}

TEST_CASE("attention: a fully masked row gives zero scores and a zero output, never NaN", "[attention]") {
  const Inputs in = make(1, 1, 2, 3, 4, 4, 5);
  std::vector<float> bias(2 * 3, 0.0f);
  for (int j = 0; j < 3; ++j) bias[j] = -std::numeric_limits<float>::infinity();  // row 0 masked entirely
  AttentionOptions o;
  o.bias = bias.data();
  o.bias_heads = 1;
  std::vector<float> scores(6), out(8), logits(6);
  REQUIRE(attention_output(in.s, in.q.data(), in.k.data(), in.v.data(), o, out.data(), scores.data()).ok());
  REQUIRE(attention_logits(in.s, in.q.data(), in.k.data(), o, logits.data()).ok());
  for (int j = 0; j < 3; ++j) {
    CHECK(scores[j] == 0.0f);
    CHECK(logits[j] == -std::numeric_limits<float>::infinity());
  }
  for (int c = 0; c < 4; ++c) CHECK(out[c] == 0.0f);
  double sum = 0;
  for (int j = 3; j < 6; ++j) sum += scores[j];
  CHECK(sum == Approx(1.0).epsilon(1e-6));
}

TEST_CASE("attention: large logits stay finite (the softmax subtracts the row maximum)", "[attention]") {
  Inputs in = make(1, 1, 1, 2, 1, 1, 1);
  in.q = {1000.0f};
  in.k = {1000.0f, 999.0f};
  in.v = {1.0f, 3.0f};
  AttentionOptions o;
  o.scale = 1.0;
  std::vector<float> out(1), scores(2);
  REQUIRE(attention_output(in.s, in.q.data(), in.k.data(), in.v.data(), o, out.data(), scores.data()).ok());
  const double p1 = 1.0 / (1.0 + std::exp(-1000.0));
  CHECK(scores[0] == Approx(p1));
  CHECK(out[0] == Approx(p1 * 1 + (1 - p1) * 3));
}

TEST_CASE("attention rejects bad arguments", "[attention][errors]") {
  Inputs in = make(2, 2, 2, 3, 4, 4, 1);
  std::vector<float> out(64);
  AttentionOptions o;
  auto run = [&](const AttentionShape& s, const AttentionOptions& opts) {
    return attention_output(s, in.q.data(), in.k.data(), in.v.data(), opts, out.data());
  };
  CHECK(run(in.s, o).ok());
  CHECK(run(AttentionShape{3, 2, 2, 3, 4, 4}, o).code() == StatusCode::shape_mismatch);
  CHECK_THAT(run(AttentionShape{0, 1, 2, 3, 4, 4}, o).message(), Catch::Contains("heads must be an integer >= 1"));
  CHECK_THAT(run(AttentionShape{2, 2, 0, 3, 4, 4}, o).message(), Catch::Contains("qLen"));
  CHECK_THAT(run(AttentionShape{2, 2, 2, 0, 4, 4}, o).message(), Catch::Contains("kLen"));
  CHECK_THAT(run(AttentionShape{2, 2, 2, 3, 0, 4}, o).message(), Catch::Contains("headDim"));
  CHECK_THAT(run(AttentionShape{2, 2, 2, 3, 4, 0}, o).message(), Catch::Contains("valueDim"));
  CHECK_THAT(attention_output(in.s, in.q.data(), in.k.data(), nullptr, o, out.data()).message(),
             Catch::Contains("v must be given"));
  AttentionOptions bad = o;
  bad.scale = std::numeric_limits<double>::infinity();
  CHECK_THAT(run(in.s, bad).message(), Catch::Contains("scale must be a finite number"));
  std::vector<float> bias(2 * 2 * 3, 0.0f);
  bad = o;
  bad.bias = bias.data();
  bad.bias_heads = 3;
  CHECK(run(in.s, bad).code() == StatusCode::shape_mismatch);
  bad.bias_heads = 2;
  bias[4] = std::nanf("");
  CHECK_THAT(run(in.s, bad).message(), Catch::Contains("bias[4] must be a finite number or -Infinity, got NaN"));
  bias[4] = std::numeric_limits<float>::infinity();
  CHECK_THAT(run(in.s, bad).message(), Catch::Contains("bias[4] must be a finite number or -Infinity, got Infinity"));
  in.k[5] = std::nanf("");
  CHECK_THAT(run(in.s, o).message(), Catch::Contains("k[5] must be a finite number"));
  in.k[5] = 0;
  in.v[0] = -std::numeric_limits<float>::infinity();
  CHECK_THAT(run(in.s, o).message(), Catch::Contains("v[0] must be a finite number"));
  in.v[0] = 0;
  bad = o;
  AttentionRope rope;
  rope.config.rotary_dim = 3;
  bad.rope = rope;
  CHECK_THAT(run(in.s, bad).message(), Catch::Contains("rotaryDim"));
  rope.config.rotary_dim = 4;
  rope.config.base = -1;
  bad.rope = rope;
  CHECK_THAT(run(in.s, bad).message(), Catch::Contains("base"));
}
