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

/// Checks the table view: rows >= 1, dim >= 1, data present.
Status validate(const PositionTable& table);

/// Checks that every position is an integer id inside the table, i.e. in [0, rows).
/// Out-of-range ids are errors, never clamped or wrapped (torch raises an index error there too).
Status check_position_ids(const PositionTable& table, const Positions& positions, std::size_t batch,
                          std::size_t seq);

/// Gathers rows: out[t, :] = table[position(t), :] for t < count ([count, dim]).
Status table_lookup(const PositionTable& table, const Positions& positions, std::size_t count, float* out);

/// Adds rows in place: x[b, s, :] += table[position(b, s), :] for x of shape [batch, seq, dim].
Status table_add(const PositionTable& table, const Positions& positions, std::size_t batch, std::size_t seq,
                 float* x);

}  // namespace posenc
