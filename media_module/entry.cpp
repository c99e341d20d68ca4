// The one symbol libhdstream-media.so exports: media_module/loader.cpp looks it up by name.
#include "media_module/module_impl.hpp"

// `abi`: the loading binary's HDSTREAM_MEDIA_MODULE_ABI; null when this module was built for
// another hdstream (the loader then refuses it).
extern "C" __attribute__((visibility("default"))) const hdstream::MediaModule*
hdstream_media_module(const char* abi) {
  static const hdstream::MediaModuleImpl module;
  return std::string_view(abi) == HDSTREAM_MEDIA_MODULE_ABI ? &module : nullptr;
}
