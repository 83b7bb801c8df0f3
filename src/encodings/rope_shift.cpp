// KV-cache context shift: rotated keys re-rotated in place by the difference of their new and old
// positions. The RoPE driver walks the keys; its row source here gives each token the cos/sin of
// (to - from) * w_i in double, and the driver rotates with them in double (ChunkRowPointers::cos_exact),
// rounding each value once. Per-token and per-batch-row positions are allowed, so a span removed from
// the middle of a cache moves only the tokens after it.
#include "posenc/rope_shift.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "encodings/detail/checks.hpp"
#include "encodings/detail/derived.hpp"
#include "encodings/detail/rope_driver.hpp"
#include "encodings/detail/scratch.hpp"
#include "kernels/kernels.hpp"

namespace posenc {
namespace {

/// The driver's row source: row j of a chunk is cos/sin((to - from) * w_i) of its token, in double.
/// Tokens of a chunk that move by the same amount share one row (a whole cache shifted by one delta
/// costs one sine and cosine per pair and chunk).
class ShiftRows {
 public:
  ShiftRows(const double* freq, std::size_t pairs, const Positions& from, const Positions& to, std::size_t seq)
      : freq_(freq), pairs_(pairs), from_(from), to_(to), seq_(seq) {}

  Status allocate() {
    POSENC_RETURN_IF_ERROR(cos_.allocate(detail::kRopeChunkTokens * pairs_));
    POSENC_RETURN_IF_ERROR(sin_.allocate(detail::kRopeChunkTokens * pairs_));
    return angles_.allocate(pairs_);
  }

  detail::ChunkRowPointers chunk(std::size_t g, std::size_t s0, std::size_t count) {
    std::size_t filled = 0;
    double last = 0.0;
    for (std::size_t j = 0; j < count; ++j) {
      const double delta = to_.at(g, s0 + j, seq_) - from_.at(g, s0 + j, seq_);
      if (filled == 0 || delta != last) {
        double* c = cos_.data() + filled * pairs_;
        double* s = sin_.data() + filled * pairs_;
        for (std::size_t i = 0; i < pairs_; ++i) angles_.data()[i] = delta * freq_[i];
        kernels::sincos(angles_.data(), pairs_, s, c);
        ++filled;
        last = delta;
      }
      cos_ptr_[j] = cos_.data() + (filled - 1) * pairs_;
      sin_ptr_[j] = sin_.data() + (filled - 1) * pairs_;
    }
    detail::ChunkRowPointers rows;
    rows.cos_exact = cos_ptr_;
    rows.sin_exact = sin_ptr_;
    return rows;
  }

 private:
  const double* freq_;
  std::size_t pairs_;
  const Positions& from_;
  const Positions& to_;
  std::size_t seq_;
  detail::Scratch<double> cos_, sin_, angles_;
  const double* cos_ptr_[detail::kRopeChunkTokens];
  const double* sin_ptr_[detail::kRopeChunkTokens];
};

/// Both position sets must be finite; the new ones are named as such in messages.
Status check_shift_positions(const Positions& from, const Positions& to, const RopeTensors& t) {
  POSENC_RETURN_IF_ERROR(detail::check_positions_finite(from, t.batch, t.seq));
  const Status s = detail::check_positions_finite(to, t.batch, t.seq);
  if (!s.ok()) return Status(s.code(), "new positions: " + s.message());
  return {};
}

Status check_frequencies(const double* inv_freq, std::size_t pairs) {
  if (inv_freq == nullptr) return detail::invalid("invFreq must be given");
  for (std::size_t i = 0; i < pairs; ++i) {
    if (!std::isfinite(inv_freq[i])) {
      return detail::invalid("invFreq[" + std::to_string(i) + "] must be a finite number, got " +
                             detail::format_number(inv_freq[i]));
    }
  }
  return {};
}

/// Every shift (new - old position) times every frequency must be finite (detail/derived.hpp).
Status check_shift_angles(const double* inv_freq, std::size_t pairs, const Positions& from, const Positions& to,
                          const RopeTensors& t) {
  const std::size_t rows = from.per_batch || to.per_batch ? t.batch : 1;
  double widest = 0.0;
  for (std::size_t b = 0; b < rows; ++b) {
    for (std::size_t s = 0; s < t.seq; ++s) widest = std::fmax(widest, std::fabs(to.at(b, s, t.seq) - from.at(b, s, t.seq)));
  }
  if (!std::isfinite(widest)) {
    return detail::error(StatusCode::out_of_range, "new positions: the shift of a token (new - old position) overflows to Infinity");
  }
  return detail::check_angles("the shifts (new - old positions)", widest, inv_freq, pairs);
}

/// LongRoPE uses one factor list at the keys' old positions and must use the same at the new ones.
Status check_longrope_list(const RopeConfig& config, double from_length, double to_length) {
  RopeFrequencies before, after;
  POSENC_RETURN_IF_ERROR(rope_frequencies_at(config, from_length, &before));
  POSENC_RETURN_IF_ERROR(rope_frequencies_at(config, to_length, &after));
  if (before.longrope_long == after.longrope_long) return {};
  const auto list = [](bool long_list) { return std::string(long_list ? "long" : "short"); };
  return detail::invalid(
      "LongRoPE uses the " + list(before.longrope_long) + " factor list at length " +
      detail::format_number(from_length) + " (the keys' positions) but the " + list(after.longrope_long) +
      " list at length " + detail::format_number(to_length) +
      " (their new positions): a list switch changes every frequency, which no rotation by the position "
      "difference reproduces. Recompute the keys, or fix the list with seqLen or llamaCppContextLength");
}

}  // namespace

Status rope_shift(const RopeRotation& rotation, const Positions& from, const Positions& to, const RopeTensors& t) {
  POSENC_RETURN_IF_ERROR(detail::check_rope_tensors(t, rotation.pairing, rotation.rotary_dim));
  const auto pairs = static_cast<std::size_t>(rotation.rotary_dim / 2);
  POSENC_RETURN_IF_ERROR(check_frequencies(rotation.inv_freq, pairs));
  POSENC_RETURN_IF_ERROR(check_shift_positions(from, to, t));
  POSENC_RETURN_IF_ERROR(check_shift_angles(rotation.inv_freq, pairs, from, to, t));
  ShiftRows rows(rotation.inv_freq, pairs, from, to, t.seq);
  POSENC_RETURN_IF_ERROR(rows.allocate());
  detail::drive_rope(t, {rotation.pairing, pairs}, from.per_batch || to.per_batch, rows);
  return {};
}

Status rope_shift(const RopeConfig& config, Pairing pairing, const Positions& from, const Positions& to,
                  const RopeTensors& t) {
  POSENC_RETURN_IF_ERROR(detail::check_rope_tensors(t, pairing, config.rotary_dim));
  POSENC_RETURN_IF_ERROR(check_shift_positions(from, to, t));
  const RopeScaling& scaling = config.scaling;
  if (scaling.type == RopeScalingType::dynamic) {
    return detail::invalid(
        "dynamic NTK scaling cannot be shifted exactly: its base depends on the sequence length at "
        "the time each key was rotated, which a cache does not record. Up to maxPositionEmbeddings it is the "
        "unscaled RoPE: shift without scaling there");
  }
  const double from_length = rope_length_of(from, t.batch, t.seq);
  const double to_length = rope_length_of(to, t.batch, t.seq);
  if (scaling.type == RopeScalingType::longrope) {
    POSENC_RETURN_IF_ERROR(check_longrope_list(config, from_length, to_length));
  }
  RopeFrequencies freq;
  POSENC_RETURN_IF_ERROR(rope_frequencies_at(config, to_length, &freq));
  return rope_shift(RopeRotation{pairing, config.rotary_dim, freq.inv_freq.data(), 1.0}, from, to, t);
}

}  // namespace posenc
