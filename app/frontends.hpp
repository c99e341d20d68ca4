// Runs a command's runtime with its optional front ends: the HTTP telemetry server
// (--metrics-listen) and the live Qt panel (--gui). Qt takes the main thread; the io_context
// runs on its own threads.
//   run_with_frontends(runtime, options.common, {{&stats, dest.to_string()}}, gui, "hdstream
//   send");
#pragma once

#include <string>
#include <vector>

#include "app/options.hpp"
#include "app/runtime.hpp"
#include "stats/registry.hpp"

namespace hdstream {

struct RegistrySource {
  StatsRegistry* registry = nullptr;
  std::string endpoint;  // send: destination HOST:PORT; recv: listen HOST:PORT
};

// Whether to show the panel: --gui / --no-gui if given, else `default_on` when a display
// exists. Throws UsageError for --gui without a display.
bool want_gui(const CommonOptions& common, bool default_on);

void run_with_frontends(Runtime& runtime, const CommonOptions& common,
                        std::vector<RegistrySource> sources, bool gui, const std::string& title);

}  // namespace hdstream
