// Positions: the token positions an encoding is evaluated at, as a range or an explicit list.
#pragma once

#include <cstddef>

namespace posenc {

/// Which positions the tokens of a sequence sit at.
///
/// With `ids == nullptr`, token `s` of every batch row sits at `offset + s` (the usual
/// `arange(past, past + seq)` of a model with a KV cache). Otherwise `ids` holds one position per
/// token: `seq` values shared by every batch row, or `batch * seq` values (row-major) when
/// `per_batch` is true, which is how left-padded batches give each row its own positions.
struct Positions {
  double offset = 0.0;
  const double* ids = nullptr;
  bool per_batch = false;

  static Positions range(double start) { return Positions{start, nullptr, false}; }
  static Positions list(const double* ids, bool per_batch = false) { return Positions{0.0, ids, per_batch}; }

  bool is_range() const { return ids == nullptr; }
  /// The position of token `s` of batch row `b` (of a sequence of length `seq`).
  double at(std::size_t b, std::size_t s, std::size_t seq) const {
    if (ids == nullptr) return offset + static_cast<double>(s);
    return per_batch ? ids[b * seq + s] : ids[s];
  }
};

}  // namespace posenc
