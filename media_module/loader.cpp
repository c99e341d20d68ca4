// media_module() for the hdstream binary: loads libhdstream-media.so on first use, from beside
// the binary (the build tree) or from LIBDIR/hdstream/ beside the bin/ it was installed to.
#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>

#include <fmt/format.h>

#include "media_module/media_module.hpp"

namespace hdstream {
namespace {

constexpr const char* kFileName = "libhdstream-media.so";

std::filesystem::path module_path() {
  std::error_code error;
  const auto binary = std::filesystem::read_symlink("/proc/self/exe", error);
  const auto dir = error ? std::filesystem::current_path() : binary.parent_path();
  const auto beside = dir / kFileName;
  if (std::filesystem::exists(beside, error)) return beside;
  return dir / ".." / HDSTREAM_INSTALL_LIBDIR / "hdstream" / kFileName;
}

const MediaModule& load() {
  const auto path = module_path();
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    throw MediaModuleError(fmt::format(
        "cannot load the media module (pictures, media sources, MPEG-TS, windows, reports): "
        "{}; reinstall hdstream, or build the hdstream target",
        ::dlerror()));
  }
  using Entry = const MediaModule* (*)(const char*);
  const auto entry = reinterpret_cast<Entry>(::dlsym(handle, "hdstream_media_module"));
  const MediaModule* module = entry ? entry(HDSTREAM_MEDIA_MODULE_ABI) : nullptr;
  if (!module) {
    throw MediaModuleError(
        fmt::format("{} is not the media module of this hdstream ({}): reinstall hdstream",
                    path.string(), HDSTREAM_MEDIA_MODULE_ABI));
  }
  return *module;  // never unloaded: its code runs until the process exits
}

}  // namespace

const MediaModule& media_module() {
  static const MediaModule& module = load();
  return module;
}

}  // namespace hdstream
