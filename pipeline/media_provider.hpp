// What the media module (media_module/: FFmpeg's libav*, GStreamer, Qt) provides to the layers
// below it, which link none of those libraries: media sources, a received feed's decoder and
// recordings, and MPEG-TS over SRT. The module registers itself as the program's provider (the
// hdstream binary's loader, loading it on first use; or linked into tests and benchmarks); these
// layers ask this registry, never the module.
//   register_media_provider([]() -> const MediaProvider& { return load_the_module(); });
//   auto media = media_provider().make_feed_media(stream, hello, output, counters);
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "common/asio.hpp"
#include "protocol/handshake.hpp"

namespace hdstream {

struct FeedSource;        // pipeline/media_sources.hpp
struct SoundSpec;         // pipeline/media_sources.hpp
class FeedMedia;          // pipeline/feed_media.hpp
struct MediaOutput;       // pipeline/media_output.hpp
struct TsSettings;        // mux/ts_audio.hpp
struct StreamCounters;    // stats/counters.hpp
class StatsRegistry;      // stats/registry.hpp
class SenderTransport;    // transport/transport.hpp
class ReceiverTransport;  // transport/transport.hpp
class FrameConsumer;      // transport/transport.hpp
struct SenderOptions;     // transport/transport.hpp
struct ReceiverOptions;   // transport/transport.hpp

// The media module is missing or does not match this binary (or no provider was registered):
// one line, naming the file.
class MediaModuleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class MediaProvider {
 public:
  virtual ~MediaProvider() = default;

  // A file:, bars or GStreamer source for one feed (pipeline/media_sources.hpp). Throws SpecError.
  virtual FeedSource make_media_source(const std::string& spec, const SoundSpec& sound,
                                       std::uint16_t stream,
                                       const FeedDescriptor& preset) const = 0;
  // Loads what a received feed's media will need before its first frame comes: GStreamer for
  // its sound (whose first gst_init on a fresh machine builds the plugin registry).
  virtual void prepare_feed_media(const Hello& hello) const = 0;
  // One received feed's decoder, recordings and picture sinks (pipeline/media_feed.hpp).
  virtual std::unique_ptr<FeedMedia> make_feed_media(std::uint16_t stream, const Hello& hello,
                                                     const MediaOutput& output,
                                                     StreamCounters& counters) const = 0;
  // MPEG-TS over SRT (mux/): a feed re-encoded to MPEG-2 4:2:2.
  virtual std::shared_ptr<SenderTransport> make_ts_sender(asio::any_io_executor executor,
                                                          SenderOptions options,
                                                          const TsSettings& ts,
                                                          StreamCounters& counters) const = 0;
  // TS ingest: `output` says where each session's sound plays and what records it.
  virtual std::shared_ptr<ReceiverTransport> make_ts_receiver(ReceiverOptions options,
                                                              const MediaOutput& output,
                                                              StatsRegistry& stats,
                                                              FrameConsumer& consumer) const = 0;
};

// The program's provider, from `load` at each media_provider() (which may load it on first use
// and throw MediaModuleError). Registered once, before anything asks.
void register_media_provider(std::function<const MediaProvider&()> load);

// The registered provider. Throws MediaModuleError when none is registered or it cannot load.
const MediaProvider& media_provider();

}  // namespace hdstream
