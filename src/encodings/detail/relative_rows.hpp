// Shared by the relative encodings: checks of qLen/kLen/queryOffset, and the fill of a [qLen, kLen]
// matrix whose entries depend only on the relative position j - (queryOffset + i).
//
// Such a matrix is Toeplitz: row i is row i-1 shifted right by one. So the values are computed once
// for the qLen + kLen - 1 relative positions (a "diagonal vector"), and each row is a memcpy of a
// slice of it:
//
//     diag[t] = f(rel),  rel = t - (qLen - 1) - queryOffset,   t = 0 .. qLen + kLen - 2
//     row i   = diag[qLen - 1 - i .. qLen - 1 - i + kLen)
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "encodings/detail/checks.hpp"
#include "kernels/kernels.hpp"

namespace posenc::detail {

/// Largest qLen, kLen or queryOffset accepted: relative positions then fit comfortably in int64
/// and double, and every length fits the JS API's int32 sizes.
constexpr std::size_t kMaxLength = 2147483647;

/// qLen >= 1, kLen >= 1, all three <= kMaxLength, and the [rows, qLen, kLen] output addressable.
inline Status check_relative_lengths(std::size_t q_len, std::size_t k_len, std::size_t query_offset,
                                     std::size_t rows = 1) {
  POSENC_RETURN_IF_ERROR(check_size("qLen", q_len));
  POSENC_RETURN_IF_ERROR(check_size("kLen", k_len));
  auto too_big = [](const char* name, std::size_t v) {
    return error(StatusCode::size_overflow,
                 std::string(name) + " must be at most " + std::to_string(kMaxLength) + ", got " + std::to_string(v));
  };
  if (q_len > kMaxLength) return too_big("qLen", q_len);
  if (k_len > kMaxLength) return too_big("kLen", k_len);
  if (query_offset > kMaxLength) return too_big("queryOffset", query_offset);
  std::size_t total = 0;
  return checked_product({rows, q_len, k_len, sizeof(float)}, "the output", &total);
}

/// The relative position (key minus query) of diagonal index t.
inline long long relative_of(std::size_t t, std::size_t q_len, std::size_t query_offset) {
  return static_cast<long long>(t) - static_cast<long long>(q_len - 1) - static_cast<long long>(query_offset);
}

/// Fills `out` [qLen, kLen] from `diag` (qLen + kLen - 1 values), see the file comment.
/// T is float or std::int32_t (the kernels' copy overloads).
template <class T>
void fill_shifted_rows(const T* diag, std::size_t q_len, std::size_t k_len, T* out) {
  kernels::shifted_rows(diag, q_len, k_len, out);
}

/// Computes diag[t] = f(relative position) for every t and fills `out` [qLen, kLen] from it.
template <class T, class F>
Status fill_relative_matrix(std::size_t q_len, std::size_t k_len, std::size_t query_offset, F&& f, T* out) {
  std::vector<T> diag;
  POSENC_RETURN_IF_ERROR(allocate(diag, q_len + k_len - 1));
  for (std::size_t t = 0; t < diag.size(); ++t) diag[t] = f(relative_of(t, q_len, query_offset));
  fill_shifted_rows(diag.data(), q_len, k_len, out);
  return {};
}

/// A relative position given as a double must be an integer with |value| <= 2^53.
inline Status check_relative_position(double value) {
  if (!std::isfinite(value) || value != std::floor(value) || std::fabs(value) > 9007199254740992.0) {
    return invalid("relativePosition must be an integer with |value| <= 2^53, got " + format_number(value));
  }
  return {};
}

}  // namespace posenc::detail
