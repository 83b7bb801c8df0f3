// Bindings of the other RoPE forms: 2-D axial RoPE, M-RoPE (Qwen2-VL sections, Qwen3-VL slots) and xPos.
#include <vector>

#include "boundary.hpp"
#include "posenc/rope_forms.hpp"
#include "posenc_boundary.hpp"
#include "rope_spec.hpp"

namespace posenc::bindings {

/// With `ids` = 0 the positions are the `gridRows x gridCols` grid in row-major token order.
Status rope_apply_axial_binding(const RopeApplyAxialArgs& a) {
  RopeTensors t;
  POSENC_RETURN_IF_ERROR(tensors_of(a, &t));
  RopeAxialConfig config;
  config.rotary_dim = a.rotary_dim;
  config.base = a.base;
  config.freqs = a.freqs;
  config.max_freq = a.max_freq;
  if (a.ids != 0) return rope_apply_axial(config, axis_positions(2, 0.0, a.ids, a.per_batch), t);
  std::size_t rows = 0, cols = 0;
  POSENC_RETURN_IF_ERROR(to_size("grid[0]", a.grid_rows, &rows));
  POSENC_RETURN_IF_ERROR(to_size("grid[1]", a.grid_cols, &cols));
  std::vector<double> grid;
  POSENC_RETURN_IF_ERROR(rope_axial_grid(rows, cols, config.freqs, &grid));
  return rope_apply_axial(config, axis_positions(2, 0.0, reinterpret_cast<std::uintptr_t>(grid.data()), false), t);
}

/// `sections` holds `sectionCount` doubles.
Status rope_apply_multimodal_binding(const RopeApplyMultimodalArgs& a) {
  RopeTensors t;
  POSENC_RETURN_IF_ERROR(tensors_of(a, &t));
  std::vector<int> sections;
  POSENC_RETURN_IF_ERROR(sections_from(a.sections, a.section_count, &sections));
  return rope_apply_multimodal(config_of(a), a.pairing, sections,
                               axis_positions(sections.size(), a.offset, a.ids, a.per_batch), t, a.interleaved);
}

/// `center` NaN means the default, floor(seq / 2).
Status rope_apply_x_pos_binding(const RopeApplyXPosArgs& a) {
  RopeTensors t;
  POSENC_RETURN_IF_ERROR(tensors_of(a, &t));
  XPosConfig xpos;
  xpos.gamma = a.gamma;
  xpos.scale_base = a.scale_base;
  xpos.center = present(a.center);
  return rope_apply_xpos(config_of(a), a.pairing, xpos, positions_of(a), t);
}

}  // namespace posenc::bindings
