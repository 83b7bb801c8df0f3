// Shared attention pieces: shape and finiteness checks, double dot products, a defined softmax.
#include "encodings/detail/attention_core.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "encodings/detail/checks.hpp"
#include "encodings/detail/relative_rows.hpp"

namespace posenc::detail {

Status check_attention_shape(const AttentionShape& s, bool with_values) {
  POSENC_RETURN_IF_ERROR(check_size("heads", s.heads));
  POSENC_RETURN_IF_ERROR(check_size("kvHeads", s.kv_heads));
  if (s.heads % s.kv_heads != 0) {
    return error(StatusCode::shape_mismatch, "heads (" + std::to_string(s.heads) + ") must be a multiple of kvHeads (" +
                                                 std::to_string(s.kv_heads) + "), the heads of k and v");
  }
  POSENC_RETURN_IF_ERROR(check_size("headDim", s.head_dim));
  if (with_values) POSENC_RETURN_IF_ERROR(check_size("valueDim", s.value_dim));
  POSENC_RETURN_IF_ERROR(check_relative_lengths(s.q_len, s.k_len, 0, s.heads));
  std::size_t n = 0;
  POSENC_RETURN_IF_ERROR(checked_product({s.heads, s.q_len, s.head_dim, sizeof(float)}, "q", &n));
  POSENC_RETURN_IF_ERROR(checked_product({s.kv_heads, s.k_len, s.head_dim, sizeof(float)}, "k", &n));
  if (with_values) {
    POSENC_RETURN_IF_ERROR(checked_product({s.kv_heads, s.k_len, s.value_dim, sizeof(float)}, "v", &n));
    POSENC_RETURN_IF_ERROR(checked_product({s.heads, s.q_len, s.value_dim, sizeof(float)}, "the output", &n));
  }
  return {};
}

Status check_finite_values(const char* name, const float* data, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(data[i])) {
      return invalid(std::string(name) + "[" + std::to_string(i) + "] must be a finite number, got " +
                     format_number(data[i]));
    }
  }
  return {};
}

Status resolve_scale(const std::optional<double>& given, std::size_t head_dim, double* scale) {
  if (given.has_value()) {
    POSENC_RETURN_IF_ERROR(check_finite("scale", *given));
    *scale = *given;
  } else {
    *scale = 1.0 / std::sqrt(static_cast<double>(head_dim));
  }
  return {};
}

double dot(const float* a, const float* b, std::size_t n) {
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += static_cast<double>(a[i]) * static_cast<double>(b[i]);
  return sum;
}

bool softmax_in_place(double* row, std::size_t n) {
  double max = -std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < n; ++j) max = std::fmax(max, row[j]);
  if (max == -std::numeric_limits<double>::infinity()) {
    for (std::size_t j = 0; j < n; ++j) row[j] = 0.0;
    return false;
  }
  double sum = 0;
  for (std::size_t j = 0; j < n; ++j) {
    row[j] = std::exp(row[j] - max);  // exp(-inf) = 0 for masked entries
    sum += row[j];
  }
  for (std::size_t j = 0; j < n; ++j) row[j] /= sum;
  return true;
}

}  // namespace posenc::detail
