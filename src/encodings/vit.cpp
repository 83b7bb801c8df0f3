// ViT position-table interpolation: PyTorch's bicubic resize of the patch grid, prefix rows kept.
//
// Sources, restated:
// - Hugging Face transformers, models/vit/modeling_vit.py `ViTEmbeddings.interpolate_pos_encoding`:
//   the class row is set aside, the g*g patch rows are viewed as a (g, g, d) grid, resized with
//   `nn.functional.interpolate(size=(h, w), mode='bicubic', align_corners=False)` and the class
//   row is put back in front. (Older releases, after DINO, passed `scale_factor = (h + 0.1) / g`
//   instead of the size; PyTorch then samples with 1 / scale_factor, a slightly different grid.
//   posenc follows the size form.)
// - PyTorch aten/src/ATen/native/UpSample.h and the CPU bicubic kernel: the source coordinate of
//   output index o is (o + 0.5) * in / out - 0.5, deliberately not clamped at 0 for cubic modes;
//   its floor is the second of four taps (floor - 1 .. floor + 2), each tap index is clamped into
//   [0, in - 1] when read (replicated border), and the fractional part t picks the weights
//   W(t + 1), W(t), W(1 - t), W(2 - t) of Keys' cubic convolution kernel with a = -0.75
//   (R. Keys, "Cubic convolution interpolation for digital image processing", 1981):
//       W(x) = (a + 2)|x|^3 - (a + 3)|x|^2 + 1           for |x| <= 1
//       W(x) = a|x|^3 - 5a|x|^2 + 8a|x| - 4a              for 1 < |x| < 2
//   PyTorch also caps the floor at in - 1 and t to [0, 1]; with this coordinate neither cap can
//   bind, but it is kept for fidelity. PyTorch rounds in the tensor's precision (float32 for
//   float32 tables); posenc computes weights and sums in float64 and rounds once.
#include "posenc/vit.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "encodings/detail/table_checks.hpp"

namespace posenc {
namespace {

/// The four source indices (already clamped to the border) and weights of one output coordinate.
struct CubicTaps {
  std::size_t index[4];
  double weight[4];
};

constexpr double kCubicA = -0.75;  // PyTorch's (and OpenCV's) choice of Keys' free parameter

/// Keys' kernel on [0, 1]: (a + 2) x^3 - (a + 3) x^2 + 1.
double cubic_near(double x) { return ((kCubicA + 2.0) * x - (kCubicA + 3.0)) * x * x + 1.0; }

/// Keys' kernel on [1, 2]: a x^3 - 5a x^2 + 8a x - 4a.
double cubic_far(double x) { return ((kCubicA * x - 5.0 * kCubicA) * x + 8.0 * kCubicA) * x - 4.0 * kCubicA; }

/// Taps of output index `dst` when `in` samples are resized to `out` (align_corners = false).
CubicTaps cubic_taps(std::size_t dst, std::size_t in, std::size_t out) {
  const double scale = static_cast<double>(in) / static_cast<double>(out);
  const double src = (static_cast<double>(dst) + 0.5) * scale - 0.5;
  const auto last = static_cast<std::ptrdiff_t>(in) - 1;
  const auto base = std::min(static_cast<std::ptrdiff_t>(std::floor(src)), last);
  const double t = std::clamp(src - static_cast<double>(base), 0.0, 1.0);
  CubicTaps taps;
  taps.weight[0] = cubic_far(t + 1.0);
  taps.weight[1] = cubic_near(t);
  taps.weight[2] = cubic_near(1.0 - t);
  taps.weight[3] = cubic_far(2.0 - t);
  for (std::ptrdiff_t k = 0; k < 4; ++k) {
    taps.index[k] = static_cast<std::size_t>(std::clamp<std::ptrdiff_t>(base - 1 + k, 0, last));
  }
  return taps;
}

Status check_grid(const char* name, GridSize grid) {
  POSENC_RETURN_IF_ERROR(detail::check_size((std::string(name) + "[0]").c_str(), grid.height));
  return detail::check_size((std::string(name) + "[1]").c_str(), grid.width);
}

}  // namespace

Status bicubic_resize(const float* grid, GridSize from, std::size_t dim, GridSize to, float* out) {
  POSENC_RETURN_IF_ERROR(check_grid("gridSize", from));
  POSENC_RETURN_IF_ERROR(check_grid("newGridSize", to));
  POSENC_RETURN_IF_ERROR(detail::check_size("dim", dim));
  if (grid == nullptr) return detail::invalid("grid must not be empty");
  std::size_t in_count = 0, out_count = 0, row_count = 0;
  POSENC_RETURN_IF_ERROR(detail::checked_product({from.height, from.width, dim}, "the grid", &in_count));
  POSENC_RETURN_IF_ERROR(detail::checked_product({to.height, to.width, dim}, "the resized grid", &out_count));
  if (from.height == to.height && from.width == to.width) {
    std::memcpy(out, grid, in_count * sizeof(float));
    return {};
  }
  row_count = from.width * dim;  // one source row, a factor of in_count: cannot overflow

  std::vector<CubicTaps> columns;
  POSENC_RETURN_IF_ERROR(detail::allocate(columns, to.width));
  for (std::size_t x = 0; x < to.width; ++x) columns[x] = cubic_taps(x, from.width, to.width);
  std::vector<double> blended;  // the four source rows of one output row, blended vertically
  POSENC_RETURN_IF_ERROR(detail::allocate(blended, row_count));

  for (std::size_t y = 0; y < to.height; ++y) {
    // Vertical pass: blended = sum_k w_k * source row index_k (whole rows, contiguous).
    const CubicTaps rows = cubic_taps(y, from.height, to.height);
    std::fill(blended.begin(), blended.end(), 0.0);
    for (int k = 0; k < 4; ++k) {
      const float* src = grid + rows.index[k] * row_count;
      const double w = rows.weight[k];
      for (std::size_t i = 0; i < row_count; ++i) blended[i] += w * static_cast<double>(src[i]);
    }
    // Horizontal pass: each output patch blends four patches of that row.
    float* dst_row = out + y * to.width * dim;
    for (std::size_t x = 0; x < to.width; ++x) {
      const CubicTaps& c = columns[x];
      const double* p0 = blended.data() + c.index[0] * dim;
      const double* p1 = blended.data() + c.index[1] * dim;
      const double* p2 = blended.data() + c.index[2] * dim;
      const double* p3 = blended.data() + c.index[3] * dim;
      float* dst = dst_row + x * dim;
      for (std::size_t j = 0; j < dim; ++j) {
        dst[j] = static_cast<float>(c.weight[0] * p0[j] + c.weight[1] * p1[j] + c.weight[2] * p2[j] + c.weight[3] * p3[j]);
      }
    }
  }
  return {};
}

Status vit_interpolated_rows(const VitInterpolation& options, std::size_t* rows) {
  std::size_t patches = 0;
  POSENC_RETURN_IF_ERROR(detail::checked_product({options.new_grid.height, options.new_grid.width}, "newGridSize", &patches));
  if (patches > static_cast<std::size_t>(-1) - options.num_prefix_tokens) {
    return detail::error(StatusCode::size_overflow, "numPrefixTokens + newGridSize[0] * newGridSize[1] is too large to address");
  }
  *rows = options.num_prefix_tokens + patches;
  return {};
}

Status vit_interpolate(const PositionTable& table, const VitInterpolation& options, float* out) {
  POSENC_RETURN_IF_ERROR(detail::check_table(table));
  POSENC_RETURN_IF_ERROR(check_grid("gridSize", options.grid));
  POSENC_RETURN_IF_ERROR(check_grid("newGridSize", options.new_grid));
  const std::size_t prefix = options.num_prefix_tokens;

  std::size_t patches = 0;
  POSENC_RETURN_IF_ERROR(detail::checked_product({options.grid.height, options.grid.width}, "gridSize", &patches));
  if (prefix > table.rows || table.rows - prefix != patches) {
    const bool representable = patches <= static_cast<std::size_t>(-1) - prefix;
    return detail::error(StatusCode::shape_mismatch,
                         "table rows must equal numPrefixTokens + gridSize[0] * gridSize[1] (" + std::to_string(prefix) +
                             " + " + std::to_string(options.grid.height) + " * " + std::to_string(options.grid.width) +
                             (representable ? " = " + std::to_string(prefix + patches) : std::string()) + "), got " +
                             std::to_string(table.rows));
  }
  std::size_t out_rows = 0, out_count = 0;
  POSENC_RETURN_IF_ERROR(vit_interpolated_rows(options, &out_rows));
  POSENC_RETURN_IF_ERROR(detail::checked_product({out_rows, table.dim}, "the interpolated table", &out_count));

  if (prefix > 0) std::memcpy(out, table.data, prefix * table.dim * sizeof(float));  // class/distillation rows, unchanged
  return bicubic_resize(table.data + prefix * table.dim, options.grid, table.dim, options.new_grid,
                        out + prefix * table.dim);
}

}  // namespace posenc
