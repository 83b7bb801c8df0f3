// A model layer's RoPE forms (posenc/rope_layer.hpp) against float64 formulas written here from the
// Hugging Face code each follows (cited per test), plus their error statuses.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "posenc/rope_layer.hpp"
#include "rope_test_util.hpp"
#include "test_util.hpp"

using namespace posenc;
using posenc::test::config_of;
using posenc::test::default_freq_f64;
using posenc::test::random_floats;
using posenc::test::row_error;

namespace {

/// HF rotate_half on a whole head of `d` lanes: lane j < d/2 with j + d/2, angle[j] (0: unchanged).
std::vector<double> rotate_half_head(const float* x, std::size_t d, const std::vector<double>& angle, double factor = 1.0) {
  std::vector<double> out(x, x + d);
  for (std::size_t j = 0; j < d / 2; ++j) {
    const double c = std::cos(angle[j]) * factor, s = std::sin(angle[j]) * factor;
    out[j] = x[j] * c - x[j + d / 2] * s;
    out[j + d / 2] = x[j + d / 2] * c + x[j] * s;
  }
  return out;
}

RopeLayerForm form_of(RopeFormKind kind, Pairing pairing = Pairing::half) {
  RopeLayerForm f;
  f.kind = kind;
  f.pairing = pairing;
  return f;
}

}  // namespace

TEST_CASE("proportional RoPE: the first pairs of the whole-head half pairing rotate, the rest pass through bit for bit",
          "[rope][layer][proportional]") {
  // HF _compute_proportional_rope_parameters: rope_angles = int(0.25 * 16 // 2) = 2 frequencies
  // base^(-2i/16) / factor, then zeros; Gemma 4 applies them with rotate_half over all 16 lanes.
  const std::size_t seq = 5, heads = 3, d = 16;
  auto q = random_floats(seq * heads * d, 1, -2, 2);
  const auto q0 = q;
  RopeLayerForm form = form_of(RopeFormKind::proportional);
  form.rotated_pairs = 2;
  RopeScaling linear;
  linear.type = RopeScalingType::linear;
  linear.factor = 2.0;
  const RopeTensors t{q.data(), heads, nullptr, 0, 1, seq, d, HeadLayout::bshd};
  REQUIRE(rope_apply_layer(config_of(16, 1e6, linear), form, AxisPositions{1, nullptr, 7.0}, nullptr, t).ok());
  for (std::size_t s = 0; s < seq; ++s) {
    std::vector<double> angle(d / 2, 0.0);
    for (std::size_t i = 0; i < 2; ++i) angle[i] = (7.0 + s) * std::pow(1e6, -2.0 * i / 16) / 2.0;
    for (std::size_t h = 0; h < heads; ++h) {
      const std::size_t at = (s * heads + h) * d;
      CHECK(row_error(q.data() + at, rotate_half_head(q0.data() + at, d, angle), 1.0) <= 1e-6);
      for (std::size_t j : {2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15}) CHECK(q[at + j] == q0[at + j]);
    }
  }
  form.rotated_pairs = 9;  // more than headDim/2
  CHECK(rope_apply_layer(config_of(16), form, AxisPositions{}, nullptr, t).code() == StatusCode::invalid_argument);
  form.rotated_pairs = 2;
  CHECK(rope_apply_layer(config_of(8), form, AxisPositions{}, nullptr, t).code() == StatusCode::shape_mismatch);
}

TEST_CASE("interleaved M-RoPE: the height and width ids take every third pair inside their sections",
          "[rope][layer][mrope]") {
  // HF apply_interleaved_mrope: freqs_t[..., 1:3*s_h:3] from the height row, [2:3*s_w:3] from the width row.
  const std::size_t seq = 4, d = 20;  // 10 pairs, sections [4, 3, 3]
  auto q = random_floats(seq * d, 2, -2, 2);
  const auto q0 = q;
  RopeLayerForm form = form_of(RopeFormKind::mrope);
  form.sections = {4, 3, 3};
  form.interleaved_sections = true;
  std::vector<double> ids(3 * seq);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<double>((i * 5) % 9);
  const RopeTensors t{q.data(), 1, nullptr, 0, 1, seq, d, HeadLayout::bshd};
  REQUIRE(rope_apply_layer(config_of(20, 100.0), form, AxisPositions{3, ids.data()}, nullptr, t).ok());
  const std::vector<std::size_t> axis = {0, 1, 2, 0, 1, 2, 0, 1, 2, 0};
  const auto w = default_freq_f64(20, 100.0);
  for (std::size_t s = 0; s < seq; ++s) {
    std::vector<double> angle(10);
    for (std::size_t i = 0; i < 10; ++i) angle[i] = ids[axis[i] * seq + s] * w[i];
    CHECK(row_error(q.data() + s * d, rotate_half_head(q0.data() + s * d, d, angle), 1.0) <= 1e-6);
  }
  // Sections shorter than the slots they would take: past 3 s_h (3 s_w) the slot is temporal again
  // (Qwen3-VL's [24, 20, 20] over 64 pairs ends t t t t).
  form.sections = {6, 2, 2};
  q = q0;
  REQUIRE(rope_apply_layer(config_of(20, 100.0), form, AxisPositions{3, ids.data()}, nullptr, t).ok());
  const std::vector<std::size_t> short_axis = {0, 1, 2, 0, 1, 2, 0, 0, 0, 0};
  for (std::size_t s = 0; s < seq; ++s) {
    std::vector<double> angle(10);
    for (std::size_t i = 0; i < 10; ++i) angle[i] = ids[short_axis[i] * seq + s] * w[i];
    CHECK(row_error(q.data() + s * d, rotate_half_head(q0.data() + s * d, d, angle), 1.0) <= 1e-6);
  }
  form.sections = {4, 6};
  CHECK(rope_apply_layer(config_of(20), form, AxisPositions{2, ids.data()}, nullptr, t).code() == StatusCode::invalid_argument);
}

TEST_CASE("decoupled RoPE (DeepSeek): rotary block after the content lanes; rope_interleave de-interleaves it first",
          "[rope][layer][decoupled]") {
  const std::size_t seq = 3, heads = 2, nope = 6, rope = 8, d = nope + rope;
  const auto w = default_freq_f64(8, 10000.0);
  for (bool deinterleave : {false, true}) {
    auto q = random_floats(seq * heads * d, 3, -2, 2);
    const auto q0 = q;
    RopeLayerForm form = form_of(RopeFormKind::decoupled, Pairing::interleaved);
    form.first_lane = nope;
    form.deinterleave = deinterleave;
    const RopeTensors t{q.data(), heads, nullptr, 0, 1, seq, d, HeadLayout::bhsd};
    REQUIRE(rope_apply_layer(config_of(8), form, AxisPositions{1, nullptr, 4.0}, nullptr, t).ok());
    for (std::size_t h = 0; h < heads; ++h) {
      for (std::size_t s = 0; s < seq; ++s) {
        const std::size_t at = (h * seq + s) * d;
        const float* x = q0.data() + at + nope;
        for (std::size_t j = 0; j < nope; ++j) CHECK(q[at + j] == q0[at + j]);
        for (std::size_t i = 0; i < 4; ++i) {
          // HF DeepseekV2 apply_rotary_emb (complex pairs 2i, 2i+1, in place); DeepseekV3
          // apply_rotary_pos_emb_interleave (view(d/2, 2).transpose: pair i's lanes go to i and i + 4).
          const double c = std::cos((4.0 + s) * w[i]), sn = std::sin((4.0 + s) * w[i]);
          const double a = x[2 * i] * c - x[2 * i + 1] * sn, b = x[2 * i] * sn + x[2 * i + 1] * c;
          const std::size_t ia = deinterleave ? i : 2 * i, ib = deinterleave ? i + 4 : 2 * i + 1;
          CHECK(std::fabs(q[at + nope + ia] - a) <= 1e-6 * 4);
          CHECK(std::fabs(q[at + nope + ib] - b) <= 1e-6 * 4);
        }
      }
    }
  }
}

TEST_CASE("Pixtral's 2-D RoPE: rows with freqs[::2] on the first half of the pairs, columns with freqs[1::2]",
          "[rope][layer][pixtral]") {
  // HF PixtralRotaryEmbedding: inv_freq[h, w] = cat(h * freqs[::2], w * freqs[1::2]), cat twice, rotate_half.
  const std::size_t seq = 6, d = 16;
  auto q = random_floats(seq * d, 4, -2, 2);
  auto k = random_floats(seq * d, 5, -2, 2);
  const auto q0 = q, k0 = k;
  RopeLayerForm form = form_of(RopeFormKind::pixtral);
  form.patches_per_side = 4;
  const std::vector<double> ids = {0, 0, 1, 1, 3, 2, /* cols */ 0, 1, 0, 3, 3, 2};
  const RopeTensors t{q.data(), 1, k.data(), 1, 1, seq, d, HeadLayout::bshd};
  REQUIRE(rope_apply_layer(config_of(16, 10000.0), form, AxisPositions{2, ids.data()}, nullptr, t).ok());
  const auto f = default_freq_f64(16, 10000.0);  // 8 frequencies
  for (std::size_t s = 0; s < seq; ++s) {
    std::vector<double> angle(8);
    for (std::size_t i = 0; i < 4; ++i) {
      angle[i] = ids[s] * f[2 * i];
      angle[4 + i] = ids[seq + s] * f[2 * i + 1];
    }
    CHECK(row_error(q.data() + s * d, rotate_half_head(q0.data() + s * d, d, angle), 1.0) <= 1e-6);
    CHECK(row_error(k.data() + s * d, rotate_half_head(k0.data() + s * d, d, angle), 1.0) <= 1e-6);
  }
  const std::vector<double> outside = {0, 4, 0, 0};
  const RopeTensors two{q.data(), 1, nullptr, 0, 1, 2, d, HeadLayout::bshd};
  CHECK(rope_apply_layer(config_of(16), form, AxisPositions{2, outside.data()}, nullptr, two).code() == StatusCode::out_of_range);
}

TEST_CASE("query scale: q's rotation times 1 + beta ln(1 + floor((p + offset) / floor)), k unscaled; alone on NoPE layers",
          "[rope][layer][query]") {
  // Ministral 3 get_llama_4_attn_scale (offset 0) and Llama 4 attn_temperature_tuning (offset 1).
  const std::size_t seq = 4, d = 8;
  const std::vector<double> pos = {0, 3, 4, 11};
  const QueryScale ministral{0.1, 4.0, 0.0};
  auto q = random_floats(seq * d, 6, -2, 2);
  auto k = random_floats(seq * d, 7, -2, 2);
  const auto q0 = q, k0 = k;
  const RopeTensors t{q.data(), 1, k.data(), 1, 1, seq, d, HeadLayout::bshd};
  REQUIRE(rope_apply_layer(config_of(8), form_of(RopeFormKind::standard), AxisPositions{1, pos.data()}, &ministral, t).ok());
  const auto w = default_freq_f64(8, 10000.0);
  for (std::size_t s = 0; s < seq; ++s) {
    std::vector<double> angle(4);
    for (std::size_t i = 0; i < 4; ++i) angle[i] = pos[s] * w[i];
    const double scale = 1 + 0.1 * std::log(1 + std::floor(pos[s] / 4.0));
    CHECK(row_error(q.data() + s * d, rotate_half_head(q0.data() + s * d, d, angle, scale), 1.0) <= 1e-6);
    CHECK(row_error(k.data() + s * d, rotate_half_head(k0.data() + s * d, d, angle), 1.0) <= 1e-6);
  }
  auto x = random_floats(seq * 2 * d, 8, -2, 2);
  const auto x0 = x;
  const QueryScale llama4{0.1, 4.0, 1.0};
  REQUIRE(rope_scale_queries(llama4, Positions::list(pos.data()), RopeTensors{x.data(), 2, nullptr, 0, 1, seq, d}).ok());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double p = pos[i / (2 * d)];
    CHECK(x[i] == static_cast<float>(x0[i] * static_cast<float>(1 + 0.1 * std::log(1 + std::floor((p + 1) / 4.0)))));
  }
  CHECK(rope_scale_queries(QueryScale{0.1, 0.0, 0.0}, Positions::range(0), RopeTensors{x.data(), 2, nullptr, 0, 1, seq, d})
            .code() == StatusCode::invalid_argument);
  CHECK(rope_scale_queries(llama4, Positions::range(0), RopeTensors{x.data(), 2, k.data(), 1, 1, seq, d}).code() ==
        StatusCode::invalid_argument);
}

TEST_CASE("a query scale alone multiplies each lane of q once: NaN and infinity stay in their lanes", "[rope][layer][query]") {
  // HF multiplies the query elementwise (query_states * attn_scales): lane j of the result reads lane j only.
  const std::size_t seq = 3, d = 8;
  const std::vector<double> pos = {0, 9, 20};
  const QueryScale scale{0.5, 4.0, 1.0};  // 1 at position 0, then 1 + 0.5 ln 3 and 1 + 0.5 ln 6
  auto x = random_floats(seq * d, 10, -2, 2);
  for (std::size_t s = 0; s < seq; ++s) {
    x[s * d + 1] = std::numeric_limits<float>::infinity();  // the half-pairing partner of lane 5
    x[s * d + 6] = std::nanf("");                           // ... and of lane 2
  }
  const auto x0 = x;
  REQUIRE(rope_scale_queries(scale, Positions::list(pos.data()), RopeTensors{x.data(), 1, nullptr, 0, 1, seq, d}).ok());
  for (std::size_t s = 0; s < seq; ++s) {
    const auto f = static_cast<float>(1 + 0.5 * std::log1p(std::floor((pos[s] + 1) / 4.0)));
    for (std::size_t j = 0; j < d; ++j) {
      INFO("token " << s << " lane " << j);
      if (j == 6) {
        CHECK(std::isnan(x[s * d + j]));
      } else {
        CHECK(x[s * d + j] == x0[s * d + j] * f);
      }
    }
  }
}

TEST_CASE("a proportional layer with no rotated pair still scales its queries, either pairing", "[rope][layer][query]") {
  const std::size_t seq = 2, d = 8;
  const std::vector<double> pos = {3, 40};
  const QueryScale scale{0.1, 8.0, 0.0};
  for (Pairing pairing : {Pairing::half, Pairing::interleaved}) {
    RopeLayerForm form = form_of(RopeFormKind::proportional, pairing);
    form.rotated_pairs = 0;
    auto q = random_floats(seq * d, 11, -2, 2);
    auto k = random_floats(seq * d, 12, -2, 2);
    const auto q0 = q, k0 = k;
    const RopeTensors t{q.data(), 1, k.data(), 1, 1, seq, d, HeadLayout::bshd};
    const Status st = rope_apply_layer(config_of(8), form, AxisPositions{1, pos.data()}, &scale, t);
    INFO("pairing " << static_cast<int>(pairing) << ": " << st.message());
    REQUIRE(st.ok());
    for (std::size_t i = 0; i < q.size(); ++i) {
      CHECK(q[i] == q0[i] * static_cast<float>(1 + 0.1 * std::log1p(std::floor(pos[i / d] / 8.0))));
    }
    CHECK(k == k0);
  }
}

TEST_CASE("cached rows on a layer's lanes rotate exactly as the layer does", "[rope][layer][table]") {
  // The lanes and frequencies of rope_layer_pairs, filled into a table, give the rows rope_apply_layer forms.
  const std::size_t seq = 3, d = 16;
  RopeLayerForm form = form_of(RopeFormKind::proportional);
  form.rotated_pairs = 3;
  RopeLayerPairs p;
  REQUIRE(rope_layer_pairs(config_of(16), form, std::nan(""), &p).ok());
  REQUIRE(p.lanes.pairs == 3);
  CHECK(p.lanes.half_span == 8);
  const std::size_t rows = 10;
  std::vector<float> cos(rows * 3), sin(rows * 3);
  REQUIRE(rope_fill_table(RopeRotation{Pairing::half, 6, p.freq.data(), p.attention_factor}, rows, cos.data(), sin.data()).ok());
  auto a = random_floats(seq * d, 9, -2, 2);
  auto b = a;
  const std::vector<double> pos = {2, 9, 5};
  REQUIRE(rope_apply_layer(config_of(16), form, AxisPositions{1, pos.data()}, nullptr, RopeTensors{a.data(), 1, nullptr, 0, 1, seq, d}).ok());
  const RopeTable table{cos.data(), sin.data(), rows, 3};
  REQUIRE(rope_apply_lanes_table(table, p.lanes, Positions::list(pos.data()), nullptr, RopeTensors{b.data(), 1, nullptr, 0, 1, seq, d}).ok());
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(std::fabs(a[i] - b[i]) <= 1e-6);
  RopeHeadLanes overlapping = p.lanes;  // pair i = (i, i + 2) would overlap pair i + 2 and pass the checked lanes
  overlapping.half_span = 2;
  CHECK(rope_apply_lanes_table(table, overlapping, Positions::list(pos.data()), nullptr, RopeTensors{b.data(), 1, nullptr, 0, 1, seq, d})
            .code() == StatusCode::invalid_argument);
  const std::vector<double> past = {2, 10, 5};
  CHECK(rope_apply_lanes_table(table, p.lanes, Positions::list(past.data()), nullptr, RopeTensors{b.data(), 1, nullptr, 0, 1, seq, d})
            .code() == StatusCode::out_of_range);
}
