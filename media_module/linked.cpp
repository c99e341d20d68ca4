// media_module() for programs that link the media code in (tests, benchmarks): no loading.
#include "media_module/module_impl.hpp"

namespace hdstream {

const MediaModule& media_module() {
  static const MediaModuleImpl module;
  return module;
}

namespace {
// The program's media provider from its start (this file is linked in as an object file).
const bool registered = [] {
  register_media_provider([]() -> const MediaProvider& { return media_module(); });
  return true;
}();
}  // namespace

}  // namespace hdstream
