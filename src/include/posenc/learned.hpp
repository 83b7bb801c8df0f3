// Learned absolute position tables (BERT, GPT-2, ViT): a trained [maxPositions, dim] matrix, gathered by position id.
#pragma once

#include <cstddef>

#include "posenc/positions.hpp"
#include "posenc/status.hpp"

namespace posenc {

/// A read-only view of a position table, row-major [rows, dim].
struct PositionTable {
  const float* data = nullptr;
  std::size_t rows = 0;
  std::size_t dim = 0;
};

/// Gathers rows: out[t, :] = table[position(t), :] for t < count ([count, dim]). Every position must
/// be an integer id in [0, rows): an id outside is an OUT_OF_RANGE error, never clamped or wrapped.
Status table_lookup(const PositionTable& table, const Positions& positions, std::size_t count, float* out);

/// Adds rows in place: x[b, s, :] += table[position(b, s), :] for x of shape [batch, seq, dim].
Status table_add(const PositionTable& table, const Positions& positions, std::size_t batch, std::size_t seq,
                 float* x);

}  // namespace posenc
