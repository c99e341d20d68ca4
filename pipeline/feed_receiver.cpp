#include "pipeline/feed_receiver.hpp"

#include "common/log.hpp"
#include "pipeline/synthetic.hpp"

namespace hdstream {

FeedReceivers::FeedReceivers(StatsRegistry& stats, std::function<void()> on_all_ended)
    : stats_(stats), on_all_ended_(std::move(on_all_ended)), feeds_(stats.size()) {}

void FeedReceivers::session_started(std::uint16_t stream, const Hello& hello) {
  Feed& feed = feeds_[stream];
  feed.codec = hello.feed.codec;
  feed.jitter = JitterEstimator{};  // a new session has a new transit-time baseline
  // A sender that broke off and came back (resume after a fault): the stream is live again.
  if (feed.ended) {
    feed.ended = false;
    ended_.fetch_sub(1);
  }
  feed.has_latency = false;
}

void FeedReceivers::frame_received(std::uint16_t stream, FramePtr frame) {
  Feed& feed = feeds_[stream];
  StreamCounters& counters = stats_.stream(stream);
  if (feed.codec == Codec::synthetic && !verify_synthetic(*frame)) {
    counters.checksum_errors.fetch_add(1, std::memory_order_relaxed);
    counters.drops.fetch_add(1, std::memory_order_relaxed);
    logger("feed")->warn("stream {}: frame {} failed end-to-end verification", stream, frame->seq);
    return;
  }
  feed.jitter.add(frame->ready_ns, frame->arrival_ns);
  counters.jitter_ms.store(feed.jitter.jitter_ms(), std::memory_order_relaxed);
  // Smoothed like RFC 3550 jitter (gain 1/16): a per-frame value would flicker on the panel.
  const double latency_ms = static_cast<double>(frame->arrival_ns - frame->ready_ns) / 1e6;
  feed.latency_ms = feed.has_latency ? feed.latency_ms + (latency_ms - feed.latency_ms) / 16.0
                                     : latency_ms;
  feed.has_latency = true;
  counters.latency_ms.store(feed.latency_ms, std::memory_order_relaxed);
  counters.add_frame(frame->data.size(), frame->arrival_ns);
}

void FeedReceivers::session_ended(std::uint16_t stream, bool /*clean*/) {
  Feed& feed = feeds_[stream];
  if (feed.ended) return;
  feed.ended = true;
  if (ended_.fetch_add(1) + 1 == feeds_.size() && on_all_ended_) on_all_ended_();
}

}  // namespace hdstream
