// RoPE against the float64 formula: both pairings, both layouts, partial rotary, GQA, offsets,
// per-row ids, the 1e-6 bound at position 1e6, the relative property, and every error path.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "posenc/rope.hpp"
#include "test_util.hpp"

using namespace posenc;
using posenc::test::random_floats;
using posenc::test::rope_row_f64;

namespace {

struct Case {
  std::size_t batch, seq, q_heads, k_heads, head_dim;
  int rotary_dim;
  Pairing pairing;
  HeadLayout layout;
};

std::size_t row_offset(const Case& c, std::size_t heads, std::size_t b, std::size_t s, std::size_t h) {
  return c.layout == HeadLayout::bshd ? ((b * c.seq + s) * heads + h) * c.head_dim
                                      : ((b * heads + h) * c.seq + s) * c.head_dim;
}

/// Worst |posenc - float64 formula| / max|x| over every element of q and k.
double relative_error(const Case& c, const Positions& pos, double base, double attention = 1.0) {
  std::vector<double> inv_freq;
  REQUIRE(rope_default_inv_freq(c.rotary_dim, base, &inv_freq).ok());
  auto q = random_floats(c.batch * c.seq * c.q_heads * c.head_dim, 11, -3.5f, 3.5f);
  auto k = random_floats(c.batch * c.seq * c.k_heads * c.head_dim, 12, -3.5f, 3.5f);
  const auto q0 = q, k0 = k;
  const RopeRotation rot{c.pairing, c.rotary_dim, inv_freq.data(), attention};
  const RopeTensors t{q.data(), c.q_heads, k.data(), c.k_heads, c.batch, c.seq, c.head_dim, c.layout};
  const Status st = rope_apply(rot, pos, t);
  INFO(st.message());
  REQUIRE(st.ok());
  double worst = 0;
  for (int which = 0; which < 2; ++which) {
    const auto& in = which == 0 ? q0 : k0;
    const auto& out = which == 0 ? q : k;
    const std::size_t heads = which == 0 ? c.q_heads : c.k_heads;
    const double scale = posenc::test::max_abs(in);
    for (std::size_t b = 0; b < c.batch; ++b)
      for (std::size_t s = 0; s < c.seq; ++s)
        for (std::size_t h = 0; h < heads; ++h) {
          const std::size_t at = row_offset(c, heads, b, s, h);
          const auto ref = rope_row_f64(in.data() + at, c.head_dim, static_cast<std::size_t>(c.rotary_dim),
                                        c.pairing == Pairing::interleaved, pos.at(b, s, c.seq), base, attention);
          for (std::size_t j = 0; j < c.head_dim; ++j) {
            worst = std::fmax(worst, std::fabs(out[at + j] - ref[j]) / scale);
          }
        }
  }
  return worst;
}

}  // namespace

TEST_CASE("rope_apply equals the float64 formula: pairings, layouts, partial rotary, GQA", "[rope]") {
  for (auto pairing : {Pairing::half, Pairing::interleaved}) {
    for (auto layout : {HeadLayout::bshd, HeadLayout::bhsd}) {
      for (const auto& dims : std::vector<std::pair<std::size_t, int>>{{64, 64}, {64, 32}, {80, 32}, {9, 8}, {2, 2}, {130, 130}}) {
        const Case c{2, 67, 4, 2, dims.first, dims.second, pairing, layout};
        for (double offset : {0.0, 1000.0, -5.0}) {
          INFO("pairing " << static_cast<int>(pairing) << " layout " << static_cast<int>(layout) << " headDim "
                          << dims.first << " rotaryDim " << dims.second << " offset " << offset);
          CHECK(relative_error(c, Positions::range(offset), 10000.0) <= 1e-6);
        }
      }
    }
  }
}

TEST_CASE("rope_apply stays within 1e-6 of float64 at position 1,000,000", "[rope][precision]") {
  for (auto pairing : {Pairing::half, Pairing::interleaved}) {
    const Case c{1, 70, 2, 1, 128, 128, pairing, HeadLayout::bhsd};
    CHECK(relative_error(c, Positions::range(1e6), 500000.0) <= 1e-6);
    CHECK(relative_error(c, Positions::range(1e6 - 35), 10000.0) <= 1e-6);
  }
}

TEST_CASE("rope_apply with per-row position ids (left padding) and shared ids", "[rope]") {
  const Case c{3, 9, 2, 2, 16, 16, Pairing::half, HeadLayout::bshd};
  std::vector<double> ids(c.batch * c.seq);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<double>((i * 37) % 500) - 3.0;
  CHECK(relative_error(c, Positions::list(ids.data(), true), 10000.0) <= 1e-6);
  CHECK(relative_error(c, Positions::list(ids.data(), false), 10000.0) <= 1e-6);
  CHECK(relative_error(c, Positions::range(7), 10000.0, 1.25) <= 1e-6);
}

TEST_CASE("position 0 is exactly the identity", "[rope]") {
  for (auto pairing : {Pairing::half, Pairing::interleaved}) {
    std::vector<double> inv_freq;
    REQUIRE(rope_default_inv_freq(32, 10000.0, &inv_freq).ok());
    auto q = random_floats(40, 5);
    const auto q0 = q;
    const RopeTensors t{q.data(), 1, nullptr, 0, 1, 1, 40, HeadLayout::bshd};
    REQUIRE(rope_apply({pairing, 32, inv_freq.data(), 1.0}, Positions::range(0), t).ok());
    CHECK(q == q0);
  }
}

TEST_CASE("the q.k product depends only on m - n", "[rope]") {
  std::vector<double> inv_freq;
  REQUIRE(rope_default_inv_freq(64, 10000.0, &inv_freq).ok());
  const auto q0 = random_floats(64, 21), k0 = random_floats(64, 22);
  auto dot_at = [&](double m, double n, Pairing pairing) {
    auto q = q0, k = k0;
    const RopeRotation rot{pairing, 64, inv_freq.data(), 1.0};
    REQUIRE(rope_apply(rot, Positions::range(m), {q.data(), 1, nullptr, 0, 1, 1, 64, HeadLayout::bshd}).ok());
    REQUIRE(rope_apply(rot, Positions::range(n), {k.data(), 1, nullptr, 0, 1, 1, 64, HeadLayout::bshd}).ok());
    double dot = 0;
    for (int i = 0; i < 64; ++i) dot += static_cast<double>(q[i]) * k[i];
    return dot;
  };
  for (auto pairing : {Pairing::half, Pairing::interleaved}) {
    for (double delta : {0.0, 1.0, 3.0, -17.0, 250.0}) {
      const double reference = dot_at(delta, 0, pairing);
      for (double n : {1.0, 100.0, 4096.0, 123456.0, 1e6}) {
        INFO("delta " << delta << " n " << n);
        CHECK(dot_at(n + delta, n, pairing) == Approx(reference).margin(2e-5));
      }
    }
  }
}

TEST_CASE("a filled cos/sin table applied by lookup equals direct application", "[rope]") {
  for (auto pairing : {Pairing::half, Pairing::interleaved}) {
    std::vector<double> inv_freq;
    REQUIRE(rope_default_inv_freq(24, 10000.0, &inv_freq).ok());
    const RopeRotation rot{pairing, 24, inv_freq.data(), 1.1};
    const std::size_t rows = 300;
    std::vector<float> cos(rows * 12), sin(rows * 12);
    REQUIRE(rope_fill_table(rot, rows, cos.data(), sin.data()).ok());
    auto a = random_floats(2 * 5 * 3 * 32, 9);
    auto b = a;
    const double ids[10] = {0, 299, 17, 18, 200, 5, 6, 7, 100, 1};
    const RopeTensors ta{a.data(), 3, nullptr, 0, 2, 5, 32, HeadLayout::bhsd};
    const RopeTensors tb{b.data(), 3, nullptr, 0, 2, 5, 32, HeadLayout::bhsd};
    REQUIRE(rope_apply(rot, Positions::list(ids, true), ta).ok());
    REQUIRE(rope_apply_table({cos.data(), sin.data(), rows, 12}, pairing, 24, Positions::list(ids, true), tb).ok());
    CHECK(posenc::test::max_abs_diff(a.data(), b.data(), a.size()) <= 4e-7);
    // A cache's pre-expanded rows (interleaved) give exactly the same rotation. The table's own
    // cos/sin are zeros here, so the rows must come from cos2/sin2.
    std::vector<float> cos2(rows * 24), sin2(rows * 24), zeros(rows * 12, 0.0f);
    rope_expand_interleaved(cos.data(), sin.data(), rows * 12, cos2.data(), sin2.data());
    const RopeTable expanded{zeros.data(), zeros.data(), rows, 12, cos2.data(), sin2.data()};
    if (pairing == Pairing::interleaved) {
      auto c = random_floats(2 * 5 * 3 * 32, 9);
      const RopeTensors tc{c.data(), 3, nullptr, 0, 2, 5, 32, HeadLayout::bhsd};
      REQUIRE(rope_apply_table(expanded, pairing, 24, Positions::list(ids, true), tc).ok());
      CHECK(posenc::test::max_abs_diff(b.data(), c.data(), b.size()) == 0.0);
    }
    // A range (the table rows are then addressed directly): 150 tokens from offset 150 span three
    // chunks of tokens and end at the table's last row, in both batch rows and both layouts.
    for (auto layout : {HeadLayout::bshd, HeadLayout::bhsd}) {
      auto x = random_floats(2 * 150 * 3 * 32, 10);
      auto y = x;
      const RopeTensors tx{x.data(), 3, nullptr, 0, 2, 150, 32, layout};
      const RopeTensors ty{y.data(), 3, nullptr, 0, 2, 150, 32, layout};
      REQUIRE(rope_apply(rot, Positions::range(150), tx).ok());
      REQUIRE(rope_apply_table({cos.data(), sin.data(), rows, 12}, pairing, 24, Positions::range(150), ty).ok());
      CHECK(posenc::test::max_abs_diff(x.data(), y.data(), x.size()) <= 4e-7);
      if (pairing == Pairing::interleaved) {
        auto z = random_floats(2 * 150 * 3 * 32, 10);
        const RopeTensors tz{z.data(), 3, nullptr, 0, 2, 150, 32, layout};
        REQUIRE(rope_apply_table(expanded, pairing, 24, Positions::range(150), tz).ok());
        CHECK(posenc::test::max_abs_diff(y.data(), z.data(), y.size()) == 0.0);
      }
    }
  }
}

TEST_CASE("rope rejects bad arguments with a status naming them", "[rope][errors]") {
  std::vector<double> inv_freq(64, 0.5);
  std::vector<float> q(2 * 8 * 64, 1.0f);
  const auto q0 = q;
  const RopeTensors t{q.data(), 8, nullptr, 0, 1, 2, 64, HeadLayout::bshd};
  auto expect = [&](const RopeRotation& r, const Positions& p, const RopeTensors& tt, StatusCode code,
                    const char* needle) {
    const Status st = rope_apply(r, p, tt);
    INFO(st.message());
    CHECK(st.code() == code);
    CHECK(st.message().find(needle) != std::string::npos);
    CHECK(q == q0);  // nothing was modified
  };
  expect({Pairing::half, 63, inv_freq.data()}, Positions::range(0), t, StatusCode::invalid_argument, "rotaryDim");
  expect({Pairing::half, 0, inv_freq.data()}, Positions::range(0), t, StatusCode::invalid_argument, "rotaryDim");
  expect({Pairing::half, 66, inv_freq.data()}, Positions::range(0), t, StatusCode::out_of_range, "rotaryDim");
  expect({static_cast<Pairing>(5), 64, inv_freq.data()}, Positions::range(0), t, StatusCode::invalid_argument, "pairing");
  expect({Pairing::half, 64, inv_freq.data(), NAN}, Positions::range(0), t, StatusCode::invalid_argument,
         "attentionFactor");
  expect({Pairing::half, 64, nullptr}, Positions::range(0), t, StatusCode::invalid_argument, "invFreq");
  expect({Pairing::half, 64, inv_freq.data()}, Positions::range(INFINITY), t, StatusCode::invalid_argument, "offset");
  const double ids[2] = {0, NAN};
  expect({Pairing::half, 64, inv_freq.data()}, Positions::list(ids), t, StatusCode::invalid_argument, "positionIds[1]");
  RopeTensors zero_seq = t;
  zero_seq.seq = 0;
  expect({Pairing::half, 64, inv_freq.data()}, Positions::range(0), zero_seq, StatusCode::invalid_argument, "seq");
  RopeTensors huge = t;
  huge.batch = static_cast<std::size_t>(-1) / 4;
  expect({Pairing::half, 64, inv_freq.data()}, Positions::range(0), huge, StatusCode::size_overflow, "q");
  inv_freq[3] = INFINITY;
  expect({Pairing::half, 64, inv_freq.data()}, Positions::range(0), t, StatusCode::invalid_argument, "invFreq[3]");

  std::vector<double> out;
  CHECK(rope_default_inv_freq(7, 10000.0, &out).code() == StatusCode::invalid_argument);
  CHECK(rope_default_inv_freq(8, 0.0, &out).code() == StatusCode::invalid_argument);
}

TEST_CASE("rope_apply_table rejects ids outside the table and mismatched widths", "[rope][errors]") {
  std::vector<float> cos(10 * 4, 1.0f), sin(10 * 4, 0.0f), q(3 * 8, 2.0f);
  const RopeTensors t{q.data(), 1, nullptr, 0, 1, 3, 8, HeadLayout::bshd};
  const RopeTable table{cos.data(), sin.data(), 10, 4};
  const double ids[3] = {1, 10, 2};
  Status st = rope_apply_table(table, Pairing::half, 8, Positions::list(ids), t);
  CHECK(st.code() == StatusCode::out_of_range);
  CHECK(st.message().find("positionIds[1]") != std::string::npos);
  st = rope_apply_table(table, Pairing::half, 6, Positions::range(0), t);
  CHECK(st.code() == StatusCode::shape_mismatch);
  st = rope_apply_table(table, Pairing::half, 8, Positions::range(8), t);
  CHECK(st.code() == StatusCode::out_of_range);
  const RopeTable half_expanded{cos.data(), sin.data(), 10, 4, cos.data(), nullptr};
  st = rope_apply_table(half_expanded, Pairing::interleaved, 8, Positions::range(0), t);
  CHECK(st.code() == StatusCode::invalid_argument);
  CHECK(st.message().find("cos2 and sin2") != std::string::npos);
}
