// 2-D axial RoPE, M-RoPE and xPos against float64 formulas written here from docs/encodings.md#89-2-d-axial-rope,
// 8.10 and HF's documented M-RoPE layout, plus their error statuses.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "posenc/rope_forms.hpp"
#include "rope_test_util.hpp"
#include "test_util.hpp"

using namespace posenc;
using posenc::test::default_freq_f64;
using posenc::test::kPi;
using posenc::test::random_floats;
using posenc::test::rotate_row_f64;
using posenc::test::config_of;
using posenc::test::row_error;

namespace {
XPosConfig xpos_of(double gamma, double scale_base = 512.0, std::optional<double> center = std::nullopt) {
  XPosConfig x;
  x.gamma = gamma;
  x.scale_base = scale_base;
  x.center = center;
  return x;
}
}  // namespace

TEST_CASE("2-D axial RoPE (lang): rows rotate the first axis block, columns the second", "[rope][forms][axial]") {
  const std::size_t rows = 3, cols = 4, seq = rows * cols, head_dim = 20, heads = 2;
  std::vector<double> ids;
  REQUIRE(rope_axial_grid(rows, cols, AxialFrequencies::lang, &ids).ok());
  REQUIRE(ids.size() == 2 * seq);
  CHECK(ids[5] == 1);         // token 5 = (row 1, col 1)
  CHECK(ids[seq + 7] == 3);   // token 7 = (row 1, col 3)
  auto q = random_floats(seq * heads * head_dim, 1, -2, 2);
  const auto q0 = q;
  const RopeTensors t{q.data(), heads, nullptr, 0, 1, seq, head_dim, HeadLayout::bshd};
  REQUIRE(rope_apply_axial(RopeAxialConfig{16, 100.0}, AxisPositions{2, ids.data()}, t).ok());
  const auto w = default_freq_f64(8, 100.0);  // axisDim 8: 4 frequencies per axis
  for (std::size_t s = 0; s < seq; ++s) {
    std::vector<double> angle(8), scale(8, 1.0);
    for (std::size_t k = 0; k < 4; ++k) {
      angle[k] = static_cast<double>(s / cols) * w[k];
      angle[4 + k] = static_cast<double>(s % cols) * w[k];
    }
    for (std::size_t h = 0; h < heads; ++h) {
      const std::size_t at = (s * heads + h) * head_dim;
      const auto want = rotate_row_f64(q0.data() + at, head_dim, 16, true, angle, scale);
      INFO("token " << s << " head " << h);
      CHECK(row_error(q.data() + at, want, 2.0) <= 1e-6);
      for (std::size_t j = 16; j < head_dim; ++j) CHECK(q[at + j] == q0[at + j]);
    }
  }
}

TEST_CASE("2-D axial RoPE (pixel): pi * linspace(1, maxFreq/2) frequencies over linspace(-1, 1) positions", "[rope][forms][axial]") {
  std::vector<double> w;
  REQUIRE(rope_axial_inv_freq(RopeAxialConfig{16, 10000, AxialFrequencies::pixel, 10.0}, &w).ok());
  REQUIRE(w.size() == 4);
  for (std::size_t k = 0; k < 4; ++k) CHECK(w[k] == Approx(kPi * (1 + k * (5.0 - 1) / 3)).epsilon(1e-15));
  std::vector<double> ids;
  REQUIRE(rope_axial_grid(3, 5, AxialFrequencies::pixel, &ids).ok());
  CHECK(ids[0] == -1);
  CHECK(ids[14] == 1);        // last row
  CHECK(ids[15 + 2] == 0);    // middle column
  CHECK(ids[15 + 1] == -0.5);
  auto q = random_floats(15 * 16, 2);
  const auto q0 = q;
  REQUIRE(rope_apply_axial(RopeAxialConfig{16, 10000, AxialFrequencies::pixel, 10.0}, AxisPositions{2, ids.data()},
                           RopeTensors{q.data(), 1, nullptr, 0, 1, 15, 16, HeadLayout::bshd})
              .ok());
  for (std::size_t s = 0; s < 15; ++s) {
    std::vector<double> angle(8), scale(8, 1.0);
    for (std::size_t k = 0; k < 4; ++k) {
      angle[k] = ids[s] * w[k];
      angle[4 + k] = ids[15 + s] * w[k];
    }
    CHECK(row_error(q.data() + s * 16, rotate_row_f64(q0.data() + s * 16, 16, 16, true, angle, scale), 1.0) <= 1e-6);
  }
}

TEST_CASE("M-RoPE: pair sections follow temporal, height and width ids", "[rope][forms][mrope]") {
  const std::size_t batch = 2, seq = 5, heads = 3, head_dim = 16;
  const std::vector<int> sections{2, 3, 3};
  std::vector<double> ids(3 * batch * seq);  // [3, batch, seq]
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<double>((i * 7) % 11);
  for (auto pairing : {Pairing::half, Pairing::interleaved}) {
    auto q = random_floats(batch * heads * seq * head_dim, 4, -2, 2);
    const auto q0 = q;
    const RopeTensors t{q.data(), heads, nullptr, 0, batch, seq, head_dim, HeadLayout::bhsd};
    const Status st = rope_apply_multimodal(config_of(16), pairing, sections, AxisPositions{3, ids.data(), 0, true}, t);
    INFO(st.message());
    REQUIRE(st.ok());
    const auto w = default_freq_f64(16, 10000);
    for (std::size_t b = 0; b < batch; ++b)
      for (std::size_t s = 0; s < seq; ++s) {
        std::vector<double> angle(8), scale(8, 1.0);
        for (std::size_t i = 0; i < 8; ++i) {
          const std::size_t axis = i < 2 ? 0 : (i < 5 ? 1 : 2);
          angle[i] = ids[(axis * batch + b) * seq + s] * w[i];
        }
        for (std::size_t h = 0; h < heads; ++h) {
          const std::size_t at = ((b * heads + h) * seq + s) * head_dim;
          CHECK(row_error(q.data() + at, rotate_row_f64(q0.data() + at, head_dim, 16, pairing == Pairing::interleaved,
                                                         angle, scale), 2.0) <= 1e-6);
        }
      }
  }
}

TEST_CASE("M-RoPE of text tokens (equal ids on every axis) is plain RoPE, scaling included", "[rope][forms][mrope]") {
  RopeScaling yarn;
  yarn.type = RopeScalingType::yarn;
  yarn.factor = 4;
  yarn.original_max_position_embeddings = 64;
  const RopeConfig config = config_of(32, 1e6, yarn);
  const double text[6] = {3, 4, 5, 3, 4, 5};  // [3, seq] shared by the batch
  auto a = random_floats(2 * 3 * 40, 6);
  auto b = a;
  REQUIRE(rope_apply_multimodal(config, Pairing::half, {4, 6, 6}, AxisPositions{3, nullptr, 3.0},
                                RopeTensors{a.data(), 1, nullptr, 0, 2, 3, 40, HeadLayout::bshd})
              .ok());
  REQUIRE(rope_apply(config, Pairing::half, Positions::range(3), RopeTensors{b.data(), 1, nullptr, 0, 2, 3, 40, HeadLayout::bshd}).ok());
  CHECK(posenc::test::max_abs_diff(a.data(), b.data(), a.size()) <= 2e-7);
  auto c = random_floats(2 * 3 * 40, 6);
  std::vector<double> ids(9);
  for (std::size_t i = 0; i < 9; ++i) ids[i] = text[i % 3];
  REQUIRE(rope_apply_multimodal(config, Pairing::half, {4, 6, 6}, AxisPositions{3, ids.data()},
                                RopeTensors{c.data(), 1, nullptr, 0, 2, 3, 40, HeadLayout::bshd})
              .ok());
  CHECK(posenc::test::max_abs_diff(c.data(), b.data(), c.size()) <= 2e-7);
}

TEST_CASE("xPos: q scaled by zeta^((m-c)/B), k by zeta^(-(n-c)/B), per pair", "[rope][forms][xpos]") {
  const std::size_t seq = 7, head_dim = 12;
  for (auto pairing : {Pairing::interleaved, Pairing::half}) {
    auto q = random_floats(seq * head_dim, 7, -2, 2);
    auto k = random_floats(seq * head_dim, 8, -2, 2);
    const auto q0 = q, k0 = k;
    const RopeTensors t{q.data(), 1, k.data(), 1, 1, seq, head_dim, HeadLayout::bshd};
    REQUIRE(rope_apply_xpos(config_of(8), pairing, xpos_of(0.4, 16.0), Positions::range(2), t).ok());
    const auto w = default_freq_f64(8, 10000);
    for (std::size_t s = 0; s < seq; ++s) {
      const double p = 2.0 + static_cast<double>(s);
      const double power = (p - 3.0) / 16.0;  // centre floor(7 / 2) = 3
      std::vector<double> angle(4), up(4), down(4);
      for (std::size_t i = 0; i < 4; ++i) {
        angle[i] = p * w[i];
        const double zeta = (2.0 * i + 0.4 * 8) / (1.4 * 8);
        up[i] = std::pow(zeta, power);
        down[i] = std::pow(zeta, -power);
      }
      const bool il = pairing == Pairing::interleaved;
      CHECK(row_error(q.data() + s * head_dim, rotate_row_f64(q0.data() + s * head_dim, head_dim, 8, il, angle, up), 2.0) <= 1e-6);
      CHECK(row_error(k.data() + s * head_dim, rotate_row_f64(k0.data() + s * head_dim, head_dim, 8, il, angle, down), 2.0) <= 1e-6);
    }
  }
}

TEST_CASE("xPos: q.k depends only on m - n for a fixed centre", "[rope][forms][xpos]") {
  const auto q0 = random_floats(16, 31), k0 = random_floats(16, 32);
  auto dot_at = [&](double m, double n) {
    auto q = q0, k = k0, unused_q = q0, unused_k = k0;
    const XPosConfig x = xpos_of(0.4, 512.0, 100.0);
    REQUIRE(rope_apply_xpos(config_of(16), Pairing::interleaved, x, Positions::range(m),
                            RopeTensors{q.data(), 1, unused_k.data(), 1, 1, 1, 16, HeadLayout::bshd}).ok());
    REQUIRE(rope_apply_xpos(config_of(16), Pairing::interleaved, x, Positions::range(n),
                            RopeTensors{unused_q.data(), 1, k.data(), 1, 1, 1, 16, HeadLayout::bshd}).ok());
    double dot = 0;
    for (int i = 0; i < 16; ++i) dot += static_cast<double>(q[i]) * k[i];
    return dot;
  };
  for (double delta : {0.0, 3.0, -20.0}) {
    const double ref = dot_at(50 + delta, 50);
    for (double n : {0.0, 120.0, 300.0}) CHECK(dot_at(n + delta, n) == Approx(ref).margin(2e-5));
  }
  CHECK(std::fabs(dot_at(3, 0) - dot_at(0, 3)) > 1e-4);  // not symmetric: the scale decays with distance
}

TEST_CASE("other RoPE forms reject bad arguments with statuses naming them", "[rope][forms][errors]") {
  std::vector<float> q(4 * 16, 1.0f);
  const auto q0 = q;
  const RopeTensors t{q.data(), 1, nullptr, 0, 1, 4, 16, HeadLayout::bshd};
  auto expect = [&](const Status& st, StatusCode code, const char* needle) {
    INFO(st.message());
    CHECK(st.code() == code);
    CHECK(st.message().find(needle) != std::string::npos);
    CHECK(q == q0);
  };
  std::vector<double> ids(12, 1.0);
  expect(rope_apply_axial(RopeAxialConfig{14}, AxisPositions{2, ids.data()}, t), StatusCode::invalid_argument, "multiple of 4");
  expect(rope_apply_axial(RopeAxialConfig{20}, AxisPositions{2, ids.data()}, t), StatusCode::out_of_range, "rotaryDim");
  expect(rope_apply_axial(RopeAxialConfig{16}, AxisPositions{3, ids.data()}, t), StatusCode::shape_mismatch, "2 position axes");
  expect(rope_apply_axial(RopeAxialConfig{16, 10000, AxialFrequencies::pixel, 0.0}, AxisPositions{2, ids.data()}, t),
         StatusCode::invalid_argument, "maxFreq");
  std::vector<double> grid;
  CHECK(rope_axial_grid(0, 3, AxialFrequencies::lang, &grid).code() == StatusCode::invalid_argument);
  expect(rope_apply_multimodal(config_of(16), Pairing::half, {2, 3, 2}, AxisPositions{3, ids.data()}, t),
         StatusCode::shape_mismatch, "mropeSection must sum to rotaryDim/2 = 8, got 7");
  expect(rope_apply_multimodal(config_of(16), Pairing::half, {2, 3, 3}, AxisPositions{2, ids.data()}, t),
         StatusCode::shape_mismatch, "one row per mropeSection entry");
  expect(rope_apply_multimodal(config_of(16), Pairing::half, {-1, 6, 3}, AxisPositions{3, ids.data()}, t),
         StatusCode::invalid_argument, "mropeSection[0]");
  ids[5] = NAN;
  expect(rope_apply_multimodal(config_of(16), Pairing::half, {2, 3, 3}, AxisPositions{3, ids.data()}, t),
         StatusCode::invalid_argument, "positionIds[5]");
  expect(rope_apply_xpos(config_of(16), Pairing::half, xpos_of(0.0), Positions::range(0), t), StatusCode::invalid_argument, "gamma");
  expect(rope_apply_xpos(config_of(16), Pairing::half, xpos_of(0.4, -1), Positions::range(0), t), StatusCode::invalid_argument, "scaleBase");
  expect(rope_apply_xpos(config_of(16), Pairing::half, xpos_of(0.4, 512, NAN), Positions::range(0), t), StatusCode::invalid_argument, "center");
}
