// Position-table bindings (learned tables, and cached sinusoidal tables): gather and add.
#include <emscripten/bind.h>

#include "boundary.hpp"
#include "posenc/learned.hpp"

namespace posenc::bindings {
namespace {

Status table_from(std::uintptr_t data, int rows, int dim, PositionTable* table) {
  POSENC_RETURN_IF_ERROR(to_size("table rows", rows, &table->rows));
  POSENC_RETURN_IF_ERROR(to_size("dim", dim, &table->dim));
  table->data = ptr<const float>(data);
  return {};
}

int table_lookup_binding(std::uintptr_t table_data, int rows, int dim, std::uintptr_t out, int count, double offset,
                         std::uintptr_t ids) {
  return guarded([&] {
    PositionTable table;
    POSENC_RETURN_IF_ERROR(table_from(table_data, rows, dim, &table));
    std::size_t n = 0;
    POSENC_RETURN_IF_ERROR(to_size("length", count, &n));
    return table_lookup(table, positions_from(offset, ids, false), n, ptr<float>(out));
  });
}

int table_add_binding(std::uintptr_t table_data, int rows, int dim, std::uintptr_t x, int batch, int seq,
                      double offset, std::uintptr_t ids, bool per_batch) {
  return guarded([&] {
    PositionTable table;
    POSENC_RETURN_IF_ERROR(table_from(table_data, rows, dim, &table));
    std::size_t b = 0, s = 0;
    POSENC_RETURN_IF_ERROR(to_size("batch", batch, &b));
    POSENC_RETURN_IF_ERROR(to_size("seq", seq, &s));
    return table_add(table, positions_from(offset, ids, per_batch), b, s, ptr<float>(x));
  });
}

}  // namespace
}  // namespace posenc::bindings

EMSCRIPTEN_BINDINGS(posenc_learned) {
  using namespace posenc::bindings;
  emscripten::function("tableLookup", &table_lookup_binding);
  emscripten::function("tableAdd", &table_add_binding);
}
