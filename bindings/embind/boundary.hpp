// The JS boundary: every bound function's body returns a Status, which the generated registry
// (bindings/boundary/emit-cpp.mjs) turns into a code (0 = ok), keeping the message for
// lastErrorMessage(). No C++ exception and no abort crosses into JS (docs/building.md section 5).
// Arguments arrive as the generated argument structs of posenc_boundary.hpp.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>

#include "posenc/positions.hpp"
#include "posenc/status.hpp"

namespace posenc::bindings {

/// Remembers `status` for lastErrorMessage() and returns its numeric code.
int report(const Status& status);

/// Runs `body` (which returns a Status), turning any escaping exception into a status code.
template <class F>
int guarded(F&& body) {
  try {
    return report(body());
  } catch (const std::bad_alloc&) {
    return report(Status(StatusCode::out_of_memory, "out of memory"));
  } catch (const std::exception& e) {
    return report(Status(StatusCode::internal, std::string("internal error: ") + e.what()));
  } catch (...) {
    return report(Status(StatusCode::internal, "internal error"));
  }
}

/// A number as messages show it: "NaN", "Infinity", "-Infinity", or the shortest %g that gives it back.
inline std::string number_text(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char text[32];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, v);
    if (std::strtod(text, nullptr) == v) break;
  }
  return text;
}

/// JS passes heap addresses as numbers.
template <class T>
T* ptr(std::uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

/// The same, with 0 meaning none.
template <class T>
T* optional_ptr(std::uintptr_t address) {
  return address == 0 ? nullptr : reinterpret_cast<T*>(address);
}

/// Sizes arrive as JS numbers already checked to be integers; negative ones are refused here too.
inline Status to_size(const char* name, int value, std::size_t* out) {
  if (value < 0) return Status(StatusCode::invalid_argument, std::string(name) + " must be >= 0, got " + std::to_string(value));
  *out = static_cast<std::size_t>(value);
  return {};
}

/// Positions from (offset, address of ids or 0, ids given per batch row).
inline Positions positions_from(double offset, std::uintptr_t ids, bool per_batch) {
  return ids == 0 ? Positions::range(offset) : Positions::list(ptr<const double>(ids), per_batch);
}

/// The positions of an argument block with the fields offset, ids and perBatch.
template <class Args>
Positions positions_of(const Args& a) {
  return positions_from(a.offset, a.ids, a.per_batch);
}

}  // namespace posenc::bindings
