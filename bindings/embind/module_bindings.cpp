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
void use_fused_kernels_binding(const UseFusedKernelsArgs& a) {
  use_fused_kernels(fused_kernels_from<FusedKernels>(a, [](std::uintptr_t index, auto member) {
    return reinterpret_cast<decltype(member)>(index);
  }));
}

}  // namespace posenc::bindings
