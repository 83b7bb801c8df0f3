// Swapping the RoPE rotation kernels at run time: how the JS loader plugs in the relaxed-SIMD module.
#pragma once

#include <cstddef>

namespace posenc {

/// The signature of the half-pairing token kernel (rotate_half_tokens in src/kernels/kernels.hpp):
/// x, tokens, token_stride, rows, row_stride, cos_rows, sin_rows, pairs, grouped, partner.
using RotateHalfTokens = void (*)(float*, std::size_t, std::size_t, std::size_t, std::size_t, const float* const*,
                                  const float* const*, std::size_t, bool, std::size_t);

/// The signature of the interleaved token kernel (rotate_interleaved_tokens, kernels.hpp).
using RotateInterleavedTokens = void (*)(float*, std::size_t, std::size_t, std::size_t, std::size_t,
                                         const float* const*, const float* const*, std::size_t, bool);

/// Makes every float32 RoPE rotation call `half` and `interleaved` instead of the built-in SIMD
/// kernels; null restores a built-in one. The replacements must honour kernels.hpp's contract and
/// stay within docs/encodings.md 8.2's bound. Process-wide: call it before any RoPE call, not during one.
void use_rotation_kernels(RotateHalfTokens half, RotateInterleavedTokens interleaved);

/// Whether use_rotation_kernels has replaced both built-in rotation kernels.
bool rotation_kernels_replaced();

}  // namespace posenc
