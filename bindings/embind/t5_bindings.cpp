// T5 relative position bucket bindings: one bucket, the bucket matrix, and the bias (as per-head vectors).
#include <emscripten/bind.h>

#include "boundary.hpp"
#include "posenc/t5.hpp"

namespace posenc::bindings {
namespace {

T5BucketParams params(int num_buckets, int max_distance, bool bidirectional) {
  T5BucketParams p;
  p.num_buckets = num_buckets;
  p.max_distance = max_distance;
  p.bidirectional = bidirectional;
  return p;
}

/// Writes the bucket (int32) at `out`.
int t5_bucket_binding(double relative_position, int num_buckets, int max_distance, bool bidirectional,
                      std::uintptr_t out) {
  return guarded([&] {
    return t5_bucket(params(num_buckets, max_distance, bidirectional), relative_position, ptr<int>(out));
  });
}

int t5_bucket_matrix_binding(std::uintptr_t out, int q_len, int k_len, int query_offset, int num_buckets,
                             int max_distance, bool bidirectional) {
  return guarded([&] {
    std::size_t q = 0, k = 0, off = 0;
    POSENC_RETURN_IF_ERROR(to_size("qLen", q_len, &q));
    POSENC_RETURN_IF_ERROR(to_size("kLen", k_len, &k));
    POSENC_RETURN_IF_ERROR(to_size("queryOffset", query_offset, &off));
    return t5_bucket_matrix(params(num_buckets, max_distance, bidirectional), q, k, off, ptr<std::int32_t>(out));
  });
}

/// The bias [heads, qLen, kLen] written at `out`: one vector per head over the relative positions,
/// then every row a memory.copy of a slice of it.
int t5_bias_binding(std::uintptr_t table, int rows, int heads, std::uintptr_t out, int q_len, int k_len,
                    int query_offset, int num_buckets, int max_distance, bool bidirectional) {
  return guarded([&] {
    T5BiasTable t;
    t.data = ptr<const float>(table);
    std::size_t q = 0, k = 0, off = 0;
    POSENC_RETURN_IF_ERROR(to_size("table rows", rows, &t.rows));
    POSENC_RETURN_IF_ERROR(to_size("heads", heads, &t.heads));
    POSENC_RETURN_IF_ERROR(to_size("qLen", q_len, &q));
    POSENC_RETURN_IF_ERROR(to_size("kLen", k_len, &k));
    POSENC_RETURN_IF_ERROR(to_size("queryOffset", query_offset, &off));
    return t5_bias(params(num_buckets, max_distance, bidirectional), t, q, k, off, ptr<float>(out));
  });
}

}  // namespace
}  // namespace posenc::bindings

EMSCRIPTEN_BINDINGS(posenc_t5) {
  using namespace posenc::bindings;
  emscripten::function("t5Bucket", &t5_bucket_binding);
  emscripten::function("t5BucketMatrix", &t5_bucket_matrix_binding);
  emscripten::function("t5Bias", &t5_bias_binding);
}
