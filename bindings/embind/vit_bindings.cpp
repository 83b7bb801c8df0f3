// ViT position-table interpolation binding: a [numPrefixTokens + gridH*gridW, dim] table resized to a new grid.
#include "boundary.hpp"
#include "posenc/vit.hpp"
#include "posenc_boundary.hpp"

namespace posenc::bindings {

Status vit_interpolate_binding(const VitInterpolateArgs& a) {
  PositionTable table;
  table.data = ptr<const float>(a.table);
  POSENC_RETURN_IF_ERROR(to_size("table rows", a.rows, &table.rows));
  POSENC_RETURN_IF_ERROR(to_size("dim", a.dim, &table.dim));
  VitInterpolation options;
  POSENC_RETURN_IF_ERROR(to_size("gridSize[0]", a.grid_h, &options.grid.height));
  POSENC_RETURN_IF_ERROR(to_size("gridSize[1]", a.grid_w, &options.grid.width));
  POSENC_RETURN_IF_ERROR(to_size("newGridSize[0]", a.new_h, &options.new_grid.height));
  POSENC_RETURN_IF_ERROR(to_size("newGridSize[1]", a.new_w, &options.new_grid.width));
  POSENC_RETURN_IF_ERROR(to_size("numPrefixTokens", a.num_prefix_tokens, &options.num_prefix_tokens));
  return vit_interpolate(table, options, ptr<float>(a.out));
}

}  // namespace posenc::bindings
