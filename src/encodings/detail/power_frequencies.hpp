// The geometric frequencies w_i = base^(-2i/dim) shared by sinusoidal tables (Vaswani et al. 2017)
// and RoPE (Su et al. 2021), with a per-thread memo of the last answer.
#pragma once

#include <cstddef>
#include <vector>

#include "posenc/status.hpp"

namespace posenc::detail {

/// out[i] = std::pow(base, -2i / dim) for i < count, in double. Loops that ask for the same
/// frequencies at every call (decoding, repeated tables) would otherwise spend more on count
/// calls of std::pow than on the encoding itself, so the last answer is remembered per thread.
/// Arguments are the caller's to validate (dim >= 1, base finite and > 0).
Status power_frequencies(int dim, double base, std::size_t count, std::vector<double>* out);

}  // namespace posenc::detail
