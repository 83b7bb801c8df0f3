// The bindings of a position table, full rows (posenc/learned.hpp) or anchored sinusoidal rows
// (posenc/sinusoidal.hpp): both are a {data, rows, dim} view with a lookup and an add of the same
// shape, so the JS PositionTable calls either pair the same way.
#pragma once

#include <cstddef>
#include <cstdint>

#include "boundary.hpp"

namespace posenc::bindings {

/// The {data, rows, dim} view of a table at `data`.
template <class Table>
Status table_view(std::uintptr_t data, int rows, int dim, Table* table) {
  POSENC_RETURN_IF_ERROR(to_size("table rows", rows, &table->rows));
  POSENC_RETURN_IF_ERROR(to_size("dim", dim, &table->dim));
  table->data = ptr<const float>(data);
  return {};
}

/// Gathers `count` rows of the table at `data` into `out`, by offset or ids.
template <class Table, Status (*Lookup)(const Table&, const Positions&, std::size_t, float*)>
int table_lookup_binding(std::uintptr_t data, int rows, int dim, std::uintptr_t out, int count, double offset,
                         std::uintptr_t ids) {
  return guarded([&] {
    Table table;
    POSENC_RETURN_IF_ERROR(table_view(data, rows, dim, &table));
    std::size_t n = 0;
    POSENC_RETURN_IF_ERROR(to_size("length", count, &n));
    return Lookup(table, positions_from(offset, ids, false), n, ptr<float>(out));
  });
}

/// Adds the table's rows into x [batch, seq, dim] in place, by offset or ids.
template <class Table, Status (*Add)(const Table&, const Positions&, std::size_t, std::size_t, float*)>
int table_add_binding(std::uintptr_t data, int rows, int dim, std::uintptr_t x, int batch, int seq, double offset,
                      std::uintptr_t ids, bool per_batch) {
  return guarded([&] {
    Table table;
    POSENC_RETURN_IF_ERROR(table_view(data, rows, dim, &table));
    std::size_t b = 0, s = 0;
    POSENC_RETURN_IF_ERROR(to_size("batch", batch, &b));
    POSENC_RETURN_IF_ERROR(to_size("seq", seq, &s));
    return Add(table, positions_from(offset, ids, per_batch), b, s, ptr<float>(x));
  });
}

}  // namespace posenc::bindings
