// T5 relative position buckets and bias against the formula of docs/encodings.md section 5, written
// here independently, and the exact boundary cases at distances 16, 32 and 64.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "posenc/t5.hpp"
#include "test_util.hpp"

using namespace posenc;

namespace {

/// docs/encodings.md#5-t5-relative-position-buckets, line by line, in float64.
int t5_formula(long long rel, bool bidirectional, int num_buckets, int max_distance) {
  int nb = num_buckets;
  int out = 0;
  long long n;
  if (bidirectional) {
    nb = nb / 2;
    out += rel > 0 ? nb : 0;
    n = std::llabs(rel);
  } else {
    n = std::max(-rel, 0LL);
  }
  const int max_exact = nb / 2;
  if (n < max_exact) return out + static_cast<int>(n);
  const double large = max_exact + std::trunc(std::log(static_cast<double>(n) / max_exact) /
                                              std::log(static_cast<double>(max_distance) / max_exact) *
                                              (nb - max_exact));
  return out + static_cast<int>(std::min<double>(nb - 1, large));
}

int bucket(double rel, bool bidirectional = true, int nb = 32, int md = 128) {
  int b = -1;
  REQUIRE(t5_bucket(T5BucketParams{nb, md, bidirectional}, rel, &b).ok());
  return b;
}

// docs/encodings.md#5-t5-relative-position-buckets lists the first six; 10/20 and 7/20 give odd bucket counts per direction.
const std::vector<std::pair<int, int>> kConfigs = {{32, 128}, {16, 64}, {64, 128}, {64, 256}, {128, 128}, {320, 800}, {10, 20}, {7, 20}};

}  // namespace

TEST_CASE("t5 buckets: exact log boundaries at distance 16, 32, 64 (bidirectional 32/128)", "[t5]") {
  // maxExact 8, 16 buckets per direction: ln(n/8)/ln(16)*8 is exactly 2, 4, 6 at n = 16, 32, 64.
  CHECK(bucket(-15) == 9);
  CHECK(bucket(-16) == 10);
  CHECK(bucket(-31) == 11);
  CHECK(bucket(-32) == 12);
  CHECK(bucket(-63) == 13);
  CHECK(bucket(-64) == 14);
  CHECK(bucket(-127) == 15);
  CHECK(bucket(-128) == 15);
  CHECK(bucket(-100000) == 15);
  // Keys after the query use the upper half.
  CHECK(bucket(16) == 26);
  CHECK(bucket(32) == 28);
  CHECK(bucket(64) == 30);
  CHECK(bucket(1) == 17);
  CHECK(bucket(0) == 0);
  CHECK(bucket(-1) == 1);
  CHECK(bucket(-7) == 7);
  CHECK(bucket(-8) == 8);
}

TEST_CASE("t5 buckets: causal 32/128 shares bucket 0 between distance 0 and all future keys", "[t5]") {
  for (double rel : {0.0, 1.0, 5.0, 1e6}) CHECK(bucket(rel, false) == 0);
  CHECK(bucket(-15, false) == 15);
  CHECK(bucket(-16, false) == 16);
  CHECK(bucket(-32, false) == 21);
  CHECK(bucket(-128, false) == 31);
  CHECK(bucket(-5000, false) == 31);
}

TEST_CASE("t5 buckets equal the float64 formula for every tested configuration, |rel| <= 5000", "[t5]") {
  for (auto [nb, md] : kConfigs) {
    for (bool bidirectional : {true, false}) {
      for (long long rel = -5000; rel <= 5000; ++rel) {
        INFO("numBuckets " << nb << " maxDistance " << md << " bidirectional " << bidirectional << " rel " << rel);
        REQUIRE(bucket(static_cast<double>(rel), bidirectional, nb, md) == t5_formula(rel, bidirectional, nb, md));
      }
    }
  }
}

TEST_CASE("t5 bucket matrix: key minus query with a query offset, lengths beyond maxDistance", "[t5]") {
  for (auto [nb, md] : kConfigs) {
    for (bool bidirectional : {true, false}) {
      for (std::size_t offset : {std::size_t{0}, std::size_t{3}, std::size_t{300}}) {
        const std::size_t q_len = 7, k_len = 310;
        std::vector<std::int32_t> out(q_len * k_len, -1);
        REQUIRE(t5_bucket_matrix(T5BucketParams{nb, md, bidirectional}, q_len, k_len, offset, out.data()).ok());
        for (std::size_t i = 0; i < q_len; ++i) {
          for (std::size_t j = 0; j < k_len; ++j) {
            const long long rel = static_cast<long long>(j) - static_cast<long long>(offset + i);
            REQUIRE(out[i * k_len + j] == t5_formula(rel, bidirectional, nb, md));
          }
        }
      }
    }
  }
}

TEST_CASE("t5 bucket matrix: every distance of long, tall, offset and huge-offset shapes matches the formula", "[t5]") {
  // The matrix is filled from runs of equal buckets whose ends are found by inverting the log
  // formula; these shapes put run ends, maxDistance and the exact range at every kind of place.
  struct Shape {
    std::size_t q_len, k_len, offset;
  };
  const std::vector<Shape> shapes = {{1, 3000, 0},   {3000, 1, 0},  {2, 1500, 700}, {40, 300, 100},
                                     {64, 64, 2147483000}, {1, 1, 2147483647}, {129, 129, 0}};
  for (auto [nb, md] : kConfigs) {
    for (bool bidirectional : {true, false}) {
      for (const Shape& s : shapes) {
        INFO("numBuckets " << nb << " maxDistance " << md << " bidirectional " << bidirectional << " shape " << s.q_len
                           << " x " << s.k_len << " offset " << s.offset);
        std::vector<std::int32_t> out(s.q_len * s.k_len, -1);
        REQUIRE(t5_bucket_matrix(T5BucketParams{nb, md, bidirectional}, s.q_len, s.k_len, s.offset, out.data()).ok());
        for (std::size_t i = 0; i < s.q_len; ++i) {
          for (std::size_t j = 0; j < s.k_len; ++j) {
            const long long rel = static_cast<long long>(j) - static_cast<long long>(s.offset + i);
            REQUIRE(out[i * s.k_len + j] == t5_formula(rel, bidirectional, nb, md));
          }
        }
      }
    }
  }
}

TEST_CASE("t5 bias gathers table[bucket, head] into [heads, qLen, kLen]", "[t5]") {
  const int nb = 32, md = 128;
  const std::size_t heads = 12, q_len = 9, k_len = 200, offset = 150;
  const auto table = test::random_floats(nb * heads, 5);
  for (bool bidirectional : {true, false}) {
    std::vector<float> out(heads * q_len * k_len);
    REQUIRE(t5_bias(T5BucketParams{nb, md, bidirectional}, T5BiasTable{table.data(), nb, heads}, q_len, k_len, offset,
                    out.data())
                .ok());
    for (std::size_t h = 0; h < heads; ++h)
      for (std::size_t i = 0; i < q_len; ++i)
        for (std::size_t j = 0; j < k_len; ++j) {
          const long long rel = static_cast<long long>(j) - static_cast<long long>(offset + i);
          const int b = t5_formula(rel, bidirectional, nb, md);
          REQUIRE(out[(h * q_len + i) * k_len + j] == table[static_cast<std::size_t>(b) * heads + h]);
        }
  }
}

TEST_CASE("t5 bias diagonals: row i of each head is diag[qLen - 1 - i ..]", "[t5]") {
  const std::size_t heads = 3, q_len = 5, k_len = 9, offset = 2, diag_len = q_len + k_len - 1;
  const auto table = test::random_floats(32 * heads, 8);
  std::vector<float> diag(heads * diag_len), full(heads * q_len * k_len);
  const T5BiasTable t{table.data(), 32, heads};
  REQUIRE(t5_bias_diagonals(T5BucketParams{}, t, q_len, k_len, offset, diag.data()).ok());
  REQUIRE(t5_bias(T5BucketParams{}, t, q_len, k_len, offset, full.data()).ok());
  for (std::size_t h = 0; h < heads; ++h)
    for (std::size_t i = 0; i < q_len; ++i)
      for (std::size_t j = 0; j < k_len; ++j) {
        REQUIRE(full[(h * q_len + i) * k_len + j] == diag[h * diag_len + (q_len - 1 - i) + j]);
        const long long rel = static_cast<long long>(j) - static_cast<long long>(offset + i);
        REQUIRE(diag[h * diag_len + (q_len - 1 - i) + j] == table[static_cast<std::size_t>(t5_formula(rel, true, 32, 128)) * heads + h]);
      }
}

TEST_CASE("t5 bias with one query row and one key (decoding steps)", "[t5]") {
  const std::vector<float> table = test::random_floats(32 * 2, 9);
  std::vector<float> out(2);
  REQUIRE(t5_bias(T5BucketParams{}, T5BiasTable{table.data(), 32, 2}, 1, 1, 0, out.data()).ok());
  CHECK(out[0] == table[0 * 2 + 0]);
  CHECK(out[1] == table[0 * 2 + 1]);
}

TEST_CASE("t5 rejects inconsistent bucket parameters and bad arguments", "[t5][errors]") {
  int b = 0;
  auto message = [](const Status& s) { return s.message(); };
  const Status few = t5_bucket(T5BucketParams{3, 128, true}, 0, &b);
  CHECK(few.code() == StatusCode::invalid_argument);
  CHECK_THAT(message(few), Catch::Contains("numBuckets must be an integer >= 4 when bidirectional"));
  CHECK(t5_bucket(T5BucketParams{1, 128, false}, 0, &b).code() == StatusCode::invalid_argument);
  CHECK(t5_bucket(T5BucketParams{2, 128, false}, -5, &b).ok());
  CHECK(b == 1);
  // maxDistance below numBuckets/2, or not above the exact range (the log's denominator would be <= 0).
  const Status small = t5_bucket(T5BucketParams{32, 15, true}, 0, &b);
  CHECK(small.code() == StatusCode::invalid_argument);
  CHECK_THAT(message(small), Catch::Contains("maxDistance must be an integer >= numBuckets/2 (16)"));
  CHECK(t5_bucket(T5BucketParams{32, 16, false}, 0, &b).code() == StatusCode::invalid_argument);
  CHECK(t5_bucket(T5BucketParams{32, 17, false}, 0, &b).ok());
  CHECK(t5_bucket(T5BucketParams{32, 16, true}, 0, &b).ok());
  CHECK(t5_bucket(T5BucketParams{32, 0, true}, 0, &b).code() == StatusCode::invalid_argument);
  // The relative position must be an integer.
  for (double rel : {0.5, std::nan(""), HUGE_VAL, 1e300}) {
    const Status s = t5_bucket(T5BucketParams{}, rel, &b);
    CHECK(s.code() == StatusCode::invalid_argument);
    CHECK_THAT(message(s), Catch::Contains("relativePosition"));
  }
  std::vector<std::int32_t> idx(4);
  CHECK_THAT(message(t5_bucket_matrix(T5BucketParams{}, 0, 2, 0, idx.data())), Catch::Contains("qLen"));
  CHECK_THAT(message(t5_bucket_matrix(T5BucketParams{}, 2, 0, 0, idx.data())), Catch::Contains("kLen"));
  CHECK(t5_bucket_matrix(T5BucketParams{}, 2, 2, std::size_t{2147483648u}, idx.data()).code() == StatusCode::size_overflow);  // queryOffset > 2^31 - 1 (size_t is 32-bit in wasm)
  const std::vector<float> table(31 * 2);
  std::vector<float> out(8);
  const Status rows = t5_bias(T5BucketParams{}, T5BiasTable{table.data(), 31, 2}, 2, 2, 0, out.data());
  CHECK(rows.code() == StatusCode::shape_mismatch);
  CHECK_THAT(message(rows), Catch::Contains("numBuckets (32) rows"));
  CHECK_THAT(message(t5_bias(T5BucketParams{}, T5BiasTable{table.data(), 32, 0}, 2, 2, 0, out.data())),
             Catch::Contains("heads"));
}
