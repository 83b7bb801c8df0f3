// Rotary position embedding (Su et al. 2021, "RoFormer", eq. 13-16): rotate pairs of q/k lanes by position * frequency.
#pragma once

#include <cstddef>
#include <vector>

#include "posenc/positions.hpp"
#include "posenc/rope_scaling.hpp"
#include "posenc/status.hpp"

namespace posenc {

/// Which lanes of a head form a rotated pair (r = rotaryDim; lanes r..headDim-1 pass through).
///
///     half (GPT-NeoX, HF Llama "rotate_half", ggml NEOX):   pair i = (x[i], x[i + r/2])
///         x:  [ a0 a1 a2 a3 | b0 b1 b2 b3 | pass... ]      (a_i, b_i) rotated by angle_i
///     interleaved (GPT-J, Meta Llama, RoFormer, ggml NORMAL): pair i = (x[2i], x[2i + 1])
///         x:  [ a0 b0 a1 b1 a2 b2 a3 b3 | pass... ]
///
/// Each pair becomes (a cos - b sin, a sin + b cos).
enum class Pairing : int { half = 0, interleaved = 1 };

/// Memory order of a q or k tensor.
///   bshd: [batch, seq, heads, headDim]  (HF projections before the transpose; ONNX 3-D input reshaped)
///   bhsd: [batch, heads, seq, headDim]  (HF apply_rotary_pos_emb, ONNX RotaryEmbedding 4-D)
enum class HeadLayout : int { bshd = 0, bhsd = 1 };

/// q and k (k optional) sharing batch, seq, headDim and layout; their head counts may differ
/// (grouped-query attention).
struct RopeTensors {
  float* q = nullptr;
  std::size_t q_heads = 0;
  float* k = nullptr;  ///< may be null: then only q is rotated
  std::size_t k_heads = 0;
  std::size_t batch = 0;
  std::size_t seq = 0;
  std::size_t head_dim = 0;
  HeadLayout layout = HeadLayout::bshd;
};

/// How to rotate: the pairing, how many leading lanes rotate, and the frequencies.
struct RopeRotation {
  Pairing pairing = Pairing::half;
  int rotary_dim = 0;                 ///< even, 2 <= rotaryDim <= headDim
  const double* inv_freq = nullptr;   ///< rotaryDim/2 angular frequencies (radians per position)
  double attention_factor = 1.0;      ///< multiplies cos and sin (rotated lanes only)
};

/// Rotates q and k in place. Angles are position * inv_freq[i] formed in double precision, and
/// their cosines and sines are evaluated in double; only the rotated values are rounded to float.
Status rope_apply(const RopeRotation& rotation, const Positions& positions, const RopeTensors& tensors);

/// Same, with the frequencies and attention factor derived from `config` (the shapes are checked
/// first). When the scaling reads the current length and `config.seq_len` is absent, it is
/// max(position) + 1 over every token, as HF's forward derives it from `position_ids`.
Status rope_apply(const RopeConfig& config, Pairing pairing, const Positions& positions, const RopeTensors& tensors);

/// The rotation angles of `config` at `count` positions: out[t * r/2 + i] = positions[t] * w_i,
/// formed in double (the attention factor is not part of an angle). The current length defaults
/// to max(positions) + 1, as in rope_apply.
Status rope_angles(const RopeConfig& config, const double* positions, std::size_t count, double* out);

/// max(position) + 1 over the tokens of a [batch, seq] sequence: HF's current length.
double rope_length_of(const Positions& positions, std::size_t batch, std::size_t seq);

/// Precomputed cos/sin rows: cos[row, i] and sin[row, i] for `rows` rows of `pairs` values.
struct RopeTable {
  const float* cos = nullptr;
  const float* sin = nullptr;
  std::size_t rows = 0;
  std::size_t pairs = 0;
  /// Optional, for the interleaved pairing: the rows already expanded by rope_expand_interleaved
  /// ([rows, 2 * pairs] each). Given, they are used as they are instead of expanding the rows of
  /// every call's tokens (a reusable cache expands once). Both or neither.
  const float* cos2 = nullptr;
  const float* sin2 = nullptr;
};

/// cos2 = [c0 c0 c1 c1 ...], sin2 = [-s0 s0 -s1 s1 ...] for n cos/sin values: the form the
/// interleaved pairing rotates with. Applied to a whole [rows, pairs] table it gives the
/// [rows, 2 * pairs] rows RopeTable::cos2/sin2 take.
void rope_expand_interleaved(const float* cos, const float* sin, std::size_t n, float* cos2, float* sin2);

/// Fills a table for positions 0..rows-1 (attention factor included), e.g. for a reusable cache.
Status rope_fill_table(const RopeRotation& rotation, std::size_t rows, float* cos, float* sin);

/// Rotates q and k in place with cos/sin looked up in `table` (the ONNX RotaryEmbedding
/// semantics): token (b, s) uses row `positions.at(b, s)`, which must be an integer in [0, rows).
/// `rotaryDim` must equal 2 * table.pairs. The table values are used as given.
Status rope_apply_table(const RopeTable& table, Pairing pairing, int rotary_dim, const Positions& positions,
                        const RopeTensors& tensors);

}  // namespace posenc
