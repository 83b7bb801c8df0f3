// DeBERTa-v2/v3 relative positions (He et al. 2021; Hugging Face modeling_deberta_v2.py
// make_log_bucket_position, build_relative_position; microsoft/DeBERTa da_utils.py). With
// rel = query - key and mid = bucketSize / 2:
//   |rel| <= mid -> rel (exact)
//   otherwise    -> sign(rel) * (ceil(ln(|rel| / mid) / ln((maxPosition - 1) / mid) * (mid - 1)) + mid)
// Buckets are not clamped (they exceed bucketSize - 1 for |rel| >= maxPosition); the clamp happens
// when indexing the [2 attSpan] relative embedding table (c2p and p2c indices).
// Evaluated in double, as the original numpy code; HF's float32 gives the same buckets (docs/encodings.md#6-deberta-v2v3-log-buckets).
#include "posenc/deberta.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "encodings/detail/checks.hpp"
#include "encodings/detail/relative_rows.hpp"

namespace posenc {
namespace {

long long bucket_of(const DebertaBucketParams& p, long long rel) {
  if (p.bucket_size <= 0) return rel;
  const long long mid = p.bucket_size / 2;
  const long long abs_rel = rel < 0 ? -rel : rel;
  if (abs_rel <= mid) return rel;
  const double log_pos =
      std::ceil(std::log(static_cast<double>(abs_rel) / static_cast<double>(mid)) /
                std::log(static_cast<double>(p.max_position - 1) / static_cast<double>(mid)) *
                static_cast<double>(mid - 1)) +
      static_cast<double>(mid);
  const long long magnitude = static_cast<long long>(log_pos);
  return rel < 0 ? -magnitude : magnitude;
}

/// Fills [qLen, kLen] with f(bucket(i - j)). Entries depend on i - j only, so rows are copies.
template <class F>
Status fill(const DebertaBucketParams& p, std::size_t q_len, std::size_t k_len, F&& f, std::int32_t* out) {
  POSENC_RETURN_IF_ERROR(validate(p));
  POSENC_RETURN_IF_ERROR(detail::check_relative_lengths(q_len, k_len, 0));
  // relative_rows works with key - query; DeBERTa's rel is its negation.
  return detail::fill_relative_matrix<std::int32_t>(
      q_len, k_len, 0, [&](long long key_minus_query) { return static_cast<std::int32_t>(f(bucket_of(p, -key_minus_query))); },
      out);
}

}  // namespace

Status validate(const DebertaBucketParams& p) {
  if (p.max_position < 1) {
    return detail::invalid("maxPosition must be an integer >= 1, got " + std::to_string(p.max_position));
  }
  if (p.bucket_size == 0) return {};
  if (p.bucket_size < 2) {
    return detail::invalid("bucketSize must be an integer >= 2 (or 0 for no bucketing), got " +
                           std::to_string(p.bucket_size));
  }
  if (p.bucket_size > p.max_position) {
    return detail::invalid("bucketSize (" + std::to_string(p.bucket_size) + ") must be <= maxPosition (" +
                           std::to_string(p.max_position) + ")");
  }
  const int mid = p.bucket_size / 2;
  if (p.max_position - 1 <= mid) {
    // ln((maxPosition - 1) / mid) would be <= 0: the log buckets are undefined.
    return detail::invalid("maxPosition (" + std::to_string(p.max_position) + ") must be > bucketSize/2 + 1 (" +
                           std::to_string(mid + 1) + ")");
  }
  return {};
}

Status deberta_bucket(const DebertaBucketParams& p, double relative_position, long long* bucket) {
  POSENC_RETURN_IF_ERROR(validate(p));
  POSENC_RETURN_IF_ERROR(detail::check_relative_position(relative_position));
  *bucket = bucket_of(p, static_cast<long long>(relative_position));
  return {};
}

int deberta_attention_span(const DebertaBucketParams& p) { return p.bucket_size > 0 ? p.bucket_size : p.max_position; }

Status deberta_relative_positions(const DebertaBucketParams& p, std::size_t q_len, std::size_t k_len, std::int32_t* out) {
  return fill(p, q_len, k_len, [](long long bucket) { return bucket; }, out);
}

Status deberta_c2p_indices(const DebertaBucketParams& p, std::size_t q_len, std::size_t k_len, std::int32_t* out) {
  const long long span = deberta_attention_span(p);
  return fill(p, q_len, k_len, [span](long long bucket) { return std::clamp(bucket + span, 0LL, 2 * span - 1); }, out);
}

Status deberta_p2c_indices(const DebertaBucketParams& p, std::size_t q_len, std::size_t k_len, std::int32_t* out) {
  const long long span = deberta_attention_span(p);
  return fill(p, q_len, k_len, [span](long long bucket) { return std::clamp(-bucket + span, 0LL, 2 * span - 1); }, out);
}

}  // namespace posenc
