// Position-table bindings (learned tables, and cached sinusoidal tables): gather and add.
#include <emscripten/bind.h>

#include "posenc/learned.hpp"
#include "table_bindings.hpp"

EMSCRIPTEN_BINDINGS(posenc_learned) {
  using namespace posenc::bindings;
  emscripten::function("tableLookup", &table_lookup_binding<posenc::PositionTable, &posenc::table_lookup>);
  emscripten::function("tableAdd", &table_add_binding<posenc::PositionTable, &posenc::table_add>);
}
