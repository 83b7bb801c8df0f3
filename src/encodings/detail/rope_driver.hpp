// The RoPE driver: validates q/k shapes once, then hands rows of tokens to the rotation kernels.
#pragma once

#include <cstddef>
#include <vector>

#include "encodings/detail/scratch.hpp"
#include "posenc/rope.hpp"

namespace posenc::detail {

/// Tokens processed together: their cos/sin rows are computed once and used by every head.
constexpr std::size_t kRopeChunkTokens = 64;

/// Row order of the rotation kernels (see grouped_order in rope_driver.cpp): grouped for head
/// dims up to 2 kGroupedMaxPairs while q and k together are at most kGroupedMaxBytes, memory
/// order otherwise.
constexpr std::size_t kGroupedMaxPairs = 64;
constexpr std::size_t kGroupedMaxBytes = std::size_t{1} << 20;

/// Checks the pairing, rotaryDim (even, 2..headDim) and the shapes of q and k.
Status check_rope_tensors(const RopeTensors& t, Pairing pairing, int rotary_dim);

/// Rotates tokens s0..s0+count-1 of batch row b, every head of q and of k. Row j of cos_rows/sin_rows
/// serves token s0 + j: `pairs` values for half pairing, 2*pairs expanded values for interleaved
/// (see expand_interleaved).
void rotate_tokens(const RopeTensors& t, Pairing pairing, std::size_t pairs, std::size_t b, std::size_t s0,
                   std::size_t count, const float* const* cos_rows, const float* const* sin_rows);

/// Same, with separate rows for q and for k (xPos scales them differently).
void rotate_tokens(const RopeTensors& t, Pairing pairing, std::size_t pairs, std::size_t b, std::size_t s0,
                   std::size_t count, const float* const* q_cos_rows, const float* const* q_sin_rows,
                   const float* const* k_cos_rows, const float* const* k_sin_rows);

/// Scratch rows for one chunk of tokens, plus the per-token row pointers rotate_tokens reads.
struct ChunkRows {
  /// Compact rows [chunk, pairs]; expanded [chunk, 2 pairs]. Scratch: reused across calls and not
  /// zero-filled, so a one-token call (decoding) allocates and clears nothing.
  Scratch<float> cos, sin, cos2, sin2;
  const float* cos_ptr[kRopeChunkTokens];
  const float* sin_ptr[kRopeChunkTokens];

  /// Allocates compact rows (if `compact`) and, for interleaved pairing, the expanded rows.
  Status allocate(std::size_t pairs, Pairing pairing, bool compact);
  /// Points row j at compact rows (c, s), expanding them first for interleaved pairing.
  void point(std::size_t j, const float* c, const float* s, std::size_t pairs, Pairing pairing);
};

/// [c0 c1 ...], [s0 s1 ...] -> cos2 = [c0 c0 c1 c1 ...], sin2 = [-s0 s0 -s1 s1 ...].
void expand_interleaved(const float* cos, const float* sin, std::size_t pairs, float* cos2, float* sin2);

}  // namespace posenc::detail
