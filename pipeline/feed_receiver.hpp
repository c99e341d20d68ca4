// The receiving side of N feeds: takes whole frames from the transport, verifies synthetic
// content end to end, measures RFC 3550 jitter, counts, and hands frames to the sink.
//   FeedReceivers feeds(stats, [] { all_done(); });
//   auto receiver = make_receiver(Wire{TransportKind::tcp}, io, options, stats, feeds);
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "pipeline/feed_media.hpp"
#include "pipeline/media_output.hpp"
#include "stats/jitter.hpp"
#include "stats/registry.hpp"
#include "transport/transport.hpp"

namespace hdstream {

class FeedReceivers : public FrameConsumer {
 public:
  // `on_all_ended` runs once every stream has had a session that ended with END. A session
  // that broke is an outage, not an end: the stream waits for the sender's next session, and
  // its decoder, sound and recordings wait with it (the outage is a gap in each recording).
  // `output` (default: none) decodes video feeds on a worker per feed and sends them to a sink.
  FeedReceivers(StatsRegistry& stats, std::function<void()> on_all_ended, MediaOutput output = {});
  ~FeedReceivers() override;

  // Waits for every decode worker to drain its queue and finalize its sink (files become
  // playable). Call after the transport has stopped, before the final stats sample.
  void finish_media();

  // A video feed that will be decoded: the media module (and GStreamer, for its sound) loads
  // now, before the sender's first frame.
  void prepare(std::uint16_t stream, const Hello& hello) override;
  void session_started(std::uint16_t stream, const Hello& hello) override;
  void frame_received(std::uint16_t stream, FramePtr frame) override;
  void session_ended(std::uint16_t stream, bool clean, std::uint64_t next_seq) override;

 private:
  struct Feed {
    Codec codec = Codec::invalid;
    JitterEstimator jitter;
    double latency_ms = 0;
    bool has_latency = false;
    bool ended = false;
    std::uint64_t next_seq_at_break = 0;  // every frame below was delivered or counted
    std::int64_t broke_at_ns = 0;         // steady clock at the last session's break (0: none)
    // Video feeds with an --output. Kept open across an outage (its recordings go on in the
    // same files) until the feed ends, resumes in another format, or the receiver stops.
    std::unique_ptr<FeedMedia> media;
    FeedDescriptor media_feed;  // the format `media` decodes and records
    bool media_open = false;    // `media` takes frames: its session is live or broke off
  };

  // Whether `feed`'s open media goes on with the session `hello` starts; if not, finishes it
  // (its files finalized).
  void keep_or_finish_media(std::uint16_t stream, Feed& feed, const Hello& hello);

  StatsRegistry& stats_;
  std::function<void()> on_all_ended_;
  MediaOutput output_;
  std::vector<Feed> feeds_;  // one per stream; each touched only by that stream's session
  std::atomic<std::size_t> ended_{0};
};

}  // namespace hdstream
