// Row sources for the RoPE driver (rope_driver.hpp): scratch rows for a chunk of tokens, the rows
// most forms rotate with (cos/sin of position * frequency computed in double precision) and the
// rows of a cached table; with the position checks they share.
#pragma once

#include <cstddef>
#include <vector>

#include "encodings/detail/rope_driver.hpp"
#include "encodings/detail/scratch.hpp"
#include "posenc/rope.hpp"
#include "posenc/rope_forms.hpp"

namespace posenc::detail {

/// Scratch rows for one chunk of tokens, plus the per-token row pointers the kernels read.
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
  /// The pointers of the rows pointed at so far, for q and k alike.
  ChunkRowPointers pointers() const { return ChunkRowPointers{cos_ptr, sin_ptr}; }
};

/// The positions of a one-axis form (`Positions`) as positions along axes (one axis).
inline AxisPositions single_axis(const Positions& p) { return AxisPositions{1, p.ids, p.offset, p.per_batch}; }

/// Axis 0 of positions along axes, as the positions of a one-axis form.
inline Positions first_axis(const AxisPositions& p) { return Positions{p.offset, p.ids, p.per_batch}; }

/// Every id of [axes, (batch,) seq] positions (or the range) must be finite.
Status check_axis_positions(const AxisPositions& positions, std::size_t batch, std::size_t seq);

/// The largest |id| over every axis and token (a range: its two ends).
double axis_max_abs_position(const AxisPositions& positions, std::size_t batch, std::size_t seq);

/// max(id) + 1 over every axis and token: HF's current length for [axes, batch, seq] ids.
double axis_length_of(const AxisPositions& positions, std::size_t batch, std::size_t seq);

/// Rows cos(p * w_i) * scale and sin(p * w_i) * scale, where p is the position of the token along
/// the axis of pair i: `axis_of_pair[i]` (M-RoPE sections, 2-D axial blocks, or any interleaving of
/// axes), or the one axis when `axis_of_pair` is null. Consecutive positions (a range) take the
/// angle-addition recurrence of angle_rows_range; lists are evaluated token by token.
class AngleRows {
 public:
  /// `freq` (pairs values) and `axis_of_pair` must outlive the rows. Fails (OUT_OF_RANGE) when a
  /// position times a frequency overflows (detail/derived.hpp).
  Status init(const double* freq, std::size_t pairs, double scale, Pairing pairing, const AxisPositions& positions,
              const std::size_t* axis_of_pair, std::size_t batch, std::size_t seq);

  /// The rows of tokens s0..s0+count-1 of batch group g (the driver's row source).
  ChunkRowPointers chunk(std::size_t g, std::size_t s0, std::size_t count);

 private:
  const double* freq_ = nullptr;
  std::size_t pairs_ = 0;
  double scale_ = 1.0;
  Pairing pairing_ = Pairing::half;
  AxisPositions positions_;
  const std::size_t* axis_of_pair_ = nullptr;
  std::size_t batch_ = 0, seq_ = 0;
  std::vector<const double*> axis_rows_;  // per axis: its positions for the current chunk
  ChunkRows rows_;
};

/// The rows of a cos/sin table at the tokens' positions (the driver's row source for cached
/// rows). The kernels read the table's own rows unless interleaved rows must be expanded first (a
/// table without cos2/sin2). Pointers into the table are plain arithmetic, with no call per token:
/// at one head row per token that bookkeeping was a fifth of a call (perf, 1024 x 1 x 64).
class TableRows {
 public:
  /// `table` and `positions` must outlive the rows; positions are valid rows (check_row_ids).
  TableRows(const RopeTable& table, Pairing pairing, const Positions& positions, std::size_t seq);

  Status allocate() { return direct_ ? Status() : rows_.allocate(table_.pairs, pairing_, false); }

  ChunkRowPointers chunk(std::size_t g, std::size_t s0, std::size_t count);

 private:
  void point_direct(std::size_t j, std::size_t row) {
    rows_.cos_ptr[j] = cos_rows_ + row * row_floats_;
    rows_.sin_ptr[j] = sin_rows_ + row * row_floats_;
  }

  const RopeTable& table_;
  Pairing pairing_;
  const Positions& positions_;
  std::size_t seq_;
  bool direct_ = false;
  const float* cos_rows_ = nullptr;
  const float* sin_rows_ = nullptr;
  std::size_t row_floats_ = 0;
  ChunkRows rows_;
};

}  // namespace posenc::detail
