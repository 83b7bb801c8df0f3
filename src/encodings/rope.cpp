// Rotary position embedding (Su et al. 2021, RoFormer): each pair (a, b) of a q or k head is
// rotated by theta_i = p * w_i, w_i = base^(-2i/r) (r = rotaryDim). Angles are formed and their
// cosines/sines evaluated in double precision (HF and ggml use float32, which costs ~0.1 absolute
// at position 1e6; see ENCODINGS.md 8.2), so only the final rotated values carry float rounding.
#include "posenc/rope.hpp"

#include <algorithm>
#include <cmath>

#include "encodings/angle_rows.hpp"
#include "encodings/checks.hpp"
#include "encodings/rope_driver.hpp"
#include "encodings/scratch.hpp"

namespace posenc {
namespace {

Status check_rotation(const RopeRotation& r) {
  if (r.inv_freq == nullptr) return detail::invalid("invFreq must be given");
  const std::size_t pairs = static_cast<std::size_t>(std::max(r.rotary_dim, 0)) / 2;
  for (std::size_t i = 0; i < pairs; ++i) {
    if (!std::isfinite(r.inv_freq[i])) {
      return detail::invalid("invFreq[" + std::to_string(i) + "] must be a finite number, got " +
                             detail::format_number(r.inv_freq[i]));
    }
  }
  return detail::check_positive("attentionFactor", r.attention_factor);
}

/// Scratch rows for one chunk of tokens, plus the per-token row pointers the driver reads.
struct ChunkRows {
  detail::Scratch<float> cos, sin, cos2, sin2;  // reused across calls, not zero-filled
  const float* cos_ptr[detail::kRopeChunkTokens];
  const float* sin_ptr[detail::kRopeChunkTokens];

  Status allocate(std::size_t pairs, Pairing pairing, bool compact) {
    const std::size_t n = detail::kRopeChunkTokens * pairs;
    if (compact) {
      POSENC_RETURN_IF_ERROR(detail::allocate(cos, n));
      POSENC_RETURN_IF_ERROR(detail::allocate(sin, n));
    }
    if (pairing == Pairing::interleaved) {
      POSENC_RETURN_IF_ERROR(detail::allocate(cos2, 2 * n));
      POSENC_RETURN_IF_ERROR(detail::allocate(sin2, 2 * n));
    }
    return {};
  }

  /// Points row j at compact rows (cos, sin), expanding them first for interleaved pairing.
  void point(std::size_t j, const float* c, const float* s, std::size_t pairs, Pairing pairing) {
    if (pairing == Pairing::half) {
      cos_ptr[j] = c;
      sin_ptr[j] = s;
      return;
    }
    float* c2 = cos2.data() + j * 2 * pairs;
    float* s2 = sin2.data() + j * 2 * pairs;
    detail::expand_interleaved(c, s, pairs, c2, s2);
    cos_ptr[j] = c2;
    sin_ptr[j] = s2;
  }
};

}  // namespace

Status rope_default_inv_freq(int rotary_dim, double base, std::vector<double>* inv_freq) {
  if (rotary_dim < 2 || rotary_dim % 2 != 0) {
    return detail::invalid("rotaryDim must be an even integer >= 2, got " + std::to_string(rotary_dim));
  }
  POSENC_RETURN_IF_ERROR(detail::check_positive("base", base));
  // Decoding loops ask for the same frequencies at every step, and rotaryDim/2 calls of std::pow
  // cost more than rotating a token: the last answer is remembered (per thread).
  thread_local int memo_dim = 0;
  thread_local double memo_base = 0.0;
  thread_local std::vector<double> memo;
  if (rotary_dim == memo_dim && base == memo_base) return detail::assign(*inv_freq, memo);
  const auto pairs = static_cast<std::size_t>(rotary_dim / 2);
  POSENC_RETURN_IF_ERROR(detail::allocate(*inv_freq, pairs));
  for (std::size_t i = 0; i < pairs; ++i) {
    (*inv_freq)[i] = std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(rotary_dim));
  }
  memo_dim = 0;
  if (detail::assign(memo, *inv_freq).ok()) {
    memo_dim = rotary_dim;
    memo_base = base;
  }
  return {};
}

Status rope_frequencies(const RopeConfig& config, RopeFrequencies* out) {
  out->attention_factor = 1.0;
  return rope_default_inv_freq(config.rotary_dim, config.base, &out->inv_freq);
}

Status rope_apply(const RopeConfig& config, Pairing pairing, const Positions& positions, const RopeTensors& t) {
  POSENC_RETURN_IF_ERROR(detail::check_rope_tensors(t, pairing, config.rotary_dim));
  RopeFrequencies freq;
  POSENC_RETURN_IF_ERROR(rope_frequencies(config, &freq));
  return rope_apply(RopeRotation{pairing, config.rotary_dim, freq.inv_freq.data(), freq.attention_factor}, positions, t);
}

Status rope_apply(const RopeRotation& rotation, const Positions& positions, const RopeTensors& t) {
  POSENC_RETURN_IF_ERROR(detail::check_rope_tensors(t, rotation.pairing, rotation.rotary_dim));
  POSENC_RETURN_IF_ERROR(check_rotation(rotation));
  POSENC_RETURN_IF_ERROR(detail::check_positions_finite(positions, t.batch, t.seq));

  const auto pairs = static_cast<std::size_t>(rotation.rotary_dim / 2);
  ChunkRows rows;
  POSENC_RETURN_IF_ERROR(rows.allocate(pairs, rotation.pairing, true));
  // Rows computed for a chunk of tokens serve every head, and every batch row when the positions
  // are shared (a range, or one list for all rows).
  const std::size_t groups = positions.per_batch ? t.batch : 1;
  const std::size_t rows_per_group = positions.per_batch ? 1 : t.batch;
  for (std::size_t g = 0; g < groups; ++g) {
    for (std::size_t s0 = 0; s0 < t.seq; s0 += detail::kRopeChunkTokens) {
      const std::size_t n = std::min(detail::kRopeChunkTokens, t.seq - s0);
      const detail::AngleSink sink{rows.sin.data(), rows.cos.data(), pairs, 1, rotation.attention_factor};
      if (positions.is_range()) {
        detail::angle_rows_range(rotation.inv_freq, pairs, positions.offset + static_cast<double>(s0), n, sink);
      } else {
        detail::angle_rows_list(rotation.inv_freq, pairs, positions.ids + g * t.seq + s0, n, sink);
      }
      for (std::size_t j = 0; j < n; ++j) {
        rows.point(j, rows.cos.data() + j * pairs, rows.sin.data() + j * pairs, pairs, rotation.pairing);
      }
      for (std::size_t r = 0; r < rows_per_group; ++r) {
        detail::rotate_tokens(t, rotation.pairing, pairs, g + r, s0, n, rows.cos_ptr, rows.sin_ptr);
      }
    }
  }
  return {};
}

Status rope_fill_table(const RopeRotation& rotation, std::size_t rows, float* cos, float* sin) {
  if (rotation.rotary_dim < 2 || rotation.rotary_dim % 2 != 0) {
    return detail::invalid("rotaryDim must be an even integer >= 2, got " + std::to_string(rotation.rotary_dim));
  }
  POSENC_RETURN_IF_ERROR(check_rotation(rotation));
  POSENC_RETURN_IF_ERROR(detail::check_size("maxPositions", rows));
  const auto pairs = static_cast<std::size_t>(rotation.rotary_dim / 2);
  std::size_t total = 0;
  POSENC_RETURN_IF_ERROR(detail::checked_product({rows, pairs}, "the cos/sin table", &total));
  detail::angle_rows_range(rotation.inv_freq, pairs, 0.0, rows,
                           detail::AngleSink{sin, cos, pairs, 1, rotation.attention_factor});
  return {};
}

Status rope_apply_table(const RopeTable& table, Pairing pairing, int rotary_dim, const Positions& positions,
                        const RopeTensors& t) {
  POSENC_RETURN_IF_ERROR(detail::check_rope_tensors(t, pairing, rotary_dim));
  if (table.cos == nullptr || table.sin == nullptr) return detail::invalid("cos and sin tables must be given");
  POSENC_RETURN_IF_ERROR(detail::check_size("table rows", table.rows));
  if (static_cast<std::size_t>(rotary_dim) != 2 * table.pairs) {
    return detail::error(StatusCode::shape_mismatch, "the cos/sin tables have " + std::to_string(table.pairs) +
                                                         " values per row, but rotaryDim " +
                                                         std::to_string(rotary_dim) + " needs rotaryDim/2 = " +
                                                         std::to_string(rotary_dim / 2));
  }
  POSENC_RETURN_IF_ERROR(detail::check_row_ids(table.rows, positions, t.batch, t.seq));

  const std::size_t pairs = table.pairs;
  ChunkRows rows;
  POSENC_RETURN_IF_ERROR(rows.allocate(pairs, pairing, false));
  for (std::size_t b = 0; b < t.batch; ++b) {
    for (std::size_t s0 = 0; s0 < t.seq; s0 += detail::kRopeChunkTokens) {
      const std::size_t n = std::min(detail::kRopeChunkTokens, t.seq - s0);
      for (std::size_t j = 0; j < n; ++j) {
        const auto row = static_cast<std::size_t>(positions.at(b, s0 + j, t.seq));
        rows.point(j, table.cos + row * pairs, table.sin + row * pairs, pairs, pairing);
      }
      detail::rotate_tokens(t, pairing, pairs, b, s0, n, rows.cos_ptr, rows.sin_ptr);
    }
  }
  return {};
}

}  // namespace posenc
