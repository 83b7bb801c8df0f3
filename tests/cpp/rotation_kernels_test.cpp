// use_rotation_kernels (posenc/rotation_kernels.hpp): float32 RoPE calls go through the kernels it
// installs (here the scalar reference kernels, counted) and return to the built-in ones on null.
#include <catch2/catch.hpp>

#include <cstddef>
#include <vector>

#include "kernels/kernels.hpp"
#include "posenc/rope.hpp"
#include "posenc/rotation_kernels.hpp"
#include "test_util.hpp"

using namespace posenc;
using posenc::test::random_floats;

namespace {

int g_half_calls = 0;
int g_interleaved_calls = 0;

void counted_half(float* x, std::size_t tokens, std::size_t token_stride, std::size_t rows, std::size_t row_stride,
                  const float* const* cos_rows, const float* const* sin_rows, std::size_t pairs, bool grouped,
                  std::size_t partner) {
  ++g_half_calls;
  kernels::reference::rotate_half_tokens(x, tokens, token_stride, rows, row_stride, cos_rows, sin_rows, pairs, grouped,
                                         partner);
}

void counted_interleaved(float* x, std::size_t tokens, std::size_t token_stride, std::size_t rows,
                         std::size_t row_stride, const float* const* cos_rows, const float* const* sin_rows,
                         std::size_t pairs, bool grouped) {
  ++g_interleaved_calls;
  kernels::reference::rotate_interleaved_tokens(x, tokens, token_stride, rows, row_stride, cos_rows, sin_rows, pairs,
                                                grouped);
}

/// q [1, seq, heads, 64] rotated at positions 0.., with the kernels installed at the time.
std::vector<float> rotated(Pairing pairing, std::size_t seq, std::size_t heads) {
  std::vector<double> inv_freq;
  REQUIRE(rope_default_inv_freq(64, 10000.0, &inv_freq).ok());
  auto q = random_floats(seq * heads * 64, 7);
  const RopeTensors t{q.data(), heads, nullptr, 0, 1, seq, 64, HeadLayout::bshd};
  REQUIRE(rope_apply({pairing, 64, inv_freq.data(), 1.0}, Positions::range(3), t).ok());
  return q;
}

}  // namespace

TEST_CASE("installed rotation kernels do every float32 rotation; null restores the built-in ones", "[rope][kernels]") {
  for (auto pairing : {Pairing::half, Pairing::interleaved}) {
    const auto builtin = rotated(pairing, 40, 3);
    REQUIRE_FALSE(rotation_kernels_replaced());
    use_rotation_kernels(&counted_half, &counted_interleaved);
    REQUIRE(rotation_kernels_replaced());
    g_half_calls = g_interleaved_calls = 0;
    const auto replaced = rotated(pairing, 40, 3);
    use_rotation_kernels(nullptr, nullptr);
    CHECK_FALSE(rotation_kernels_replaced());
    CHECK((pairing == Pairing::half ? g_half_calls : g_interleaved_calls) > 0);
    CHECK((pairing == Pairing::half ? g_interleaved_calls : g_half_calls) == 0);
    REQUIRE(replaced.size() == builtin.size());
    for (std::size_t i = 0; i < builtin.size(); ++i) REQUIRE(replaced[i] == Approx(builtin[i]).margin(1e-6));
    g_half_calls = g_interleaved_calls = 0;
    CHECK(rotated(pairing, 40, 3) == builtin);
    CHECK(g_half_calls + g_interleaved_calls == 0);
  }
}
