// Bindings of a model layer's RoPE form (posenc/rope_layer.hpp): the rotation, the pairs it
// rotates with (for caches and diagnostics), cached rows on those lanes, and a query scale alone.
#include <algorithm>
#include <cmath>
#include <vector>

#include "boundary.hpp"
#include "posenc/rope_layer.hpp"
#include "posenc_boundary.hpp"
#include "rope_spec.hpp"

namespace posenc::bindings {
namespace {

/// The form fields of an argument block (sections: sectionCount doubles).
template <class Args>
Status form_of(const Args& a, RopeLayerForm* f) {
  f->kind = a.form;
  f->pairing = a.pairing;
  POSENC_RETURN_IF_ERROR(to_size("rotatedPairs", a.rotated_pairs, &f->rotated_pairs));
  POSENC_RETURN_IF_ERROR(to_size("firstLane", a.first_lane, &f->first_lane));
  POSENC_RETURN_IF_ERROR(to_size("patchesPerSide", a.patches_per_side, &f->patches_per_side));
  POSENC_RETURN_IF_ERROR(sections_from(a.sections, a.section_count, &f->sections));
  f->interleaved_sections = a.interleaved_sections;
  f->deinterleave = a.deinterleave;
  return {};
}

/// The query scale of an argument block, or null when it has none.
template <class Args>
const QueryScale* query_scale_of(const Args& a, QueryScale* storage) {
  if (!a.has_query_scale) return nullptr;
  *storage = QueryScale{a.query_scale, a.query_floor_scale, a.query_position_offset};
  return storage;
}

}  // namespace

Status rope_apply_layer_binding(const RopeApplyLayerArgs& a) {
  RopeTensors t;
  POSENC_RETURN_IF_ERROR(tensors_of(a, &t));
  RopeLayerForm form;
  POSENC_RETURN_IF_ERROR(form_of(a, &form));
  std::size_t axes = 0;
  POSENC_RETURN_IF_ERROR(to_size("position axes", a.axes, &axes));
  QueryScale storage;
  return rope_apply_layer(config_of(a), form, axis_positions(axes, a.offset, a.ids, a.per_batch),
                          query_scale_of(a, &storage), t);
}

/// Writes a RopeLayerPairsBlock of capacity rotaryDim/2 (NaN past the used pairs).
Status rope_layer_pairs_binding(const RopeLayerPairsArgs& a) {
  RopeLayerForm form;
  POSENC_RETURN_IF_ERROR(form_of(a, &form));
  RopeLayerPairs p;
  const RopeConfig config = config_of(a);
  POSENC_RETURN_IF_ERROR(rope_layer_pairs(config, form, config.seq_len.value_or(std::nan("")), &p));
  const auto capacity = static_cast<std::size_t>(std::max(a.rotary_dim, 0) / 2);
  auto& block = *ptr<RopeLayerPairsBlock>(a.out);
  block.attention_factor = p.attention_factor;
  block.pairs = static_cast<double>(p.lanes.pairs);
  block.axes = static_cast<double>(p.axes);
  block.pairing = static_cast<double>(static_cast<int>(p.lanes.pairing));
  block.first_lane = static_cast<double>(p.lanes.first_lane);
  block.half_span = static_cast<double>(p.lanes.half_span);
  block.deinterleave = p.lanes.deinterleave ? 1.0 : 0.0;
  double* freq = block.freq(capacity);
  double* axis = block.axis_of_pair(capacity);
  std::fill(freq, freq + capacity, std::nan(""));
  std::fill(axis, axis + capacity, 0.0);
  std::copy(p.freq.begin(), p.freq.end(), freq);
  for (std::size_t i = 0; i < p.axis_of_pair.size(); ++i) axis[i] = static_cast<double>(p.axis_of_pair[i]);
  return {};
}

Status rope_apply_lanes_table_binding(const RopeApplyLanesTableArgs& a) {
  RopeTensors t;
  POSENC_RETURN_IF_ERROR(tensors_of(a, &t));
  RopeTable table;
  POSENC_RETURN_IF_ERROR(table_of(a, &table));
  RopeHeadLanes lanes{a.pairing, table.pairs, 0, 0, a.deinterleave};
  POSENC_RETURN_IF_ERROR(to_size("firstLane", a.first_lane, &lanes.first_lane));
  POSENC_RETURN_IF_ERROR(to_size("halfSpan", a.half_span, &lanes.half_span));
  QueryScale storage;
  return rope_apply_lanes_table(table, lanes, positions_of(a), query_scale_of(a, &storage), t);
}

Status rope_scale_queries_binding(const RopeScaleQueriesArgs& a) {
  RopeTensors t;
  POSENC_RETURN_IF_ERROR(tensors_of(a, &t));
  return rope_scale_queries(QueryScale{a.query_scale, a.query_floor_scale, a.query_position_offset}, positions_of(a), t);
}

}  // namespace posenc::bindings
