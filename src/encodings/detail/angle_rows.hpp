// Rows of cos/sin of position * frequency, the shared engine of sinusoidal tables and RoPE.
#pragma once

#include <cstddef>

#include "encodings/detail/scratch.hpp"
#include "posenc/status.hpp"

namespace posenc::detail {

/// Where and how angle rows are written: row t, pair i goes to sin[t * row_stride + i * elem_stride]
/// (same for cos), multiplied by `scale` and rounded to float. A null `cos` (or `sin`) skips it.
struct AngleSink {
  float* sin = nullptr;
  float* cos = nullptr;
  std::size_t row_stride = 0;
  std::size_t elem_stride = 1;
  double scale = 1.0;
};

/// Whether the sink writes [sin, cos] pairs (the paper's layout), which has kernels of its own.
inline bool interleaved_pairs(const AngleSink& sink) {
  return sink.elem_stride == 2 && sink.sin != nullptr && sink.cos == sink.sin + 1;
}

/// Rows t < count at positions start + t, each sin/cos of the float64 angle (start + t) w_i rounded
/// once to float. Uses the angle-addition recurrence between direct evaluations every kResyncRows
/// rows, all in double precision, where every angle is below kStepAngleLimit; beyond it, a
/// stepped angle would be one product rounding (an ulp of the angle) away from the formula's, so
/// those rows are evaluated directly.
void angle_rows_range(const double* freq, std::size_t pairs, double start, std::size_t count, const AngleSink& sink);

/// The largest angle (|position| * |w|) a stepped row may have: 2^22, whose ulp is 2^-30.
constexpr double kStepAngleLimit = 4194304.0;

/// Whether every angle of positions start .. start + count - 1 at these frequencies is below
/// kStepAngleLimit, so that rows stepped or combined from others are the formula's to 2^-30.
bool range_steps_exactly(const double* freq, std::size_t pairs, double start, std::size_t count);

/// Rows a fast sink starts from: every kAnchorRows-th row ("anchors") and the first kAnchorRows
/// rows ("offsets"). A power of two, so kAnchorRows * w and start / kAnchorRows are exact doubles.
constexpr std::size_t kAnchorRows = 32;

/// Anchor rows needed for `rows` rows: ceil(rows / kAnchorRows), with no overflow near SIZE_MAX.
inline std::size_t anchored_anchor_count(std::size_t rows) { return rows / kAnchorRows + (rows % kAnchorRows != 0); }

/// As angle_rows_range, but only the anchors and offsets are computed that way (in double,
/// rounded once); every row combines its anchor and offset by the angle-addition identities in
/// float arithmetic (kernels/anchor-inl.hpp): absolute error at most 3.2e-7 * scale instead of
/// half an ulp, and faster (docs/performance.md). Short ranges (under 2 * kAnchorRows rows) and
/// sinks without such a kernel (strides other than [sin, cos] pairs or contiguous rows) take
/// angle_rows_range, and so do ranges whose angles reach kStepAngleLimit.
Status angle_rows_range_fast(const double* freq, std::size_t pairs, double start, std::size_t count,
                             const AngleSink& sink);

/// The rows a fast sink is made of, per pair i < pairs, in double rounded once to float: anchors
/// m < anchors at positions start + m kAnchorRows (anchor_sin/cos[m * pairs + i], times `scale`)
/// and offsets r < kAnchorRows at positions r (offset_sin/cos[r * pairs + i]). Both the per-call
/// fast rows (angle_rows_range_fast) and the anchored tables (sinusoidal_anchored.cpp) start from
/// these, so their rows are the same values by construction.
///
/// The offsets depend on the frequencies alone, so the last offset block is kept per thread (for
/// 2 to kOffsetMemoMaxPairs pairs: 264 bytes per pair) and reused while the frequencies repeat,
/// as they do when a model builds its table or adds its positions call after call. offset_sin/cos
/// then point into that block: valid until the next compute() on the thread.
struct AnchorAngles {
  Scratch<float> anchor_sin, anchor_cos;
  const float* offset_sin = nullptr;  // offset rows: the per-thread memo or own_offsets
  const float* offset_cos = nullptr;

  Status compute(const double* freq, std::size_t pairs, double start, std::size_t anchors, double scale);

 private:
  Scratch<float> own_offsets_;  // offsets too wide for the memo
};

/// Widest frequency set whose offset rows are kept between calls (see AnchorAngles).
constexpr std::size_t kOffsetMemoMaxPairs = 4096;

/// Rows t < count at positions positions[t], each evaluated directly.
void angle_rows_list(const double* freq, std::size_t pairs, const double* positions, std::size_t count,
                     const AngleSink& sink);

/// Rows t < count where pair i is at position axis_positions[axis_of_pair[i]][t] (positions along
/// several axes, e.g. M-RoPE's temporal/height/width ids), each evaluated directly.
void angle_rows_mapped(const double* freq, std::size_t pairs, const std::size_t* axis_of_pair,
                       const double* const* axis_positions, std::size_t count, const AngleSink& sink);

}  // namespace posenc::detail
