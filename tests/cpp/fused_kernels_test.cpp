// use_fused_kernels (posenc/fused_kernels.hpp): each replaceable kernel, once installed (here the
// scalar reference kernels, counted), does the calls it is meant for, and null members and a reset
// return to the built-in ones. RoPE rotations go through the installed kernels only for calls that
// fit in cache (rope_driver.cpp's grouped order); streaming calls keep the built-in kernels.
#include <catch2/catch.hpp>

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "encodings/detail/active_kernels.hpp"
#include "kernels/kernels.hpp"
#include "posenc/fused_kernels.hpp"
#include "posenc/rope.hpp"
#include "posenc/sinusoidal.hpp"
#include "test_util.hpp"

using namespace posenc;
using posenc::test::random_floats;
namespace ref = posenc::kernels::reference;

namespace {

std::map<std::string, int> g_calls;

void half(float* x, std::size_t tokens, std::size_t ts, std::size_t rows, std::size_t rs, const float* const* c,
          const float* const* s, std::size_t pairs, bool grouped, std::size_t partner) {
  ++g_calls["rotate_half_tokens"];
  ref::rotate_half_tokens(x, tokens, ts, rows, rs, c, s, pairs, grouped, partner);
}
void interleaved(float* x, std::size_t tokens, std::size_t ts, std::size_t rows, std::size_t rs,
                 const float* const* c, const float* const* s, std::size_t pairs, bool grouped) {
  ++g_calls["rotate_interleaved_tokens"];
  ref::rotate_interleaved_tokens(x, tokens, ts, rows, rs, c, s, pairs, grouped);
}
void phasor(double* c, double* s, const double* cw, const double* sw, std::size_t n, std::size_t rows, double scale,
            float* co, float* so, std::size_t stride) {
  ++g_calls["phasor_rows_narrow"];
  ref::phasor_rows_narrow(c, s, cw, sw, n, rows, scale, co, so, stride);
}
void phasor_interleave(double* c, double* s, const double* cw, const double* sw, std::size_t n, std::size_t rows,
                       double scale, float* dst, std::size_t stride) {
  ++g_calls["phasor_rows_narrow_interleave"];
  ref::phasor_rows_narrow_interleave(c, s, cw, sw, n, rows, scale, dst, stride);
}
FusedKernels counted() {
  FusedKernels k;
  k.rotate_half_tokens = &half;
  k.rotate_interleaved_tokens = &interleaved;
  k.phasor_rows_narrow = &phasor;
  k.phasor_rows_narrow_interleave = &phasor_interleave;
  return k;
}

/// Restores the built-in kernels when a test ends, even a failing one.
struct Reset {
  ~Reset() { use_fused_kernels(FusedKernels{}); }
};

/// q [1, seq, heads, 64] rotated at positions 3.., with the kernels installed at the time.
std::vector<float> rotated(Pairing pairing, std::size_t seq, std::size_t heads) {
  std::vector<double> inv_freq;
  REQUIRE(rope_default_inv_freq(64, 10000.0, &inv_freq).ok());
  auto q = random_floats(seq * heads * 64, 7);
  const RopeTensors t{q.data(), heads, nullptr, 0, 1, seq, 64, HeadLayout::bshd};
  REQUIRE(rope_apply({pairing, 64, inv_freq.data(), 1.0}, Positions::range(3), t).ok());
  return q;
}

void require_close(const std::vector<float>& a, const std::vector<float>& b, double margin) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) REQUIRE(a[i] == Approx(b[i]).margin(margin));
}

}  // namespace

TEST_CASE("installed rotation kernels do the float32 rotations that fit in cache; streaming calls stay built in",
          "[rope][kernels]") {
  const Reset reset;
  for (auto pairing : {Pairing::half, Pairing::interleaved}) {
    const std::string name = pairing == Pairing::half ? "rotate_half_tokens" : "rotate_interleaved_tokens";
    const std::string other = pairing == Pairing::half ? "rotate_interleaved_tokens" : "rotate_half_tokens";
    const auto small = rotated(pairing, 40, 3);       // 30 KiB: the grouped order
    const auto large = rotated(pairing, 1200, 4);     // 1.2 MiB: past kGroupedMaxBytes, memory order
    REQUIRE_FALSE(fused_kernels_in_use());
    use_fused_kernels(counted());
    REQUIRE(fused_kernels_in_use());
    g_calls.clear();
    require_close(rotated(pairing, 40, 3), small, 1e-6);
    CHECK(g_calls[name] > 0);
    CHECK(g_calls[other] == 0);
    CHECK(g_calls["phasor_rows_narrow"] > 0);  // the cos/sin rows are angle rows too
    g_calls.clear();
    CHECK(rotated(pairing, 1200, 4) == large);
    CHECK(g_calls[name] == 0);
    use_fused_kernels(FusedKernels{});
    CHECK_FALSE(fused_kernels_in_use());
    g_calls.clear();
    CHECK(rotated(pairing, 40, 3) == small);
    CHECK(g_calls.empty());
  }
}

TEST_CASE("installed phasor kernels build the angle rows of sinusoidal tables, exact and fast", "[sinusoidal][kernels]") {
  const Reset reset;
  const std::size_t rows = 200;
  const int dim = 48;
  auto table = [&](SinusoidLayout layout, SinusoidPrecision precision) {
    SinusoidalParams p;
    p.dim = dim;
    p.layout = layout;
    p.precision = precision;
    std::vector<float> out(rows * dim);
    REQUIRE(sinusoidal_table(p, Positions::range(5), rows, out.data()).ok());
    return out;
  };
  struct Case {
    SinusoidLayout layout;
    SinusoidPrecision precision;
    const char* kernel;
  };
  // Exact tables step their rows in the layout's order; fast tables step the anchor and offset rows
  // (contiguous), then combine them with the built-in float kernels.
  for (const Case c : {Case{SinusoidLayout::interleaved, SinusoidPrecision::exact, "phasor_rows_narrow_interleave"},
                       Case{SinusoidLayout::half, SinusoidPrecision::exact, "phasor_rows_narrow"},
                       Case{SinusoidLayout::interleaved, SinusoidPrecision::fast, "phasor_rows_narrow"},
                       Case{SinusoidLayout::half, SinusoidPrecision::fast, "phasor_rows_narrow"}}) {
    INFO(static_cast<int>(c.layout) << " " << static_cast<int>(c.precision));
    const auto builtin = table(c.layout, c.precision);
    use_fused_kernels(counted());
    g_calls.clear();
    require_close(table(c.layout, c.precision), builtin, 1e-7);
    CHECK(g_calls[c.kernel] > 0);
    CHECK(g_calls["rotate_half_tokens"] + g_calls["rotate_interleaved_tokens"] == 0);
    use_fused_kernels(FusedKernels{});
  }
}

TEST_CASE("fused_kernels_in_use needs every kernel replaced; a null member keeps the built-in one", "[kernels]") {
  const Reset reset;
  FusedKernels some = counted();
  some.phasor_rows_narrow = nullptr;
  use_fused_kernels(some);
  CHECK_FALSE(fused_kernels_in_use());
  CHECK(detail::active_kernels().phasor_rows_narrow == &kernels::phasor_rows_narrow);
  CHECK(detail::active_kernels().phasor_rows_narrow_interleave == &phasor_interleave);
  use_fused_kernels(counted());
  CHECK(fused_kernels_in_use());
}
