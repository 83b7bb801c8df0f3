// Sinusoidal tables and add-in-place against the float64 formula of docs/encodings.md section 1.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "posenc/sinusoidal.hpp"
#include "test_util.hpp"

using namespace posenc;
using posenc::test::max_abs_diff;
using posenc::test::sinusoid_f64;

namespace {
// Output rounding of values in [-1, 1] is at most 6e-8; allow a little for the recurrence.
constexpr double kTol = 1.2e-7;

/// Column j of the half layout is column half_to_interleaved(j) of the paper layout.
std::size_t half_to_interleaved(std::size_t j, std::size_t dim) {
  const std::size_t sines = (dim + 1) / 2;
  return j < sines ? 2 * j : 2 * (j - sines) + 1;
}

double table_error(const SinusoidalParams& p, const std::vector<double>& positions, const std::vector<float>& out) {
  const auto d = static_cast<std::size_t>(p.dim);
  double worst = 0;
  for (std::size_t t = 0; t < positions.size(); ++t) {
    for (std::size_t j = 0; j < d; ++j) {
      const std::size_t col = p.layout == SinusoidLayout::half ? half_to_interleaved(j, d) : j;
      const double e = std::fabs(out[t * d + j] - sinusoid_f64(positions[t], col, d, p.base));
      worst = std::fmax(worst, e);
    }
  }
  return worst;
}
}  // namespace

TEST_CASE("sinusoidal table equals the float64 formula for a range of positions", "[sinusoidal]") {
  for (int dim : {1, 2, 3, 4, 5, 7, 8, 63, 64, 65, 128, 513, 768}) {
    for (auto layout : {SinusoidLayout::interleaved, SinusoidLayout::half}) {
      for (double base : {10000.0, 500.0, 1e6}) {
        for (double start : {0.0, 3.0, 1000.0, 1e6}) {
          const SinusoidalParams p{dim, base, layout};
          const std::size_t n = 150;  // crosses two resynchronisation points of the recurrence
          std::vector<float> out(n * static_cast<std::size_t>(dim));
          REQUIRE(sinusoidal_table(p, Positions::range(start), n, out.data()).ok());
          std::vector<double> pos(n);
          for (std::size_t t = 0; t < n; ++t) pos[t] = start + static_cast<double>(t);
          INFO("dim " << dim << " layout " << static_cast<int>(layout) << " base " << base << " start " << start);
          REQUIRE(table_error(p, pos, out) <= kTol);
        }
      }
    }
  }
}

TEST_CASE("sinusoidal table for explicit positions: negative, fractional and huge", "[sinusoidal]") {
  const std::vector<double> pos = {0, -1, 2.5, -1000.25, 1e6, 123456789, 7, 7};
  for (int dim : {1, 6, 7, 512}) {
    for (auto layout : {SinusoidLayout::interleaved, SinusoidLayout::half}) {
      const SinusoidalParams p{dim, 10000.0, layout};
      std::vector<float> out(pos.size() * static_cast<std::size_t>(dim));
      REQUIRE(sinusoidal_table(p, Positions::list(pos.data()), pos.size(), out.data()).ok());
      REQUIRE(table_error(p, pos, out) <= kTol);
    }
  }
}

TEST_CASE("sinusoidal row 0 is [0, 1, 0, 1, ...] and odd widths end with a sine", "[sinusoidal]") {
  std::vector<float> out(7);
  REQUIRE(sinusoidal_table({7, 10000.0, SinusoidLayout::interleaved}, Positions::range(0), 1, out.data()).ok());
  CHECK(out == std::vector<float>{0, 1, 0, 1, 0, 1, 0});
  REQUIRE(sinusoidal_table({7, 10000.0, SinusoidLayout::interleaved}, Positions::range(1), 1, out.data()).ok());
  // Column 6 uses exponent 6/7: sin(10000^(-6/7)).
  CHECK(out[6] == Approx(std::sin(std::pow(10000.0, -6.0 / 7.0))).epsilon(1e-7));
  REQUIRE(sinusoidal_table({7, 10000.0, SinusoidLayout::half}, Positions::range(0), 1, out.data()).ok());
  CHECK(out == std::vector<float>{0, 0, 0, 0, 1, 1, 1});
}

TEST_CASE("sinusoidal_add adds the table to every batch row, with offsets and per-row ids", "[sinusoidal]") {
  const SinusoidalParams p{96, 10000.0, SinusoidLayout::interleaved};
  const std::size_t batch = 3, seq = 70, d = 96;
  const auto x0 = posenc::test::random_floats(batch * seq * d, 42);

  auto x = x0;
  REQUIRE(sinusoidal_add(p, Positions::range(5), batch, seq, x.data()).ok());
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t s = 0; s < seq; ++s)
      for (std::size_t j = 0; j < d; ++j) {
        const std::size_t i = (b * seq + s) * d + j;
        REQUIRE(std::fabs(x[i] - (x0[i] + sinusoid_f64(5.0 + s, j, d, 10000.0))) <= 2.5e-7);
      }

  std::vector<double> ids(batch * seq);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<double>((i * 7919) % 4001);
  x = x0;
  REQUIRE(sinusoidal_add(p, Positions::list(ids.data(), true), batch, seq, x.data()).ok());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::size_t token = i / d, j = i % d;
    REQUIRE(std::fabs(x[i] - (x0[i] + sinusoid_f64(ids[token], j, d, 10000.0))) <= 2.5e-7);
  }
}

TEST_CASE("sinusoidal precision 'fast': within 3.2e-7 of the float64 formula at every size and position", "[sinusoidal]") {
  // 63 rows take the exact path; 64 and more combine anchors every 32 rows with 32 offset rows,
  // including partial last blocks (97, 300) and positions far from 0.
  for (int dim : {1, 2, 7, 64, 65, 513, 768}) {
    for (auto layout : {SinusoidLayout::interleaved, SinusoidLayout::half}) {
      for (double base : {10000.0, 1e6}) {
        for (double start : {0.0, 5.0, 1e6}) {
          for (std::size_t n : {std::size_t{63}, std::size_t{64}, std::size_t{97}, std::size_t{300}}) {
            const SinusoidalParams exact{dim, base, layout};
            const SinusoidalParams fast{dim, base, layout, SinusoidPrecision::fast};
            std::vector<float> a(n * static_cast<std::size_t>(dim)), b(a.size());
            REQUIRE(sinusoidal_table(exact, Positions::range(start), n, a.data()).ok());
            REQUIRE(sinusoidal_table(fast, Positions::range(start), n, b.data()).ok());
            std::vector<double> pos(n);
            for (std::size_t t = 0; t < n; ++t) pos[t] = start + static_cast<double>(t);
            INFO("dim " << dim << " layout " << static_cast<int>(layout) << " base " << base << " start " << start
                        << " rows " << n);
            REQUIRE(table_error(fast, pos, b) <= 3.2e-7);
            if (n < 64) REQUIRE(a == b);  // short tables are computed exactly
          }
        }
      }
    }
  }
}

TEST_CASE("sinusoidal precision 'fast' reuses offset rows only for the same frequencies", "[sinusoidal]") {
  // The offset rows are kept per thread while the frequencies repeat (2 to 4096 pairs). Each call
  // here changes them (base, width), has an odd width (whose last sine column is one more pair),
  // or needs more pairs than are kept (8195 columns: 4098 pairs); each table must match the formula.
  const std::pair<int, double> calls[] = {{768, 1e4}, {768, 1e4}, {768, 1e6}, {8195, 1e4}, {768, 1e6}, {770, 1e6},
                                          {769, 1e6}, {769, 1e6}, {8195, 1e6}, {8195, 1e6}, {768, 1e4}};
  for (const auto& [dim, base] : calls) {
    const SinusoidalParams fast{dim, base, SinusoidLayout::interleaved, SinusoidPrecision::fast};
    const std::size_t n = 70;
    std::vector<float> out(n * static_cast<std::size_t>(dim));
    REQUIRE(sinusoidal_table(fast, Positions::range(3), n, out.data()).ok());
    std::vector<double> pos(n);
    for (std::size_t t = 0; t < n; ++t) pos[t] = 3.0 + static_cast<double>(t);
    INFO("dim " << dim << " base " << base);
    REQUIRE(table_error(fast, pos, out) <= 3.2e-7);
  }
}

TEST_CASE("sinusoidal precision 'fast' leaves explicit positions exact and applies to add", "[sinusoidal]") {
  const std::vector<double> pos = {0, -1, 2.5, 1e6, 7};
  const SinusoidalParams exact{64, 10000.0, SinusoidLayout::interleaved};
  const SinusoidalParams fast{64, 10000.0, SinusoidLayout::interleaved, SinusoidPrecision::fast};
  std::vector<float> a(pos.size() * 64), b(a.size());
  REQUIRE(sinusoidal_table(exact, Positions::list(pos.data()), pos.size(), a.data()).ok());
  REQUIRE(sinusoidal_table(fast, Positions::list(pos.data()), pos.size(), b.data()).ok());
  CHECK(a == b);

  const std::size_t seq = 200, d = 64;
  const auto x0 = posenc::test::random_floats(seq * d, 7);
  auto x = x0;
  REQUIRE(sinusoidal_add(fast, Positions::range(3), 1, seq, x.data()).ok());
  for (std::size_t i = 0; i < x.size(); ++i) {
    REQUIRE(std::fabs(x[i] - (x0[i] + sinusoid_f64(3.0 + static_cast<double>(i / d), i % d, d, 10000.0))) <= 4e-7);
  }
}

TEST_CASE("sinusoidal rejects bad parameters with a message naming the argument", "[sinusoidal][errors]") {
  std::vector<float> out(64);
  auto check = [&](SinusoidalParams p, Positions pos, std::size_t n, StatusCode code, const char* needle) {
    const Status st = sinusoidal_table(p, pos, n, out.data());
    INFO(st.message());
    CHECK(st.code() == code);
    CHECK(st.message().find(needle) != std::string::npos);
  };
  check({0, 10000.0}, Positions::range(0), 1, StatusCode::invalid_argument, "dim");
  check({-3, 10000.0}, Positions::range(0), 1, StatusCode::invalid_argument, "dim");
  check({8, std::nan("")}, Positions::range(0), 1, StatusCode::invalid_argument, "base");
  check({8, -2.0}, Positions::range(0), 1, StatusCode::invalid_argument, "base");
  check({8, INFINITY}, Positions::range(0), 1, StatusCode::invalid_argument, "base");
  check({8, 10000.0}, Positions::range(0), 0, StatusCode::invalid_argument, "length");
  check({8, 10000.0}, Positions::range(NAN), 1, StatusCode::invalid_argument, "offset");
  check({8, 10000.0, static_cast<SinusoidLayout>(9)}, Positions::range(0), 1, StatusCode::invalid_argument, "layout");
  check({8, 10000.0, SinusoidLayout::half, static_cast<SinusoidPrecision>(2)}, Positions::range(0), 1,
        StatusCode::invalid_argument, "precision");
  const double bad[2] = {1.0, INFINITY};
  check({4, 10000.0}, Positions::list(bad), 2, StatusCode::invalid_argument, "positionIds[1]");
}

TEST_CASE("anchored sinusoidal tables hold the 'fast' table's rows, in 2 dim (rows/32 + 32) floats", "[sinusoidal][anchored]") {
  // Every layout, odd and even widths, whole and partial last anchor blocks: each row, gathered
  // in order or by id and added in place, is the fast table's row and within 3.2e-7 of the formula.
  // Natively the compiler may fuse a multiply-add in one kernel and not the other, so rows agree
  // to a rounding here; under wasm (no FMA) they are the same bits (tests/js/sinusoidal.test.mjs).
  constexpr double kSame = 1.2e-7, kSameAdded = 2.4e-7;
  for (int dim : {1, 2, 7, 64, 65, 768}) {
    for (auto layout : {SinusoidLayout::interleaved, SinusoidLayout::half}) {
      for (std::size_t rows : {std::size_t{64}, std::size_t{97}, std::size_t{300}}) {
        INFO("dim " << dim << " layout " << static_cast<int>(layout) << " rows " << rows);
        const auto d = static_cast<std::size_t>(dim);
        const SinusoidalParams fast{dim, 10000.0, layout, SinusoidPrecision::fast};
        std::vector<float> want(rows * d);
        REQUIRE(sinusoidal_table(fast, Positions::range(0), rows, want.data()).ok());

        std::size_t floats = 0;
        REQUIRE(anchored_table_floats(rows, d, &floats).ok());
        REQUIRE(floats == 2 * d * ((rows + 31) / 32 + 32));
        std::vector<float> storage(floats);
        REQUIRE(anchored_table_build(fast, rows, storage.data()).ok());
        const AnchoredSinusoidTable table{storage.data(), rows, d};

        std::vector<float> got(rows * d);
        REQUIRE(anchored_table_lookup(table, Positions::range(0), rows, got.data()).ok());
        REQUIRE(max_abs_diff(got.data(), want.data(), got.size()) <= kSame);
        std::vector<double> all(rows);
        for (std::size_t t = 0; t < rows; ++t) all[t] = static_cast<double>(t);
        REQUIRE(table_error(fast, all, got) <= 3.2e-7);

        const std::vector<double> ids = {static_cast<double>(rows - 1), 0, 33, 31, 32};
        std::vector<float> picked(ids.size() * d);
        REQUIRE(anchored_table_lookup(table, Positions::list(ids.data()), ids.size(), picked.data()).ok());
        for (std::size_t t = 0; t < ids.size(); ++t) {
          const auto row = static_cast<std::size_t>(ids[t]);
          REQUIRE(max_abs_diff(picked.data() + t * d, got.data() + row * d, d) == 0.0);
        }

        // Two batch rows at their own positions (offset 5 and per-row ids), added in place.
        const std::size_t seq = 40;
        const auto x0 = posenc::test::random_floats(2 * seq * d, 11);
        auto x = x0;
        REQUIRE(anchored_table_add(table, Positions::range(5), 2, seq, x.data()).ok());
        for (std::size_t i = 0; i < x.size(); ++i) {
          const std::size_t row = 5 + (i / d) % seq;
          REQUIRE(std::fabs(x[i] - (x0[i] + want[row * d + i % d])) <= kSameAdded);
        }
        std::vector<double> per_row(2 * seq);
        for (std::size_t t = 0; t < per_row.size(); ++t) per_row[t] = static_cast<double>((t * 37) % rows);
        x = x0;
        REQUIRE(anchored_table_add(table, Positions::list(per_row.data(), true), 2, seq, x.data()).ok());
        for (std::size_t i = 0; i < x.size(); ++i) {
          const auto row = static_cast<std::size_t>(per_row[i / d]);
          REQUIRE(std::fabs(x[i] - (x0[i] + want[row * d + i % d])) <= kSameAdded);
        }
      }
    }
  }
}

TEST_CASE("anchored sinusoidal tables reject ids outside the table and bad views", "[sinusoidal][anchored][errors]") {
  const SinusoidalParams fast{8, 10000.0, SinusoidLayout::interleaved, SinusoidPrecision::fast};
  std::size_t floats = 0;
  REQUIRE(anchored_table_floats(100, 8, &floats).ok());
  std::vector<float> storage(floats);
  REQUIRE(anchored_table_build(fast, 100, storage.data()).ok());
  const AnchoredSinusoidTable table{storage.data(), 100, 8};
  std::vector<float> out(8 * 4);
  const std::vector<double> bad = {0, 100};
  Status st = anchored_table_lookup(table, Positions::list(bad.data()), 2, out.data());
  CHECK(st.code() == StatusCode::out_of_range);
  const std::vector<double> fractional = {1.5};
  st = anchored_table_lookup(table, Positions::list(fractional.data()), 1, out.data());
  CHECK(st.code() == StatusCode::invalid_argument);
  st = anchored_table_add(table, Positions::range(97), 1, 4, out.data());  // rows 97..100: 100 is past the end
  CHECK(st.code() == StatusCode::out_of_range);
  CHECK(std::all_of(out.begin(), out.end(), [](float v) { return v == 0.0f; }));  // nothing written on error
  st = anchored_table_lookup(AnchoredSinusoidTable{nullptr, 100, 8}, Positions::range(0), 1, out.data());
  CHECK(st.code() == StatusCode::invalid_argument);
  st = anchored_table_build(SinusoidalParams{0, 10000.0}, 100, storage.data());
  CHECK(st.code() == StatusCode::invalid_argument);
  const std::size_t huge = std::numeric_limits<std::size_t>::max();
  CHECK(anchored_table_floats(huge, 256, &floats).code() == StatusCode::size_overflow);
  CHECK(anchored_table_floats(huge / 2, 64, &floats).code() == StatusCode::size_overflow);  // 2 * 64 * huge / 64
  // An output no size_t can count is refused before an id is read (the list is far shorter than the count).
  CHECK(anchored_table_lookup(table, Positions::list(bad.data()), huge / 4, out.data()).code() == StatusCode::size_overflow);
}
