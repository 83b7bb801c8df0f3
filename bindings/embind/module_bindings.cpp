// Module-wide bindings: the last error message and build facts.
#include <emscripten/bind.h>

#include "boundary.hpp"
#include "posenc/build_info.hpp"

namespace posenc::bindings {
namespace {
Status g_last;
}  // namespace

int report(const Status& status) {
  if (!status.ok()) g_last = status;
  return static_cast<int>(status.code());
}

std::string last_error_message() { return g_last.message(); }

}  // namespace posenc::bindings

EMSCRIPTEN_BINDINGS(posenc_module) {
  emscripten::function("lastErrorMessage", &posenc::bindings::last_error_message);
  emscripten::function("simdArch", +[]() { return std::string(posenc::simd_arch()); });
}
