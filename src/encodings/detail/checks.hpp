// Argument checks shared by the encodings: each returns a Status whose message names the argument
// (by its public camelCase name) and what was expected.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "posenc/positions.hpp"
#include "posenc/status.hpp"

namespace posenc::detail {

/// A number as a short, exact-enough string for messages ("64", "0.5", "NaN", "Infinity").
inline std::string format_number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[32];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.17g", v);
  // Prefer the shortest representation that round-trips.
  for (int precision = 1; precision < 17; ++precision) {
    char shorter[32];
    std::snprintf(shorter, sizeof shorter, "%.*g", precision, v);
    if (std::strtod(shorter, nullptr) == v) return shorter;
  }
  return buf;
}

inline Status error(StatusCode code, const std::string& message) { return Status(code, message); }

inline Status invalid(const std::string& message) { return Status(StatusCode::invalid_argument, message); }

/// `name` must be a size >= 1.
inline Status check_size(const char* name, std::size_t value) {
  if (value == 0) return invalid(std::string(name) + " must be an integer >= 1, got 0");
  return {};
}

/// `name` must be a finite number.
inline Status check_finite(const char* name, double value) {
  if (!std::isfinite(value)) {
    return invalid(std::string(name) + " must be a finite number, got " + format_number(value));
  }
  return {};
}

/// `name` must be finite and > 0.
inline Status check_positive(const char* name, double value) {
  if (!std::isfinite(value) || !(value > 0)) {
    return invalid(std::string(name) + " must be a finite number > 0, got " + format_number(value));
  }
  return {};
}

/// Multiplies sizes, failing with size_overflow instead of wrapping.
inline Status checked_product(std::initializer_list<std::size_t> factors, const char* what, std::size_t* out) {
  std::size_t product = 1;
  for (std::size_t f : factors) {
    if (f != 0 && product > static_cast<std::size_t>(-1) / f) {
      return error(StatusCode::size_overflow, std::string(what) + " has too many elements to address");
    }
    product *= f;
  }
  *out = product;
  return {};
}

/// Every position the tokens of a [batch, seq] sequence use must be finite.
inline Status check_positions_finite(const Positions& positions, std::size_t batch, std::size_t seq) {
  if (positions.is_range()) {
    POSENC_RETURN_IF_ERROR(check_finite("offset", positions.offset));
    const double last = positions.offset + static_cast<double>(seq - 1);
    if (!std::isfinite(last)) return invalid("offset + seq - 1 must be finite, got " + format_number(last));
    return {};
  }
  const std::size_t n = positions.per_batch ? batch * seq : seq;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(positions.ids[i])) {
      return invalid("positionIds[" + std::to_string(i) + "] must be a finite number, got " +
                     format_number(positions.ids[i]));
    }
  }
  return {};
}

/// Every position must be an integer row index in [0, rows): learned tables, cos/sin caches.
/// Out-of-range ids are errors, never clamped or wrapped.
inline Status check_row_ids(std::size_t rows, const Positions& positions, std::size_t batch, std::size_t seq) {
  // `where` builds the argument's name only for a message: checking ids costs no string on success
  // (a std::string per id was most of a decode step's checks).
  auto check_one = [rows](double id, auto&& where) -> Status {
    if (!std::isfinite(id) || id != std::floor(id)) {
      return invalid(where() + " must be an integer position id, got " + format_number(id));
    }
    if (id < 0 || id >= static_cast<double>(rows)) {
      return error(StatusCode::out_of_range, where() + " is " + format_number(id) + ", outside the table's positions 0.." +
                                                 std::to_string(rows - 1));
    }
    return {};
  };
  if (positions.is_range()) {
    POSENC_RETURN_IF_ERROR(check_one(positions.offset, [] { return std::string("offset"); }));
    return check_one(positions.offset + static_cast<double>(seq - 1),
                     [seq] { return "the last position (offset + " + std::to_string(seq - 1) + ")"; });
  }
  const std::size_t n = positions.per_batch ? batch * seq : seq;
  for (std::size_t i = 0; i < n; ++i) {
    POSENC_RETURN_IF_ERROR(check_one(positions.ids[i], [i] { return "positionIds[" + std::to_string(i) + "]"; }));
  }
  return {};
}

/// Resizes a scratch vector, turning allocation failure into a Status.
template <class T>
Status allocate(std::vector<T>& v, std::size_t n) {
  try {
    v.resize(n);
  } catch (const std::bad_alloc&) {
    return error(StatusCode::out_of_memory, "out of memory allocating " + std::to_string(n * sizeof(T)) +
                                                " bytes of scratch space");
  } catch (const std::length_error&) {
    return error(StatusCode::size_overflow, "scratch space of " + std::to_string(n) + " elements is too large");
  }
  return {};
}

}  // namespace posenc::detail
