// Rows of cos/sin of position * frequency, the shared engine of sinusoidal tables and RoPE.
#pragma once

#include <cstddef>

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

/// Rows t < count at positions start + t. Uses the exact angle-addition recurrence between
/// direct evaluations every kResyncRows rows, all in double precision.
void angle_rows_range(const double* freq, std::size_t pairs, double start, std::size_t count, const AngleSink& sink);

/// Rows t < count at positions positions[t], each evaluated directly.
void angle_rows_list(const double* freq, std::size_t pairs, const double* positions, std::size_t count,
                     const AngleSink& sink);

}  // namespace posenc::detail
