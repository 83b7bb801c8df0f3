// T5 relative position buckets (Raffel et al. 2020, sec. 2.1; Hugging Face
// T5Attention._relative_position_bucket and compute_bias): relative position key minus query,
// exact buckets for small distances, logarithmic ones up to maxDistance, one bias per bucket and head.
#pragma once

#include <cstddef>
#include <cstdint>

#include "posenc/status.hpp"

namespace posenc {

struct T5BucketParams {
  int num_buckets = 32;      ///< >= 2 (causal) or >= 4 (bidirectional)
  int max_distance = 128;    ///< >= numBuckets/2 and > maxExact (the exact range)
  bool bidirectional = true; ///< encoder: true; decoder self-attention: false
};

/// Checks the parameters (see the fields).
Status validate(const T5BucketParams& params);

/// The bucket of relative position `relative_position` = key - query (an integer, |rel| <= 2^53).
Status t5_bucket(const T5BucketParams& params, double relative_position, int* bucket);

/// Buckets [qLen, kLen] for query i at queryOffset + i and key j at j.
Status t5_bucket_matrix(const T5BucketParams& params, std::size_t q_len, std::size_t k_len, std::size_t query_offset,
                        std::int32_t* out);

/// The learned bias table: Hugging Face's relative_attention_bias.weight, [numBuckets, heads].
struct T5BiasTable {
  const float* data = nullptr;
  std::size_t rows = 0;   ///< must equal numBuckets
  std::size_t heads = 0;  ///< >= 1
};

/// bias[h, i, j] = table[bucket(j - (queryOffset + i)), h] as [heads, qLen, kLen].
Status t5_bias(const T5BucketParams& params, const T5BiasTable& table, std::size_t q_len, std::size_t k_len,
               std::size_t query_offset, float* out);

/// The bias depends on i and j only through rel = j - (queryOffset + i), so each head's matrix is
/// Toeplitz: this writes one vector per head, diag[h, t] = bias at rel = t - (qLen - 1) - queryOffset
/// for t < qLen + kLen - 1 ([heads, qLen + kLen - 1]). Row i of head h is
/// diag[h, qLen - 1 - i .. qLen - 1 - i + kLen). (t5_bias expands it; the JS layer expands it
/// straight into the result array.)
Status t5_bias_diagonals(const T5BucketParams& params, const T5BiasTable& table, std::size_t q_len, std::size_t k_len,
                         std::size_t query_offset, float* out);

}  // namespace posenc
