// Transformer-XL: R against the sinusoid formula (descending distances, clampLen), the relative
// shift against a literal emulation of Hugging Face's pad/view/slice, and the four-term score
// against eq. (3) evaluated per (i, j) in float64.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "posenc/transformer_xl.hpp"
#include "test_util.hpp"

using namespace posenc;

namespace {

/// Hugging Face _rel_shift on one [q, k] matrix: torch.cat([zeros(q, 1), x], 1) viewed as [k + 1, q],
/// first row dropped, viewed as [q, k]; done on a flat copy like the tensors' storage.
std::vector<float> hf_rel_shift(const std::vector<float>& x, std::size_t q, std::size_t k) {
  std::vector<float> padded;
  for (std::size_t i = 0; i < q; ++i) {
    padded.push_back(0.0f);
    for (std::size_t j = 0; j < k; ++j) padded.push_back(x[i * k + j]);
  }
  return std::vector<float>(padded.begin() + static_cast<long>(q), padded.end());  // drop the first "row" of q
}

}  // namespace

TEST_CASE("transformer-xl R: half-layout sinusoid of distances kLen-1 .. 0, clamped", "[transformer_xl]") {
  for (int d : {2, 8, 64}) {
    for (int clamp : {0, 3, 100}) {
      const std::size_t k_len = 12;
      std::vector<float> r(k_len * static_cast<std::size_t>(d));
      REQUIRE(txl_relative_sinusoid(TxlSinusoidParams{k_len, d, clamp, 10000.0}, r.data()).ok());
      for (std::size_t row = 0; row < k_len; ++row) {
        double t = static_cast<double>(k_len - 1 - row);
        if (clamp > 0) t = std::min<double>(t, clamp);
        for (int i = 0; i < d / 2; ++i) {
          const double w = 1.0 / std::pow(10000.0, 2.0 * i / d);
          REQUIRE(std::fabs(r[row * d + i] - std::sin(t * w)) <= 1.2e-7);
          REQUIRE(std::fabs(r[row * d + d / 2 + i] - std::cos(t * w)) <= 1.2e-7);
        }
      }
    }
  }
  // The last row is distance 0: [0 ... 0, 1 ... 1].
  std::vector<float> r(3 * 4);
  REQUIRE(txl_relative_sinusoid(TxlSinusoidParams{3, 4, 0, 10000.0}, r.data()).ok());
  CHECK(std::vector<float>(r.begin() + 8, r.end()) == std::vector<float>{0, 0, 1, 1});
}

TEST_CASE("transformer-xl rel shift equals Hugging Face's view arithmetic, garbage included", "[transformer_xl]") {
  for (auto [q, k] : std::vector<std::pair<std::size_t, std::size_t>>{{1, 1}, {4, 4}, {3, 7}, {5, 9}, {6, 2}, {1, 8}}) {
    const std::size_t heads = 2;
    const auto bd = test::random_floats(heads * q * k, 3);
    std::vector<float> out(bd.size()), masked(bd.size());
    REQUIRE(txl_rel_shift(heads, q, k, bd.data(), false, out.data()).ok());
    REQUIRE(txl_rel_shift(heads, q, k, bd.data(), true, masked.data()).ok());
    for (std::size_t h = 0; h < heads; ++h) {
      const std::vector<float> one(bd.begin() + static_cast<long>(h * q * k), bd.begin() + static_cast<long>((h + 1) * q * k));
      const auto want = hf_rel_shift(one, q, k);
      for (std::size_t i = 0; i < q; ++i)
        for (std::size_t j = 0; j < k; ++j) {
          INFO("q " << q << " k " << k << " i " << i << " j " << j);
          REQUIRE(out[h * q * k + i * k + j] == want[i * k + j]);
          const bool future = j + q > k + i;  // j > memLen + i
          if (future) {
            REQUIRE(masked[h * q * k + i * k + j] == -std::numeric_limits<float>::infinity());
          } else {
            // The documented realignment: BD[i, j + qLen - 1 - i].
            REQUIRE(out[h * q * k + i * k + j] == one[i * k + (j + q - 1 - i)]);
            REQUIRE(masked[h * q * k + i * k + j] == out[h * q * k + i * k + j]);
          }
        }
    }
  }
}

TEST_CASE("transformer-xl score equals (q+u).k_j + (q+v).r[distance] for visible keys", "[transformer_xl]") {
  const std::size_t heads = 3, q_len = 4, mem = 5, k_len = mem + q_len, d = 8;
  const auto q = test::random_floats(heads * q_len * d, 1);
  const auto k = test::random_floats(heads * k_len * d, 2);
  const auto r = test::random_floats(heads * k_len * d, 3);
  const auto u = test::random_floats(heads * d, 4);
  const auto v = test::random_floats(heads * d, 5);
  std::vector<float> out(heads * q_len * k_len), masked(out.size());
  const AttentionShape s{heads, heads, q_len, k_len, d, 0};
  REQUIRE(txl_score(s, TxlScoreInputs{q.data(), k.data(), r.data(), u.data(), v.data()}, false, out.data()).ok());
  REQUIRE(txl_score(s, TxlScoreInputs{q.data(), k.data(), r.data(), u.data(), v.data()}, true, masked.data()).ok());
  for (std::size_t h = 0; h < heads; ++h)
    for (std::size_t i = 0; i < q_len; ++i)
      for (std::size_t j = 0; j < k_len; ++j) {
        const float got = masked[(h * q_len + i) * k_len + j];
        if (j > mem + i) {
          REQUIRE(got == -std::numeric_limits<float>::infinity());
          continue;
        }
        // R row m holds distance kLen - 1 - m; query i (absolute mem + i) meets key j at distance mem + i - j.
        const std::size_t m = k_len - 1 - (mem + i - j);
        double ac = 0, bd = 0;
        for (std::size_t x = 0; x < d; ++x) {
          const double qx = q[(h * q_len + i) * d + x];
          ac += (qx + u[h * d + x]) * k[(h * k_len + j) * d + x];
          bd += (qx + v[h * d + x]) * r[(h * k_len + m) * d + x];
        }
        REQUIRE(std::fabs(got - (ac + bd)) <= 2e-6);
        REQUIRE(out[(h * q_len + i) * k_len + j] == got);
      }
}

TEST_CASE("transformer-xl rejects bad arguments", "[transformer_xl][errors]") {
  std::vector<float> out(64);
  CHECK_THAT(txl_relative_sinusoid(TxlSinusoidParams{4, 7, 0, 10000.0}, out.data()).message(),
             Catch::Contains("dModel must be an even integer >= 2, got 7"));
  CHECK_THAT(txl_relative_sinusoid(TxlSinusoidParams{4, 0, 0, 10000.0}, out.data()).message(),
             Catch::Contains("dModel"));
  CHECK_THAT(txl_relative_sinusoid(TxlSinusoidParams{4, 4, -1, 10000.0}, out.data()).message(),
             Catch::Contains("clampLen must be an integer >= 0"));
  CHECK_THAT(txl_relative_sinusoid(TxlSinusoidParams{4, 4, 0, std::nan("")}, out.data()).message(),
             Catch::Contains("base must be a finite number > 0"));
  CHECK_THAT(txl_relative_sinusoid(TxlSinusoidParams{0, 4, 0, 10000.0}, out.data()).message(), Catch::Contains("kLen"));
  const auto bd = test::random_floats(16, 1);
  CHECK_THAT(txl_rel_shift(0, 2, 2, bd.data(), false, out.data()).message(), Catch::Contains("heads"));
  CHECK_THAT(txl_rel_shift(1, 0, 2, bd.data(), false, out.data()).message(), Catch::Contains("qLen"));
  CHECK_THAT(txl_rel_shift(1, 2, 2, out.data(), false, out.data()).message(), Catch::Contains("different arrays"));
  const auto x = test::random_floats(64, 2);
  auto u = test::random_floats(4, 3);
  const AttentionShape s{1, 1, 2, 3, 4, 0};
  const TxlScoreInputs in{x.data(), x.data(), x.data(), u.data(), u.data()};
  CHECK(txl_score(s, in, false, out.data()).ok());
  CHECK(txl_score(AttentionShape{1, 1, 3, 2, 4, 0}, in, false, out.data()).code() == StatusCode::shape_mismatch);
  CHECK(txl_score(AttentionShape{2, 1, 2, 3, 2, 0}, in, false, out.data()).code() == StatusCode::shape_mismatch);
  u[1] = std::nanf("");
  CHECK_THAT(txl_score(s, in, false, out.data()).message(), Catch::Contains("u[1] must be a finite number"));
}
