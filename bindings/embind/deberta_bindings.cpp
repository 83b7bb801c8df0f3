// DeBERTa-v2/v3 bindings: log buckets, the relative position matrix, and the c2p/p2c indices.
#include <emscripten/bind.h>

#include "boundary.hpp"
#include "posenc/deberta.hpp"

namespace posenc::bindings {
namespace {

DebertaBucketParams params(int bucket_size, int max_position) {
  DebertaBucketParams p;
  p.bucket_size = bucket_size;
  p.max_position = max_position;
  return p;
}

/// Writes the bucket (as a double) at `out`.
int deberta_bucket_binding(double relative_position, int bucket_size, int max_position, std::uintptr_t out) {
  return guarded([&] {
    long long bucket = 0;
    POSENC_RETURN_IF_ERROR(deberta_bucket(params(bucket_size, max_position), relative_position, &bucket));
    *ptr<double>(out) = static_cast<double>(bucket);
    return Status();
  });
}

/// Writes attSpan (as an int32) at `out` after validating the parameters.
int deberta_attention_span_binding(int bucket_size, int max_position, std::uintptr_t out) {
  return guarded([&] {
    const DebertaBucketParams p = params(bucket_size, max_position);
    POSENC_RETURN_IF_ERROR(validate(p));
    *ptr<int>(out) = deberta_attention_span(p);
    return Status();
  });
}

/// kind 0: relative positions, 1: c2p indices, 2: p2c indices; [qLen, kLen] int32 at `out`.
int deberta_matrix_binding(int kind, std::uintptr_t out, int q_len, int k_len, int bucket_size, int max_position) {
  return guarded([&] {
    std::size_t q = 0, k = 0;
    POSENC_RETURN_IF_ERROR(to_size("qLen", q_len, &q));
    POSENC_RETURN_IF_ERROR(to_size("kLen", k_len, &k));
    const DebertaBucketParams p = params(bucket_size, max_position);
    auto* dst = ptr<std::int32_t>(out);
    switch (kind) {
      case 0: return deberta_relative_positions(p, q, k, dst);
      case 1: return deberta_c2p_indices(p, q, k, dst);
      case 2: return deberta_p2c_indices(p, q, k, dst);
      default: return Status(StatusCode::internal, "unknown DeBERTa matrix kind");
    }
  });
}

}  // namespace
}  // namespace posenc::bindings

EMSCRIPTEN_BINDINGS(posenc_deberta) {
  using namespace posenc::bindings;
  emscripten::function("debertaBucket", &deberta_bucket_binding);
  emscripten::function("debertaAttentionSpan", &deberta_attention_span_binding);
  emscripten::function("debertaMatrix", &deberta_matrix_binding);
}
