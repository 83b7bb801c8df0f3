// Module-wide bindings: the last error message and build facts.
#include <cstdint>

#include "boundary.hpp"
#include "posenc/build_info.hpp"
#include "posenc/fused_kernels.hpp"
#include "posenc_boundary.hpp"

namespace posenc::bindings {
namespace {
Status g_last;
}  // namespace

int report(const Status& status) {
  if (!status.ok()) g_last = status;
  return static_cast<int>(status.code());
}

std::string last_error_message_binding() { return g_last.message(); }

std::string simd_arch_binding() { return simd_arch(); }

std::string version_binding() { return posenc::version(); }

// Under wasm32 a function pointer is an index into the module's function table: the JS loader puts
// the relaxed-SIMD module's exports into grown slots of that table and passes their indices here.
template <class F>
F slot(std::uintptr_t index) {
  return reinterpret_cast<F>(index);
}

void use_fused_kernels_binding(const UseFusedKernelsArgs& a) {
  FusedKernels k;
  k.rotate_half_tokens = slot<RotateHalfTokens>(a.rotate_half_tokens);
  k.rotate_interleaved_tokens = slot<RotateInterleavedTokens>(a.rotate_interleaved_tokens);
  k.phasor_rows_narrow = slot<PhasorRowsNarrow>(a.phasor_rows_narrow);
  k.phasor_rows_narrow_interleave = slot<PhasorRowsNarrowInterleave>(a.phasor_rows_narrow_interleave);
  use_fused_kernels(k);
}

}  // namespace posenc::bindings
