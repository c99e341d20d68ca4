#include "pipeline/feed_receiver.hpp"

#include "common/clock.hpp"
#include "common/log.hpp"
#include "media/formats.hpp"
#include "pipeline/media_provider.hpp"
#include "pipeline/recording_resumption.hpp"
#include "pipeline/synthetic.hpp"

namespace hdstream {

FeedReceivers::FeedReceivers(StatsRegistry& stats, std::function<void()> on_all_ended,
                             MediaOutput output)
    : stats_(stats),
      on_all_ended_(std::move(on_all_ended)),
      output_(std::move(output)),
      feeds_(stats.size()) {}

FeedReceivers::~FeedReceivers() {
  finish_media();
}

void FeedReceivers::finish_media() {
  for (auto& feed : feeds_) {
    if (feed.media) feed.media->finish();
  }
}

void FeedReceivers::prepare(std::uint16_t /*stream*/, const Hello& hello) {
  if (!output_.decodes() || !is_video(hello.feed.codec)) return;
  try {
    media_provider().prepare_feed_media(hello);
  } catch (const MediaModuleError&) {
    // session_started says what it costs the feed.
  }
}

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
  StreamCounters& counters = stats_.stream(stream);
  if (const std::int64_t outage_ns =
          counters.outage.end(wall_clock_ns(), std::chrono::milliseconds(hello.latency_budget_ms));
      outage_ns > 0) {
    // The sender's next session after a break. Frames it did not send meanwhile are a gap in
    // sequence numbers; a restarted sender (counting from its own first frame again) is not.
    if (hello.first_frame_seq > feed.next_seq_at_break) {
      counters.drops.fetch_add(hello.first_frame_seq - feed.next_seq_at_break,
                               std::memory_order_relaxed);
      counters.add_loss_run(hello.first_frame_seq - feed.next_seq_at_break);
    }
    logger("feed")->info("stream {}: the sender is back after {:.1f} s without a session", stream,
                         static_cast<double>(outage_ns) / 1e9);
  }
  if (!output_.decodes()) return;
  keep_or_finish_media(stream, feed, hello);
  if (feed.media) {
    feed.media_open = true;
    return;
  }
  if (!is_video(hello.feed.codec)) {
    logger("feed")->warn("stream {}: {} frames are not video; --output {} ignored for it", stream,
                         to_string(hello.feed.codec), output_.describe());
    return;
  }
  try {
    feed.media = media_provider().make_feed_media(stream, hello, output_, stats_.stream(stream));
    feed.media_feed = hello.feed;
    feed.media_open = true;
  } catch (const MediaModuleError& error) {
    // Only with --output null (other outputs load the module at start): the feed is received,
    // verified and counted as before, and not decoded.
    feed.media.reset();
    logger("feed")->error("stream {}: not decoded: {}", stream, error.what());
  }
}

void FeedReceivers::keep_or_finish_media(std::uint16_t stream, Feed& feed, const Hello& hello) {
  if (!feed.media) return;
  if (feed.media_open) {
    // The sender's next session after a break: the same feed goes on in the same files (its
    // frames' places in them count from the recording's first frame, so the outage stays a gap,
    // and its sound's gap is written as silence of the same length).
    const auto outage = std::chrono::nanoseconds(
        feed.broke_at_ns > 0 ? std::max<std::int64_t>(steady_clock_ns() - feed.broke_at_ns, 0) : 0);
    const std::string why = recording_break(feed.media_feed, feed.next_seq_at_break, hello, outage);
    const bool records = output_.find(OutputTarget::Kind::file) != nullptr;
    if (why.empty()) {
      if (records) {
        logger("feed")->info("stream {}: the same feed from frame {}: its recordings go on", stream,
                             hello.first_frame_seq);
      }
      return;
    }
    // Never into the open files: they are finalized as they are, and the feed goes on in new
    // ones (pipeline/recording_names.hpp).
    logger("feed")->warn("stream {}: {}{}", stream, why,
                         records ? "; its recordings go on in new files" : "");
  }
  // A feed that ended (END) and starts again: a new recording beside the last.
  feed.media->finish();
  feed.media.reset();
  feed.media_open = false;
}

void FeedReceivers::frame_received(std::uint16_t stream, FramePtr frame) {
  Feed& feed = feeds_[stream];
  StreamCounters& counters = stats_.stream(stream);
  if (feed.codec == Codec::synthetic && !verify_synthetic(*frame)) {
    counters.checksum_errors.fetch_add(1, std::memory_order_relaxed);
    counters.drops.fetch_add(1, std::memory_order_relaxed);
    counters.add_loss_run(1);
    logger("feed")->warn("stream {}: frame {} failed end-to-end verification", stream, frame->seq);
    return;
  }
  feed.jitter.add(frame->ready_ns, frame->arrival_ns);
  counters.jitter_ms.store(feed.jitter.jitter_ms(), std::memory_order_relaxed);
  // Smoothed like RFC 3550 jitter (gain 1/16): a per-frame value would flicker on the panel.
  const double latency_ms = static_cast<double>(frame->arrival_ns - frame->ready_ns) / 1e6;
  feed.latency_ms =
      feed.has_latency ? feed.latency_ms + (latency_ms - feed.latency_ms) / 16.0 : latency_ms;
  feed.has_latency = true;
  counters.latency_ms.store(feed.latency_ms, std::memory_order_relaxed);
  stats_.latency().add(frame->arrival_ns - frame->ready_ns);
  counters.add_frame(frame->data.size(), frame->arrival_ns);
  counters.add_transit(frame->seq, frame->ready_ns, frame->arrival_ns);
  counters.outage.note_frame(frame->seq, frame->arrival_ns);
  if (feed.media) feed.media->push(std::move(frame));
}

void FeedReceivers::session_ended(std::uint16_t stream, bool clean, std::uint64_t next_seq) {
  Feed& feed = feeds_[stream];
  StreamCounters& counters = stats_.stream(stream);
  if (!clean) {
    // An outage: the show goes on. The stream's slot waits for the sender's next session;
    // frames below `next_seq` were delivered or counted, the rest is counted on resumption.
    // Its media stays open: the next session of the same feed continues its recordings.
    counters.state.store(StreamState::waiting, std::memory_order_relaxed);
    counters.outage.begin(wall_clock_ns());
    feed.next_seq_at_break = next_seq;
    feed.broke_at_ns = steady_clock_ns();
    logger("feed")->warn("stream {}: session lost; waiting for the sender's next session", stream);
    return;
  }
  if (feed.media) feed.media->close();  // the worker drains what is queued, then finalizes
  feed.media_open = false;
  if (feed.ended) return;
  feed.ended = true;
  if (ended_.fetch_add(1) + 1 == feeds_.size() && on_all_ended_) on_all_ended_();
}

}  // namespace hdstream
