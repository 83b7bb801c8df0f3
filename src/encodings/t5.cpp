// T5 relative position buckets (Raffel et al. 2020, sec. 2.1; Hugging Face
// T5Attention._relative_position_bucket). With rel = key - query:
//   bidirectional: half the buckets for rel > 0 (offset nb/2), the other half for rel <= 0, n = |rel|
//   causal:        n = max(-rel, 0) (keys after the query share bucket 0)
//   n < maxExact -> bucket n; else min(nb - 1, maxExact + trunc(ln(n / maxExact) / ln(maxDistance /
//   maxExact) * (nb - maxExact))), with nb the buckets of one direction and maxExact = nb / 2.
// Evaluated in double: for the configurations docs/encodings.md#5-t5-relative-position-buckets lists this equals upstream's float32.
// The bias matrix depends on rel only, so each head's row values are computed once per relative
// position and rows are copied from them (relative_rows.hpp).
#include "posenc/t5.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "encodings/detail/checks.hpp"
#include "encodings/detail/relative_rows.hpp"

namespace posenc {
namespace {

/// The per-direction quantities of the formula.
struct BucketPlan {
  bool bidirectional;
  long long nb;         // buckets of one direction
  long long max_exact;  // distances below it get their own bucket
  long long max_distance;
  double log_range;     // ln(maxDistance / maxExact)
};

BucketPlan plan_of(const T5BucketParams& p) {
  const long long nb = p.bidirectional ? p.num_buckets / 2 : p.num_buckets;
  const long long max_exact = nb / 2;
  return {p.bidirectional, nb, max_exact, p.max_distance,
          std::log(static_cast<double>(p.max_distance) / static_cast<double>(max_exact))};
}

/// The bucket of distance n >= 0 within one direction (before the direction's offset).
long long distance_bucket(const BucketPlan& plan, long long n) {
  if (n < plan.max_exact) return n;
  // The same order of operations as upstream: ln(n / maxExact) / ln(maxDistance / maxExact) * (nb - maxExact).
  const double scaled = std::log(static_cast<double>(n) / static_cast<double>(plan.max_exact)) / plan.log_range *
                        static_cast<double>(plan.nb - plan.max_exact);
  // min(nb - 1, maxExact + trunc(scaled)): beyond maxDistance the log term exceeds the last bucket.
  // Compared before the conversion, so huge distances never overflow the integer.
  const double last = static_cast<double>(plan.nb - 1 - plan.max_exact);
  return scaled >= last ? plan.nb - 1 : plan.max_exact + static_cast<long long>(scaled);
}

int bucket_of(const BucketPlan& plan, long long rel) {
  if (plan.bidirectional) {
    return static_cast<int>((rel > 0 ? plan.nb : 0) + distance_bucket(plan, rel < 0 ? -rel : rel));
  }
  return static_cast<int>(distance_bucket(plan, rel < 0 ? -rel : 0));
}

/// The smallest distance whose bucket is at least b (maxExact < b < nb): the inverse of the log
/// formula, n = maxExact * exp((b - maxExact) / (nb - maxExact) * ln(maxDistance / maxExact)),
/// rounded up and then corrected with distance_bucket itself, so the boundary is exactly where the
/// formula moves (it is non-decreasing in n: consecutive distances differ by far more than the
/// rounding of their logs). At most maxDistance, whose bucket is the last.
long long first_distance_of(const BucketPlan& plan, long long b) {
  const double estimate = static_cast<double>(plan.max_exact) *
                          std::exp(static_cast<double>(b - plan.max_exact) /
                                   static_cast<double>(plan.nb - plan.max_exact) * plan.log_range);
  long long n = std::clamp<long long>(static_cast<long long>(std::ceil(estimate)), plan.max_exact, plan.max_distance);
  while (n > plan.max_exact && distance_bucket(plan, n - 1) >= b) --n;
  while (distance_bucket(plan, n) < b) ++n;
  return n;
}

/// out[n - from] = distance_bucket(n) for n in [from, to]. The log buckets come in runs of
/// consecutive distances (the last run is every distance from maxDistance on), so each run costs a
/// few logs at its boundary instead of one per distance: 128 x 128 needs ~30 logs instead of 255.
void fill_distance_buckets(const BucketPlan& plan, long long from, long long to, std::int32_t* out) {
  long long n = from;
  while (n <= to && n < plan.max_exact) {
    out[n - from] = static_cast<std::int32_t>(n);
    ++n;
  }
  while (n <= to) {
    const long long b = distance_bucket(plan, n);
    const long long end = b == plan.nb - 1 ? to + 1 : std::min(to + 1, first_distance_of(plan, b + 1));
    std::fill(out + (n - from), out + (end - from), static_cast<std::int32_t>(b));
    n = end;
  }
}

/// buckets[t] = bucket_of(relative position of diagonal index t), t = 0 .. qLen + kLen - 2.
Status diagonal_buckets(const BucketPlan& plan, std::size_t q_len, std::size_t k_len, std::size_t query_offset,
                        std::vector<std::int32_t>& buckets) {
  const std::size_t diag_len = q_len + k_len - 1;
  POSENC_RETURN_IF_ERROR(detail::allocate(buckets, diag_len));
  const long long rel_min = detail::relative_of(0, q_len, query_offset);
  const long long rel_max = detail::relative_of(diag_len - 1, q_len, query_offset);
  // Distances needed: -rel on the side rel <= 0, rel on the side rel > 0 (bidirectional only; a
  // causal model puts every future key in bucket 0). Both ranges lie in [n_lo, n_hi], and
  // n_hi - n_lo < diag_len, because the relative positions are diag_len consecutive integers.
  const long long n_lo = rel_max >= 0 ? 0 : -rel_max;
  const long long n_hi = std::max(rel_min <= 0 ? -rel_min : 0LL, plan.bidirectional ? rel_max : 0LL);
  std::vector<std::int32_t> by_distance;
  POSENC_RETURN_IF_ERROR(detail::allocate(by_distance, static_cast<std::size_t>(n_hi - n_lo + 1)));
  fill_distance_buckets(plan, n_lo, n_hi, by_distance.data());
  const auto offset = static_cast<std::int32_t>(plan.nb);
  for (std::size_t t = 0; t < diag_len; ++t) {
    const long long rel = rel_min + static_cast<long long>(t);
    if (rel <= 0) {
      buckets[t] = by_distance[static_cast<std::size_t>(-rel - n_lo)];
    } else {
      buckets[t] = plan.bidirectional ? offset + by_distance[static_cast<std::size_t>(rel - n_lo)] : 0;
    }
  }
  return {};
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
  std::vector<std::int32_t> buckets;
  POSENC_RETURN_IF_ERROR(diagonal_buckets(plan_of(p), q_len, k_len, query_offset, buckets));
  detail::fill_shifted_rows(buckets.data(), q_len, k_len, out);
  return {};
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
  std::vector<std::int32_t> buckets;
  POSENC_RETURN_IF_ERROR(diagonal_buckets(plan_of(p), q_len, k_len, query_offset, buckets));
  // The buckets come in runs along the diagonal (the exact ones are runs of one): found once, then
  // each head's vector is one fill of a table value per run.
  const std::size_t diag_len = buckets.size();
  std::vector<std::size_t> starts;  // where each run begins, then diag_len
  POSENC_RETURN_IF_ERROR(detail::allocate(starts, diag_len + 1));
  std::size_t runs = 0;
  for (std::size_t t = 0; t < diag_len; ++t) {
    if (t == 0 || buckets[t] != buckets[t - 1]) starts[runs++] = t;
  }
  starts[runs] = diag_len;
  for (std::size_t h = 0; h < table.heads; ++h) {
    float* diag = out + h * diag_len;
    for (std::size_t r = 0; r < runs; ++r) {
      const std::size_t t = starts[r];
      std::fill(diag + t, diag + starts[r + 1], table.data[static_cast<std::size_t>(buckets[t]) * table.heads + h]);
    }
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
