// Shared by the attention helpers, Shaw and Transformer-XL: shape checks, finiteness checks,
// double-precision dot products and a softmax that defines fully masked rows.
#pragma once

#include <cstddef>
#include <optional>

#include "posenc/attention.hpp"
#include "posenc/status.hpp"

namespace posenc::detail {

/// Checks heads, kvHeads (divides heads), qLen, kLen, headDim (and valueDim when `with_values`),
/// that every tensor is addressable, and the lengths' limits.
Status check_attention_shape(const AttentionShape& shape, bool with_values);

/// Every value of `data[0..n)` is finite; the message names `name[index]`.
Status check_finite_values(const char* name, const float* data, std::size_t n);

/// The scale: `given` (finite) or 1/sqrt(headDim).
Status resolve_scale(const std::optional<double>& given, std::size_t head_dim, double* scale);

/// sum_i a[i] * b[i] accumulated in double.
double dot(const float* a, const float* b, std::size_t n);

/// Softmax of `row[0..n)` in place, in double. Entries equal to -Infinity become 0. If every entry
/// is -Infinity the row becomes all zeros and false is returned.
bool softmax_in_place(double* row, std::size_t n);

/// The key/value head that query head `h` reads.
inline std::size_t kv_head_of(const AttentionShape& s, std::size_t h) { return h / (s.heads / s.kv_heads); }

/// Is key j after query i (at queryOffset + i)?
inline bool is_future(std::size_t i, std::size_t j, std::size_t query_offset) { return j > query_offset + i; }

}  // namespace posenc::detail
