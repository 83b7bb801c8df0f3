// Bindings of the other RoPE forms: 2-D axial RoPE, M-RoPE (Qwen2-VL) and xPos.
#include <emscripten/bind.h>

#include <cmath>
#include <vector>

#include "boundary.hpp"
#include "posenc/rope_forms.hpp"
#include "rope_spec.hpp"

namespace posenc::bindings {
namespace {

/// Axis-major ids ([axes, seq] or [axes, batch, seq]) or, without ids, a range from `offset`.
AxisPositions axis_positions(std::size_t axes, double offset, std::uintptr_t ids, bool per_batch) {
  AxisPositions p;
  p.axes = axes;
  p.offset = offset;
  p.ids = ids == 0 ? nullptr : ptr<const double>(ids);
  p.per_batch = per_batch;
  return p;
}

/// With `ids` = 0 the positions are the `grid_rows x grid_cols` grid in row-major token order.
int rope_apply_axial_binding(std::uintptr_t q, int q_heads, std::uintptr_t k, int k_heads, int batch, int seq,
                             int head_dim, int layout, int rotary_dim, double base, int freqs, double max_freq,
                             std::uintptr_t ids, bool per_batch, int grid_rows, int grid_cols) {
  return guarded([&] {
    RopeTensors t;
    POSENC_RETURN_IF_ERROR(tensors_from(q, q_heads, k, k_heads, batch, seq, head_dim, layout, &t));
    RopeAxialConfig config;
    config.rotary_dim = rotary_dim;
    config.base = base;
    config.freqs = static_cast<AxialFrequencies>(freqs);
    config.max_freq = max_freq;
    std::vector<double> grid;
    if (ids == 0) {
      std::size_t rows = 0, cols = 0;
      POSENC_RETURN_IF_ERROR(to_size("grid[0]", grid_rows, &rows));
      POSENC_RETURN_IF_ERROR(to_size("grid[1]", grid_cols, &cols));
      POSENC_RETURN_IF_ERROR(rope_axial_grid(rows, cols, config.freqs, &grid));
      return rope_apply_axial(config, axis_positions(2, 0.0, reinterpret_cast<std::uintptr_t>(grid.data()), false), t);
    }
    return rope_apply_axial(config, axis_positions(2, 0.0, ids, per_batch), t);
  });
}

/// `sections` holds `section_count` doubles (integers checked by JS).
int rope_apply_multimodal_binding(std::uintptr_t q, int q_heads, std::uintptr_t k, int k_heads, int batch, int seq,
                                  int head_dim, int layout, int pairing, int rotary_dim, double base,
                                  std::uintptr_t scaling, double seq_len, std::uintptr_t sections, int section_count,
                                  double offset, std::uintptr_t ids, bool per_batch) {
  return guarded([&] {
    RopeTensors t;
    POSENC_RETURN_IF_ERROR(tensors_from(q, q_heads, k, k_heads, batch, seq, head_dim, layout, &t));
    std::size_t n = 0;
    POSENC_RETURN_IF_ERROR(to_size("mropeSection length", section_count, &n));
    const double* s = ptr<const double>(sections);
    std::vector<int> runs(s, s + n);
    return rope_apply_multimodal(config_from(rotary_dim, base, scaling, seq_len), static_cast<Pairing>(pairing), runs,
                                 axis_positions(n, offset, ids, per_batch), t);
  });
}

/// `center` NaN means the default, floor(seq / 2).
int rope_apply_xpos_binding(std::uintptr_t q, int q_heads, std::uintptr_t k, int k_heads, int batch, int seq,
                            int head_dim, int layout, int pairing, int rotary_dim, double base, std::uintptr_t scaling,
                            double seq_len, double gamma, double scale_base, double center, double offset,
                            std::uintptr_t ids, bool per_batch) {
  return guarded([&] {
    RopeTensors t;
    POSENC_RETURN_IF_ERROR(tensors_from(q, q_heads, k, k_heads, batch, seq, head_dim, layout, &t));
    XPosConfig xpos;
    xpos.gamma = gamma;
    xpos.scale_base = scale_base;
    xpos.center = present(center);
    return rope_apply_xpos(config_from(rotary_dim, base, scaling, seq_len), static_cast<Pairing>(pairing), xpos,
                           positions_from(offset, ids, per_batch), t);
  });
}

}  // namespace
}  // namespace posenc::bindings

EMSCRIPTEN_BINDINGS(posenc_rope_forms) {
  using namespace posenc::bindings;
  emscripten::function("ropeApplyAxial", &rope_apply_axial_binding);
  emscripten::function("ropeApplyMultimodal", &rope_apply_multimodal_binding);
  emscripten::function("ropeApplyXPos", &rope_apply_xpos_binding);
}
