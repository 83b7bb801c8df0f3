// The performance paths keep the contracts: the scratch pool, the frequency memo, single-row angle
// rows (no step), and the fused step + narrow of angle rows against direct evaluation.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "encodings/detail/angle_rows.hpp"
#include "encodings/detail/scratch.hpp"
#include "posenc/rope.hpp"
#include "posenc/rope_scaling.hpp"

using posenc::detail::AngleSink;
using posenc::detail::Scratch;

TEST_CASE("Scratch blocks are distinct while alive and reused afterwards", "[scratch]") {
  // 12345 floats: a size no other test asks for, so the pool holds no other block that would fit
  // as tightly as the two released here.
  constexpr std::size_t kFloats = 12345;
  const float* first = nullptr;
  const float* second = nullptr;
  {
    Scratch<float> a, b;
    REQUIRE(a.allocate(kFloats).ok());
    REQUIRE(b.allocate(kFloats).ok());
    CHECK(a.data() != b.data());
    CHECK(reinterpret_cast<std::uintptr_t>(a.data()) % 64 == 0);
    for (std::size_t i = 0; i < kFloats; ++i) a.data()[i] = static_cast<float>(i);
    for (std::size_t i = 0; i < kFloats; ++i) b.data()[i] = -1.0f;
    for (std::size_t i = 0; i < kFloats; ++i) REQUIRE(a.data()[i] == static_cast<float>(i));  // no overlap
    first = a.data();
    second = b.data();
  }
  {
    // Both blocks went back to the pool: the next requests take them again (the smallest block
    // that fits), not new memory.
    Scratch<float> c, d;
    REQUIRE(c.allocate(kFloats).ok());
    CHECK((c.data() == first || c.data() == second));
    REQUIRE(d.allocate(kFloats - 100).ok());
    CHECK(d.data() == (c.data() == first ? second : first));
    REQUIRE(c.allocate(100000).ok());  // growing gives a large enough block
    c.data()[99999] = 1.0f;
    CHECK(c.data()[99999] == 1.0f);
  }
  for (int round = 0; round < 3; ++round) {  // more live blocks than the pool caches
    std::vector<Scratch<double>> many(20);
    for (std::size_t i = 0; i < many.size(); ++i) {
      REQUIRE(many[i].allocate(64 * (i + 1)).ok());
      many[i].data()[0] = static_cast<double>(i);
    }
    for (std::size_t i = 0; i < many.size(); ++i) REQUIRE(many[i].data()[0] == static_cast<double>(i));
  }
}

TEST_CASE("Scratch reports sizes that overflow", "[scratch]") {
  Scratch<double> s;
  CHECK(s.allocate(static_cast<std::size_t>(-1) / 4).code() != posenc::StatusCode::ok);
}

TEST_CASE("the remembered RoPE frequencies follow rotaryDim and base", "[rope][memo]") {
  auto fresh = [](int dim, double base) {
    std::vector<double> w(static_cast<std::size_t>(dim / 2));
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = std::pow(base, -2.0 * static_cast<double>(i) / dim);
    return w;
  };
  for (auto [dim, base] : std::vector<std::pair<int, double>>{{8, 10000}, {8, 10000}, {8, 500000}, {6, 500000}, {8, 10000}}) {
    std::vector<double> w;
    REQUIRE(posenc::rope_default_inv_freq(dim, base, &w).ok());
    INFO("dim " << dim << " base " << base);
    CHECK(w == fresh(dim, base));
  }
}

namespace {
/// cos/sin rows [count, pairs] from angle_rows_range, and from direct float64 evaluation.
void compare_rows(std::size_t pairs, double start, std::size_t count, double scale) {
  std::vector<double> w(pairs);
  for (std::size_t i = 0; i < pairs; ++i) w[i] = std::pow(10000.0, -2.0 * static_cast<double>(i) / (2.0 * pairs));
  std::vector<float> c(count * pairs), s(count * pairs), inter(2 * count * pairs);
  posenc::detail::angle_rows_range(w.data(), pairs, start, count, AngleSink{s.data(), c.data(), pairs, 1, scale});
  posenc::detail::angle_rows_range(w.data(), pairs, start, count, AngleSink{inter.data(), inter.data() + 1, 2 * pairs, 2, scale});
  double worst = 0;
  for (std::size_t t = 0; t < count; ++t) {
    for (std::size_t i = 0; i < pairs; ++i) {
      const double a = (start + static_cast<double>(t)) * w[i];
      worst = std::fmax(worst, std::fabs(c[t * pairs + i] - scale * std::cos(a)));
      worst = std::fmax(worst, std::fabs(s[t * pairs + i] - scale * std::sin(a)));
      worst = std::fmax(worst, std::fabs(inter[2 * (t * pairs + i)] - scale * std::sin(a)));
      worst = std::fmax(worst, std::fabs(inter[2 * (t * pairs + i) + 1] - scale * std::cos(a)));
    }
  }
  INFO("pairs " << pairs << " start " << start << " count " << count);
  CHECK(worst <= 1.2e-7 * scale);  // float rounding (6e-8) plus the recurrence's drift, far below 1e-6
}
}  // namespace

TEST_CASE("angle rows: one row, short and long runs, odd widths, scaled, far positions", "[angles]") {
  for (std::size_t pairs : {1, 3, 4, 5, 32, 64, 300}) {
    compare_rows(pairs, 0.0, 1, 1.0);
    compare_rows(pairs, 1000.0, 1, 1.0);
    compare_rows(pairs, 7.0, 3, 1.0);
    compare_rows(pairs, 0.0, 200, 1.0);
    compare_rows(pairs, 1e6, 130, 0.75);
  }
}
