// DeBERTa-v2/v3 relative positions (He et al. 2021; Hugging Face modeling_deberta_v2.py
// make_log_bucket_position, build_relative_position, disentangled_attention_bias): relative position
// query minus key, log-bucketed beyond bucketSize/2 (not clamped), and the clamped indices into the
// [2 attSpan] relative embedding table used by the c2p and p2c terms.
#pragma once

#include <cstddef>
#include <cstdint>

#include "posenc/status.hpp"

namespace posenc {

struct DebertaBucketParams {
  /// position_buckets: >= 2 and <= maxPosition, or 0 for no bucketing (HF's position_buckets <= 0).
  int bucket_size = 256;
  /// max_relative_positions (HF falls back to max_position_embeddings when it is < 1): >= 1, and
  /// > bucketSize/2 + 1 when bucketing.
  int max_position = 512;
};

Status validate(const DebertaBucketParams& params);

/// The bucket of `relative_position` = query - key (an integer, |rel| <= 2^53). Unbucketed
/// (bucketSize 0): the position itself.
Status deberta_bucket(const DebertaBucketParams& params, double relative_position, long long* bucket);

/// attSpan: bucketSize when > 0, else maxPosition. The relative embedding table has 2 attSpan rows.
int deberta_attention_span(const DebertaBucketParams& params);

/// Buckets of i - j as [qLen, kLen] (unclamped).
Status deberta_relative_positions(const DebertaBucketParams& params, std::size_t q_len, std::size_t k_len,
                                  std::int32_t* out);

/// c2p index clamp(bucket(i - j) + attSpan, 0, 2 attSpan - 1), [qLen, kLen].
Status deberta_c2p_indices(const DebertaBucketParams& params, std::size_t q_len, std::size_t k_len, std::int32_t* out);

/// p2c index clamp(-bucket(i - j) + attSpan, 0, 2 attSpan - 1), [qLen, kLen]. (Hugging Face builds
/// p2c from the key-by-key matrix when qLen != kLen; pass qLen = kLen to get that.)
Status deberta_p2c_indices(const DebertaBucketParams& params, std::size_t q_len, std::size_t k_len, std::int32_t* out);

}  // namespace posenc
