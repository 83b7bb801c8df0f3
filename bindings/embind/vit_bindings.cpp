// ViT position-table interpolation binding: a [numPrefixTokens + gridH*gridW, dim] table resized to a new grid.
#include <emscripten/bind.h>

#include "boundary.hpp"
#include "posenc/vit.hpp"

namespace posenc::bindings {
namespace {

/// Writes the interpolated table ([numPrefixTokens + newH * newW, dim] floats) at `out`.
int vit_interpolate_binding(std::uintptr_t table_data, int rows, int dim, int grid_h, int grid_w, int new_h, int new_w,
                            int num_prefix_tokens, std::uintptr_t out) {
  return guarded([&] {
    PositionTable table;
    table.data = ptr<const float>(table_data);
    POSENC_RETURN_IF_ERROR(to_size("table rows", rows, &table.rows));
    POSENC_RETURN_IF_ERROR(to_size("dim", dim, &table.dim));
    VitInterpolation options;
    POSENC_RETURN_IF_ERROR(to_size("gridSize[0]", grid_h, &options.grid.height));
    POSENC_RETURN_IF_ERROR(to_size("gridSize[1]", grid_w, &options.grid.width));
    POSENC_RETURN_IF_ERROR(to_size("newGridSize[0]", new_h, &options.new_grid.height));
    POSENC_RETURN_IF_ERROR(to_size("newGridSize[1]", new_w, &options.new_grid.width));
    POSENC_RETURN_IF_ERROR(to_size("numPrefixTokens", num_prefix_tokens, &options.num_prefix_tokens));
    return vit_interpolate(table, options, ptr<float>(out));
  });
}

}  // namespace
}  // namespace posenc::bindings

EMSCRIPTEN_BINDINGS(posenc_vit) {
  using namespace posenc::bindings;
  emscripten::function("vitInterpolate", &vit_interpolate_binding);
}
