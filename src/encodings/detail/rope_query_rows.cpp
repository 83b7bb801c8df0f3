// The rows of a layer that scales its queries without RoPE (Llama 4's NoPE layers).
#include "encodings/detail/rope_query_rows.hpp"

#include <algorithm>

namespace posenc::detail {

Status QueryScaleOnlyRows::allocate() {
  POSENC_RETURN_IF_ERROR(cos_.allocate(kRopeChunkTokens * pairs_));
  POSENC_RETURN_IF_ERROR(zeros_.allocate(pairs_));
  std::fill(zeros_.data(), zeros_.data() + pairs_, 0.0f);
  return {};
}

ChunkRowPointers QueryScaleOnlyRows::chunk(std::size_t g, std::size_t s0, std::size_t count) {
  for (std::size_t j = 0; j < count; ++j) {
    const auto s = static_cast<float>(query_scale_at(scale_, axis0_position(positions_, g, s0 + j, batch_, seq_)));
    float* c = cos_.data() + j * pairs_;
    std::fill(c, c + pairs_, s);
    cos_ptr_[j] = c;
    sin_ptr_[j] = zeros_.data();
  }
  ChunkRowPointers rows{cos_ptr_, sin_ptr_};
  rows.rotate_k = false;
  return rows;
}

}  // namespace posenc::detail
