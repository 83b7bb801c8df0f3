// The row source of a per-position query scale on a RoPE layer (Ministral 3's llama_4_scaling_beta,
// Llama 4's attention temperature): q's rows are its RoPE rows times the scale at the token's
// position, k's stay as they are. (A layer without RoPE multiplies q directly: rope_layer.cpp.)
#pragma once

#include <cstddef>

#include "encodings/detail/rope_driver.hpp"
#include "encodings/detail/scratch.hpp"
#include "posenc/rope_forms.hpp"
#include "posenc/rope_layer.hpp"

namespace posenc::detail {

/// The position of token s of batch group g along axis 0.
inline double axis0_position(const AxisPositions& p, std::size_t g, std::size_t s, std::size_t batch, std::size_t seq) {
  return p.ids == nullptr ? p.offset + static_cast<double>(s) : p.row(0, g, batch, seq)[s];
}

/// Wraps a row source: k rotates with its rows, q with them times the query scale of the token's
/// position. The rows are already float (they serve k unscaled), so q's are rounded twice: the
/// float row times the scale in double, rounded again (at most one more float rounding). Tokens
/// whose scale is 1 share k's rows.
template <class Inner>
class QueryScaledRows {
 public:
  /// `row_floats`: the width of a row the inner source gives (pairs, or 2 * pairs expanded).
  QueryScaledRows(Inner& inner, const QueryScale& scale, const AxisPositions& positions, std::size_t batch,
                  std::size_t seq, std::size_t row_floats)
      : inner_(inner), scale_(scale), positions_(positions), batch_(batch), seq_(seq), row_floats_(row_floats) {}

  Status allocate() {
    POSENC_RETURN_IF_ERROR(cos_.allocate(kRopeChunkTokens * row_floats_));
    return sin_.allocate(kRopeChunkTokens * row_floats_);
  }

  ChunkRowPointers chunk(std::size_t g, std::size_t s0, std::size_t count) {
    const ChunkRowPointers k = inner_.chunk(g, s0, count);
    for (std::size_t j = 0; j < count; ++j) {
      const double s = query_scale_at(scale_, axis0_position(positions_, g, s0 + j, batch_, seq_));
      if (s == 1.0) {
        cos_ptr_[j] = k.q_cos[j];
        sin_ptr_[j] = k.q_sin[j];
        continue;
      }
      float* c = cos_.data() + j * row_floats_;
      float* n = sin_.data() + j * row_floats_;
      for (std::size_t i = 0; i < row_floats_; ++i) {
        c[i] = static_cast<float>(static_cast<double>(k.q_cos[j][i]) * s);
        n[i] = static_cast<float>(static_cast<double>(k.q_sin[j][i]) * s);
      }
      cos_ptr_[j] = c;
      sin_ptr_[j] = n;
    }
    return ChunkRowPointers{cos_ptr_, sin_ptr_, k.q_cos, k.q_sin, k.rotate_k};
  }

 private:
  Inner& inner_;
  QueryScale scale_;
  const AxisPositions& positions_;
  std::size_t batch_, seq_, row_floats_;
  Scratch<float> cos_, sin_;
  const float* cos_ptr_[kRopeChunkTokens];
  const float* sin_ptr_[kRopeChunkTokens];
};

}  // namespace posenc::detail
