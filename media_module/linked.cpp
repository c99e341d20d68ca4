// media_module() for programs that link the media code in (tests, benchmarks): no loading.
#include "media_module/module_impl.hpp"

namespace hdstream {

const MediaModule& media_module() {
  static const MediaModuleImpl module;
  return module;
}

}  // namespace hdstream
