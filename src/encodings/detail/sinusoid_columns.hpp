// Where a sinusoidal row keeps the sine and the cosine of each frequency, for each layout, and the
// frequencies themselves: shared by the tables computed per call and the anchored (cached) tables.
#pragma once

#include <cstddef>
#include <vector>

#include "encodings/detail/derived.hpp"
#include "encodings/detail/power_frequencies.hpp"
#include "posenc/sinusoidal.hpp"

namespace posenc::detail {

/// Column positions of pair i: sine at sin_offset + i * elem_stride, cosine at cos_offset + i *
/// elem_stride (i < full_pairs); an odd dim adds one sine column, extra_sine_column.
struct ColumnPlan {
  std::size_t full_pairs;  // pairs with both a sine and a cosine column
  bool extra_sine;         // odd dim: one more sine column (pair full_pairs)
  std::size_t sin_offset, cos_offset, elem_stride, extra_sine_column;
};

inline ColumnPlan plan_columns(const SinusoidalParams& p) {
  const std::size_t d = static_cast<std::size_t>(p.dim);
  ColumnPlan plan{};
  plan.full_pairs = d / 2;
  plan.extra_sine = (d % 2) == 1;
  if (p.layout == SinusoidLayout::interleaved) {
    plan.sin_offset = 0;
    plan.cos_offset = 1;
    plan.elem_stride = 2;
    plan.extra_sine_column = d - 1;
  } else {
    plan.sin_offset = 0;
    plan.cos_offset = (d + 1) / 2;
    plan.elem_stride = 1;
    plan.extra_sine_column = d / 2;
  }
  return plan;
}

/// w_i = base^(-2i/dim) for the ceil(dim/2) pairs (the last one sine-only for an odd dim); each
/// must be finite (a base near 0 overflows them).
inline Status sinusoid_frequencies(const SinusoidalParams& p, std::vector<double>* freq) {
  POSENC_RETURN_IF_ERROR(power_frequencies(p.dim, p.base, static_cast<std::size_t>((p.dim + 1) / 2), freq));
  return check_derived_frequencies(freq->data(), freq->size(), {"base", p.base});
}

}  // namespace posenc::detail
