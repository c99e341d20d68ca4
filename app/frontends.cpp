#include "app/frontends.hpp"

#include <functional>
#include <memory>
#include <mutex>

#include "common/display_env.hpp"
#include "common/log.hpp"
#include "common/provenance.hpp"
#include "media_module/media_module.hpp"
#include "pipeline/media_sources.hpp"
#include "telemetry/metrics_server.hpp"
#include "transport/key_file.hpp"

namespace hdstream {
namespace {

// Reads counters only (StatsRegistry::read): the console report's rate baseline is untouched.
std::function<std::vector<LabeledSnapshot>()> reader(std::vector<RegistrySource> sources) {
  return [sources = std::move(sources), host = host_name()] {
    std::vector<LabeledSnapshot> out;
    out.reserve(sources.size());
    for (const auto& source : sources) {
      out.push_back(LabeledSnapshot{host, source.endpoint, source.registry->read()});
    }
    return out;
  };
}

PanelProvider panel_provider(std::function<std::vector<LabeledSnapshot>()> read_all) {
  return [read_all = std::move(read_all)](double now_s) {
    std::vector<PanelInput> inputs;
    for (auto& source : read_all()) inputs.push_back(PanelInput{std::move(source), now_s});
    return inputs;
  };
}

// Thumbnails for --output null alone (recv's default: decode and discard), made by the media
// module when the first video feed's session asks for its picture sinks: a receiver whose feeds
// are all synthetic never loads the media libraries. That first video session loads the module
// on its network thread (~30 ms once; the latency budget covers it).
class DeferredPictures final : public Pictures {
 public:
  DeferredPictures(const MediaOutput& media, std::size_t streams, PanelProvider provider)
      : media_(media), streams_(streams), provider_(std::move(provider)) {}

  // The sinks of the module's pictures, made at the first call: a video session's start, on its
  // decode worker (the module is loaded by then: it made the decoder).
  MediaOutput::SinkFactory sink_factory() {
    return [this](std::uint16_t stream, const Hello& hello) {
      std::call_once(opened_, [this] {
        try {
          MediaOutput own = media_;  // nothing on screens: the module keeps no reference to it
          auto made = media_module().open_pictures(own, streams_, provider_);
          std::lock_guard lock(mutex_);
          made_sinks_ = std::move(own.picture_sinks);
          pictures_ = std::move(made);
        } catch (const std::exception& error) {
          logger("media")->error("no thumbnails: {}", error.what());
        }
      });
      return made_sinks_ ? made_sinks_(stream, hello) : std::vector<std::shared_ptr<PictureSink>>{};
    };
  }

  std::optional<Thumbnail> latest_thumbnail(std::uint16_t stream) const override {
    const auto pictures = opened();
    return pictures ? pictures->latest_thumbnail(stream) : std::nullopt;
  }
  std::optional<std::string> thumbnail_jpeg(std::uint16_t stream) const override {
    const auto pictures = opened();
    return pictures ? pictures->thumbnail_jpeg(stream) : std::nullopt;
  }
  std::function<std::optional<std::string>(int)> program_cut() const override { return {}; }
  bool on_screens() const override { return false; }

 private:
  const MediaOutput media_;
  const std::size_t streams_;
  const PanelProvider provider_;
  std::once_flag opened_;
  mutable std::mutex mutex_;
  MediaOutput::SinkFactory made_sinks_;  // set once, inside opened_
  std::shared_ptr<Pictures> pictures_;

  std::shared_ptr<Pictures> opened() const {
    std::lock_guard lock(mutex_);
    return pictures_;
  }
};

}  // namespace

std::shared_ptr<Pictures> open_pictures(MediaOutput& media, std::size_t streams,
                                        std::vector<RegistrySource> sources) {
  if (!media.decodes()) return nullptr;
  auto provider = panel_provider(reader(std::move(sources)));
  // A recording or a screen must not find out at the first session that the module is missing.
  if (!media.on_screens() && !media.find(OutputTarget::Kind::file)) {
    auto deferred = std::make_shared<DeferredPictures>(media, streams, std::move(provider));
    media.add_picture_sinks(deferred->sink_factory());
    return deferred;
  }
  try {
    return media_module().open_pictures(media, streams, std::move(provider));
  } catch (const SpecError& error) {
    throw UsageError(error.what());
  }
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
    server_options.guard.names = common.metrics_names;
    if (common.control_key) {
      server_options.guard.control_token = [key = *common.control_key](std::string_view token) {
        return token_matches_key(token, key);
      };
    }
    if (pictures) {
      server_options.cut_program = pictures->program_cut();
      server_options.thumbnail = [pictures](int feed) {
        return feed <= 65535 ? pictures->thumbnail_jpeg(static_cast<std::uint16_t>(feed))
                             : std::nullopt;
      };
    }
    if (common.web_config) server_options.web = *common.web_config;
    std::shared_ptr<MetricsServer> server;
    try {
      server = std::make_shared<MetricsServer>(runtime.io(), server_options, read_all);
    } catch (const WebConfigError& error) {
      throw UsageError(std::string("--web-config: ") + error.what());
    }
    server->start();
    runtime.on_shutdown([server] { server->stop(); });
  }

  if (!gui && !(pictures && pictures->on_screens())) {
    runtime.run();
    return;
  }
  media_module().run_qt(QtRun{.title = title,
                              .panel = gui,
                              .provider = panel_provider(read_all),
                              .pictures = pictures,
                              .work = [&runtime] { runtime.run(); },
                              .request_stop = [&runtime] { runtime.request_stop(); }});
}

}  // namespace hdstream
