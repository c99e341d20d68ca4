// The entry point media_module/loader.cpp looks up by name in libhdstream-media.so. The module
// must keep its other symbols default-visibility and bound late (no -Bsymbolic, no version
// script): its calls into the core then go to the loading binary's copy (which exports its
// symbols), and the copies of core code linked into the module stay unused.
#include <string_view>

#include "media_module/abi.hpp"
#include "media_module/module_impl.hpp"

// `abi`: the loading binary's media_module_abi(); null when this module is of another build.
extern "C" __attribute__((visibility("default"))) const hdstream::MediaModule*
hdstream_media_module(const char* abi) {
  static const hdstream::MediaModuleImpl module;
  return std::string_view(abi) == hdstream::media_module_abi() ? &module : nullptr;
}
