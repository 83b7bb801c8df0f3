// T5 relative position buckets (Raffel et al. 2020, sec. 2.1; Hugging Face
// T5Attention._relative_position_bucket). With rel = key - query:
//   bidirectional: half the buckets for rel > 0 (offset nb/2), the other half for rel <= 0, n = |rel|
//   causal:        n = max(-rel, 0) (keys after the query share bucket 0)
//   n < maxExact -> bucket n; else min(nb - 1, maxExact + trunc(ln(n / maxExact) / ln(maxDistance /
//   maxExact) * (nb - maxExact))), with nb the buckets of one direction and maxExact = nb / 2.
// Evaluated in double: for the configurations ENCODINGS.md 5 lists this equals upstream's float32.
// The bias matrix depends on rel only, so each head's row values are computed once per relative
// position and rows are copied from them (relative_rows.hpp).
#include "posenc/t5.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "encodings/checks.hpp"
#include "encodings/relative_rows.hpp"

namespace posenc {
namespace {

/// The per-direction quantities of the formula.
struct BucketPlan {
  bool bidirectional;
  long long nb;         // buckets of one direction
  long long max_exact;  // distances below it get their own bucket
  double log_range;     // ln(maxDistance / maxExact)
};

BucketPlan plan_of(const T5BucketParams& p) {
  const long long nb = p.bidirectional ? p.num_buckets / 2 : p.num_buckets;
  const long long max_exact = nb / 2;
  return {p.bidirectional, nb, max_exact,
          std::log(static_cast<double>(p.max_distance) / static_cast<double>(max_exact))};
}

int bucket_of(const BucketPlan& plan, long long rel) {
  long long out = 0;
  long long n;
  if (plan.bidirectional) {
    if (rel > 0) out = plan.nb;
    n = rel < 0 ? -rel : rel;
  } else {
    n = rel < 0 ? -rel : 0;
  }
  if (n < plan.max_exact) return static_cast<int>(out + n);
  // The same order of operations as upstream: ln(n / maxExact) / ln(maxDistance / maxExact) * (nb - maxExact).
  const double scaled = std::log(static_cast<double>(n) / static_cast<double>(plan.max_exact)) / plan.log_range *
                        static_cast<double>(plan.nb - plan.max_exact);
  // min(nb - 1, maxExact + trunc(scaled)): beyond maxDistance the log term exceeds the last bucket.
  // Compared before the conversion, so huge distances never overflow the integer.
  const double last = static_cast<double>(plan.nb - 1 - plan.max_exact);
  const long long bucket = scaled >= last ? plan.nb - 1 : plan.max_exact + static_cast<long long>(scaled);
  return static_cast<int>(out + bucket);
}

}  // namespace

Status validate(const T5BucketParams& p) {
  const int min_buckets = p.bidirectional ? 4 : 2;
  if (p.num_buckets < min_buckets) {
    return detail::invalid("numBuckets must be an integer >= " + std::to_string(min_buckets) +
                           (p.bidirectional ? " when bidirectional" : " when causal") + ", got " +
                           std::to_string(p.num_buckets));
  }
  const BucketPlan plan = plan_of(p);
  const long long half = p.num_buckets / 2;
  if (p.max_distance < half || p.max_distance <= plan.max_exact) {
    return detail::invalid("maxDistance must be an integer >= numBuckets/2 (" + std::to_string(half) +
                           ") and > the exact range numBuckets/" + (p.bidirectional ? "4" : "2") + " (" +
                           std::to_string(plan.max_exact) + "), got " + std::to_string(p.max_distance));
  }
  return {};
}

Status t5_bucket(const T5BucketParams& p, double relative_position, int* bucket) {
  POSENC_RETURN_IF_ERROR(validate(p));
  POSENC_RETURN_IF_ERROR(detail::check_relative_position(relative_position));
  *bucket = bucket_of(plan_of(p), static_cast<long long>(relative_position));
  return {};
}

Status t5_bucket_matrix(const T5BucketParams& p, std::size_t q_len, std::size_t k_len, std::size_t query_offset,
                        std::int32_t* out) {
  POSENC_RETURN_IF_ERROR(validate(p));
  POSENC_RETURN_IF_ERROR(detail::check_relative_lengths(q_len, k_len, query_offset));
  const BucketPlan plan = plan_of(p);
  return detail::fill_relative_matrix<std::int32_t>(
      q_len, k_len, query_offset, [&](long long rel) { return static_cast<std::int32_t>(bucket_of(plan, rel)); }, out);
}

Status t5_bias_diagonals(const T5BucketParams& p, const T5BiasTable& table, std::size_t q_len, std::size_t k_len,
                         std::size_t query_offset, float* out) {
  POSENC_RETURN_IF_ERROR(validate(p));
  POSENC_RETURN_IF_ERROR(detail::check_size("heads", table.heads));
  if (table.rows != static_cast<std::size_t>(p.num_buckets)) {
    return detail::error(StatusCode::shape_mismatch, "table must have numBuckets (" + std::to_string(p.num_buckets) +
                                                         ") rows ([numBuckets, heads]), got " +
                                                         std::to_string(table.rows));
  }
  POSENC_RETURN_IF_ERROR(detail::check_relative_lengths(q_len, k_len, query_offset, table.heads));
  const BucketPlan plan = plan_of(p);
  const std::size_t diag_len = q_len + k_len - 1;
  std::vector<std::int32_t> buckets;
  POSENC_RETURN_IF_ERROR(detail::allocate(buckets, diag_len));
  // One log per relative position, shared by all heads; then a gather per head.
  for (std::size_t t = 0; t < diag_len; ++t) buckets[t] = bucket_of(plan, detail::relative_of(t, q_len, query_offset));
  for (std::size_t h = 0; h < table.heads; ++h) {
    float* diag = out + h * diag_len;
    for (std::size_t t = 0; t < diag_len; ++t) diag[t] = table.data[static_cast<std::size_t>(buckets[t]) * table.heads + h];
  }
  return {};
}

Status t5_bias(const T5BucketParams& p, const T5BiasTable& table, std::size_t q_len, std::size_t k_len,
               std::size_t query_offset, float* out) {
  POSENC_RETURN_IF_ERROR(detail::check_size("heads", table.heads));
  POSENC_RETURN_IF_ERROR(detail::check_relative_lengths(q_len, k_len, query_offset, table.heads));
  const std::size_t diag_len = q_len + k_len - 1;
  std::vector<float> diag;
  POSENC_RETURN_IF_ERROR(detail::allocate(diag, table.heads * diag_len));
  POSENC_RETURN_IF_ERROR(t5_bias_diagonals(p, table, q_len, k_len, query_offset, diag.data()));
  for (std::size_t h = 0; h < table.heads; ++h) {
    detail::fill_shifted_rows(diag.data() + h * diag_len, q_len, k_len, out + h * q_len * k_len);
  }
  return {};
}

}  // namespace posenc
