// Build facts: the kernels' SIMD architecture, behind a public header free of xsimd, and the version.
#include "posenc/build_info.hpp"

#include "kernels/kernels.hpp"

#ifndef POSENC_VERSION
#error "POSENC_VERSION is defined by CMakeLists.txt from package.json"
#endif

namespace posenc {

const char* simd_arch() { return kernels::simd_arch_name(); }

const char* version() { return POSENC_VERSION; }

}  // namespace posenc
