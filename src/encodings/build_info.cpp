// Build facts: the kernels' SIMD architecture, behind a public header free of xsimd.
#include "posenc/build_info.hpp"

#include "kernels/kernels.hpp"

namespace posenc {

const char* simd_arch() { return kernels::simd_arch_name(); }

}  // namespace posenc
