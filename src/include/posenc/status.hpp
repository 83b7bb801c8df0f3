// Status: how every posenc function reports a bad argument, without exceptions.
#pragma once

#include <string>
#include <utility>

namespace posenc {

/// Stable error categories. The numeric values are part of the binding contract: the JS layer
/// maps each one to a `PosEncError.code` string, so never renumber, only append.
enum class StatusCode : int {
  ok = 0,
  invalid_argument = 1,  ///< a value outside its domain: NaN, negative or zero size, odd rotaryDim...
  shape_mismatch = 2,    ///< an array whose length does not match the stated shape
  out_of_range = 3,      ///< an index or position outside a table
  size_overflow = 4,     ///< sizes whose product overflows or cannot be addressed
  out_of_memory = 5,     ///< an allocation failed
  invalid_config = 6,    ///< a model configuration that is inconsistent or incomplete
  internal = 7,          ///< a bug in posenc (an unexpected C++ exception caught at the boundary)
};

/// The result of a posenc call: `ok()`, or a code with a message that names the offending
/// argument (by its public camelCase name, shared by the C++ and JS APIs) and what was expected.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == StatusCode::ok; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::ok;
  std::string message_;
};

/// Returns early from the enclosing function when `expr` is not ok.
#define POSENC_RETURN_IF_ERROR(expr)        \
  do {                                      \
    ::posenc::Status posenc_status_ = (expr); \
    if (!posenc_status_.ok()) return posenc_status_; \
  } while (false)

}  // namespace posenc
