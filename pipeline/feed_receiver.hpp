// The receiving side of N feeds: takes whole frames from the transport, verifies synthetic
// content end to end, measures RFC 3550 jitter, counts, and hands frames to the sink.
//   FeedReceivers feeds(stats, [] { all_done(); });
//   auto receiver = make_receiver(TransportKind::tcp, io, options, stats, feeds);
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <vector>

#include "stats/jitter.hpp"
#include "stats/registry.hpp"
#include "transport/transport.hpp"

namespace hdstream {

class FeedReceivers : public FrameConsumer {
 public:
  // `on_all_ended` runs once every stream has had a session that ended.
  FeedReceivers(StatsRegistry& stats, std::function<void()> on_all_ended);

  void session_started(std::uint16_t stream, const Hello& hello) override;
  void frame_received(std::uint16_t stream, FramePtr frame) override;
  void session_ended(std::uint16_t stream, bool clean) override;

 private:
  struct Feed {
    Codec codec = Codec::invalid;
    JitterEstimator jitter;
    double latency_ms = 0;
    bool has_latency = false;
    bool ended = false;
  };

  StatsRegistry& stats_;
  std::function<void()> on_all_ended_;
  std::vector<Feed> feeds_;  // one per stream; each touched only by that stream's session
  std::atomic<std::size_t> ended_{0};
};

}  // namespace hdstream
