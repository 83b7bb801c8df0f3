// Kernels that can be swapped at run time for fused multiply-add twins: how the JS loader plugs in
// the relaxed-SIMD module (bindings/js/relaxed.ts, src/kernels-relaxed/).
#pragma once

#include <cstddef>

namespace posenc {

// Each type is the signature of the kernels.hpp function of the same name (src/kernels/kernels.hpp
// states the contracts; fused_kernels.cpp checks the signatures agree).
using RotateHalfTokens = void (*)(float*, std::size_t, std::size_t, std::size_t, std::size_t, const float* const*,
                                  const float* const*, std::size_t, bool, std::size_t);
using RotateInterleavedTokens = void (*)(float*, std::size_t, std::size_t, std::size_t, std::size_t,
                                         const float* const*, const float* const*, std::size_t, bool);
using PhasorRowsNarrow = void (*)(double*, double*, const double*, const double*, std::size_t, std::size_t, double,
                                  float*, float*, std::size_t);
using PhasorRowsNarrowInterleave = void (*)(double*, double*, const double*, const double*, std::size_t, std::size_t,
                                            double, float*, std::size_t);

/// The replaceable kernels: those where a fused multiply-add does the arithmetic that bounds them
/// (docs/performance.md, "Relaxed SIMD"). Where a member is null the built-in SIMD kernel runs. The
/// RoPE rotations are used for calls whose q and k fit in cache (rope_driver.cpp's grouped order);
/// larger calls stream through the built-in kernels, bound by memory. The members are the list
/// `fusedKernels` of bindings/boundary/functions.mjs in snake_case, in its order: the generated
/// fused_kernels_from (the bindings' use of this struct) does not compile otherwise.
struct FusedKernels {
  RotateHalfTokens rotate_half_tokens = nullptr;
  RotateInterleavedTokens rotate_interleaved_tokens = nullptr;
  PhasorRowsNarrow phasor_rows_narrow = nullptr;
  PhasorRowsNarrowInterleave phasor_rows_narrow_interleave = nullptr;
};

/// Makes every later call use `kernels` (null members: the built-in ones). The replacements must
/// honour kernels.hpp's contracts and stay within docs/encodings.md#82-precision's bounds. Process-wide:
/// call it before the calls it should affect, never during one.
void use_fused_kernels(const FusedKernels& kernels);

/// Whether use_fused_kernels has replaced every built-in kernel listed in FusedKernels.
bool fused_kernels_in_use();

}  // namespace posenc
