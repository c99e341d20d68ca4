// media_module() for the hdstream binary: loads libhdstream-media.so on first use, from beside
// the binary (the build tree) or from LIBDIR/hdstream/ of the prefix it was installed to.
#include <dlfcn.h>

#include <filesystem>
#include <string>
#include <system_error>

#include <fmt/format.h>

#include "media_module/abi.hpp"
#include "media_module/media_module.hpp"

namespace hdstream {
namespace {

constexpr const char* kFileName = "libhdstream-media.so";

std::filesystem::path module_path() {
  std::error_code error;
  const auto binary = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) {
    throw MediaModuleError(
        fmt::format("cannot find the media module: /proc/self/exe: {}", error.message()));
  }
  const auto dir = binary.parent_path();
  if (const auto beside = dir / kFileName; std::filesystem::exists(beside, error)) return beside;
  return (dir / HDSTREAM_MODULE_DIR_FROM_BINDIR / kFileName).lexically_normal();
}

const MediaModule& load() {
  const auto path = module_path();
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    throw MediaModuleError(fmt::format(
        "cannot load the media module (pictures, media sources, MPEG-TS, windows, reports): "
        "{}; reinstall hdstream, or build its hdstream target",
        ::dlerror()));
  }
  using Entry = const MediaModule* (*)(const char*);
  const auto entry = reinterpret_cast<Entry>(::dlsym(handle, "hdstream_media_module"));
  const std::string abi = media_module_abi();
  const MediaModule* module = entry ? entry(abi.c_str()) : nullptr;
  if (!module) {
    throw MediaModuleError(
        fmt::format("{} is from another build than this hdstream ({}): reinstall hdstream",
                    path.string(), abi));
  }
  return *module;  // never unloaded: its code runs until the process exits
}

}  // namespace

const MediaModule& media_module() {
  static const MediaModule& module = load();
  return module;
}

namespace {
// The binary's media provider from its start, loaded when first asked for.
const bool registered = [] {
  register_media_provider([]() -> const MediaProvider& { return media_module(); });
  return true;
}();
}  // namespace

}  // namespace hdstream
