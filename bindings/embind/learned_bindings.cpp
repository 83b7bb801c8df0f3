// Position-table bindings (learned tables): gather and add.
#include "posenc/learned.hpp"
#include "posenc_boundary.hpp"
#include "table_bindings.hpp"

namespace posenc::bindings {

Status table_lookup_binding(const TableLookupArgs& a) {
  return lookup_rows<PositionTable, &posenc::table_lookup>(a);
}

Status table_add_binding(const TableAddArgs& a) { return add_rows<PositionTable, &posenc::table_add>(a); }

}  // namespace posenc::bindings
