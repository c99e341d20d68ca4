#include "pipeline/media_provider.hpp"

#include <mutex>

namespace hdstream {
namespace {

struct Registry {
  std::mutex mutex;
  std::function<const MediaProvider&()> load;
};

// Constructed on first use: a registration from another file's static initialiser finds it.
Registry& registry() {
  static Registry instance;
  return instance;
}

}  // namespace

void register_media_provider(std::function<const MediaProvider&()> load) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.load = std::move(load);
}

const MediaProvider& media_provider() {
  std::function<const MediaProvider&()> load;
  {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    load = r.load;
  }
  if (!load) {
    throw MediaModuleError(
        "this program has no media module (pictures, media sources, MPEG-TS): link "
        "hdstream::media_linked or load it");
  }
  return load();
}

}  // namespace hdstream
