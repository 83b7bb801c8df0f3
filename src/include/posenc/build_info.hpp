// Facts about this build of posenc that callers may want to report.
#pragma once

namespace posenc {

/// The SIMD instruction set the kernels were compiled for, as xsimd names it (`sse4.1` under
/// WebAssembly, where Emscripten translates SSE4.1 to WebAssembly SIMD; e.g. `avx512bw` natively).
const char* simd_arch();

/// The version of posenc this library was built as: the `version` of package.json, which CMake
/// reads (it is the project's one version source).
const char* version();

}  // namespace posenc
