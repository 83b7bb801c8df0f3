// RoPE driver: shape checks and the rotation of a chunk of tokens, every head, by the row kernels.
#include "encodings/detail/rope_driver.hpp"

#include <algorithm>
#include <utility>

#include "encodings/detail/active_kernels.hpp"
#include "encodings/detail/checks.hpp"
#include "encodings/detail/scratch.hpp"
#include "kernels/kernels.hpp"

namespace posenc::detail {
namespace {

Status check_heads(const char* name, const char* heads_name, const float* data, std::size_t heads,
                   const RopeTensors& t) {
  if (data == nullptr) return invalid(std::string(name) + " must be given");
  POSENC_RETURN_IF_ERROR(check_size(heads_name, heads));  // a literal: no string is built on success
  std::size_t total = 0;
  return checked_product({t.batch, t.seq, heads, t.head_dim}, name, &total);
}

/// Rotates `tokens` tokens (token t at x + t * token_stride, its `rows` head rows `row_stride` floats
/// apart) with cos/sin rows t, in one kernel call.
void rotate_rows(float* x, std::size_t tokens, std::size_t token_stride, std::size_t rows, std::size_t row_stride,
                 const RopeLanes& lanes, const float* const* cos_rows, const float* const* sin_rows, bool grouped) {
  const std::size_t pairs = lanes.pairs;
  // In cache the fused kernels save work; streaming calls are bound by memory, where the built-in
  // kernels measured faster (docs/performance.md, "Relaxed SIMD").
  const FusedKernels& k = active_kernels();
  if (lanes.pairing == Pairing::half) {
    (grouped ? k.rotate_half_tokens : &kernels::rotate_half_tokens)(x, tokens, token_stride, rows, row_stride,
                                                                      cos_rows, sin_rows, pairs, grouped,
                                                                      lanes.half_span);
  } else {
    (grouped ? k.rotate_interleaved_tokens : &kernels::rotate_interleaved_tokens)(
        x, tokens, token_stride, rows, row_stride, cos_rows, sin_rows, pairs, grouped);
  }
}

/// The kernels' row order, measured with `npm run bench -- --filter 'rope-(half|interleaved)'`
/// (wasm in V8; the figures are in docs/performance.md): in cache, grouped (cos/sin in registers
/// across a token's heads) is faster for head dims 64 and 128; once q and k outgrow a typical L2,
/// memory order is: one sequential stream, which beat two rows walked side by side. Longer rows
/// never fit the registers.
bool grouped_order(const RopeTensors& t, std::size_t pairs) {
  if (pairs > kGroupedMaxPairs) return false;
  const std::size_t floats = (t.q_heads + (t.k == nullptr ? 0 : t.k_heads)) * t.batch * t.seq * t.head_dim;
  return floats <= kGroupedMaxBytes / sizeof(float);
}

/// Calls rotate(x, token_stride, rows, row_stride) over tokens s0..s0+count-1 of batch row b of a
/// tensor with `heads` heads, x pointing at the first rotated lane of the first row.
template <class Rotate>
void walk_tensor(float* data, std::size_t heads, const RopeTensors& t, const RopeLanes& lanes, std::size_t b,
                 std::size_t s0, Rotate rotate) {
  const std::size_t d = t.head_dim;
  data += lanes.first_lane;  // every row pointer below is a head's first rotated lane
  if (t.layout == HeadLayout::bshd) {  // token-major: the heads of one token are adjacent rows
    rotate(data + ((b * t.seq + s0) * heads) * d, heads * d, heads, d);
  } else {  // head-major: walk the tokens of two heads at a time (two sequential streams sharing cos/sin)
    const std::size_t head_stride = t.seq * d;
    for (std::size_t h = 0; h < heads; h += 2) {
      rotate(data + ((b * heads + h) * t.seq + s0) * d, d, heads - h < 2 ? 1 : 2, head_stride);
    }
  }
}

void rotate_tensor(float* data, std::size_t heads, const RopeTensors& t, const RopeLanes& lanes, std::size_t b,
                   std::size_t s0, std::size_t count, const float* const* cos_rows, const float* const* sin_rows) {
  const bool grouped = grouped_order(t, lanes.pairs);
  walk_tensor(data, heads, t, lanes, b, s0, [&](float* x, std::size_t token_stride, std::size_t rows,
                                                std::size_t row_stride) {
    rotate_rows(x, count, token_stride, rows, row_stride, lanes, cos_rows, sin_rows, grouped);
  });
}

void rotate_tensor_exact(float* data, std::size_t heads, const RopeTensors& t, const RopeLanes& lanes, std::size_t b,
                         std::size_t s0, std::size_t count, const ChunkRowPointers& rows) {
  const bool half = lanes.pairing == Pairing::half;
  const std::size_t partner = lanes.half_span != 0 ? lanes.half_span : lanes.pairs;  // half pairing: lane i + partner
  walk_tensor(data, heads, t, lanes, b, s0, [&](float* x, std::size_t token_stride, std::size_t n,
                                                std::size_t row_stride) {
    kernels::rotate_tokens_exact(x, count, token_stride, n, row_stride, rows.cos_exact, rows.sin_exact, lanes.pairs,
                                 half ? 1 : 2, half ? partner : 1);
  });
}

}  // namespace

Status check_rope_tensors(const RopeTensors& t, Pairing pairing, int rotary_dim, std::size_t first_lane) {
  if (pairing != Pairing::half && pairing != Pairing::interleaved) {
    return invalid("pairing must be 'half' or 'interleaved'");
  }
  if (t.layout != HeadLayout::bshd && t.layout != HeadLayout::bhsd) return invalid("layout must be 'bshd' or 'bhsd'");
  POSENC_RETURN_IF_ERROR(check_size("batch", t.batch));
  POSENC_RETURN_IF_ERROR(check_size("seq", t.seq));
  POSENC_RETURN_IF_ERROR(check_size("headDim", t.head_dim));
  const std::size_t lanes = first_lane > t.head_dim ? 0 : t.head_dim - first_lane;  // lanes from first_lane on
  if (rotary_dim < 2 || rotary_dim % 2 != 0 || static_cast<std::size_t>(rotary_dim) > lanes) {
    const bool too_wide = rotary_dim > 0 && static_cast<std::size_t>(rotary_dim) > lanes;
    return error(too_wide ? StatusCode::out_of_range : StatusCode::invalid_argument,
                 "rotaryDim must be an even integer from 2 to headDim" +
                     (first_lane == 0 ? std::string() : " - " + std::to_string(first_lane) + " (the first rotated lane)") +
                     " (" + std::to_string(lanes) + "), got " + std::to_string(rotary_dim));
  }
  POSENC_RETURN_IF_ERROR(check_heads("q", "q heads", t.q, t.q_heads, t));
  if (t.k != nullptr) POSENC_RETURN_IF_ERROR(check_heads("k", "k heads", t.k, t.k_heads, t));
  return {};
}

void rotate_tokens(const RopeTensors& t, const RopeLanes& lanes, std::size_t b, std::size_t s0, std::size_t count,
                   const ChunkRowPointers& rows) {
  if (rows.cos_exact != nullptr) {
    rotate_tensor_exact(t.q, t.q_heads, t, lanes, b, s0, count, rows);
    if (t.k != nullptr && rows.rotate_k) rotate_tensor_exact(t.k, t.k_heads, t, lanes, b, s0, count, rows);
    return;
  }
  rotate_tensor(t.q, t.q_heads, t, lanes, b, s0, count, rows.q_cos, rows.q_sin);
  if (t.k == nullptr || !rows.rotate_k) return;
  const bool own = rows.k_cos != nullptr;
  rotate_tensor(t.k, t.k_heads, t, lanes, b, s0, count, own ? rows.k_cos : rows.q_cos, own ? rows.k_sin : rows.q_sin);
}

Status deinterleave_lanes(const RopeTensors& t, std::size_t first_lane, std::size_t pairs) {
  Scratch<float> block;
  POSENC_RETURN_IF_ERROR(block.allocate(2 * pairs));
  float* tmp = block.data();
  // Both layouts are batch * seq * heads contiguous rows of headDim lanes: the order of the rows
  // does not matter to a permutation inside each.
  for (auto [data, heads] : {std::pair<float*, std::size_t>{t.q, t.q_heads}, {t.k, t.k_heads}}) {
    if (data == nullptr) continue;
    const std::size_t rows = t.batch * t.seq * heads;
    for (std::size_t r = 0; r < rows; ++r) {
      float* x = data + r * t.head_dim + first_lane;
      std::copy(x, x + 2 * pairs, tmp);
      for (std::size_t i = 0; i < pairs; ++i) {
        x[i] = tmp[2 * i];
        x[pairs + i] = tmp[2 * i + 1];
      }
    }
  }
  return {};
}

void expand_interleaved(const float* cos, const float* sin, std::size_t pairs, float* cos2, float* sin2) {
  kernels::expand_interleaved(cos, sin, pairs, cos2, sin2);
}

}  // namespace posenc::detail
