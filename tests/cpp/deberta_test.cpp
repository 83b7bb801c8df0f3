// DeBERTa-v2/v3 log buckets and c2p/p2c indices against docs/encodings.md section 6 (formula written
// here independently) and its worked values.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "posenc/deberta.hpp"

using namespace posenc;

namespace {

/// make_log_bucket_position in float64, as docs/encodings.md#6-deberta-v2v3-log-buckets states it.
long long deberta_formula(long long rel, int bucket_size, int max_position) {
  const long long mid = bucket_size / 2;
  const double sign = rel > 0 ? 1.0 : (rel < 0 ? -1.0 : 0.0);
  const double abs_pos = (rel < mid && rel > -mid) ? static_cast<double>(mid - 1) : std::fabs(static_cast<double>(rel));
  const double log_pos =
      std::ceil(std::log(abs_pos / mid) / std::log(static_cast<double>(max_position - 1) / mid) * (mid - 1)) + mid;
  return abs_pos <= mid ? rel : static_cast<long long>(log_pos * sign);
}

long long bucket(double rel, int bucket_size = 256, int max_position = 512) {
  long long b = 0;
  REQUIRE(deberta_bucket(DebertaBucketParams{bucket_size, max_position}, rel, &b).ok());
  return b;
}

}  // namespace

TEST_CASE("deberta buckets: worked values of docs/encodings.md (256/512), not clamped", "[deberta]") {
  CHECK(bucket(511) == 255);
  CHECK(bucket(512) == 256);
  CHECK(bucket(1000) == 317);
  CHECK(bucket(20000) == 592);
  CHECK(bucket(-511) == -255);
  CHECK(bucket(-20000) == -592);
  // |rel| <= mid = 128 is kept exactly; 129 is the first log bucket.
  CHECK(bucket(0) == 0);
  CHECK(bucket(127) == 127);
  CHECK(bucket(128) == 128);
  CHECK(bucket(-128) == -128);
  CHECK(bucket(129) == 129);
  CHECK(bucket(200) == 169);
}

TEST_CASE("deberta buckets equal the float64 formula for |rel| <= 20000 in every checked configuration", "[deberta]") {
  const std::vector<std::pair<int, int>> configs = {{256, 512}, {128, 512}, {64, 128}, {256, 1024}, {32, 64}, {2, 3}, {5, 9}};
  for (auto [bs, mp] : configs) {
    for (long long rel = -20000; rel <= 20000; ++rel) {
      INFO("bucketSize " << bs << " maxPosition " << mp << " rel " << rel);
      REQUIRE(bucket(static_cast<double>(rel), bs, mp) == deberta_formula(rel, bs, mp));
    }
  }
}

TEST_CASE("deberta relative positions are query minus key; c2p/p2c clamp into [0, 2 attSpan)", "[deberta]") {
  for (auto [bs, mp] : std::vector<std::pair<int, int>>{{256, 512}, {8, 32}, {0, 6}}) {
    const DebertaBucketParams p{bs, mp};
    const long long span = bs > 0 ? bs : mp;
    CHECK(deberta_attention_span(p) == span);
    const std::size_t q_len = 40, k_len = 700;
    std::vector<std::int32_t> rel(q_len * k_len), c2p(q_len * k_len), p2c(q_len * k_len);
    REQUIRE(deberta_relative_positions(p, q_len, k_len, rel.data()).ok());
    REQUIRE(deberta_c2p_indices(p, q_len, k_len, c2p.data()).ok());
    REQUIRE(deberta_p2c_indices(p, q_len, k_len, p2c.data()).ok());
    for (std::size_t i = 0; i < q_len; ++i) {
      for (std::size_t j = 0; j < k_len; ++j) {
        const long long r = static_cast<long long>(i) - static_cast<long long>(j);
        const long long b = bs > 0 ? deberta_formula(r, bs, mp) : r;
        INFO("bucketSize " << bs << " i " << i << " j " << j);
        REQUIRE(rel[i * k_len + j] == b);
        REQUIRE(c2p[i * k_len + j] == std::clamp(b + span, 0LL, 2 * span - 1));
        REQUIRE(p2c[i * k_len + j] == std::clamp(-b + span, 0LL, 2 * span - 1));
      }
    }
  }
}

TEST_CASE("deberta rejects inconsistent bucket parameters and bad positions", "[deberta][errors]") {
  long long b = 0;
  auto check = [&](DebertaBucketParams p, const char* needle) {
    const Status s = deberta_bucket(p, 0, &b);
    INFO(s.message());
    CHECK(s.code() == StatusCode::invalid_argument);
    CHECK_THAT(s.message(), Catch::Contains(needle));
  };
  check({600, 512}, "bucketSize (600) must be <= maxPosition (512)");
  check({1, 512}, "bucketSize must be an integer >= 2");
  check({-1, 512}, "bucketSize must be an integer >= 2 (or 0 for no bucketing)");
  check({256, 0}, "maxPosition must be an integer >= 1");
  check({2, 2}, "maxPosition (2) must be > bucketSize/2 + 1 (2)");
  check({4, 3}, "bucketSize (4) must be <= maxPosition (3)");
  CHECK(deberta_bucket({0, 1}, -7, &b).ok());
  CHECK(b == -7);
  for (double rel : {1.5, std::nan(""), -HUGE_VAL}) {
    CHECK_THAT(deberta_bucket({}, rel, &b).message(), Catch::Contains("relativePosition must be an integer"));
  }
  std::vector<std::int32_t> out(4);
  CHECK_THAT(deberta_c2p_indices({}, 0, 2, out.data()).message(), Catch::Contains("qLen"));
  CHECK_THAT(deberta_p2c_indices({}, 2, 0, out.data()).message(), Catch::Contains("kLen"));
  CHECK(deberta_relative_positions({600, 512}, 2, 2, out.data()).code() == StatusCode::invalid_argument);
}
