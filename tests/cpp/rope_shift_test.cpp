// KV-cache context shift (src/encodings/rope_shift.cpp): shift(rope(k, p), d) against rope(k, p + d)
// and the float64 formula, per-token and per-batch-row moves, partial rotary, both pairings and
// layouts, 1000 successive shifts, the exact-rotation kernel against its definition, and the
// scalings that are refused.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <vector>

#include "kernels/kernels.hpp"
#include "posenc/rope.hpp"
#include "posenc/rope_shift.hpp"
#include "rope_test_util.hpp"
#include "test_util.hpp"

using posenc::HeadLayout;
using posenc::Pairing;
using posenc::Positions;
using posenc::RopeConfig;
using posenc::RopeScaling;
using posenc::RopeScalingType;
using posenc::RopeTensors;
using posenc::StatusCode;

namespace {

RopeTensors keys_of(std::vector<float>& k, std::size_t batch, std::size_t seq, std::size_t heads, std::size_t head_dim,
                    HeadLayout layout) {
  RopeTensors t;
  t.q = k.data();
  t.q_heads = heads;
  t.batch = batch;
  t.seq = seq;
  t.head_dim = head_dim;
  t.layout = layout;
  return t;
}

/// Element (b, s, h, j) of a tensor in `layout`.
std::size_t at(HeadLayout layout, std::size_t b, std::size_t s, std::size_t h, std::size_t j, std::size_t seq,
               std::size_t heads, std::size_t d) {
  return layout == HeadLayout::bshd ? ((b * seq + s) * heads + h) * d + j : ((b * heads + h) * seq + s) * d + j;
}

}  // namespace

TEST_CASE("rope_shift(rope(k, p), to) equals rope(k, to): pairings, layouts, partial rotary, per-token moves",
          "[rope][shift]") {
  const std::size_t batch = 2, seq = 70, heads = 3, d = 80;  // 70 tokens: two driver chunks
  for (Pairing pairing : {Pairing::half, Pairing::interleaved}) {
    for (HeadLayout layout : {HeadLayout::bshd, HeadLayout::bhsd}) {
      for (int rotary : {80, 64}) {
        CAPTURE(static_cast<int>(pairing), static_cast<int>(layout), rotary);
        const RopeConfig config = posenc::test::config_of(rotary, 500000.0);
        std::vector<float> k = posenc::test::random_floats(batch * seq * heads * d, 11);
        const std::vector<float> x = k;
        // Old positions per batch row (a left-padded batch); new ones: a span of 7 tokens removed
        // from row 0 (tokens after it move back by 7), row 1 moved forward by 1000.
        std::vector<double> from(batch * seq), to(batch * seq);
        for (std::size_t s = 0; s < seq; ++s) {
          from[s] = 3000.0 + static_cast<double>(s);
          to[s] = s < 20 ? from[s] : from[s] - 7.0;
          from[seq + s] = 5.0 + static_cast<double>(s);
          to[seq + s] = from[seq + s] + 1000.0;
        }
        const RopeTensors t = keys_of(k, batch, seq, heads, d, layout);
        REQUIRE(posenc::rope_apply(config, pairing, Positions::list(from.data(), true), t).ok());
        REQUIRE(posenc::rope_shift(config, pairing, Positions::list(from.data(), true), Positions::list(to.data(), true), t)
                    .ok());
        double worst = 0;
        for (std::size_t b = 0; b < batch; ++b) {
          for (std::size_t s = 0; s < seq; ++s) {
            for (std::size_t h = 0; h < heads; ++h) {
              std::vector<float> row(d);
              for (std::size_t j = 0; j < d; ++j) row[j] = x[at(layout, b, s, h, j, seq, heads, d)];
              const auto want = posenc::test::rope_row_f64(row.data(), d, static_cast<std::size_t>(rotary),
                                                           pairing == Pairing::interleaved, to[b * seq + s], 500000.0);
              for (std::size_t j = 0; j < d; ++j) {
                worst = std::fmax(worst, std::fabs(k[at(layout, b, s, h, j, seq, heads, d)] - want[j]));
              }
            }
          }
        }
        CHECK(worst < 1e-6);
      }
    }
  }
}

TEST_CASE("rope_shift by an offset range moves every token by the same amount", "[rope][shift]") {
  const std::size_t seq = 5, heads = 2, d = 64;
  const RopeConfig config = posenc::test::config_of(64);
  std::vector<float> k = posenc::test::random_floats(seq * heads * d, 12);
  std::vector<float> direct = k;
  const RopeTensors t = keys_of(k, 1, seq, heads, d, HeadLayout::bshd);
  REQUIRE(posenc::rope_apply(config, Pairing::half, Positions::range(100.0), t).ok());
  REQUIRE(posenc::rope_shift(config, Pairing::half, Positions::range(100.0), Positions::range(40.0), t).ok());
  REQUIRE(posenc::rope_apply(config, Pairing::half, Positions::range(40.0), keys_of(direct, 1, seq, heads, d, HeadLayout::bshd))
              .ok());
  CHECK(posenc::test::max_abs_diff(k.data(), direct.data(), k.size()) < 4e-7);
}

TEST_CASE("rope_shift with one position set shared and the other per batch row gives each row its own move",
          "[rope][shift]") {
  // Keys rotated at shared positions moved to per-row positions, and back: the driver must treat
  // every batch row as its own group when either set differs per row.
  const std::size_t batch = 3, seq = 6, heads = 2, d = 32;
  const RopeConfig config = posenc::test::config_of(d);
  std::vector<double> per_row(batch * seq);
  for (std::size_t i = 0; i < per_row.size(); ++i) per_row[i] = 50.0 * static_cast<double>(i / seq) + static_cast<double>(i % seq);
  std::vector<float> k = posenc::test::random_floats(batch * seq * heads * d, 14);
  const std::vector<float> x = k;
  const RopeTensors t = keys_of(k, batch, seq, heads, d, HeadLayout::bshd);
  const Positions shared = Positions::range(10.0), rows = Positions::list(per_row.data(), true);
  for (const auto& [from, to] : {std::pair<Positions, Positions>{shared, rows}, {rows, shared}}) {
    REQUIRE(posenc::rope_shift(config, Pairing::half, from, to, t).ok());
  }
  // Shifted there and back; then once more to the per-row positions, checked against the formula.
  REQUIRE(posenc::rope_apply(config, Pairing::half, shared, t).ok());
  REQUIRE(posenc::rope_shift(config, Pairing::half, shared, rows, t).ok());
  double worst = 0;
  for (std::size_t b = 0; b < batch; ++b) {
    for (std::size_t s = 0; s < seq; ++s) {
      for (std::size_t h = 0; h < heads; ++h) {
        const std::size_t row = ((b * seq + s) * heads + h) * d;
        const auto want = posenc::test::rope_row_f64(x.data() + row, d, d, false, per_row[b * seq + s], 10000.0);
        for (std::size_t j = 0; j < d; ++j) worst = std::fmax(worst, std::fabs(k[row + j] - want[j]));
      }
    }
  }
  CHECK(worst < 1e-6);
}

TEST_CASE("1000 successive shifts stay within the roundings they add", "[rope][shift][precision]") {
  // Each shift rounds each value once, by at most half an ulp: 2^-24 for these keys (values below 2,
  // pairs of norm below sqrt 2). Rotations keep the norm of earlier errors, so n shifts stay within
  // n * sqrt(2) * 2^-24 (8.4e-5 for n = 1000). Values that keep rotating round in no fixed
  // direction, so the error actually grows like sqrt(n): 1e-5 is checked. Float cos/sin rows round
  // the same way at every shift by the same amount (here -7 and +5 alternately), so their error
  // grows like n and exceeds this bound.
  const std::size_t seq = 16, d = 128;
  const RopeConfig config = posenc::test::config_of(128, 10000.0);
  for (Pairing pairing : {Pairing::half, Pairing::interleaved}) {
    std::vector<float> k = posenc::test::random_floats(seq * d, 13);
    const std::vector<float> x = k;
    const RopeTensors t = keys_of(k, 1, seq, 1, d, HeadLayout::bshd);
    double offset = 4096.0;
    REQUIRE(posenc::rope_apply(config, pairing, Positions::range(offset), t).ok());
    for (int n = 0; n < 1000; ++n) {
      const double to = offset + (n % 2 == 0 ? -7.0 : 5.0);  // a shift back and forward, net -1 every two
      REQUIRE(posenc::rope_shift(config, pairing, Positions::range(offset), Positions::range(to), t).ok());
      offset = to;
    }
    double worst = 0;
    for (std::size_t s = 0; s < seq; ++s) {
      const auto want = posenc::test::rope_row_f64(x.data() + s * d, d, d, pairing == Pairing::interleaved,
                                                   offset + static_cast<double>(s), 10000.0);
      for (std::size_t j = 0; j < d; ++j) worst = std::fmax(worst, std::fabs(k[s * d + j] - want[j]));
    }
    CHECK(offset == 3096.0);
    CHECK(worst < 1e-5);
  }
}

TEST_CASE("rotate_tokens_exact rounds the double rotation once, SIMD build and reference alike", "[kernels][shift]") {
  namespace k = posenc::kernels;
  for (std::size_t pairs : {1u, 3u, 8u, 33u}) {
    for (bool half : {true, false}) {
      const std::vector<float> x = posenc::test::random_floats(2 * 2 * pairs + 5, 21);
      std::vector<double> c(2 * pairs), s(2 * pairs);
      for (std::size_t i = 0; i < 2 * pairs; ++i) {
        c[i] = std::cos(0.37 * static_cast<double>(i) + 0.1);
        s[i] = std::sin(0.37 * static_cast<double>(i) + 0.1);
      }
      const double* cos_rows[2] = {c.data(), c.data() + pairs};
      const double* sin_rows[2] = {s.data(), s.data() + pairs};
      std::vector<float> simd = x, ref = x;
      const std::size_t stride = half ? 1 : 2, partner = half ? pairs : 1;
      k::rotate_tokens_exact(simd.data(), 2, 2 * pairs, 1, 0, cos_rows, sin_rows, pairs, stride, partner);
      k::reference::rotate_tokens_exact(ref.data(), 2, 2 * pairs, 1, 0, cos_rows, sin_rows, pairs, stride, partner);
      for (std::size_t t = 0; t < 2; ++t) {
        for (std::size_t i = 0; i < pairs; ++i) {
          const std::size_t ia = t * 2 * pairs + i * stride, ib = ia + partner;
          const double a = x[ia], b = x[ib];
          const float want_a = static_cast<float>(a * cos_rows[t][i] - b * sin_rows[t][i]);
          const float want_b = static_cast<float>(a * sin_rows[t][i] + b * cos_rows[t][i]);
          CHECK(simd[ia] == want_a);
          CHECK(simd[ib] == want_b);
          CHECK(ref[ia] == want_a);
          CHECK(ref[ib] == want_b);
        }
      }
      CHECK(simd[4 * pairs] == x[4 * pairs]);  // past the rows: untouched
    }
  }
}

TEST_CASE("rope_shift of YaRN keys does not apply the attention factor again", "[rope][shift]") {
  const std::size_t d = 64;
  RopeScaling yarn;
  yarn.type = RopeScalingType::yarn;
  yarn.factor = 4.0;
  yarn.original_max_position_embeddings = 4096.0;
  const RopeConfig config = posenc::test::config_of(64, 10000.0, yarn);
  std::vector<float> k = posenc::test::random_floats(d, 14);
  std::vector<float> direct = k;
  const RopeTensors t = keys_of(k, 1, 1, 1, d, HeadLayout::bshd);
  double p = 9000.0, q = 12000.0;
  REQUIRE(posenc::rope_apply(config, Pairing::half, Positions::list(&p), t).ok());
  REQUIRE(posenc::rope_shift(config, Pairing::half, Positions::list(&p), Positions::list(&q), t).ok());
  REQUIRE(posenc::rope_apply(config, Pairing::half, Positions::list(&q), keys_of(direct, 1, 1, 1, d, HeadLayout::bshd)).ok());
  CHECK(posenc::test::max_abs_diff(k.data(), direct.data(), d) < 1e-6);
}

TEST_CASE("rope_shift refuses dynamic NTK and a LongRoPE list switch, and bad positions", "[rope][shift][errors]") {
  const std::size_t d = 8;
  std::vector<float> k(d, 1.0f);
  const RopeTensors t = keys_of(k, 1, 1, 1, d, HeadLayout::bshd);
  RopeScaling dynamic;
  dynamic.type = RopeScalingType::dynamic;
  dynamic.factor = 2.0;
  dynamic.max_position_embeddings = 2048.0;
  auto s = posenc::rope_shift(posenc::test::config_of(8, 10000.0, dynamic), Pairing::half, Positions::range(0),
                              Positions::range(1), t);
  CHECK(s.code() == StatusCode::invalid_argument);
  CHECK_THAT(s.message(), Catch::Contains("dynamic NTK"));

  RopeScaling longrope;
  longrope.type = RopeScalingType::longrope;
  longrope.short_factor = {1.0, 1.5, 2.0, 3.0};
  longrope.long_factor = {1.0, 2.0, 4.0, 8.0};
  longrope.original_max_position_embeddings = 4096.0;
  longrope.factor = 4.0;
  const RopeConfig lr = posenc::test::config_of(8, 10000.0, longrope);
  s = posenc::rope_shift(lr, Pairing::half, Positions::range(4000), Positions::range(5000), t);
  CHECK(s.code() == StatusCode::invalid_argument);
  CHECK_THAT(s.message(), Catch::Contains("short factor list at length 4001"));
  CHECK(posenc::rope_shift(lr, Pairing::half, Positions::range(100), Positions::range(4000), t).ok());
  CHECK(posenc::rope_shift(lr, Pairing::half, Positions::range(5000), Positions::range(9000), t).ok());
  RopeConfig fixed = lr;
  fixed.seq_len = 8192.0;  // the list is fixed by the given length: any move is a rotation
  CHECK(posenc::rope_shift(fixed, Pairing::half, Positions::range(4000), Positions::range(5000), t).ok());

  const double nan = std::nan("");
  s = posenc::rope_shift(posenc::test::config_of(8), Pairing::half, Positions::range(0), Positions::list(&nan), t);
  CHECK(s.code() == StatusCode::invalid_argument);
  CHECK_THAT(s.message(), Catch::StartsWith("new positions: positionIds[0]"));
}
