// Every SIMD kernel against its scalar reference: widths 0-70, unaligned starts, both pairings.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/kernels.hpp"
#include "test_util.hpp"

namespace k = posenc::kernels;
using posenc::test::max_abs_diff;
using posenc::test::random_floats;

namespace {
constexpr std::size_t kMaxWidth = 70;
constexpr std::size_t kMaxShift = 7;  // start offsets in elements: 0..7 floats covers every alignment mod 32 bytes
// Float kernels: SIMD (fused or unfused multiply-add) vs scalar differ by a few ulp of values ~1.
constexpr double kFloatTol = 4e-7;

// The rotation kernels take a chunk of tokens; these rotate `rows` rows of one token (or one row).
// In both row orders: cos/sin grouped in registers (true) and one row after another in memory order (false).
template <bool Grouped>
struct SimdOrder {
  static void half(float* x, std::size_t rows, std::size_t stride, const float* c, const float* s, std::size_t pairs) {
    k::rotate_half_tokens(x, 1, 0, rows, stride, &c, &s, pairs, Grouped);
  }
  static void interleaved(float* x, std::size_t rows, std::size_t stride, const float* c, const float* s,
                          std::size_t pairs) {
    k::rotate_interleaved_tokens(x, 1, 0, rows, stride, &c, &s, pairs, Grouped);
  }
};
struct Ref {
  static void half(float* x, std::size_t rows, std::size_t stride, const float* c, const float* s, std::size_t pairs) {
    k::reference::rotate_half_tokens(x, 1, 0, rows, stride, &c, &s, pairs, true);
  }
  static void interleaved(float* x, std::size_t rows, std::size_t stride, const float* c, const float* s,
                          std::size_t pairs) {
    k::reference::rotate_interleaved_tokens(x, 1, 0, rows, stride, &c, &s, pairs, true);
  }
};
}  // namespace

TEST_CASE("kernels report the architecture they were built for", "[kernels]") {
  const std::string name = k::simd_arch_name();
  INFO(name);
  CHECK(!name.empty());
#if defined(__wasm_simd128__)
  CHECK(name == "sse4.1");  // Emscripten translates xsimd's SSE4.1 code to wasm SIMD
#endif
}

TEMPLATE_TEST_CASE("one row, half pairing, matches the reference for every width and alignment", "[kernels][rope]", SimdOrder<true>, SimdOrder<false>) {
  for (std::size_t pairs = 0; pairs <= kMaxWidth; ++pairs) {
    for (std::size_t shift = 0; shift <= kMaxShift; ++shift) {
      auto x = random_floats(2 * pairs + shift, pairs * 31 + shift);
      const auto c = random_floats(pairs + shift, 7 + pairs);
      const auto s = random_floats(pairs + shift, 11 + pairs);
      auto y = x;
      TestType::half(x.data() + shift, 1, 0, c.data() + shift, s.data() + shift, pairs);
      Ref::half(y.data() + shift, 1, 0, c.data() + shift, s.data() + shift, pairs);
      INFO("pairs " << pairs << " shift " << shift);
      REQUIRE(max_abs_diff(x.data(), y.data(), x.size()) <= kFloatTol);
    }
  }
}

TEMPLATE_TEST_CASE("one row, interleaved pairing, matches the reference for every width and alignment", "[kernels][rope]", SimdOrder<true>, SimdOrder<false>) {
  for (std::size_t pairs = 0; pairs <= kMaxWidth; ++pairs) {
    for (std::size_t shift = 0; shift <= kMaxShift; ++shift) {
      auto x = random_floats(2 * pairs + shift, pairs * 17 + shift);
      const auto c = random_floats(2 * pairs + shift, 3 + pairs);
      const auto s = random_floats(2 * pairs + shift, 5 + pairs);
      auto y = x;
      TestType::interleaved(x.data() + shift, 1, 0, c.data() + shift, s.data() + shift, pairs);
      Ref::interleaved(y.data() + shift, 1, 0, c.data() + shift, s.data() + shift, pairs);
      INFO("pairs " << pairs << " shift " << shift);
      REQUIRE(max_abs_diff(x.data(), y.data(), x.size()) <= kFloatTol);
    }
  }
}

TEMPLATE_TEST_CASE("rotation kernels leave lanes outside the rotated span untouched", "[kernels][rope]", SimdOrder<true>, SimdOrder<false>) {
  for (std::size_t pairs = 1; pairs <= 33; ++pairs) {
    auto x = random_floats(2 * pairs + 9, pairs);
    const auto before = x;
    const auto c = random_floats(2 * pairs, 1);
    const auto s = random_floats(2 * pairs, 2);
    TestType::half(x.data() + 1, 1, 0, c.data(), s.data(), pairs);
    CHECK(x[0] == before[0]);
    for (std::size_t i = 2 * pairs + 1; i < x.size(); ++i) CHECK(x[i] == before[i]);
    x = before;
    TestType::interleaved(x.data() + 1, 1, 0, c.data(), s.data(), pairs);
    CHECK(x[0] == before[0]);
    for (std::size_t i = 2 * pairs + 1; i < x.size(); ++i) CHECK(x[i] == before[i]);
  }
}

TEST_CASE("copy moves float and int32 values exactly for every width and alignment", "[kernels]") {
  for (std::size_t n = 0; n <= kMaxWidth; ++n) {
    for (std::size_t shift = 0; shift <= kMaxShift; ++shift) {
      const auto src = random_floats(n + shift, n + 7 * shift);
      std::vector<float> dst(n + 2 * shift + 1, -3.0f);
      k::copy(dst.data() + shift, src.data() + (kMaxShift - shift) % (shift + 1), n);
      for (std::size_t i = 0; i < n; ++i) REQUIRE(dst[shift + i] == src[(kMaxShift - shift) % (shift + 1) + i]);
      for (std::size_t i = 0; i < shift; ++i) REQUIRE(dst[i] == -3.0f);
      REQUIRE(dst[shift + n] == -3.0f);  // nothing written past the end
      std::vector<std::int32_t> isrc(n + shift), idst(n + shift + 1, -1);
      for (std::size_t i = 0; i < isrc.size(); ++i) isrc[i] = static_cast<std::int32_t>(i * 2654435761u);
      k::copy(idst.data() + shift, isrc.data() + shift, n);
      for (std::size_t i = 0; i < n; ++i) REQUIRE(idst[shift + i] == isrc[shift + i]);
      REQUIRE(idst[shift + n] == -1);
    }
  }
}

TEST_CASE("shifted_rows builds Toeplitz rows like the reference", "[kernels]") {
  for (std::size_t q = 1; q <= 9; ++q) {
    for (std::size_t kl = 0; kl <= kMaxWidth; kl += 3) {
      const auto diag = random_floats(q + kl, q * 100 + kl);
      std::vector<float> a(q * kl + 1, -9.0f), b = a;
      k::shifted_rows(diag.data(), q, kl, a.data());
      k::reference::shifted_rows(diag.data(), q, kl, b.data());
      REQUIRE(a == b);
      std::vector<std::int32_t> idiag(q + kl), ia(q * kl + 1, -1), ib = ia;
      for (std::size_t i = 0; i < idiag.size(); ++i) idiag[i] = static_cast<std::int32_t>(i) - 40;
      k::shifted_rows(idiag.data(), q, kl, ia.data());
      k::reference::shifted_rows(idiag.data(), q, kl, ib.data());
      REQUIRE(ia == ib);
    }
  }
}

TEST_CASE("add matches the reference for every width and alignment", "[kernels]") {
  for (std::size_t n = 0; n <= kMaxWidth; ++n) {
    for (std::size_t shift = 0; shift <= kMaxShift; ++shift) {
      auto x = random_floats(n + shift, n + 100 * shift);
      const auto src = random_floats(n + shift, n + 1);
      auto y = x;
      k::add(x.data() + shift, src.data() + shift, n);
      k::reference::add(y.data() + shift, src.data() + shift, n);
      REQUIRE(max_abs_diff(x.data(), y.data(), x.size()) == 0.0);
    }
  }
}

namespace {
/// Largest |kernel - std::sin/cos| over `angles` (each start offset 0..2, so odd counts exercise the
/// padded tail); fails at the first angle off by more than `tol`.
double sincos_worst(const std::vector<double>& angles, double tol) {
  double worst = 0;
  for (std::size_t shift = 0; shift < 3; ++shift) {
    const std::size_t n = angles.size() - shift;
    std::vector<double> s(n), c(n), rs(n), rc(n);
    k::sincos(angles.data() + shift, n, s.data(), c.data());
    k::reference::sincos(angles.data() + shift, n, rs.data(), rc.data());
    for (std::size_t i = 0; i < n; ++i) {
      const double e = std::fmax(std::fabs(s[i] - rs[i]), std::fabs(c[i] - rc[i]));
      worst = std::fmax(worst, e);
      if (!(e <= tol)) {
        INFO("angle " << angles[i + shift] << ": sin " << s[i] << " vs " << rs[i] << ", cos " << c[i] << " vs " << rc[i]);
        REQUIRE(e <= tol);
      }
    }
  }
  return worst;
}

// std::sin/std::cos (glibc natively, musl under wasm) reduce every finite double exactly (Payne-Hanek
// for large arguments) and are within an ulp of the true values; the kernel must agree with them
// to a couple of ulp of a value of size 1, whatever the angle.
constexpr double kSinCosTol = 4e-16;
}  // namespace

TEST_CASE("sincos matches std::sin/std::cos to double precision over the range positions reach", "[kernels][trig]") {
  // Angles p * w for p up to 1e7 and w up to 1, negative ones, and the quadrant boundaries.
  std::vector<double> angles;
  for (int i = -2000; i <= 2000; ++i) angles.push_back(i * 0.7853981633974483 * 0.999);  // around k*pi/4
  for (int i = 0; i < 4000; ++i) angles.push_back(std::ldexp(1.0 + i * 0.37, (i % 48) - 24) * (i % 2 ? -1 : 1));
  for (int i = 0; i < 2000; ++i) angles.push_back(1e6 + i * 1234.567);
  for (int i = 0; i < 200; ++i) angles.push_back(9.9e6 + i * 0.123);
  angles.push_back(0.0);
  angles.push_back(-0.0);
  CHECK(sincos_worst(angles, kSinCosTol) <= kSinCosTol);
}

TEST_CASE("sincos is exact for every finite angle, beyond the polynomial path's reduction", "[kernels][trig]") {
  // docs/encodings.md#82-precision: the SIMD reduction serves |angle| up to 2^21 pi/2 (~3.29e6 rad); larger
  // angles go through std::sin/std::cos. Dense samples on both sides of that bound, then every
  // binade up to the largest double, and batches that mix small and huge angles.
  const double bound = 2097152.0 * 1.5707963267948966;
  std::vector<double> angles;
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  auto uniform = [&state] {  // splitmix64 -> [0, 1)
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1p-53;
  };
  for (int i = 0; i < 20000; ++i) angles.push_back((i % 2 ? -1 : 1) * bound * (0.9 + 0.2 * uniform()));
  for (int i = 0; i < 20000; ++i) angles.push_back((i % 2 ? -1 : 1) * bound * uniform());
  for (int e = 21; e <= 1023; ++e) {
    for (int j = 0; j < 8; ++j) angles.push_back(std::ldexp(1.0 + uniform(), e) * (j % 2 ? -1 : 1));
  }
  for (double huge : {1e12, 1e16, 1e18, 1.7e20, 1e20, 1e200, 1.7976931348623157e308, -1e300}) {
    angles.push_back(huge);
    angles.push_back(0.5);  // a small lane next to the huge one, in the same batch
  }
  CHECK(sincos_worst(angles, kSinCosTol) <= kSinCosTol);
}

TEST_CASE("sincos keeps exact values at zero", "[kernels][trig]") {
  const double a[3] = {0.0, -0.0, 0.0};
  double s[3], c[3];
  k::sincos(a, 3, s, c);
  for (int i = 0; i < 3; ++i) {
    CHECK(s[i] == 0.0);
    CHECK(c[i] == 1.0);
  }
}

TEST_CASE("phasor_step, narrow and narrow_interleave match the reference for every width", "[kernels][trig]") {
  for (std::size_t n = 0; n <= kMaxWidth; ++n) {
    for (std::size_t shift = 0; shift <= 3; ++shift) {
      std::vector<double> c(n + shift), s(n + shift), cw(n + shift), sw(n + shift);
      for (std::size_t i = 0; i < n + shift; ++i) {
        c[i] = std::cos(0.3 * i);
        s[i] = std::sin(0.3 * i);
        cw[i] = std::cos(0.01 * i + 0.2);
        sw[i] = std::sin(0.01 * i + 0.2);
      }
      auto c2 = c, s2 = s;
      k::phasor_step(c.data() + shift, s.data() + shift, cw.data() + shift, sw.data() + shift, n);
      k::reference::phasor_step(c2.data() + shift, s2.data() + shift, cw.data() + shift, sw.data() + shift, n);
      for (std::size_t i = 0; i < n + shift; ++i) {
        REQUIRE(std::fabs(c[i] - c2[i]) <= 4e-16);
        REQUIRE(std::fabs(s[i] - s2[i]) <= 4e-16);
      }
      {
        std::vector<float> a(2 * (n + shift) + 1, -7.0f), b = a;
        k::narrow_interleave(c.data() + shift, s.data() + shift, n, 1.25, a.data() + shift);
        k::reference::narrow_interleave(c.data() + shift, s.data() + shift, n, 1.25, b.data() + shift);
        REQUIRE(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
      }
      for (std::size_t stride = 1; stride <= 2; ++stride) {
        std::vector<float> a(stride * (n + shift) + 1, -7.0f), b = a;
        k::narrow(c.data() + shift, n, 0.75, a.data() + shift, stride);
        k::reference::narrow(c.data() + shift, n, 0.75, b.data() + shift, stride);
        REQUIRE(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
      }
    }
  }
}

TEMPLATE_TEST_CASE("the rows of a token match the reference for every width, row count and alignment",
          "[kernels][rope]", SimdOrder<true>,
                   SimdOrder<false>) {
  for (std::size_t pairs = 0; pairs <= kMaxWidth; ++pairs) {
    for (std::size_t rows = 1; rows <= 5; ++rows) {
      for (std::size_t shift = 0; shift <= kMaxShift; shift += (pairs % 3 == 0 ? 1 : 3)) {
        const std::size_t stride = 2 * pairs + (rows % 2);  // odd strides too: rows start unaligned
        const std::size_t n = rows * stride + shift + 3;
        const auto c = random_floats(2 * pairs + shift, 3 + pairs);
        const auto s = random_floats(2 * pairs + shift, 5 + pairs);
        INFO("pairs " << pairs << " rows " << rows << " shift " << shift);
        auto x = random_floats(n, pairs * 13 + rows);
        auto y = x;
        TestType::half(x.data() + shift, rows, stride, c.data() + shift, s.data() + shift, pairs);
        Ref::half(y.data() + shift, rows, stride, c.data() + shift, s.data() + shift, pairs);
        REQUIRE(max_abs_diff(x.data(), y.data(), n) <= kFloatTol);
        x = random_floats(n, pairs * 17 + rows);
        y = x;
        TestType::interleaved(x.data() + shift, rows, stride, c.data() + shift, s.data() + shift, pairs);
        Ref::interleaved(y.data() + shift, rows, stride, c.data() + shift, s.data() + shift, pairs);
        REQUIRE(max_abs_diff(x.data(), y.data(), n) <= kFloatTol);
      }
    }
  }
}

TEMPLATE_TEST_CASE("several rows at once rotate each row as one row at a time does", "[kernels][rope]", SimdOrder<true>, SimdOrder<false>) {
  // A mutation that rotates a row twice, skips the odd last row or reuses the wrong row's data fails here.
  const std::size_t pairs = 12, rows = 7, stride = 30;
  const auto c = random_floats(2 * pairs, 1);
  const auto s = random_floats(2 * pairs, 2);
  auto x = random_floats(rows * stride, 3);
  auto y = x;
  TestType::half(x.data(), rows, stride, c.data(), s.data(), pairs);
  for (std::size_t r = 0; r < rows; ++r) TestType::half(y.data() + r * stride, 1, 0, c.data(), s.data(), pairs);
  CHECK(max_abs_diff(x.data(), y.data(), x.size()) <= kFloatTol);
  x = random_floats(rows * stride, 4);
  y = x;
  TestType::interleaved(x.data(), rows, stride, c.data(), s.data(), pairs);
  for (std::size_t r = 0; r < rows; ++r) TestType::interleaved(y.data() + r * stride, 1, 0, c.data(), s.data(), pairs);
  CHECK(max_abs_diff(x.data(), y.data(), x.size()) <= kFloatTol);
}

TEST_CASE("rotate_half_tokens and rotate_interleaved_tokens use each token's own cos/sin rows", "[kernels][rope]") {
  // Tokens t at x + t * token_stride, `rows` rows each; a mutation that reuses token 0's cos/sin,
  // skips the last token or steps by the row stride fails here, in either row order.
  for (bool grouped : {true, false}) {
    for (std::size_t pairs : {3, 16, 33, 64}) {
      for (std::size_t tokens : {1, 2, 5}) {
        const std::size_t rows = 3, row_stride = 2 * pairs + 1, token_stride = rows * row_stride + 2;
        std::vector<std::vector<float>> c, s;
        std::vector<const float*> cp, sp;
        for (std::size_t t = 0; t < tokens; ++t) {
          c.push_back(random_floats(2 * pairs, 100 + t));
          s.push_back(random_floats(2 * pairs, 200 + t));
        }
        for (std::size_t t = 0; t < tokens; ++t) {
          cp.push_back(c[t].data());
          sp.push_back(s[t].data());
        }
        INFO("pairs " << pairs << " tokens " << tokens << " grouped " << grouped);
        auto x = random_floats(tokens * token_stride, pairs + tokens);
        auto y = x;
        k::rotate_half_tokens(x.data(), tokens, token_stride, rows, row_stride, cp.data(), sp.data(), pairs, grouped);
        for (std::size_t t = 0; t < tokens; ++t) {
          Ref::half(y.data() + t * token_stride, rows, row_stride, cp[t], sp[t], pairs);
        }
        REQUIRE(max_abs_diff(x.data(), y.data(), x.size()) <= kFloatTol);
        x = random_floats(tokens * token_stride, 3 * pairs + tokens);
        y = x;
        k::rotate_interleaved_tokens(x.data(), tokens, token_stride, rows, row_stride, cp.data(), sp.data(), pairs,
                                     grouped);
        for (std::size_t t = 0; t < tokens; ++t) {
          Ref::interleaved(y.data() + t * token_stride, rows, row_stride, cp[t], sp[t], pairs);
        }
        REQUIRE(max_abs_diff(x.data(), y.data(), x.size()) <= kFloatTol);
      }
    }
  }
}

TEST_CASE("expand_interleaved matches the reference for every width and alignment", "[kernels][rope]") {
  for (std::size_t pairs = 0; pairs <= kMaxWidth; ++pairs) {
    for (std::size_t shift = 0; shift <= kMaxShift; ++shift) {
      const auto c = random_floats(pairs + shift, pairs + 1);
      const auto s = random_floats(pairs + shift, pairs + 2);
      std::vector<float> c2(2 * pairs + shift + 1, -9.0f), s2 = c2, rc2 = c2, rs2 = c2;
      k::expand_interleaved(c.data() + shift, s.data() + shift, pairs, c2.data() + shift, s2.data() + shift);
      k::reference::expand_interleaved(c.data() + shift, s.data() + shift, pairs, rc2.data() + shift, rs2.data() + shift);
      INFO("pairs " << pairs << " shift " << shift);
      REQUIRE(std::memcmp(c2.data(), rc2.data(), c2.size() * sizeof(float)) == 0);
      REQUIRE(std::memcmp(s2.data(), rs2.data(), s2.size() * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("phasor_rows_narrow and phasor_rows_narrow_interleave match the reference for every width", "[kernels][trig]") {
  for (std::size_t n = 0; n <= kMaxWidth; ++n) {
    for (std::size_t shift = 0; shift <= 3; ++shift) {
      for (std::size_t rows : {1, 2, 5}) {
        const double scale = rows == 2 ? 0.8125 : 1.0;
        std::vector<double> c(n + shift), s(n + shift), cw(n + shift), sw(n + shift);
        for (std::size_t i = 0; i < n + shift; ++i) {
          c[i] = std::cos(0.3 * i);
          s[i] = std::sin(0.3 * i);
          cw[i] = std::cos(0.01 * i + 0.2);
          sw[i] = std::sin(0.01 * i + 0.2);
        }
        INFO("n " << n << " shift " << shift << " rows " << rows);
        // Fused multiply-adds (native FMA builds) may move the doubles by an ulp per step and a float
        // by one rounding step.
        auto check = [&](const std::vector<double>& a, const std::vector<double>& b) {
          for (std::size_t i = 0; i < a.size(); ++i) REQUIRE(std::fabs(a[i] - b[i]) <= 4e-16 * rows);
        };
        auto check_f = [&](const std::vector<float>& a, const std::vector<float>& b) {
          for (std::size_t i = 0; i < a.size(); ++i) REQUIRE(std::fabs(a[i] - b[i]) <= 6e-8);
        };
        const std::size_t stride = n + shift + 3;  // rows farther apart than their width: gaps stay untouched
        {
          auto c1 = c, s1 = s, c2 = c, s2 = s;
          std::vector<float> co(rows * stride + shift + 1, -7.0f), so = co, rco = co, rso = co;
          k::phasor_rows_narrow(c1.data() + shift, s1.data() + shift, cw.data() + shift, sw.data() + shift, n, rows,
                                scale, co.data() + shift, so.data() + shift, stride);
          k::reference::phasor_rows_narrow(c2.data() + shift, s2.data() + shift, cw.data() + shift, sw.data() + shift,
                                           n, rows, scale, rco.data() + shift, rso.data() + shift, stride);
          check(c1, c2);
          check(s1, s2);
          check_f(co, rco);
          check_f(so, rso);
          // A null output is skipped; the phasors still advance.
          auto c3 = c, s3 = s;
          std::vector<float> only(rows * stride + shift + 1, -7.0f);
          k::phasor_rows_narrow(c3.data() + shift, s3.data() + shift, cw.data() + shift, sw.data() + shift, n, rows,
                                scale, nullptr, only.data() + shift, stride);
          check(c3, c2);
          check_f(only, rso);
        }
        {
          auto c1 = c, s1 = s, c2 = c, s2 = s;
          std::vector<float> out(rows * 2 * stride + shift + 1, -7.0f), ref = out;
          k::phasor_rows_narrow_interleave(c1.data() + shift, s1.data() + shift, cw.data() + shift, sw.data() + shift,
                                           n, rows, scale, out.data() + shift, 2 * stride);
          k::reference::phasor_rows_narrow_interleave(c2.data() + shift, s2.data() + shift, cw.data() + shift,
                                                      sw.data() + shift, n, rows, scale, ref.data() + shift, 2 * stride);
          check(c1, c2);
          check(s1, s2);
          check_f(out, ref);
        }
      }
    }
  }
}

TEST_CASE("anchor_rows and anchor_rows_interleave match the reference for every width", "[kernels][trig]") {
  for (std::size_t n = 0; n <= kMaxWidth; ++n) {
    for (std::size_t shift = 0; shift <= 3; ++shift) {
      for (std::size_t rows : {1, 2, 3, 5}) {
        const auto s0 = random_floats(n + shift, 3 + n);
        const auto c0 = random_floats(n + shift, 5 + n);
        const auto sk = random_floats(rows * n + shift, 7 + n);
        const auto ck = random_floats(rows * n + shift, 9 + n);
        const std::size_t stride = n + shift + 3;  // rows farther apart than their width: gaps stay untouched
        INFO("n " << n << " shift " << shift << " rows " << rows);
        {
          std::vector<float> co(rows * stride + shift + 1, -7.0f), so = co, rco = co, rso = co;
          k::anchor_rows(s0.data() + shift, c0.data() + shift, sk.data() + shift, ck.data() + shift, n, rows,
                         co.data() + shift, so.data() + shift, stride);
          k::reference::anchor_rows(s0.data() + shift, c0.data() + shift, sk.data() + shift, ck.data() + shift, n,
                                    rows, rco.data() + shift, rso.data() + shift, stride);
          REQUIRE(max_abs_diff(co.data(), rco.data(), co.size()) <= kFloatTol);
          REQUIRE(max_abs_diff(so.data(), rso.data(), so.size()) <= kFloatTol);
          std::vector<float> only(rows * stride + shift + 1, -7.0f);  // a null output is skipped
          k::anchor_rows(s0.data() + shift, c0.data() + shift, sk.data() + shift, ck.data() + shift, n, rows, nullptr,
                         only.data() + shift, stride);
          REQUIRE(max_abs_diff(only.data(), rso.data(), only.size()) <= kFloatTol);
        }
        {
          std::vector<float> out(rows * 2 * stride + shift + 1, -7.0f), ref = out;
          k::anchor_rows_interleave(s0.data() + shift, c0.data() + shift, sk.data() + shift, ck.data() + shift, n,
                                    rows, out.data() + shift, 2 * stride);
          k::reference::anchor_rows_interleave(s0.data() + shift, c0.data() + shift, sk.data() + shift,
                                               ck.data() + shift, n, rows, ref.data() + shift, 2 * stride);
          REQUIRE(max_abs_diff(out.data(), ref.data(), out.size()) <= kFloatTol);
        }
      }
    }
  }
}

TEST_CASE("add matches the reference on long rows (the unrolled body)", "[kernels]") {
  for (std::size_t n : {63, 64, 65, 127, 128, 129, 1000, 1031}) {
    for (std::size_t shift = 0; shift <= 3; ++shift) {
      auto x = random_floats(n + shift, n);
      const auto src = random_floats(n + shift, n + 1);
      auto y = x;
      k::add(x.data() + shift, src.data() + shift, n);
      k::reference::add(y.data() + shift, src.data() + shift, n);
      REQUIRE(max_abs_diff(x.data(), y.data(), x.size()) == 0.0);
    }
  }
}

TEST_CASE("combine and combine_add match the reference for every width and alignment", "[kernels][trig]") {
  for (std::size_t n = 0; n <= kMaxWidth; ++n) {
    for (std::size_t shift = 0; shift <= kMaxShift; ++shift) {
      const auto a = random_floats(n + shift, 1), b = random_floats(n + shift, 2);
      const auto c = random_floats(n + shift, 3), s = random_floats(n + shift, 4);
      const auto x0 = random_floats(n + shift, 5);
      std::vector<float> simd(n + shift, 9.0f), ref(n + shift, 9.0f);
      k::combine(a.data() + shift, b.data() + shift, c.data() + shift, s.data() + shift, n, simd.data() + shift);
      k::reference::combine(a.data() + shift, b.data() + shift, c.data() + shift, s.data() + shift, n, ref.data() + shift);
      INFO("n " << n << " shift " << shift);
      REQUIRE(max_abs_diff(simd.data(), ref.data(), simd.size()) <= kFloatTol);
      REQUIRE(std::all_of(simd.begin(), simd.begin() + static_cast<std::ptrdiff_t>(shift), [](float v) { return v == 9.0f; }));
      simd = x0;
      ref = x0;
      k::combine_add(a.data() + shift, b.data() + shift, c.data() + shift, s.data() + shift, n, simd.data() + shift);
      k::reference::combine_add(a.data() + shift, b.data() + shift, c.data() + shift, s.data() + shift, n, ref.data() + shift);
      REQUIRE(max_abs_diff(simd.data(), ref.data(), simd.size()) <= kFloatTol);
      if (n > 0) REQUIRE(simd[shift] != x0[shift]);  // it wrote
    }
  }
}

TEST_CASE("rotate_half_tokens with a wider partner rotates the first pairs of wider halves, like the reference",
          "[kernels][rope]") {
  // Gemma 4's proportional RoPE: pairs (i, i + partner) for i < pairs, partner > pairs; the lanes
  // in between and after stay as they are. Checked against the scalar reference and by hand.
  for (bool grouped : {true, false}) {
    for (std::size_t pairs : {1, 3, 4, 16, 33}) {
      const std::size_t partner = pairs + 5, rows = 3, row_stride = 2 * partner + 1;
      const auto c = random_floats(pairs, 300 + pairs);
      const auto s = random_floats(pairs, 400 + pairs);
      const float* cp = c.data();
      const float* sp = s.data();
      INFO("pairs " << pairs << " grouped " << grouped);
      auto x = random_floats(rows * row_stride, 500 + pairs);
      auto y = x;
      const auto x0 = x;
      k::rotate_half_tokens(x.data(), 1, 0, rows, row_stride, &cp, &sp, pairs, grouped, partner);
      k::reference::rotate_half_tokens(y.data(), 1, 0, rows, row_stride, &cp, &sp, pairs, true, partner);
      REQUIRE(max_abs_diff(x.data(), y.data(), x.size()) <= kFloatTol);
      for (std::size_t r = 0; r < rows; ++r) {
        const float* a = x0.data() + r * row_stride;
        const float* got = x.data() + r * row_stride;
        for (std::size_t i = 0; i < pairs; ++i) {
          CHECK(std::fabs(got[i] - (a[i] * c[i] - a[i + partner] * s[i])) <= kFloatTol);
          CHECK(std::fabs(got[i + partner] - (a[i] * s[i] + a[i + partner] * c[i])) <= kFloatTol);
        }
        for (std::size_t j = pairs; j < partner; ++j) CHECK(got[j] == a[j]);
        for (std::size_t j = partner + pairs; j < row_stride; ++j) CHECK(got[j] == a[j]);
      }
    }
  }
}
