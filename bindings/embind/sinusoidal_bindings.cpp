// Sinusoidal encoding bindings: tables and add-in-place, on heap buffers the JS layer owns.
#include <emscripten/bind.h>

#include "boundary.hpp"
#include "posenc/sinusoidal.hpp"

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
}
