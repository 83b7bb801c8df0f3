// Angle rows in float arithmetic from exact anchors and offsets (the `precision: 'fast'` tables).
//
// Row start + m K + r (r < K) is the anchor row start + m K rotated by the offset row r:
//   sin(a + b) = sin a cos b + cos a sin b,   cos(a + b) = cos a cos b - sin a sin b.
// The anchors and the K offsets come from angle_rows_range (double precision, rounded once), so
// only the combination runs in float: four rounded inputs, two products and a sum per value, and
// nothing carried from one row to the next.
#include <algorithm>
#include <vector>

#include "encodings/detail/angle_rows.hpp"
#include "encodings/detail/checks.hpp"
#include "encodings/detail/per_thread.hpp"
#include "encodings/detail/scratch.hpp"
#include "kernels/kernels.hpp"

namespace posenc::detail {
namespace {

/// The offset rows sin(r w_i), cos(r w_i), r < kAnchorRows, into sin and cos (kAnchorRows * pairs each).
void offset_rows(const double* freq, std::size_t pairs, float* sin, float* cos) {
  angle_rows_range(freq, pairs, 0.0, kAnchorRows, AngleSink{sin, cos, pairs, 1, 1.0});
}

/// The last frequencies' offset rows, kept per thread: [sin rows | cos rows].
struct OffsetMemo {
  std::vector<double> freq;
  std::vector<float> rows;
};

}  // namespace

Status AnchorAngles::compute(const double* freq, std::size_t pairs, double start, std::size_t anchors, double scale) {
  constexpr std::size_t K = kAnchorRows;
  Scratch<double> anchor_freq;  // Scratch blocks: reused across calls and not zero-filled (all written below)
  POSENC_RETURN_IF_ERROR(allocate(anchor_freq, pairs));
  POSENC_RETURN_IF_ERROR(allocate(anchor_sin, anchors * pairs));
  POSENC_RETURN_IF_ERROR(allocate(anchor_cos, anchors * pairs));
  // Anchor m sits at start + m K = (start / K + m) * K: with frequencies K w the angles are the
  // same doubles (K is a power of two, so both factors are exact and the product is rounded once).
  for (std::size_t i = 0; i < pairs; ++i) anchor_freq.data()[i] = freq[i] * static_cast<double>(K);
  angle_rows_range(anchor_freq.data(), pairs, start / static_cast<double>(K), anchors,
                   AngleSink{anchor_sin.data(), anchor_cos.data(), pairs, 1, scale});

  // A single pair (an odd width's last sine column, computed after the table's other pairs) is not
  // kept: it would evict the table's own offsets to save 32 values.
  if (pairs >= 2 && pairs <= kOffsetMemoMaxPairs) {
    POSENC_PER_THREAD OffsetMemo memo;
    if (memo.freq.size() != pairs || !std::equal(freq, freq + pairs, memo.freq.begin())) {
      memo.freq.clear();  // empty until the rows below are complete
      POSENC_RETURN_IF_ERROR(allocate(memo.rows, 2 * K * pairs));
      offset_rows(freq, pairs, memo.rows.data(), memo.rows.data() + K * pairs);
      POSENC_RETURN_IF_ERROR(allocate(memo.freq, pairs));
      std::copy(freq, freq + pairs, memo.freq.begin());
    }
    offset_sin = memo.rows.data();
    offset_cos = memo.rows.data() + K * pairs;
    return {};
  }
  POSENC_RETURN_IF_ERROR(allocate(own_offsets_, 2 * K * pairs));
  offset_rows(freq, pairs, own_offsets_.data(), own_offsets_.data() + K * pairs);
  offset_sin = own_offsets_.data();
  offset_cos = own_offsets_.data() + K * pairs;
  return {};
}

Status angle_rows_range_fast(const double* freq, std::size_t pairs, double start, std::size_t count,
                             const AngleSink& sink) {
  constexpr std::size_t K = kAnchorRows;
  const bool interleaved = interleaved_pairs(sink);
  if (count < 2 * K || !(interleaved || sink.elem_stride == 1) || !range_steps_exactly(freq, pairs, start, count)) {
    angle_rows_range(freq, pairs, start, count, sink);
    return {};
  }
  const std::size_t anchors = anchored_anchor_count(count);
  AnchorAngles angles;
  POSENC_RETURN_IF_ERROR(angles.compute(freq, pairs, start, anchors, sink.scale));
  const float* offset_sin = angles.offset_sin;
  const float* offset_cos = angles.offset_cos;
  for (std::size_t m = 0; m < anchors; ++m) {
    const std::size_t t = m * K;
    const std::size_t rows = std::min(K, count - t);
    const float* s0 = angles.anchor_sin.data() + m * pairs;
    const float* c0 = angles.anchor_cos.data() + m * pairs;
    if (interleaved) {
      kernels::anchor_rows_interleave(s0, c0, offset_sin, offset_cos, pairs, rows,
                                      sink.sin + t * sink.row_stride, sink.row_stride);
    } else {
      kernels::anchor_rows(s0, c0, offset_sin, offset_cos, pairs, rows,
                           sink.cos == nullptr ? nullptr : sink.cos + t * sink.row_stride,
                           sink.sin == nullptr ? nullptr : sink.sin + t * sink.row_stride, sink.row_stride);
    }
  }
  return {};
}

}  // namespace posenc::detail
