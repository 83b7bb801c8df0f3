// The kernels in use: the built-in SIMD ones, or the fused twins use_fused_kernels installed.
#include "posenc/fused_kernels.hpp"

#include <type_traits>

#include "encodings/detail/active_kernels.hpp"
#include "kernels/kernels.hpp"

namespace posenc {
namespace {

// One definition of each signature: the public types must be the kernels' own.
static_assert(std::is_same_v<RotateHalfTokens, decltype(&kernels::rotate_half_tokens)>);
static_assert(std::is_same_v<RotateInterleavedTokens, decltype(&kernels::rotate_interleaved_tokens)>);
static_assert(std::is_same_v<PhasorRowsNarrow, decltype(&kernels::phasor_rows_narrow)>);
static_assert(std::is_same_v<PhasorRowsNarrowInterleave, decltype(&kernels::phasor_rows_narrow_interleave)>);

FusedKernels builtin() {
  FusedKernels k;
  k.rotate_half_tokens = &kernels::rotate_half_tokens;
  k.rotate_interleaved_tokens = &kernels::rotate_interleaved_tokens;
  k.phasor_rows_narrow = &kernels::phasor_rows_narrow;
  k.phasor_rows_narrow_interleave = &kernels::phasor_rows_narrow_interleave;
  return k;
}

template <class F>
F pick(F given, F fallback) {
  return given != nullptr ? given : fallback;
}

}  // namespace

FusedKernels detail::g_active_kernels = builtin();

void use_fused_kernels(const FusedKernels& k) {
  FusedKernels& g_active = detail::g_active_kernels;
  const FusedKernels b = builtin();
  g_active.rotate_half_tokens = pick(k.rotate_half_tokens, b.rotate_half_tokens);
  g_active.rotate_interleaved_tokens = pick(k.rotate_interleaved_tokens, b.rotate_interleaved_tokens);
  g_active.phasor_rows_narrow = pick(k.phasor_rows_narrow, b.phasor_rows_narrow);
  g_active.phasor_rows_narrow_interleave = pick(k.phasor_rows_narrow_interleave, b.phasor_rows_narrow_interleave);
}

bool fused_kernels_in_use() {
  const FusedKernels b = builtin();
  const FusedKernels& a = detail::g_active_kernels;
  return a.rotate_half_tokens != b.rotate_half_tokens && a.rotate_interleaved_tokens != b.rotate_interleaved_tokens &&
         a.phasor_rows_narrow != b.phasor_rows_narrow &&
         a.phasor_rows_narrow_interleave != b.phasor_rows_narrow_interleave;
}

}  // namespace posenc
