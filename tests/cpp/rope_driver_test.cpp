// The RoPE driver's extension points, which the forms of today do not all use: a rotated block that
// starts past lane 0 (DeepSeek's decoupled RoPE), rows that change q only (a per-position query
// scale, Llama 4's attention temperature), distinct q and k rows, and angle rows whose pairs take
// their positions from interleaved axes (Qwen3-VL's M-RoPE). Each is checked against float64
// formulas written here, with a row source as small as a new form's would be.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <vector>

#include "encodings/detail/rope_driver.hpp"
#include "encodings/detail/rope_rows.hpp"
#include "rope_test_util.hpp"
#include "test_util.hpp"

using posenc::HeadLayout;
using posenc::Pairing;
using posenc::RopeTensors;
using posenc::detail::ChunkRowPointers;
using posenc::detail::RopeLanes;

namespace {

/// q and k [batch, seq, heads, headDim] (bshd) over the given buffers.
RopeTensors tensors(std::vector<float>& q, std::vector<float>& k, std::size_t batch, std::size_t seq,
                    std::size_t heads, std::size_t head_dim) {
  RopeTensors t;
  t.q = q.data();
  t.q_heads = heads;
  t.k = k.data();
  t.k_heads = heads;
  t.batch = batch;
  t.seq = seq;
  t.head_dim = head_dim;
  t.layout = HeadLayout::bshd;
  return t;
}

/// A row source of constant per-pair factors: q rows cos = qc, sin = qs; k rows kc, ks (half pairing).
struct ConstantRows {
  std::vector<float> qc, qs, kc, ks;
  bool own_k = true, rotate_k = true;
  const float* q_cos[posenc::detail::kRopeChunkTokens];
  const float* q_sin[posenc::detail::kRopeChunkTokens];
  const float* k_cos[posenc::detail::kRopeChunkTokens];
  const float* k_sin[posenc::detail::kRopeChunkTokens];

  ChunkRowPointers chunk(std::size_t, std::size_t, std::size_t count) {
    for (std::size_t j = 0; j < count; ++j) {
      q_cos[j] = qc.data();
      q_sin[j] = qs.data();
      k_cos[j] = kc.data();
      k_sin[j] = ks.data();
    }
    return ChunkRowPointers{q_cos, q_sin, own_k ? k_cos : nullptr, own_k ? k_sin : nullptr, rotate_k};
  }
};

/// (a, b) -> (a c - b s, a s + b c) on lanes (first + i, first + i + pairs) of every head row.
std::vector<double> rotated(const std::vector<float>& x, std::size_t head_dim, std::size_t first, const std::vector<float>& c,
                            const std::vector<float>& s) {
  std::vector<double> out(x.begin(), x.end());
  const std::size_t pairs = c.size();
  for (std::size_t row = 0; row < x.size() / head_dim; ++row) {
    for (std::size_t i = 0; i < pairs; ++i) {
      const std::size_t ia = row * head_dim + first + i, ib = ia + pairs;
      out[ia] = double(x[ia]) * c[i] - double(x[ib]) * s[i];
      out[ib] = double(x[ia]) * s[i] + double(x[ib]) * c[i];
    }
  }
  return out;
}

double worst(const std::vector<float>& got, const std::vector<double>& want) {
  double w = 0;
  for (std::size_t i = 0; i < got.size(); ++i) w = std::fmax(w, std::fabs(got[i] - want[i]));
  return w;
}

}  // namespace

TEST_CASE("the driver rotates a block of lanes that starts past lane 0, and only it", "[rope][driver]") {
  const std::size_t batch = 2, seq = 70, heads = 3, head_dim = 24, first = 8, pairs = 6;  // lanes 8..19 rotate
  auto q = posenc::test::random_floats(batch * seq * heads * head_dim, 1);
  auto k = posenc::test::random_floats(batch * seq * heads * head_dim, 2);
  const auto q0 = q, k0 = k;
  ConstantRows rows;
  rows.qc = {0.6f, 0.8f, 1.f, 0.f, -1.f, 0.28f};
  rows.qs = {0.8f, 0.6f, 0.f, 1.f, 0.f, 0.96f};
  rows.own_k = false;
  const RopeTensors t = tensors(q, k, batch, seq, heads, head_dim);
  REQUIRE(posenc::detail::check_rope_tensors(t, Pairing::half, 2 * pairs, first).ok());
  CHECK(posenc::detail::check_rope_tensors(t, Pairing::half, 2 * pairs, first + 5).code() ==
        posenc::StatusCode::out_of_range);  // 12 lanes from lane 13 would pass the head's end
  posenc::detail::drive_rope(t, RopeLanes{Pairing::half, pairs, first}, false, rows);
  CHECK(worst(q, rotated(q0, head_dim, first, rows.qc, rows.qs)) < 1e-6);
  CHECK(worst(k, rotated(k0, head_dim, first, rows.qc, rows.qs)) < 1e-6);  // k takes q's rows
}

TEST_CASE("the driver gives k its own rows, or leaves k alone for a form that changes q only", "[rope][driver]") {
  const std::size_t batch = 1, seq = 5, heads = 2, head_dim = 8, pairs = 4;
  auto q = posenc::test::random_floats(batch * seq * heads * head_dim, 3);
  auto k = posenc::test::random_floats(batch * seq * heads * head_dim, 4);
  const auto q0 = q, k0 = k;
  // q scaled by 1.5 with no rotation (cos = scale, sin = 0), k rotated by its own rows.
  ConstantRows rows;
  rows.qc.assign(pairs, 1.5f);
  rows.qs.assign(pairs, 0.f);
  rows.kc = {0.6f, 0.f, 1.f, 0.8f};
  rows.ks = {0.8f, 1.f, 0.f, -0.6f};
  const RopeTensors t = tensors(q, k, batch, seq, heads, head_dim);
  posenc::detail::drive_rope(t, RopeLanes{Pairing::half, pairs}, false, rows);
  for (std::size_t i = 0; i < q.size(); ++i) REQUIRE(q[i] == 1.5f * q0[i]);
  CHECK(worst(k, rotated(k0, head_dim, 0, rows.kc, rows.ks)) < 1e-6);

  rows.rotate_k = false;
  const auto k1 = k;
  posenc::detail::drive_rope(t, RopeLanes{Pairing::half, pairs}, false, rows);
  CHECK(k == k1);
}

TEST_CASE("angle rows with an interleaved axis map (Qwen3-VL M-RoPE) follow the float64 formula", "[rope][driver]") {
  // Pair i takes axis i % 3 (t, h, w interleaved): angle_i = ids[i % 3][token] * w_i.
  const std::size_t batch = 2, seq = 67, heads = 2, head_dim = 16, pairs = 8, axes = 3;
  const auto w = posenc::test::default_freq_f64(2 * static_cast<int>(pairs), 10000.0);
  std::vector<std::size_t> axis_of_pair(pairs);
  for (std::size_t i = 0; i < pairs; ++i) axis_of_pair[i] = i % axes;
  std::vector<double> ids(axes * batch * seq);  // [axes, batch, seq]
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<double>((i * 37) % 101);
  posenc::AxisPositions positions;
  positions.axes = axes;
  positions.ids = ids.data();
  positions.per_batch = true;
  for (Pairing pairing : {Pairing::half, Pairing::interleaved}) {
    auto q = posenc::test::random_floats(batch * seq * heads * head_dim, 5);
    auto k = posenc::test::random_floats(batch * seq * heads * head_dim, 6);
    const auto q0 = q;
    const RopeTensors t = tensors(q, k, batch, seq, heads, head_dim);
    posenc::detail::AngleRows rows;
    REQUIRE(rows.init(w.data(), pairs, 0.5, pairing, positions, axis_of_pair.data(), batch, seq).ok());
    posenc::detail::drive_rope(t, RopeLanes{pairing, pairs}, true, rows);
    double err = 0;
    for (std::size_t b = 0; b < batch; ++b) {
      for (std::size_t s = 0; s < seq; ++s) {
        std::vector<double> angle(pairs);
        for (std::size_t i = 0; i < pairs; ++i) angle[i] = ids[(axis_of_pair[i] * batch + b) * seq + s] * w[i];
        for (std::size_t h = 0; h < heads; ++h) {
          const std::size_t at = ((b * seq + s) * heads + h) * head_dim;
          const auto want = posenc::test::rotate_row_f64(q0.data() + at, head_dim, 2 * pairs,
                                                         pairing == Pairing::interleaved, angle,
                                                         std::vector<double>(pairs, 0.5));
          err = std::fmax(err, posenc::test::row_error(q.data() + at, want, 1.0));
        }
      }
    }
    INFO("pairing " << static_cast<int>(pairing));
    CHECK(err < 1e-6);
  }
}
