// Learned position tables: lookup and add, and ids outside the table are errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "posenc/learned.hpp"
#include "test_util.hpp"

using namespace posenc;

TEST_CASE("table_lookup gathers rows for a range and for explicit ids", "[learned]") {
  const std::size_t rows = 10, dim = 5;
  const auto data = posenc::test::random_floats(rows * dim, 1);
  const PositionTable table{data.data(), rows, dim};
  std::vector<float> out(4 * dim);
  REQUIRE(table_lookup(table, Positions::range(6), 4, out.data()).ok());
  for (std::size_t i = 0; i < out.size(); ++i) CHECK(out[i] == data[6 * dim + i]);
  const double ids[4] = {9, 0, 3, 3};
  REQUIRE(table_lookup(table, Positions::list(ids), 4, out.data()).ok());
  for (std::size_t t = 0; t < 4; ++t)
    for (std::size_t j = 0; j < dim; ++j) CHECK(out[t * dim + j] == data[static_cast<std::size_t>(ids[t]) * dim + j]);
}

TEST_CASE("table_add adds rows in place per batch row", "[learned]") {
  const std::size_t rows = 50, dim = 19, batch = 2, seq = 7;
  const auto data = posenc::test::random_floats(rows * dim, 2);
  const PositionTable table{data.data(), rows, dim};
  const auto x0 = posenc::test::random_floats(batch * seq * dim, 3);
  auto x = x0;
  REQUIRE(table_add(table, Positions::range(40), batch, seq, x.data()).ok());
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t s = 0; s < seq; ++s)
      for (std::size_t j = 0; j < dim; ++j) {
        const std::size_t i = (b * seq + s) * dim + j;
        REQUIRE(x[i] == x0[i] + data[(40 + s) * dim + j]);
      }
  std::vector<double> ids(batch * seq);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<double>((i * 13) % rows);
  x = x0;
  REQUIRE(table_add(table, Positions::list(ids.data(), true), batch, seq, x.data()).ok());
  for (std::size_t i = 0; i < x.size(); ++i) {
    REQUIRE(x[i] == x0[i] + data[static_cast<std::size_t>(ids[i / dim]) * dim + i % dim]);
  }
}

TEST_CASE("ids outside the table are errors, never clamped or wrapped", "[learned][errors]") {
  const std::vector<float> data(8 * 4, 1.0f);
  const PositionTable table{data.data(), 8, 4};
  std::vector<float> x(3 * 4, 0.0f);
  const auto before = x;
  Status st = table_add(table, Positions::range(6), 1, 3, x.data());  // 6, 7, 8: 8 is outside
  CHECK(st.code() == StatusCode::out_of_range);
  CHECK(st.message().find("offset + 2") != std::string::npos);
  CHECK(x == before);  // nothing written before the error
  const double negative[3] = {0, -1, 2};
  st = table_add(table, Positions::list(negative), 1, 3, x.data());
  CHECK(st.code() == StatusCode::out_of_range);
  CHECK(st.message().find("positionIds[1]") != std::string::npos);
  const double fractional[3] = {0, 1.5, 2};
  st = table_add(table, Positions::list(fractional), 1, 3, x.data());
  CHECK(st.code() == StatusCode::invalid_argument);
  CHECK(st.message().find("integer") != std::string::npos);
  CHECK(x == before);
  CHECK(table_lookup(PositionTable{data.data(), 0, 4}, Positions::range(0), 1, x.data()).code() ==
        StatusCode::invalid_argument);
  // An output of count * dim floats that no size_t can count is refused before an id is read (the
  // count here is far longer than the list: reading the ids first would run past it).
  const std::size_t huge = std::numeric_limits<std::size_t>::max() / 2;
  CHECK(table_lookup(table, Positions::list(negative), huge, x.data()).code() == StatusCode::size_overflow);
}
