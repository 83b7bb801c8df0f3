// Shaw et al. 2018 relative positions against the paper's eqs. 3-5 evaluated naively in float64:
// explicit a^K_ij / a^V_ij tensors, then plain attention.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "attention_ref.hpp"
#include "posenc/shaw.hpp"
#include "test_util.hpp"

using namespace posenc;
using test::Mat;

namespace {

/// clip(j - (offset + i), -k, k) + k, written out.
std::size_t shaw_index(std::size_t i, std::size_t j, std::size_t offset, int k) {
  long long rel = static_cast<long long>(j) - static_cast<long long>(i + offset);
  if (rel < -k) rel = -k;
  if (rel > k) rel = k;
  return static_cast<std::size_t>(rel + k);
}

struct Case {
  std::size_t heads, kv_heads, q_len, k_len, d, dv, offset;
  int k;
  bool causal;
};

/// Logits [qLen, kLen] of head h: (q_i . (k_j + a^K_ij)) * scale, future keys -inf when causal.
Mat naive_logits(const Case& c, const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& ak,
                 std::size_t h, double scale) {
  const Mat qh = test::head_of(q, h, c.q_len, c.d);
  const Mat kh = test::head_of(k, h / (c.heads / c.kv_heads), c.k_len, c.d);
  Mat e(c.q_len, c.k_len);
  for (std::size_t i = 0; i < c.q_len; ++i)
    for (std::size_t j = 0; j < c.k_len; ++j) {
      if (c.causal && j > c.offset + i) {
        e.at(i, j) = -INFINITY;
        continue;
      }
      const std::size_t r = shaw_index(i, j, c.offset, c.k);
      double s = 0;
      for (std::size_t x = 0; x < c.d; ++x) s += qh.at(i, x) * (kh.at(j, x) + ak[r * c.d + x]);
      e.at(i, j) = s * scale;
    }
  return e;
}

Mat naive_output(const Case& c, const Mat& p, const std::vector<float>& v, const std::vector<float>* av, std::size_t h) {
  const Mat vh = test::head_of(v, h / (c.heads / c.kv_heads), c.k_len, c.dv);
  Mat z(c.q_len, c.dv);
  for (std::size_t i = 0; i < c.q_len; ++i)
    for (std::size_t j = 0; j < c.k_len; ++j) {
      const std::size_t r = shaw_index(i, j, c.offset, c.k);
      for (std::size_t x = 0; x < c.dv; ++x)
        z.at(i, x) += p.at(i, j) * (vh.at(j, x) + (av ? (*av)[r * c.dv + x] : 0.0));
    }
  return z;
}

AttentionShape shape_of(const Case& c) { return AttentionShape{c.heads, c.kv_heads, c.q_len, c.k_len, c.d, c.dv}; }

}  // namespace

TEST_CASE("shaw relative indices: key minus query, clipped, +k, with a query offset", "[shaw]") {
  for (int k : {1, 2, 4, 16}) {
    for (std::size_t offset : {std::size_t{0}, std::size_t{3}, std::size_t{40}}) {
      const std::size_t q_len = 5, k_len = 23;
      std::vector<std::int32_t> out(q_len * k_len);
      REQUIRE(shaw_relative_indices(ShawWindow{k, q_len, k_len, offset}, out.data()).ok());
      for (std::size_t i = 0; i < q_len; ++i)
        for (std::size_t j = 0; j < k_len; ++j) REQUIRE(out[i * k_len + j] == static_cast<int>(shaw_index(i, j, offset, k)));
    }
  }
  // The paper's picture for k = 2, 4 tokens: row i = [2-i clipped ...].
  std::vector<std::int32_t> m(16);
  REQUIRE(shaw_relative_indices(ShawWindow{2, 4, 4, 0}, m.data()).ok());
  CHECK(m == std::vector<std::int32_t>{2, 3, 4, 4, 1, 2, 3, 4, 0, 1, 2, 3, 0, 0, 1, 2});
}

TEST_CASE("shaw gather copies table rows [2k+1, d] into [qLen, kLen, d]", "[shaw]") {
  const int k = 3;
  const std::size_t d = 5, q_len = 4, k_len = 9, offset = 2;
  const auto table = test::random_floats((2 * k + 1) * d, 1);
  std::vector<float> out(q_len * k_len * d);
  REQUIRE(shaw_gather(ShawWindow{k, q_len, k_len, offset}, table.data(), 2 * k + 1, d, out.data()).ok());
  for (std::size_t i = 0; i < q_len; ++i)
    for (std::size_t j = 0; j < k_len; ++j)
      for (std::size_t x = 0; x < d; ++x)
        REQUIRE(out[(i * k_len + j) * d + x] == table[shaw_index(i, j, offset, k) * d + x]);
}

TEST_CASE("shaw logits and attention equal the naive float64 formulas", "[shaw]") {
  const std::vector<Case> cases = {
      {1, 1, 6, 6, 8, 8, 0, 2, false},  {4, 4, 5, 9, 16, 16, 4, 3, true}, {4, 2, 3, 12, 8, 5, 9, 4, true},
      {2, 2, 7, 3, 4, 6, 0, 1, false},  {3, 1, 1, 40, 32, 32, 39, 16, true},
  };
  for (const Case& c : cases) {
    INFO("heads " << c.heads << " qLen " << c.q_len << " kLen " << c.k_len << " k " << c.k << " causal " << c.causal);
    const std::size_t rows = 2 * static_cast<std::size_t>(c.k) + 1;
    const auto q = test::random_floats(c.heads * c.q_len * c.d, 11);
    const auto kk = test::random_floats(c.kv_heads * c.k_len * c.d, 12);
    const auto v = test::random_floats(c.kv_heads * c.k_len * c.dv, 13);
    const auto ak = test::random_floats(rows * c.d, 14);
    const auto av = test::random_floats(rows * c.dv, 15);
    ShawAttentionOptions o;
    o.max_relative_position = c.k;
    o.query_offset = c.offset;
    o.causal = c.causal;
    const double scale = 1.0 / std::sqrt(static_cast<double>(c.d));
    std::vector<float> logits(c.heads * c.q_len * c.k_len), z(c.heads * c.q_len * c.dv), z_plain(z.size());
    REQUIRE(shaw_logits(shape_of(c), q.data(), kk.data(), ShawTables{ak.data(), nullptr, rows}, o, logits.data()).ok());
    REQUIRE(shaw_attention(shape_of(c), q.data(), kk.data(), v.data(), ShawTables{ak.data(), av.data(), rows}, o,
                           z.data())
                .ok());
    REQUIRE(shaw_attention(shape_of(c), q.data(), kk.data(), v.data(), ShawTables{ak.data(), nullptr, rows}, o,
                           z_plain.data())
                .ok());
    for (std::size_t h = 0; h < c.heads; ++h) {
      const Mat e = naive_logits(c, q, kk, ak, h, scale);
      CHECK(test::head_error(logits, h, e) <= 2e-6);
      const Mat p = test::softmax_rows(e);
      CHECK(test::head_error(z, h, naive_output(c, p, v, &av, h)) <= 2e-6);
      CHECK(test::head_error(z_plain, h, naive_output(c, p, v, nullptr, h)) <= 2e-6);
    }
  }
}

TEST_CASE("shaw logits with an explicit scale", "[shaw]") {
  const Case c{1, 1, 3, 4, 4, 4, 0, 1, false};
  const auto q = test::random_floats(12, 1), k = test::random_floats(16, 2), ak = test::random_floats(12, 3);
  ShawAttentionOptions o;
  o.max_relative_position = 1;
  o.scale = 0.25;
  std::vector<float> out(12);
  REQUIRE(shaw_logits(shape_of(c), q.data(), k.data(), ShawTables{ak.data(), nullptr, 3}, o, out.data()).ok());
  CHECK(test::head_error(out, 0, naive_logits(c, q, k, ak, 0, 0.25)) <= 1e-6);
}

TEST_CASE("shaw rejects bad arguments", "[shaw][errors]") {
  std::vector<std::int32_t> idx(16);
  const Status k0 = shaw_relative_indices(ShawWindow{0, 4, 4, 0}, idx.data());
  CHECK(k0.code() == StatusCode::invalid_argument);
  CHECK_THAT(k0.message(), Catch::Contains("maxRelativePosition must be an integer >= 1"));
  CHECK_THAT(shaw_relative_indices(ShawWindow{2, 0, 4, 0}, idx.data()).message(), Catch::Contains("qLen"));
  CHECK_THAT(shaw_relative_indices(ShawWindow{2, 4, 0, 0}, idx.data()).message(), Catch::Contains("kLen"));
  const auto table = test::random_floats(6 * 4, 1);
  std::vector<float> out(4 * 4 * 4);
  const Status rows = shaw_gather(ShawWindow{2, 2, 2, 0}, table.data(), 6, 4, out.data());
  CHECK(rows.code() == StatusCode::shape_mismatch);
  CHECK_THAT(rows.message(), Catch::Contains("table must have 2 * maxRelativePosition + 1 = 5 rows, got 6"));
  CHECK_THAT(shaw_gather(ShawWindow{2, 2, 2, 0}, table.data(), 5, 0, out.data()).message(), Catch::Contains("width"));

  const AttentionShape s{1, 1, 2, 2, 4, 4};
  auto q = test::random_floats(8, 1), k = test::random_floats(8, 2), v = test::random_floats(8, 3);
  auto ak = test::random_floats(12, 4);
  ShawAttentionOptions o;
  o.max_relative_position = 1;
  CHECK(shaw_logits(s, q.data(), k.data(), ShawTables{ak.data(), nullptr, 3}, o, out.data()).ok());
  CHECK(shaw_logits(s, q.data(), k.data(), ShawTables{ak.data(), nullptr, 5}, o, out.data()).code() ==
        StatusCode::shape_mismatch);
  CHECK_THAT(shaw_logits(s, q.data(), k.data(), ShawTables{nullptr, nullptr, 3}, o, out.data()).message(),
             Catch::Contains("relativeKeys must be given"));
  o.scale = std::nan("");
  CHECK_THAT(shaw_logits(s, q.data(), k.data(), ShawTables{ak.data(), nullptr, 3}, o, out.data()).message(),
             Catch::Contains("scale must be a finite number"));
  o.scale.reset();
  q[3] = std::nanf("");
  CHECK_THAT(shaw_logits(s, q.data(), k.data(), ShawTables{ak.data(), nullptr, 3}, o, out.data()).message(),
             Catch::Contains("q[3] must be a finite number, got NaN"));
  q[3] = 0;
  ak[5] = INFINITY;
  CHECK_THAT(shaw_logits(s, q.data(), k.data(), ShawTables{ak.data(), nullptr, 3}, o, out.data()).message(),
             Catch::Contains("relativeKeys[5] must be a finite number"));
  ak[5] = 0;
  auto av = test::random_floats(12, 5);
  av[0] = std::nanf("");
  CHECK_THAT(shaw_attention(s, q.data(), k.data(), v.data(), ShawTables{ak.data(), av.data(), 3}, o, out.data()).message(),
             Catch::Contains("relativeValues[0]"));
  CHECK_THAT(shaw_attention(s, q.data(), k.data(), nullptr, ShawTables{ak.data(), nullptr, 3}, o, out.data()).message(),
             Catch::Contains("v must be given"));
  const AttentionShape bad_heads{3, 2, 2, 2, 4, 4};
  CHECK(shaw_logits(bad_heads, q.data(), k.data(), ShawTables{ak.data(), nullptr, 3}, o, out.data()).code() ==
        StatusCode::shape_mismatch);
}
