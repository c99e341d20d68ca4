#include "app/frontends.hpp"

#include <unistd.h>

#include <memory>

#include "gui/panel_app.hpp"
#include "telemetry/metrics_server.hpp"

namespace hdstream {
namespace {

std::string hostname() {
  char name[256] = {};
  return ::gethostname(name, sizeof(name) - 1) == 0 ? std::string(name) : std::string("local");
}

}  // namespace

bool want_gui(const CommonOptions& common, bool default_on) {
  if (common.gui.has_value()) {
    if (*common.gui && !display_available()) {
      throw UsageError(
          "--gui: no display ($DISPLAY / $WAYLAND_DISPLAY unset); use --no-gui, or "
          "QT_QPA_PLATFORM=offscreen for a headless run");
    }
    return *common.gui;
  }
  return default_on && display_available();
}

void run_with_frontends(Runtime& runtime, const CommonOptions& common,
                        std::vector<RegistrySource> sources, bool gui, const std::string& title) {
  // Reads counters only (StatsRegistry::read): the console report's rate baseline is untouched.
  auto read_all = [sources, host = hostname()] {
    std::vector<LabeledSnapshot> out;
    out.reserve(sources.size());
    for (const auto& source : sources) {
      out.push_back(LabeledSnapshot{host, source.endpoint, source.registry->read()});
    }
    return out;
  };

  if (!common.metrics_listen.empty()) {
    MetricsServerOptions server_options;
    try {
      server_options.listen = parse_metrics_listen(common.metrics_listen);
    } catch (const EndpointError& error) {
      throw UsageError(std::string("--metrics-listen: ") + error.what());
    }
    auto server = std::make_shared<MetricsServer>(runtime.io(), server_options, read_all);
    server->start();
    runtime.on_shutdown([server] { server->stop(); });
  }

  if (!gui) {
    runtime.run();
    return;
  }
  PanelAppOptions panel;
  panel.title = title;
  run_panel_app(
      panel,
      [read_all](double now_s) {
        std::vector<PanelInput> inputs;
        for (auto& source : read_all()) inputs.push_back(PanelInput{std::move(source), now_s});
        return inputs;
      },
      [&runtime] { runtime.run(); }, [&runtime] { runtime.request_stop(); });
}

}  // namespace hdstream
