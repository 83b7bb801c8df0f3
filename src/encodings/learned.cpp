// Learned absolute position tables (BERT, GPT-2, ViT): out[t, :] = table[id(t), :]. An id outside
// [0, rows) is an error, as in torch's embedding lookup; nothing is clamped or wrapped.
#include "posenc/learned.hpp"

#include "encodings/detail/table_checks.hpp"
#include "kernels/kernels.hpp"

namespace posenc {

Status table_lookup(const PositionTable& table, const Positions& positions, std::size_t count, float* out) {
  POSENC_RETURN_IF_ERROR(detail::check_table(table));
  POSENC_RETURN_IF_ERROR(detail::check_size("length", count));
  if (positions.per_batch) return detail::invalid("positionIds must be one list for a lookup, not one per batch row");
  std::size_t total = 0;
  POSENC_RETURN_IF_ERROR(detail::checked_product({count, table.dim}, "the output", &total));
  POSENC_RETURN_IF_ERROR(detail::check_row_ids(table.rows, positions, 1, count));
  for (std::size_t t = 0; t < count; ++t) {
    const auto row = static_cast<std::size_t>(positions.at(0, t, count));
    kernels::copy(out + t * table.dim, table.data + row * table.dim, table.dim);
  }
  return {};
}

Status table_add(const PositionTable& table, const Positions& positions, std::size_t batch, std::size_t seq,
                 float* x) {
  POSENC_RETURN_IF_ERROR(detail::check_table(table));
  POSENC_RETURN_IF_ERROR(detail::check_size("batch", batch));
  POSENC_RETURN_IF_ERROR(detail::check_size("seq", seq));
  std::size_t total = 0;
  POSENC_RETURN_IF_ERROR(detail::checked_product({batch, seq, table.dim}, "x", &total));
  POSENC_RETURN_IF_ERROR(detail::check_row_ids(table.rows, positions, batch, seq));
  for (std::size_t b = 0; b < batch; ++b) {
    if (positions.is_range()) {  // consecutive rows: one contiguous add per batch row
      const auto first = static_cast<std::size_t>(positions.offset);
      kernels::add(x + b * seq * table.dim, table.data + first * table.dim, seq * table.dim);
      continue;
    }
    for (std::size_t s = 0; s < seq; ++s) {
      const auto row = static_cast<std::size_t>(positions.at(b, s, seq));
      kernels::add(x + (b * seq + s) * table.dim, table.data + row * table.dim, table.dim);
    }
  }
  return {};
}

}  // namespace posenc
