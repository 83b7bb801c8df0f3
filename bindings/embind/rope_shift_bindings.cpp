// KV-cache context shift bindings: rotated keys moved to new positions, from a spec or from given
// inverse frequencies (a RopeCache's).
#include "boundary.hpp"
#include "posenc/rope_shift.hpp"
#include "posenc_boundary.hpp"
#include "rope_spec.hpp"

namespace posenc::bindings {

Status rope_shift_binding(const RopeShiftArgs& a) {
  RopeTensors t;
  POSENC_RETURN_IF_ERROR(tensors_of(a, &t));
  return rope_shift(config_of(a), a.pairing, positions_of(a), positions_from(a.to_offset, a.to_ids, a.to_per_batch), t);
}

Status rope_shift_rotation_binding(const RopeShiftRotationArgs& a) {
  RopeTensors t;
  POSENC_RETURN_IF_ERROR(tensors_of(a, &t));
  const RopeRotation rotation{a.pairing, a.rotary_dim, ptr<const double>(a.inv_freq), 1.0};
  return rope_shift(rotation, positions_of(a), positions_from(a.to_offset, a.to_ids, a.to_per_batch), t);
}

}  // namespace posenc::bindings
