// T5 relative position bucket bindings: one bucket, the bucket matrix, and the bias (as per-head vectors).
#include "boundary.hpp"
#include "posenc/t5.hpp"
#include "posenc_boundary.hpp"

namespace posenc::bindings {
namespace {

/// The bucket parameters of an argument block (fields numBuckets, maxDistance, bidirectional).
template <class Args>
T5BucketParams params_of(const Args& a) {
  T5BucketParams p;
  p.num_buckets = a.num_buckets;
  p.max_distance = a.max_distance;
  p.bidirectional = a.bidirectional;
  return p;
}

}  // namespace

Status t5_bucket_binding(const T5BucketArgs& a) {
  return t5_bucket(params_of(a), a.relative_position, ptr<int>(a.out));
}

Status t5_bucket_matrix_binding(const T5BucketMatrixArgs& a) {
  std::size_t q = 0, k = 0, off = 0;
  POSENC_RETURN_IF_ERROR(to_size("qLen", a.q_len, &q));
  POSENC_RETURN_IF_ERROR(to_size("kLen", a.k_len, &k));
  POSENC_RETURN_IF_ERROR(to_size("queryOffset", a.query_offset, &off));
  return t5_bucket_matrix(params_of(a), q, k, off, ptr<std::int32_t>(a.out));
}

/// The bias [heads, qLen, kLen] written at `out`: one vector per head over the relative positions,
/// then every row a memory.copy of a slice of it.
Status t5_bias_binding(const T5BiasArgs& a) {
  T5BiasTable t;
  t.data = ptr<const float>(a.table);
  std::size_t q = 0, k = 0, off = 0;
  POSENC_RETURN_IF_ERROR(to_size("table rows", a.rows, &t.rows));
  POSENC_RETURN_IF_ERROR(to_size("heads", a.heads, &t.heads));
  POSENC_RETURN_IF_ERROR(to_size("qLen", a.q_len, &q));
  POSENC_RETURN_IF_ERROR(to_size("kLen", a.k_len, &k));
  POSENC_RETURN_IF_ERROR(to_size("queryOffset", a.query_offset, &off));
  return t5_bias(params_of(a), t, q, k, off, ptr<float>(a.out));
}

}  // namespace posenc::bindings
