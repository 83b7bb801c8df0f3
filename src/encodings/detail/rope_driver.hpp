// The RoPE driver: the one loop every RoPE form runs. It walks the tokens of q and k in chunks, asks
// the form's row source for the chunk's cos/sin rows and hands them to the rotation kernels for
// every head. A form is only its row source (rope_rows.hpp: rows from frequencies and positions,
// with a per-pair position axis; rope.cpp: rows of a cached table; rope_forms.cpp: xPos's distinct
// q and k rows) and its lanes (which pairs rotate, from which lane on).
#pragma once

#include <algorithm>
#include <cstddef>

#include "posenc/rope.hpp"

namespace posenc::detail {

/// Tokens processed together: their cos/sin rows are computed once and used by every head.
constexpr std::size_t kRopeChunkTokens = 64;

/// Row order of the rotation kernels (see grouped_order in rope_driver.cpp): grouped for head
/// dims up to 2 kGroupedMaxPairs while q and k together are at most kGroupedMaxBytes, memory
/// order otherwise.
constexpr std::size_t kGroupedMaxPairs = 64;
constexpr std::size_t kGroupedMaxBytes = std::size_t{1} << 20;

/// The lanes of a head that rotate: `pairs` pairs in `pairing`, starting at lane `first_lane`
/// (DeepSeek's decoupled RoPE rotates the block after the content lanes). In the half pairing pair
/// i is (first_lane + i, first_lane + i + partner), partner = `half_span` or, when that is 0,
/// `pairs` (Gemma 4's proportional RoPE rotates the first pairs of two wider halves). The other
/// lanes pass through.
struct RopeLanes {
  Pairing pairing = Pairing::half;
  std::size_t pairs = 0;
  std::size_t first_lane = 0;
  std::size_t half_span = 0;
};

/// Checks the pairing, rotaryDim (even, 2..headDim - firstLane) and the shapes of q and k.
Status check_rope_tensors(const RopeTensors& t, Pairing pairing, int rotary_dim, std::size_t first_lane = 0);

/// The cos/sin rows of one chunk of tokens, row j serving token s0 + j: `pairs` values per row for
/// the half pairing, 2 * pairs expanded values for the interleaved one (expand_interleaved).
struct ChunkRowPointers {
  const float* const* q_cos = nullptr;
  const float* const* q_sin = nullptr;
  /// k's own rows (xPos scales q and k differently); null: k takes q's rows.
  const float* const* k_cos = nullptr;
  const float* const* k_sin = nullptr;
  /// false: k is left as it is (a form that changes q only, e.g. a per-position query scale).
  bool rotate_k = true;
  /// Compact rows in double for q and k alike (either pairing), instead of the float rows above:
  /// the rotation is then evaluated in double and rounded to float once (rope_shift.cpp).
  const double* const* cos_exact = nullptr;
  const double* const* sin_exact = nullptr;
};

/// Rotates tokens s0..s0+count-1 of batch row b, every head of q and (unless told not to) of k.
void rotate_tokens(const RopeTensors& t, const RopeLanes& lanes, std::size_t b, std::size_t s0, std::size_t count,
                   const ChunkRowPointers& rows);

/// The RoPE loop. `Rows` is a form's row source, called once per chunk of kRopeChunkTokens tokens:
///
///     ChunkRowPointers rows.chunk(std::size_t group, std::size_t s0, std::size_t count);
///
/// With `per_batch_positions` every batch row has its own positions and is its own group;
/// otherwise the positions are shared and the rows of group 0 serve every batch row. The inputs are
/// validated before (check_rope_tensors and the form's own checks); the loop cannot fail.
template <class Rows>
void drive_rope(const RopeTensors& t, const RopeLanes& lanes, bool per_batch_positions, Rows& rows) {
  const std::size_t groups = per_batch_positions ? t.batch : 1;
  const std::size_t rows_per_group = per_batch_positions ? 1 : t.batch;
  for (std::size_t g = 0; g < groups; ++g) {
    for (std::size_t s0 = 0; s0 < t.seq; s0 += kRopeChunkTokens) {
      const std::size_t n = std::min(kRopeChunkTokens, t.seq - s0);
      const ChunkRowPointers chunk = rows.chunk(g, s0, n);
      for (std::size_t r = 0; r < rows_per_group; ++r) rotate_tokens(t, lanes, g + r, s0, n, chunk);
    }
  }
}

/// Reorders the 2 * pairs lanes from `first_lane` of every head row of q and k (when given) from
/// [x0 x1 x2 x3 ...] to [x0 x2 x4 ... x1 x3 x5 ...]: DeepSeek-V3's rope_interleave, after which the
/// block rotates in the half pairing (HF apply_rotary_pos_emb_interleave). Shapes checked before.
Status deinterleave_lanes(const RopeTensors& t, std::size_t first_lane, std::size_t pairs);

/// [c0 c1 ...], [s0 s1 ...] -> cos2 = [c0 c0 c1 c1 ...], sin2 = [-s0 s0 -s1 s1 ...].
void expand_interleaved(const float* cos, const float* sin, std::size_t pairs, float* cos2, float* sin2);

}  // namespace posenc::detail
