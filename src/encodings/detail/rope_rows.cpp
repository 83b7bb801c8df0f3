// Row sources for the RoPE driver: chunk scratch rows and cos/sin rows from frequencies and positions.
#include "encodings/detail/rope_rows.hpp"

#include "encodings/detail/angle_rows.hpp"
#include "encodings/detail/checks.hpp"

namespace posenc::detail {

Status ChunkRows::allocate(std::size_t pairs, Pairing pairing, bool compact) {
  const std::size_t n = kRopeChunkTokens * pairs;
  if (compact) {
    POSENC_RETURN_IF_ERROR(detail::allocate(cos, n));
    POSENC_RETURN_IF_ERROR(detail::allocate(sin, n));
  }
  if (pairing == Pairing::interleaved) {
    POSENC_RETURN_IF_ERROR(detail::allocate(cos2, 2 * n));
    POSENC_RETURN_IF_ERROR(detail::allocate(sin2, 2 * n));
  }
  return {};
}

void ChunkRows::point(std::size_t j, const float* c, const float* s, std::size_t pairs, Pairing pairing) {
  if (pairing == Pairing::half) {
    cos_ptr[j] = c;
    sin_ptr[j] = s;
    return;
  }
  float* c2 = cos2.data() + j * 2 * pairs;
  float* s2 = sin2.data() + j * 2 * pairs;
  expand_interleaved(c, s, pairs, c2, s2);
  cos_ptr[j] = c2;
  sin_ptr[j] = s2;
}

Status AngleRows::init(const double* freq, std::size_t pairs, double scale, Pairing pairing,
                       const AxisPositions& positions, const std::size_t* axis_of_pair, std::size_t batch,
                       std::size_t seq) {
  freq_ = freq;
  pairs_ = pairs;
  scale_ = scale;
  pairing_ = pairing;
  positions_ = positions;
  axis_of_pair_ = axis_of_pair;
  batch_ = batch;
  seq_ = seq;
  if (axis_of_pair != nullptr) POSENC_RETURN_IF_ERROR(detail::allocate(axis_rows_, positions.axes));
  return rows_.allocate(pairs, pairing, true);
}

ChunkRowPointers AngleRows::chunk(std::size_t g, std::size_t s0, std::size_t count) {
  float* c = rows_.cos.data();
  float* s = rows_.sin.data();
  const AngleSink sink{s, c, pairs_, 1, scale_};
  if (positions_.ids == nullptr) {  // a range: every axis at offset + token, whatever the axis map
    angle_rows_range(freq_, pairs_, positions_.offset + static_cast<double>(s0), count, sink);
  } else if (axis_of_pair_ == nullptr) {
    angle_rows_list(freq_, pairs_, positions_.row(0, g, batch_, seq_) + s0, count, sink);
  } else {
    for (std::size_t a = 0; a < positions_.axes; ++a) axis_rows_[a] = positions_.row(a, g, batch_, seq_) + s0;
    angle_rows_mapped(freq_, pairs_, axis_of_pair_, axis_rows_.data(), count, sink);
  }
  for (std::size_t j = 0; j < count; ++j) rows_.point(j, c + j * pairs_, s + j * pairs_, pairs_, pairing_);
  return rows_.pointers();
}

}  // namespace posenc::detail
