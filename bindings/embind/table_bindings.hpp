// The bindings of a position table, full rows (posenc/learned.hpp) or anchored sinusoidal rows
// (posenc/sinusoidal.hpp): both are a {data, rows, dim} view with a lookup and an add of the same
// shape, so the JS PositionTable calls either pair the same way.
#pragma once

#include <cstddef>
#include <cstdint>

#include "boundary.hpp"

namespace posenc::bindings {

/// The {data, rows, dim} view of the table an argument block names (fields table, rows, dim).
template <class Table, class Args>
Status table_view(const Args& a, Table* table) {
  POSENC_RETURN_IF_ERROR(to_size("table rows", a.rows, &table->rows));
  POSENC_RETURN_IF_ERROR(to_size("dim", a.dim, &table->dim));
  table->data = ptr<const float>(a.table);
  return {};
}

/// Gathers `count` rows of the table into `out`, by offset or ids.
template <class Table, Status (*Lookup)(const Table&, const Positions&, std::size_t, float*), class Args>
Status lookup_rows(const Args& a) {
  Table table;
  POSENC_RETURN_IF_ERROR(table_view(a, &table));
  std::size_t n = 0;
  POSENC_RETURN_IF_ERROR(to_size("length", a.count, &n));
  return Lookup(table, positions_from(a.offset, a.ids, false), n, ptr<float>(a.out));
}

/// Adds the table's rows into x [batch, seq, dim] in place, by offset or ids.
template <class Table, Status (*Add)(const Table&, const Positions&, std::size_t, std::size_t, float*), class Args>
Status add_rows(const Args& a) {
  Table table;
  POSENC_RETURN_IF_ERROR(table_view(a, &table));
  std::size_t b = 0, s = 0;
  POSENC_RETURN_IF_ERROR(to_size("batch", a.batch, &b));
  POSENC_RETURN_IF_ERROR(to_size("seq", a.seq, &s));
  return Add(table, positions_of(a), b, s, ptr<float>(a.x));
}

}  // namespace posenc::bindings
