// Checks of a PositionTable view shared by the learned-table and ViT families.
#pragma once

#include "encodings/detail/checks.hpp"
#include "posenc/learned.hpp"

namespace posenc::detail {

/// The table view is usable: rows >= 1, dim >= 1, data present, rows * dim addressable.
inline Status check_table(const PositionTable& table) {
  POSENC_RETURN_IF_ERROR(check_size("table rows", table.rows));
  POSENC_RETURN_IF_ERROR(check_size("dim", table.dim));
  if (table.data == nullptr) return invalid("table must not be empty");
  std::size_t total = 0;
  return checked_product({table.rows, table.dim}, "table", &total);
}

}  // namespace posenc::detail
