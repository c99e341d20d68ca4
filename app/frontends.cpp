#include "app/frontends.hpp"

#include <unistd.h>

#include <functional>
#include <memory>

#include "display/video_wall.hpp"
#include "gui/panel_app.hpp"
#include "pipeline/media_sources.hpp"
#include "telemetry/metrics_server.hpp"

namespace hdstream {
namespace {

std::string hostname() {
  char name[256] = {};
  return ::gethostname(name, sizeof(name) - 1) == 0 ? std::string(name) : std::string("local");
}

// Reads counters only (StatsRegistry::read): the console report's rate baseline is untouched.
std::function<std::vector<LabeledSnapshot>()> reader(std::vector<RegistrySource> sources) {
  return [sources = std::move(sources), host = hostname()] {
    std::vector<LabeledSnapshot> out;
    out.reserve(sources.size());
    for (const auto& source : sources) {
      out.push_back(LabeledSnapshot{host, source.endpoint, source.registry->read()});
    }
    return out;
  };
}

PanelWindow::Provider panel_provider(std::function<std::vector<LabeledSnapshot>()> read_all) {
  return [read_all = std::move(read_all)](double now_s) {
    std::vector<PanelInput> inputs;
    for (auto& source : read_all()) inputs.push_back(PanelInput{std::move(source), now_s});
    return inputs;
  };
}

}  // namespace

class Screens {
 public:
  Screens(const MediaOutput& media, std::size_t streams, PanelWindow::Provider provider)
      : wall_(media, streams, std::move(provider)) {}
  VideoWall& wall() { return wall_; }
  const VideoWall& wall() const { return wall_; }

 private:
  QtApp qt_;  // first made, last gone
  VideoWall wall_;
};

std::shared_ptr<Screens> open_screens(MediaOutput& media, std::size_t streams,
                                      std::vector<RegistrySource> sources) {
  if (!media.on_screens()) return nullptr;
  std::shared_ptr<Screens> screens;
  try {
    screens = std::make_shared<Screens>(media, streams, panel_provider(reader(std::move(sources))));
  } catch (const SpecError& error) {
    throw UsageError(error.what());
  }
  media.add_picture_sinks(screens->wall().sink_factory());
  return screens;
}

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
                        std::vector<RegistrySource> sources, bool gui, const std::string& title,
                        const Screens* screens) {
  auto read_all = reader(std::move(sources));

  if (!common.metrics_listen.empty()) {
    MetricsServerOptions server_options;
    try {
      server_options.listen = parse_metrics_listen(common.metrics_listen);
    } catch (const EndpointError& error) {
      throw UsageError(std::string("--metrics-listen: ") + error.what());
    }
    if (screens && screens->wall().program()) {
      server_options.cut_program = [program = screens->wall().program()](int feed) {
        return program->cut(feed);
      };
    }
    auto server = std::make_shared<MetricsServer>(runtime.io(), server_options, read_all);
    server->start();
    runtime.on_shutdown([server] { server->stop(); });
  }

  if (!gui && !screens) {
    runtime.run();
    return;
  }
  PanelAppOptions panel;
  panel.title = title;
  if (screens) {
    if (const auto area = screens->wall().panel_area()) {
      panel.geometry = QRect(area->x, area->y, area->width, area->height);
    }
    if (Program* program = screens->wall().program()) {
      panel.on_select = [program](int stream) { program->cut(stream); };
    }
  }
  run_qt_app(
      gui ? &panel : nullptr, panel_provider(read_all), [&runtime] { runtime.run(); },
      [&runtime] { runtime.request_stop(); });
}

}  // namespace hdstream
