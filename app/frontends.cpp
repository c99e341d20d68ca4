#include "app/frontends.hpp"

#include <unistd.h>

#include <functional>
#include <memory>

#include "display/video_wall.hpp"
#include "gui/panel_app.hpp"
#include "pipeline/media_sources.hpp"
#include "pipeline/thumbnails.hpp"
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

class Pictures {
 public:
  Pictures(MediaOutput& media, std::size_t streams, PanelWindow::Provider provider)
      : thumbnails_(streams) {
    if (media.on_screens()) {
      qt_ = std::make_unique<QtApp>();
      try {
        wall_ = std::make_unique<VideoWall>(media, streams, std::move(provider));
      } catch (const SpecError& error) {
        throw UsageError(error.what());
      }
      media.add_picture_sinks(wall_->sink_factory());
    }
    media.add_picture_sinks(thumbnails_.sink_factory());
  }
  ~Pictures() {
    wall_.reset();  // the windows go before the QApplication
    qt_.reset();
  }
  Pictures(const Pictures&) = delete;
  Pictures& operator=(const Pictures&) = delete;

  // The screens' windows; null when no output shows pictures on screens.
  const VideoWall* wall() const { return wall_.get(); }
  Thumbnails& thumbnails() const { return thumbnails_; }

  // The panel's pictures: this process's thumbnails, as Qt images.
  PictureProvider panel_pictures() const {
    return [this](const FeedRow& row) -> std::optional<PanelPicture> {
      const auto thumbnail = thumbnails_.latest(row.stream);
      if (!thumbnail) return std::nullopt;
      QImage image(thumbnail->bgra.data(), thumbnail->width, thumbnail->height,
                   thumbnail->width * 4, QImage::Format_RGB32);
      return PanelPicture{image.copy(), thumbnail->seq};
    };
  }

 private:
  mutable Thumbnails thumbnails_;
  std::unique_ptr<QtApp> qt_;  // made before the windows, gone after them
  std::unique_ptr<VideoWall> wall_;
};

std::shared_ptr<Pictures> open_pictures(MediaOutput& media, std::size_t streams,
                                        std::vector<RegistrySource> sources) {
  if (!media.decodes()) return nullptr;
  return std::make_shared<Pictures>(media, streams, panel_provider(reader(std::move(sources))));
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
                        const Pictures* pictures) {
  auto read_all = reader(std::move(sources));

  if (!common.metrics_listen.empty()) {
    MetricsServerOptions server_options;
    try {
      server_options.listen = parse_metrics_listen(common.metrics_listen);
    } catch (const EndpointError& error) {
      throw UsageError(std::string("--metrics-listen: ") + error.what());
    }
    const VideoWall* wall = pictures ? pictures->wall() : nullptr;
    if (wall && wall->program()) {
      server_options.cut_program = [program = wall->program()](int feed) {
        return program->cut(feed);
      };
    }
    if (pictures) {
      server_options.thumbnail = [&thumbnails = pictures->thumbnails()](int feed) {
        return feed <= 65535 ? thumbnails.jpeg(static_cast<std::uint16_t>(feed)) : std::nullopt;
      };
    }
    auto server = std::make_shared<MetricsServer>(runtime.io(), server_options, read_all);
    server->start();
    runtime.on_shutdown([server] { server->stop(); });
  }

  const VideoWall* wall = pictures ? pictures->wall() : nullptr;
  if (!gui && !wall) {
    runtime.run();
    return;
  }
  PanelAppOptions panel;
  panel.title = title;
  if (pictures) panel.pictures = pictures->panel_pictures();
  if (wall) {
    if (const auto area = wall->panel_area()) {
      panel.geometry = QRect(area->x, area->y, area->width, area->height);
    }
    if (Program* program = wall->program()) {
      panel.on_select = [program](int stream) { program->cut(stream); };
    }
  }
  run_qt_app(
      gui ? &panel : nullptr, panel_provider(read_all), [&runtime] { runtime.run(); },
      [&runtime] { runtime.request_stop(); });
}

}  // namespace hdstream
