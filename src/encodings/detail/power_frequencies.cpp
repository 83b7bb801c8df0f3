// The geometric frequencies base^(-2i/dim) with their per-thread memo (see power_frequencies.hpp).
#include "encodings/detail/power_frequencies.hpp"

#include <cmath>

#include "encodings/detail/checks.hpp"
#include "encodings/detail/per_thread.hpp"
#include "encodings/detail/scratch.hpp"

namespace posenc::detail {

Status power_frequencies(int dim, double base, std::size_t count, std::vector<double>* out) {
  POSENC_PER_THREAD int memo_dim = 0;
  POSENC_PER_THREAD double memo_base = 0.0;
  POSENC_PER_THREAD std::vector<double> memo;
  if (dim == memo_dim && base == memo_base && count == memo.size()) return assign(*out, memo);
  POSENC_RETURN_IF_ERROR(allocate(*out, count));
  for (std::size_t i = 0; i < count; ++i) {
    (*out)[i] = std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(dim));
  }
  memo_dim = 0;
  if (assign(memo, *out).ok()) {
    memo_dim = dim;
    memo_base = base;
  }
  return {};
}

}  // namespace posenc::detail
