// Other RoPE forms built on the same rotation: 2-D axial RoPE for image patches (lucidrains),
// multimodal RoPE (M-RoPE: Qwen2-VL sections, Qwen3-VL interleaved) and xPos (Sun et al. 2022).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "posenc/rope.hpp"
#include "posenc/status.hpp"

namespace posenc {

/// Positions along several axes: M-RoPE's temporal/height/width ids, 2-D RoPE's row/column.
///
/// With `ids == nullptr`, every axis of token `s` sits at `offset + s` (text tokens). Otherwise
/// `ids` is axis-major: `[axes, seq]` shared by every batch row, or `[axes, batch, seq]` when
/// `per_batch` is true (HF's `position_ids` of shape `[3, batch, seq]`).
struct AxisPositions {
  std::size_t axes = 1;
  const double* ids = nullptr;
  double offset = 0.0;
  bool per_batch = false;

  /// The ids of axis `a` for batch row `b`, contiguous over the `seq` tokens (ids must be given).
  const double* row(std::size_t a, std::size_t b, std::size_t batch, std::size_t seq) const {
    return per_batch ? ids + (a * batch + b) * seq : ids + a * seq;
  }
};

/// Frequencies of 2-D axial RoPE, named as lucidrains' `freqs_for`.
enum class AxialFrequencies : int {
  lang = 0,   ///< w_k = base^(-2k/axisDim), positions are integer grid indices
  pixel = 1,  ///< w_k = pi * linspace(1, maxFreq/2, axisDim/2), positions linspace(-1, 1, n) over the grid
};

/// 2-D axial RoPE (lucidrains `get_axial_freqs(rows, cols)`). Lane layout of one head, with
/// axisDim = rotaryDim / 2 and interleaved pairs inside each axis block:
///
///     [ r0 r0' r1 r1' ... | c0 c0' c1 c1' ... | pass ... ]
///       rows: lanes 0..axisDim-1, rotated by the row position
///       cols: lanes axisDim..rotaryDim-1, rotated by the column position
///
/// Pair k of each block uses frequency w_k (the same list for both axes).
struct RopeAxialConfig {
  int rotary_dim = 0;  ///< lanes of both blocks: a multiple of 4, <= headDim
  double base = 10000.0;
  AxialFrequencies freqs = AxialFrequencies::lang;
  double max_freq = 10.0;  ///< pixel only
};

/// The axisDim/2 frequencies of one axis block.
Status rope_axial_inv_freq(const RopeAxialConfig& config, std::vector<double>* inv_freq);

/// Row/column positions of a `rows x cols` grid of tokens in row-major order, as `[2, rows * cols]`
/// (axis-major): integer indices for `lang`, linspace(-1, 1, n) per axis for `pixel`.
Status rope_axial_grid(std::size_t rows, std::size_t cols, AxialFrequencies freqs, std::vector<double>* ids);

/// Rotates q and k with 2-D axial RoPE; `positions.axes` must be 2 (row, column).
Status rope_apply_axial(const RopeAxialConfig& config, const AxisPositions& positions, const RopeTensors& tensors);

/// Qwen2-VL M-RoPE (HF `apply_multimodal_rotary_pos_emb`): the rotaryDim/2 pairs are split into
/// consecutive sections, section a taking its angle from axis a of the positions:
///
///     pairs [0, s0) : temporal id,  [s0, s0+s1) : height id,  [s0+s1, s0+s1+s2) : width id
///
/// (HF repeats `mrope_section` twice over the head lanes because its cos/sin rows hold both
/// halves of the half pairing; per pair it is the split above). Frequencies are those of
/// `config` (global pair index); `sections` must sum to rotaryDim/2 and `positions.axes` must equal
/// their count. A token whose axes agree is rotated exactly as by rope_apply.
///
/// `interleaved` (Qwen3-VL, Qwen3.5; HF `apply_interleaved_mrope`, 3 sections): the axes take
/// slots instead of blocks, pair i following the height id if i % 3 == 1 and i < 3 s1, the width
/// id if i % 3 == 2 and i < 3 s2, the temporal id otherwise:  t h w t h w ... t t.
Status rope_apply_multimodal(const RopeConfig& config, Pairing pairing, const std::vector<int>& sections,
                             const AxisPositions& positions, const RopeTensors& tensors, bool interleaved = false);

/// xPos (Sun et al. 2022, "A Length-Extrapolatable Transformer", eq. 7; lucidrains `use_xpos`).
struct XPosConfig {
  double gamma = 0.4;          ///< zeta_i = (2i + gamma r) / ((1 + gamma) r)
  double scale_base = 512.0;   ///< B
  std::optional<double> center;  ///< c; default floor(seq / 2), as lucidrains (`len(t) // 2`)
};

/// Rotates q and k like rope_apply and scales pair i of a query at position m by
/// zeta_i^((m - c)/B) and of a key at position n by zeta_i^(-(n - c)/B), so q.k depends on m - n
/// only. Pass-through lanes are not scaled.
Status rope_apply_xpos(const RopeConfig& config, Pairing pairing, const XPosConfig& xpos, const Positions& positions,
                       const RopeTensors& tensors);

}  // namespace posenc
