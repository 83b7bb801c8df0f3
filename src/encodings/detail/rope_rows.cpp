// Row sources for the RoPE driver: chunk scratch rows, cos/sin rows from frequencies and positions,
// rows of a cached table.
#include "encodings/detail/rope_rows.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "encodings/detail/angle_rows.hpp"
#include "encodings/detail/checks.hpp"
#include "encodings/detail/derived.hpp"

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
  POSENC_RETURN_IF_ERROR(check_angles(positions.ids == nullptr ? "the positions offset .. offset + seq - 1" : "positionIds",
                                      axis_max_abs_position(positions, batch, seq), freq, pairs));
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

Status check_axis_positions(const AxisPositions& p, std::size_t batch, std::size_t seq) {
  if (p.ids == nullptr) return check_positions_finite(Positions::range(p.offset), batch, seq);
  std::size_t n = 0;
  POSENC_RETURN_IF_ERROR(checked_product({p.axes, p.per_batch ? batch : 1, seq}, "positionIds", &n));
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(p.ids[i])) {
      return invalid("positionIds[" + std::to_string(i) + "] must be a finite number, got " + format_number(p.ids[i]));
    }
  }
  return {};
}

double axis_max_abs_position(const AxisPositions& p, std::size_t batch, std::size_t seq) {
  if (p.ids == nullptr) return max_abs_position(Positions::range(p.offset), batch, seq);
  const std::size_t n = p.axes * (p.per_batch ? batch : 1) * seq;
  double m = 0.0;  // plain compares, as in max_abs_position
  for (std::size_t i = 0; i < n; ++i) m = std::fabs(p.ids[i]) > m ? std::fabs(p.ids[i]) : m;
  return m;
}

double axis_length_of(const AxisPositions& p, std::size_t batch, std::size_t seq) {
  if (p.ids == nullptr) return p.offset + static_cast<double>(seq);
  const std::size_t n = p.axes * (p.per_batch ? batch : 1) * seq;
  return *std::max_element(p.ids, p.ids + n) + 1.0;
}

TableRows::TableRows(const RopeTable& table, Pairing pairing, const Positions& positions, std::size_t seq)
    : table_(table), pairing_(pairing), positions_(positions), seq_(seq) {
  const bool expanded = pairing == Pairing::interleaved && table.cos2 != nullptr;
  direct_ = expanded || pairing == Pairing::half;
  cos_rows_ = expanded ? table.cos2 : table.cos;
  sin_rows_ = expanded ? table.sin2 : table.sin;
  row_floats_ = expanded ? 2 * table.pairs : table.pairs;
}

ChunkRowPointers TableRows::chunk(std::size_t g, std::size_t s0, std::size_t count) {
  if (direct_ && positions_.is_range()) {
    const std::size_t first = static_cast<std::size_t>(positions_.offset) + s0;  // ids checked before
    for (std::size_t j = 0; j < count; ++j) point_direct(j, first + j);
    return rows_.pointers();
  }
  for (std::size_t j = 0; j < count; ++j) {
    const auto row = static_cast<std::size_t>(positions_.at(g, s0 + j, seq_));
    if (direct_) {
      point_direct(j, row);
    } else {
      rows_.point(j, table_.cos + row * table_.pairs, table_.sin + row * table_.pairs, table_.pairs, pairing_);
    }
  }
  return rows_.pointers();
}

}  // namespace posenc::detail
