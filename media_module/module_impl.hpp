// The media module's implementation: every entry of media_module/media_module.hpp over the
// media/, pipeline/ (decode, record, capture), mux/ (TS), display/, gui/ and report/ code. Built
// into libhdstream-media.so (media_module/entry.cpp) and, for tests, linked in directly
// (media_module/linked.cpp).
#pragma once

#include "media_module/media_module.hpp"

namespace hdstream {

class MediaModuleImpl final : public MediaModule {
 public:
  FeedSource make_media_source(const std::string& spec, const SoundSpec& sound,
                               std::uint16_t stream, const FeedDescriptor& preset) const override;
  double bars_decode_seconds(const FeedDescriptor& feed) const override;
  void prepare_feed_media(const Hello& hello) const override;
  std::unique_ptr<FeedMedia> make_feed_media(std::uint16_t stream, const Hello& hello,
                                             const MediaOutput& output,
                                             StreamCounters& counters) const override;
  std::shared_ptr<SenderTransport> make_ts_sender(asio::any_io_executor executor,
                                                  SenderOptions options, const TsSettings& ts,
                                                  StreamCounters& counters) const override;
  std::shared_ptr<ReceiverTransport> make_ts_receiver(ReceiverOptions options,
                                                      const MediaOutput& output,
                                                      StatsRegistry& stats,
                                                      FrameConsumer& consumer) const override;
  std::shared_ptr<Pictures> open_pictures(MediaOutput& media, std::size_t streams,
                                          PanelProvider provider) const override;
  void run_qt(const QtRun& run) const override;
  void write_link_report(const std::filesystem::path& path,
                         const LinkReportInput& input) const override;
  void write_acceptance_report(const std::filesystem::path& path,
                               const AcceptanceResult& result) const override;
};

}  // namespace hdstream
