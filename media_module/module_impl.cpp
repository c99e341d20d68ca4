#include "media_module/module_impl.hpp"

#include <fmt/format.h>
#include <QtGui/QImage>

#include "gui/host_pictures.hpp"
#include "gui/panel_app.hpp"
#include "media/decode_cost.hpp"
#include "media/gst_runtime.hpp"
#include "media/media_error.hpp"
#include "media/sample_clip.hpp"
#include "media_module/screen_pictures.hpp"
#include "mux/ts_srt_receiver.hpp"
#include "mux/ts_stage.hpp"
#include "pipeline/capture_sources.hpp"
#include "pipeline/media_feed.hpp"
#include "report/acceptance_report.hpp"
#include "report/link_report.hpp"
#include "transport/srt/srt_message_sender.hpp"

namespace hdstream {

FeedSource MediaModuleImpl::make_media_source(const std::string& spec, const SoundSpec& sound,
                                              std::uint16_t stream,
                                              const FeedDescriptor& preset) const {
  return hdstream::make_media_source(spec, sound, stream, preset);
}

double MediaModuleImpl::bars_decode_seconds(const FeedDescriptor& feed) const {
  try {
    return decode_cpu_seconds_per_frame(cached_sample_clip(feed, 0), 20);
  } catch (const MediaError& error) {
    throw SpecError(fmt::format("the bars clip: {}", error.what()));
  }
}

void MediaModuleImpl::prepare_feed_media(const Hello& hello) const {
  if (hello.feed.audio.present()) ensure_gstreamer();
}

std::unique_ptr<FeedMedia> MediaModuleImpl::make_feed_media(std::uint16_t stream,
                                                            const Hello& hello,
                                                            const MediaOutput& output,
                                                            StreamCounters& counters) const {
  return std::make_unique<MediaFeed>(stream, hello, output, counters);
}

std::shared_ptr<SenderTransport> MediaModuleImpl::make_ts_sender(asio::any_io_executor executor,
                                                                 SenderOptions options,
                                                                 const TsSettings& ts,
                                                                 StreamCounters& counters) const {
  auto stage = std::make_unique<TsStage>(options.hello.feed, ts);
  return std::make_shared<SrtMessageSender>(std::move(executor), std::move(options),
                                            std::move(stage), counters);
}

std::shared_ptr<ReceiverTransport> MediaModuleImpl::make_ts_receiver(
    ReceiverOptions options, const MediaOutput& output, StatsRegistry& stats,
    FrameConsumer& consumer) const {
  return std::make_shared<TsSrtReceiver>(std::move(options), output, stats, consumer);
}

std::shared_ptr<Pictures> MediaModuleImpl::open_pictures(MediaOutput& media, std::size_t streams,
                                                         PanelProvider provider) const {
  return std::make_shared<ScreenPictures>(media, streams, std::move(provider));
}

void MediaModuleImpl::run_qt(const QtRun& run) const {
  PanelAppOptions panel;
  panel.title = run.title;
  if (run.host_pictures) panel.pictures = host_pictures(run.host_pictures);
  if (const Pictures* pictures = run.pictures) {
    // This process's thumbnails, as Qt images.
    panel.pictures = [pictures](const FeedRow& row) -> std::optional<PanelPicture> {
      const auto thumbnail = pictures->latest_thumbnail(row.stream);
      if (!thumbnail) return std::nullopt;
      QImage image(thumbnail->bgra.data(), thumbnail->width, thumbnail->height,
                   thumbnail->width * 4, QImage::Format_RGB32);
      return PanelPicture{image.copy(), thumbnail->seq};
    };
  }
  if (run.pictures) {
    if (const auto area = run.pictures->panel_area()) {
      panel.geometry = QRect(area->x, area->y, area->width, area->height);
    }
    if (auto cut = run.pictures->program_cut()) {
      panel.on_select = [cut = std::move(cut)](int stream) { cut(stream); };
    }
  }
  run_qt_app(run.panel ? &panel : nullptr, run.provider, run.work, run.request_stop);
}

void MediaModuleImpl::write_link_report(const std::filesystem::path& path,
                                        const LinkReportInput& input) const {
  hdstream::write_link_report(path, input);
}

void MediaModuleImpl::write_acceptance_report(const std::filesystem::path& path,
                                              const AcceptanceResult& result) const {
  hdstream::write_acceptance_report(path, result);
}

}  // namespace hdstream
