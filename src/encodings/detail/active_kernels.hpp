// The kernels every caller of a replaceable kernel goes through (posenc/fused_kernels.hpp): read
// inline, as a plain load, since the decode step calls a rotation kernel for each of a few rows.
#pragma once

#include "posenc/fused_kernels.hpp"

namespace posenc::detail {

/// Defined in src/encodings/fused_kernels.cpp; every member non-null (the built-in kernel where
/// use_fused_kernels was given none). Written only by use_fused_kernels.
extern FusedKernels g_active_kernels;

/// The kernels in use.
inline const FusedKernels& active_kernels() { return g_active_kernels; }

}  // namespace posenc::detail
