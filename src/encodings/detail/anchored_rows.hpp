// The anchored form of `precision: 'fast'` sinusoidal rows (posenc/sinusoidal.hpp): anchor rows
// every 32 positions and 32 offset rows, each block already carrying its columns' partners and
// signs. Shared by cached tables (anchored_table_*) and by sinusoidal_add, which builds the blocks
// for its positions and adds the rows straight into x.
#pragma once

#include <cstddef>
#include <vector>

#include "encodings/detail/angle_rows.hpp"
#include "kernels/kernels.hpp"
#include "posenc/sinusoidal.hpp"

namespace posenc::detail {

/// Writes the blocks for rows at positions start + t, t < rows (anchors at start + 32 m) into
/// `storage` (anchored_table_floats(rows, dim) floats). `freq` holds the ceil(dim/2) frequencies.
Status build_anchored_rows(const SinusoidalParams& params, const std::vector<double>& freq, double start,
                           std::size_t rows, float* storage);

/// The four blocks of a storage of `rows` rows, and row p (counted from the storage's first row).
struct AnchoredBlocks {
  const float* a;
  const float* b;
  const float* c;
  const float* s;
  std::size_t dim;

  AnchoredBlocks(const float* storage, std::size_t rows, std::size_t width)
      : a(storage),
        b(storage + anchored_anchor_count(rows) * width),
        c(b + anchored_anchor_count(rows) * width),
        s(c + kAnchorRows * width),
        dim(width) {}

  void row(std::size_t p, float* out) const {
    const std::size_t m = (p / kAnchorRows) * dim;
    const std::size_t r = (p % kAnchorRows) * dim;
    kernels::combine(a + m, b + m, c + r, s + r, dim, out);
  }
  void add_row(std::size_t p, float* x) const {
    const std::size_t m = (p / kAnchorRows) * dim;
    const std::size_t r = (p % kAnchorRows) * dim;
    kernels::combine_add(a + m, b + m, c + r, s + r, dim, x);
  }
};

}  // namespace posenc::detail
