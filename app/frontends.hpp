// Runs a command's runtime with its optional front ends: the HTTP telemetry server
// (--metrics-listen), the live Qt panel (--gui) and the receiver's screens (--output screen:N,
// multiview). Qt takes the main thread; the io_context runs on its own threads.
//   auto pictures = open_pictures(media, streams, {{&stats, listen}});   // before the receivers
//   run_with_frontends(runtime, options.common, {{&stats, listen}}, gui, "hdstream recv",
//                      pictures.get());
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/options.hpp"
#include "app/runtime.hpp"
#include "media_module/media_module.hpp"
#include "pipeline/media_output.hpp"
#include "stats/registry.hpp"

namespace hdstream {

struct RegistrySource {
  StatsRegistry* registry = nullptr;
  std::string endpoint;  // send: destination HOST:PORT; recv: listen HOST:PORT
};

// Whether to show the panel: --gui / --no-gui if given, else `default_on` when a display
// exists. Throws UsageError for --gui without a display.
bool want_gui(const CommonOptions& common, bool default_on);

// When `media` decodes: the media module's Pictures (media_module/media_module.hpp), which makes
// the thumbnails and, for outputs on screens, the QApplication and the windows, and adds their
// sinks to media.picture_sinks; null when nothing decodes. Throws
// UsageError for an unknown screen or a bad --layout (one line listing the screens that exist).
// Call it before the receivers start, and keep the result until their media has finished.
std::shared_ptr<Pictures> open_pictures(MediaOutput& media, std::size_t streams,
                                        std::vector<RegistrySource> sources);

// Runs the runtime until it stops, with the panel when `gui`, the metrics server when asked, and
// the Qt event loop when there is a panel or screens to show `pictures` on.
void run_with_frontends(Runtime& runtime, const CommonOptions& common,
                        std::vector<RegistrySource> sources, bool gui, const std::string& title,
                        const Pictures* pictures = nullptr);

}  // namespace hdstream
