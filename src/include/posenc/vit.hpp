// ViT learned position tables at another image size: the patch rows of the table, seen as a grid,
// are resized with PyTorch's bicubic interpolation (what Hugging Face's interpolate_pos_encoding does).
#pragma once

#include <cstddef>

#include "posenc/learned.hpp"
#include "posenc/status.hpp"

namespace posenc {

/// A patch grid's size: `height` rows of `width` patches (the public `[h, w]` of gridSize/newGridSize).
struct GridSize {
  std::size_t height = 0;
  std::size_t width = 0;
};

/// Resizes a channels-last grid `[from.height, from.width, dim]` to `[to.height, to.width, dim]` with
/// PyTorch's `interpolate(mode='bicubic', align_corners=False)` sampling, per axis:
///
///     src  = (dst + 0.5) * in / out - 0.5        (not clamped: negative near the first border)
///     base = floor(src),  t = src - base
///     dst value = sum over k = 0..3 of W(t + 1 - k) * value[clamp(base - 1 + k, 0, in - 1)]
///
/// where W is Keys' cubic convolution kernel with a = -0.75. The two axes are separable; weights and
/// sums are in float64, the result is rounded to float32 once. Equal sizes give an exact copy.
/// `grid` and `out` must not overlap. The messages name `gridSize`, `newGridSize` and `dim`.
Status bicubic_resize(const float* grid, GridSize from, std::size_t dim, GridSize to, float* out);

/// How vit_interpolate() reads and resizes a table.
struct VitInterpolation {
  GridSize grid;                      ///< gridSize: the patch grid the table was trained for
  GridSize new_grid;                  ///< newGridSize: the patch grid wanted
  std::size_t num_prefix_tokens = 1;  ///< numPrefixTokens: rows before the grid (1 = ViT's class token; DeiT 2)
};

/// The rows of an interpolated table: num_prefix_tokens + new_grid.height * new_grid.width, or a
/// size_overflow status.
Status vit_interpolated_rows(const VitInterpolation& options, std::size_t* rows);

/// A ViT position table `[numPrefixTokens + gridH * gridW, dim]` (prefix rows first, then the patch
/// grid row-major) resized to `[numPrefixTokens + newH * newW, dim]`: prefix rows are copied
/// unchanged, the grid goes through bicubic_resize (an exact copy when the grids are equal).
/// `out` holds vit_interpolated_rows() * dim floats and must not overlap the table.
Status vit_interpolate(const PositionTable& table, const VitInterpolation& options, float* out);

}  // namespace posenc
