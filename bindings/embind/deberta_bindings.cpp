// DeBERTa-v2/v3 bindings: log buckets, the relative position matrix, and the c2p/p2c indices.
#include "boundary.hpp"
#include "posenc/deberta.hpp"
#include "posenc_boundary.hpp"

namespace posenc::bindings {
namespace {

/// The bucket parameters of an argument block (fields bucketSize, maxPosition).
template <class Args>
DebertaBucketParams params_of(const Args& a) {
  DebertaBucketParams p;
  p.bucket_size = a.bucket_size;
  p.max_position = a.max_position;
  return p;
}

}  // namespace

/// Writes the bucket (as a double) at `out`.
Status deberta_bucket_binding(const DebertaBucketArgs& a) {
  long long bucket = 0;
  POSENC_RETURN_IF_ERROR(deberta_bucket(params_of(a), a.relative_position, &bucket));
  *ptr<double>(a.out) = static_cast<double>(bucket);
  return {};
}

/// Writes attSpan (as an int32) at `out` after validating the parameters.
Status deberta_attention_span_binding(const DebertaAttentionSpanArgs& a) {
  const DebertaBucketParams p = params_of(a);
  POSENC_RETURN_IF_ERROR(validate(p));
  *ptr<int>(a.out) = deberta_attention_span(p);
  return {};
}

/// One of the [qLen, kLen] int32 matrices at `out`.
Status deberta_matrix_binding(const DebertaMatrixArgs& a) {
  std::size_t q = 0, k = 0;
  POSENC_RETURN_IF_ERROR(to_size("qLen", a.q_len, &q));
  POSENC_RETURN_IF_ERROR(to_size("kLen", a.k_len, &k));
  const DebertaBucketParams p = params_of(a);
  auto* dst = ptr<std::int32_t>(a.out);
  switch (a.kind) {
    case DebertaMatrix::relative_positions: return deberta_relative_positions(p, q, k, dst);
    case DebertaMatrix::c2p: return deberta_c2p_indices(p, q, k, dst);
    case DebertaMatrix::p2c: return deberta_p2c_indices(p, q, k, dst);
  }
  return Status(StatusCode::invalid_argument, "unknown DeBERTa matrix kind");
}

}  // namespace posenc::bindings
