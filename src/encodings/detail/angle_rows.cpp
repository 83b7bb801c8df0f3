// Angle rows: cos and sin of p * w_i in double precision, rounded once to float.
//
// For consecutive positions the row p+1 follows from row p by the angle-addition identities
//   cos((p+1)w) = cos(pw) cos(w) - sin(pw) sin(w),   sin((p+1)w) = sin(pw) cos(w) + cos(pw) sin(w),
// which costs six multiply-adds per pair instead of a full sine and cosine. Each step adds a
// rounding error of a few 1e-16, so the phasors are re-evaluated directly every kResyncRows rows;
// the drift stays far below float32 output rounding (6e-8).
//
// A stepped row is at the angle fl(p0 w) + t w, the float64 formula's is fl((p0 + t) w): they differ
// by the rounding of the product, up to one ulp of the angle (1.2e-4 at 1e12). So a block of pairs
// steps only while every angle in it is below kStepAngleLimit (ulp 2^-30, far below float32's
// 2^-25); past it every row is evaluated directly, as position lists are.
#include "encodings/detail/angle_rows.hpp"

#include <algorithm>
#include <cmath>

#include "encodings/detail/active_kernels.hpp"
#include "kernels/kernels.hpp"

namespace posenc::detail {
namespace {

constexpr std::size_t kBlockPairs = 256;  // pairs processed together: their phasors (4 x 2 KB) live in L1
constexpr std::size_t kResyncRows = 64;
constexpr std::size_t kRowsPerPass = 4;  // steps per pass over a block; 4 rows of a block stay in L1

void emit_row(const AngleSink& sink, std::size_t t, std::size_t i0, std::size_t n, const double* s, const double* c) {
  const std::size_t at = t * sink.row_stride + i0 * sink.elem_stride;
  if (interleaved_pairs(sink)) {
    kernels::narrow_interleave(s, c, n, sink.scale, sink.sin + at);
    return;
  }
  if (sink.sin != nullptr) kernels::narrow(s, n, sink.scale, sink.sin + at, sink.elem_stride);
  if (sink.cos != nullptr) kernels::narrow(c, n, sink.scale, sink.cos + at, sink.elem_stride);
}

/// Advances the phasors `rows` positions, writing rows t+1 .. t+rows; fused into few passes for the
/// two layouts that matter for speed (contiguous rows, [sin, cos] pairs).
void step_rows(const AngleSink& sink, std::size_t t, std::size_t rows, std::size_t i0, std::size_t n, double* s,
               double* c, const double* sw, const double* cw) {
  const std::size_t at = (t + 1) * sink.row_stride + i0 * sink.elem_stride;
  if (interleaved_pairs(sink)) {
    active_kernels().phasor_rows_narrow_interleave(c, s, cw, sw, n, rows, sink.scale, sink.sin + at, sink.row_stride);
  } else if (sink.elem_stride == 1) {
    active_kernels().phasor_rows_narrow(c, s, cw, sw, n, rows, sink.scale,
                                        sink.cos == nullptr ? nullptr : sink.cos + at,
                                        sink.sin == nullptr ? nullptr : sink.sin + at, sink.row_stride);
  } else {
    for (std::size_t r = 1; r <= rows; ++r) {
      kernels::phasor_step(c, s, cw, sw, n);
      emit_row(sink, t + r, i0, n, s, c);
    }
  }
}

}  // namespace

bool range_steps_exactly(const double* freq, std::size_t pairs, double start, std::size_t count) {
  if (count == 0) return true;
  const double reach = std::fmax(std::fabs(start), std::fabs(start + static_cast<double>(count - 1)));
  double widest = 0.0;
  for (std::size_t i = 0; i < pairs; ++i) widest = std::fmax(widest, std::fabs(freq[i]));
  return reach * widest < kStepAngleLimit;
}

void angle_rows_range(const double* freq, std::size_t pairs, double start, std::size_t count, const AngleSink& sink) {
  double angle[kBlockPairs], c[kBlockPairs], s[kBlockPairs], cw[kBlockPairs], sw[kBlockPairs];
  for (std::size_t i0 = 0; i0 < pairs; i0 += kBlockPairs) {
    const std::size_t n = std::min(kBlockPairs, pairs - i0);
    const double* w = freq + i0;
    if (!range_steps_exactly(w, n, start, count)) {  // large angles: each row at its own float64 angle
      for (std::size_t t = 0; t < count; ++t) {
        const double p = start + static_cast<double>(t);
        for (std::size_t j = 0; j < n; ++j) angle[j] = p * w[j];
        kernels::sincos(angle, n, s, c);
        emit_row(sink, t, i0, n, s, c);
      }
      continue;
    }
    if (count > 1) kernels::sincos(w, n, sw, cw);  // the one-position step (a single row needs none)
    for (std::size_t t = 0; t < count; t += kResyncRows) {  // a direct row, then steps up to the next one
      const double p = start + static_cast<double>(t);
      if (p == 0.0) {  // position 0 (the first row of every table): sin 0 = 0, cos 0 = 1, no polynomial
        std::fill(s, s + n, 0.0);
        std::fill(c, c + n, 1.0);
      } else {
        for (std::size_t j = 0; j < n; ++j) angle[j] = p * w[j];
        kernels::sincos(angle, n, s, c);
      }
      emit_row(sink, t, i0, n, s, c);
      const std::size_t last = std::min(count, t + kResyncRows);  // rows t+1 .. last-1 follow by steps
      for (std::size_t u = t; u + 1 < last; u += kRowsPerPass) {
        step_rows(sink, u, std::min(kRowsPerPass, last - 1 - u), i0, n, s, c, sw, cw);
      }
    }
  }
}

void angle_rows_list(const double* freq, std::size_t pairs, const double* positions, std::size_t count,
                     const AngleSink& sink) {
  double angle[kBlockPairs], c[kBlockPairs], s[kBlockPairs];
  for (std::size_t i0 = 0; i0 < pairs; i0 += kBlockPairs) {
    const std::size_t n = std::min(kBlockPairs, pairs - i0);
    const double* w = freq + i0;
    for (std::size_t t = 0; t < count; ++t) {
      const double p = positions[t];
      for (std::size_t j = 0; j < n; ++j) angle[j] = p * w[j];
      kernels::sincos(angle, n, s, c);
      emit_row(sink, t, i0, n, s, c);
    }
  }
}

void angle_rows_mapped(const double* freq, std::size_t pairs, const std::size_t* axis_of_pair,
                       const double* const* axis_positions, std::size_t count, const AngleSink& sink) {
  double angle[kBlockPairs], c[kBlockPairs], s[kBlockPairs];
  for (std::size_t i0 = 0; i0 < pairs; i0 += kBlockPairs) {
    const std::size_t n = std::min(kBlockPairs, pairs - i0);
    for (std::size_t t = 0; t < count; ++t) {
      for (std::size_t j = 0; j < n; ++j) angle[j] = axis_positions[axis_of_pair[i0 + j]][t] * freq[i0 + j];
      kernels::sincos(angle, n, s, c);
      emit_row(sink, t, i0, n, s, c);
    }
  }
}

}  // namespace posenc::detail
