// ViT position-table interpolation: PyTorch bicubic (align_corners=False, a = -0.75) checked against
// worked values and against a direct 4x4-tap float64 sum written here independently.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "posenc/vit.hpp"
#include "test_util.hpp"

using namespace posenc;

namespace {

/// Keys' cubic convolution kernel (a = -0.75) as a function of the signed distance to a tap.
double keys_kernel(double distance) {
  const double a = -0.75;
  const double x = std::fabs(distance);
  if (x <= 1) return (a + 2) * std::pow(x, 3) - (a + 3) * std::pow(x, 2) + 1;
  if (x < 2) return a * std::pow(x, 3) - 5 * a * std::pow(x, 2) + 8 * a * x - 4 * a;
  return 0;
}

long clamp_index(long i, std::size_t n) { return i < 0 ? 0 : (i >= static_cast<long>(n) ? static_cast<long>(n) - 1 : i); }

/// One output value as a direct sum over the 4x4 taps around the (unclamped) source point.
double bicubic_ref(const std::vector<float>& grid, GridSize from, std::size_t dim, GridSize to, std::size_t oy,
                   std::size_t ox, std::size_t c) {
  const double sy = (oy + 0.5) * static_cast<double>(from.height) / static_cast<double>(to.height) - 0.5;
  const double sx = (ox + 0.5) * static_cast<double>(from.width) / static_cast<double>(to.width) - 0.5;
  const long by = static_cast<long>(std::floor(sy));
  const long bx = static_cast<long>(std::floor(sx));
  double sum = 0;
  for (long ty = by - 1; ty <= by + 2; ++ty) {
    for (long tx = bx - 1; tx <= bx + 2; ++tx) {
      const double v = grid[(clamp_index(ty, from.height) * from.width + clamp_index(tx, from.width)) * dim + c];
      sum += keys_kernel(sy - ty) * keys_kernel(sx - tx) * v;
    }
  }
  return sum;
}

std::vector<float> resize(const std::vector<float>& grid, GridSize from, std::size_t dim, GridSize to) {
  std::vector<float> out(to.height * to.width * dim, -999.0f);
  const Status st = bicubic_resize(grid.data(), from, dim, to, out.data());
  REQUIRE(st.ok());
  return out;
}

bool contains(const Status& st, const std::string& text) { return st.message().find(text) != std::string::npos; }

}  // namespace

TEST_CASE("bicubic 2x2 -> 3x3 matches worked values (source coordinate not clamped)", "[vit]") {
  // Per axis the source points are -1/6, 1/2, 7/6. At -1/6: floor -1, t = 5/6, taps -2..1 read
  // samples 0, 0, 0, 1 with weights W(11/6), W(5/6), W(1/6), W(7/6) = (-15, 139, 815, -75) / 864,
  // so sample 0 weighs 939/864 and sample 1 -75/864; the middle point weighs both 1/2; the last
  // point mirrors the first. (Clamping the coordinate to 0 would give the corner exactly 1.)
  const double m[3][2] = {{939.0 / 864, -75.0 / 864}, {0.5, 0.5}, {-75.0 / 864, 939.0 / 864}};
  const std::vector<float> ramp = {1, 2, 3, 4};  // value = 1 + 2 row + col
  const auto out = resize(ramp, {2, 2}, 1, {3, 3});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const double expected = 1 + 2 * m[i][1] + m[j][1];
      CHECK(out[i * 3 + j] == Approx(expected).epsilon(1e-7));
    }
  CHECK(out[0] == Approx(639.0 / 864).epsilon(1e-7));
  CHECK(out[4] == 2.5f);
  const std::vector<float> corner = {1, 0, 0, 0};  // a separable product of the axis weights
  const auto spike = resize(corner, {2, 2}, 1, {3, 3});
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) CHECK(spike[i * 3 + j] == Approx(m[i][0] * m[j][0]).epsilon(1e-7));
}

TEST_CASE("bicubic 3x3 -> 2x2 matches worked values (downscale, border taps)", "[vit]") {
  // Source points 0.25 and 1.75; weights W(1.25), W(0.25), W(0.75), W(1.75) =
  // -0.10546875, 0.87890625, 0.26171875, -0.03515625 (all dyadic, so the results are exact floats).
  // At 0.25 the taps -1..2 read samples 0, 0, 1, 2: sample weights 0.7734375, 0.26171875, -0.03515625.
  const std::vector<float> ramp = {0, 1, 2, 3, 4, 5, 6, 7, 8};  // value = 3 row + col
  const auto out = resize(ramp, {3, 3}, 1, {2, 2});
  CHECK(out[0] == 0.765625f);
  CHECK(out[1] == 2.3828125f);
  CHECK(out[2] == 5.6171875f);
  CHECK(out[3] == 7.234375f);
  std::vector<float> center(9, 0.0f);
  center[4] = 1;
  for (float v : resize(center, {3, 3}, 1, {2, 2})) CHECK(v == 0.0684967041015625f);  // (67/256)^2
}

TEST_CASE("bicubic matches the direct 4x4-tap sum: up, down, non-square, one axis kept", "[vit]") {
  struct Case {
    GridSize from, to;
    std::size_t dim;
  };
  const Case cases[] = {
      {{4, 4}, {7, 7}, 3},    {{7, 7}, {4, 4}, 3},  {{3, 5}, {6, 2}, 4},  {{14, 14}, {24, 20}, 5},
      {{2, 3}, {2, 7}, 2},    {{5, 1}, {1, 3}, 3},  {{1, 1}, {3, 2}, 2},  {{6, 9}, {6, 4}, 1},
      {{16, 16}, {5, 37}, 2},
  };
  std::uint64_t seed = 10;
  for (const Case& c : cases) {
    const auto grid = posenc::test::random_floats(c.from.height * c.from.width * c.dim, ++seed);
    const auto out = resize(grid, c.from, c.dim, c.to);
    double worst = 0;
    for (std::size_t y = 0; y < c.to.height; ++y)
      for (std::size_t x = 0; x < c.to.width; ++x)
        for (std::size_t j = 0; j < c.dim; ++j) {
          const double ref = bicubic_ref(grid, c.from, c.dim, c.to, y, x, j);
          worst = std::fmax(worst, std::fabs(out[(y * c.to.width + x) * c.dim + j] - ref));
        }
    INFO("from " << c.from.height << "x" << c.from.width << " to " << c.to.height << "x" << c.to.width);
    CHECK(worst < 2e-7);  // float32 rounding of values below ~1.5
  }
}

TEST_CASE("bicubic keeps constants and clamps taps to the border", "[vit]") {
  const std::vector<float> one = {0.375f, -2.5f};  // a 1x1 grid of two channels
  const auto out = resize(one, {1, 1}, 2, {3, 4});
  for (std::size_t i = 0; i < out.size(); i += 2) {
    CHECK(out[i] == 0.375f);
    CHECK(out[i + 1] == -2.5f);
  }
  // A single output sample sits at the middle, (in - 1) / 2 = 1.5 for 4 inputs: weights of t = 0.5.
  const std::vector<float> row = {1, 10, 100, 1000};
  const auto mid = resize(row, {1, 4}, 1, {1, 1});
  CHECK(mid[0] == Approx(-0.09375 * 1 + 0.59375 * 10 + 0.59375 * 100 - 0.09375 * 1000).epsilon(1e-7));
}

TEST_CASE("equal sizes are an exact copy", "[vit]") {
  auto grid = posenc::test::random_floats(5 * 3 * 4, 3);
  grid[0] = -0.0f;
  grid[1] = 1e-40f;  // subnormal
  const auto out = resize(grid, {5, 3}, 4, {5, 3});
  REQUIRE(std::memcmp(out.data(), grid.data(), grid.size() * sizeof(float)) == 0);
}

TEST_CASE("vit_interpolate keeps prefix rows and resizes the grid rows", "[vit]") {
  const std::size_t dim = 6;
  for (std::size_t prefix : {0u, 1u, 2u}) {
    const GridSize from{3, 4}, to{5, 2};
    const auto data = posenc::test::random_floats((prefix + 12) * dim, 20 + prefix);
    const PositionTable table{data.data(), prefix + 12, dim};
    VitInterpolation options{from, to, prefix};
    std::size_t rows = 0;
    REQUIRE(vit_interpolated_rows(options, &rows).ok());
    REQUIRE(rows == prefix + 10);
    std::vector<float> out(rows * dim);
    REQUIRE(vit_interpolate(table, options, out.data()).ok());
    INFO("numPrefixTokens " << prefix);
    CHECK(std::memcmp(out.data(), data.data(), prefix * dim * sizeof(float)) == 0);
    const std::vector<float> grid(data.begin() + static_cast<long>(prefix * dim), data.end());
    const auto resized = resize(grid, from, dim, to);
    CHECK(std::memcmp(out.data() + prefix * dim, resized.data(), resized.size() * sizeof(float)) == 0);
  }
  // Same grid: the whole table comes back unchanged (Hugging Face returns it as is).
  const auto data = posenc::test::random_floats(17 * 3, 7);
  std::vector<float> out(17 * 3);
  REQUIRE(vit_interpolate({data.data(), 17, 3}, {{4, 4}, {4, 4}, 1}, out.data()).ok());
  CHECK(out == data);
}

TEST_CASE("vit_interpolate and bicubic_resize report bad arguments by name", "[vit][errors]") {
  const std::vector<float> data(10 * 2, 1.0f);
  std::vector<float> out(64, 7.0f);
  const auto untouched = out;
  const PositionTable table{data.data(), 10, 2};

  Status st = vit_interpolate(table, {{3, 3}, {2, 2}, 2}, out.data());
  CHECK(st.code() == StatusCode::shape_mismatch);
  CHECK(st.message() == "table rows must equal numPrefixTokens + gridSize[0] * gridSize[1] (2 + 3 * 3 = 11), got 10");
  st = vit_interpolate(table, {{2, 2}, {2, 2}, 11}, out.data());
  CHECK(st.code() == StatusCode::shape_mismatch);
  CHECK(contains(st, "(11 + 2 * 2 = 15), got 10"));
  CHECK(out == untouched);

  st = vit_interpolate(table, {{0, 3}, {2, 2}, 1}, out.data());
  CHECK(st.code() == StatusCode::invalid_argument);
  CHECK(st.message() == "gridSize[0] must be an integer >= 1, got 0");
  CHECK(contains(vit_interpolate(table, {{3, 0}, {2, 2}, 1}, out.data()), "gridSize[1] must be"));
  CHECK(contains(vit_interpolate(table, {{3, 3}, {0, 2}, 1}, out.data()), "newGridSize[0] must be"));
  CHECK(contains(vit_interpolate(table, {{3, 3}, {2, 0}, 1}, out.data()), "newGridSize[1] must be"));
  CHECK(contains(vit_interpolate({data.data(), 10, 0}, {{3, 3}, {2, 2}, 1}, out.data()), "dim must be"));
  CHECK(contains(vit_interpolate({data.data(), 0, 2}, {{3, 3}, {2, 2}, 1}, out.data()), "table rows must be"));
  CHECK(contains(vit_interpolate({nullptr, 10, 2}, {{3, 3}, {2, 2}, 1}, out.data()), "table must not be empty"));
  CHECK(out == untouched);

  const std::size_t huge = static_cast<std::size_t>(-1) / 2;
  st = vit_interpolate(table, {{3, 3}, {huge, 4}, 1}, out.data());
  CHECK(st.code() == StatusCode::size_overflow);
  CHECK(contains(st, "newGridSize"));
  st = vit_interpolate(table, {{3, 3}, {huge, 2}, 1}, out.data());  // rows fit, rows * dim does not
  CHECK(st.code() == StatusCode::size_overflow);
  CHECK(contains(st, "interpolated table"));
  std::size_t rows = 0;
  st = vit_interpolated_rows({{1, 1}, {huge, 2}, 2}, &rows);
  CHECK(st.code() == StatusCode::size_overflow);
  CHECK(contains(st, "numPrefixTokens"));
  CHECK(out == untouched);

  CHECK(contains(bicubic_resize(nullptr, {2, 2}, 1, {3, 3}, out.data()), "grid must not be empty"));
  CHECK(contains(bicubic_resize(data.data(), {2, 2}, 0, {3, 3}, out.data()), "dim must be"));
  st = bicubic_resize(data.data(), {huge, 4}, 1, {3, 3}, out.data());
  CHECK(st.code() == StatusCode::size_overflow);
  CHECK(contains(st, "the grid"));
  CHECK(out == untouched);
}
