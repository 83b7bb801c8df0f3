// Sinusoidal encoding bindings: tables, add-in-place and anchored (cached fast) tables, on heap
// buffers the JS layer owns.
#include "boundary.hpp"
#include "posenc/sinusoidal.hpp"
#include "posenc_boundary.hpp"
#include "table_bindings.hpp"

namespace posenc::bindings {

Status sinusoidal_table_binding(const SinusoidalTableArgs& a) {
  std::size_t n = 0;
  POSENC_RETURN_IF_ERROR(to_size("length", a.count, &n));
  return sinusoidal_table(SinusoidalParams{a.dim, a.base, a.layout, a.precision}, positions_from(a.offset, a.ids, false),
                          n, ptr<float>(a.out));
}

Status sinusoidal_add_binding(const SinusoidalAddArgs& a) {
  std::size_t b = 0, s = 0;
  POSENC_RETURN_IF_ERROR(to_size("batch", a.batch, &b));
  POSENC_RETURN_IF_ERROR(to_size("seq", a.seq, &s));
  return sinusoidal_add(SinusoidalParams{a.dim, a.base, a.layout, a.precision}, positions_of(a), b, s, ptr<float>(a.x));
}

double anchored_table_floats_binding(const AnchoredTableFloatsArgs& a) {
  std::size_t r = 0, d = 0, floats = 0;
  if (!to_size("table rows", a.rows, &r).ok() || !to_size("dim", a.dim, &d).ok()) return -1;
  return anchored_table_floats(r, d, &floats).ok() ? static_cast<double>(floats) : -1;
}

Status anchored_table_build_binding(const AnchoredTableBuildArgs& a) {
  std::size_t n = 0;
  POSENC_RETURN_IF_ERROR(to_size("maxLength", a.rows, &n));
  return anchored_table_build(SinusoidalParams{a.dim, a.base, a.layout, SinusoidPrecision::fast}, n,
                              ptr<float>(a.storage));
}

Status sinusoidal_frequencies_binding(const SinusoidalFrequenciesArgs& a) {
  return sinusoidal_frequencies(SinusoidalParams{a.dim, a.base}, ptr<double>(a.out));
}

// Same fields as tableLookup / tableAdd, so a PositionTable can hold either storage.
Status anchored_table_lookup_binding(const AnchoredTableLookupArgs& a) {
  return lookup_rows<AnchoredSinusoidTable, &anchored_table_lookup>(a);
}

Status anchored_table_add_binding(const AnchoredTableAddArgs& a) {
  return add_rows<AnchoredSinusoidTable, &anchored_table_add>(a);
}

}  // namespace posenc::bindings
