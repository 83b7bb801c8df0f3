// Sinusoidal encoding bindings: tables, add-in-place and anchored (cached fast) tables, on heap
// buffers the JS layer owns.
#include <emscripten/bind.h>

#include "boundary.hpp"
#include "posenc/sinusoidal.hpp"
#include "table_bindings.hpp"

namespace posenc::bindings {
namespace {

SinusoidalParams params(int dim, double base, int layout, int precision) {
  return SinusoidalParams{dim, base, static_cast<SinusoidLayout>(layout), static_cast<SinusoidPrecision>(precision)};
}

int sinusoidal_table_binding(std::uintptr_t out, int count, int dim, double base, int layout, int precision,
                             double offset, std::uintptr_t ids) {
  return guarded([&] {
    std::size_t n = 0;
    POSENC_RETURN_IF_ERROR(to_size("length", count, &n));
    return sinusoidal_table(params(dim, base, layout, precision), positions_from(offset, ids, false), n, ptr<float>(out));
  });
}

int sinusoidal_add_binding(std::uintptr_t x, int batch, int seq, int dim, double base, int layout, int precision,
                           double offset, std::uintptr_t ids, bool per_batch) {
  return guarded([&] {
    std::size_t b = 0, s = 0;
    POSENC_RETURN_IF_ERROR(to_size("batch", batch, &b));
    POSENC_RETURN_IF_ERROR(to_size("seq", seq, &s));
    return sinusoidal_add(params(dim, base, layout, precision), positions_from(offset, ids, per_batch), b, s, ptr<float>(x));
  });
}

/// Floats an anchored table needs, or -1 if the count overflows (the JS layer then reports it).
double anchored_table_floats_binding(int rows, int dim) {
  std::size_t r = 0, d = 0, floats = 0;
  if (!to_size("table rows", rows, &r).ok() || !to_size("dim", dim, &d).ok()) return -1;
  return anchored_table_floats(r, d, &floats).ok() ? static_cast<double>(floats) : -1;
}

int anchored_table_build_binding(std::uintptr_t storage, int rows, int dim, double base, int layout) {
  return guarded([&] {
    std::size_t n = 0;
    POSENC_RETURN_IF_ERROR(to_size("maxLength", rows, &n));
    return anchored_table_build(params(dim, base, layout, static_cast<int>(SinusoidPrecision::fast)), n,
                                ptr<float>(storage));
  });
}

void sinusoidal_frequencies_binding(std::uintptr_t out, int dim, double base) {
  const SinusoidalParams p{dim, base};
  double* w = ptr<double>(out);
  for (int i = 0; i < (dim + 1) / 2; ++i) w[i] = sinusoid_frequency(p, i);
}

}  // namespace
}  // namespace posenc::bindings

EMSCRIPTEN_BINDINGS(posenc_sinusoidal) {
  using namespace posenc::bindings;
  emscripten::function("sinusoidalTable", &sinusoidal_table_binding);
  emscripten::function("sinusoidalAdd", &sinusoidal_add_binding);
  emscripten::function("sinusoidalFrequencies", &sinusoidal_frequencies_binding);
  emscripten::function("anchoredTableFloats", &anchored_table_floats_binding);
  emscripten::function("anchoredTableBuild", &anchored_table_build_binding);
  // Same signatures as tableLookup / tableAdd, so a PositionTable can hold either storage.
  using posenc::AnchoredSinusoidTable;
  emscripten::function("anchoredTableLookup",
                       &table_lookup_binding<AnchoredSinusoidTable, &posenc::anchored_table_lookup>);
  emscripten::function("anchoredTableAdd", &table_add_binding<AnchoredSinusoidTable, &posenc::anchored_table_add>);
}
