#include "transport/srt/srt_message_sender.hpp"

#include <thread>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/units.hpp"
#include "transport/srt/srt_link.hpp"

namespace hdstream {
SrtMessageSender::SrtMessageSender(asio::any_io_executor executor, SenderOptions options,
                                   std::unique_ptr<MessageStage> stage, StreamCounters& counters)
    : options_(std::move(options)),
      stage_(std::move(stage)),
      counters_(counters),
      remote_{options_.destination.host,
              static_cast<std::uint16_t>(options_.destination.port + options_.stream_id)},
      feed_(std::move(executor), options_.max_queued_frames) {}

SrtMessageSender::~SrtMessageSender() {
  feed_.join();  // the thread does not own the sender (see SrtSender)
}

awaitable<bool> SrtMessageSender::open() {
  // What goes on the wire is the stage's stream, not the feed's own rate.
  counters_.planned_bps.store(stage_->planned_rate_bps(), std::memory_order_relaxed);
  co_return co_await feed_.start(weak_from_this(), [this] { run(); });
}

void SrtMessageSender::sample_stats(bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && now < next_stats_) return;
  next_stats_ = now + std::chrono::milliseconds(250);
  publish_srt_stats(socket_.stats(), /*sender=*/true, counters_);
}

void SrtMessageSender::run() {
  bool opened = false;
  bool ok = false;
  try {
    stage_->prepare();
    SrtPlan plan = srt_plan(stage_->wire_rate_bps(), options_.srt, options_.expected_rtt);
    plan.payload_bytes = stage_->message_bytes();
    std::optional<SrtSocket> connected =
        connect_srt_caller(plan, remote_, options_.source, options_.connect_patience,
                           feed_.stop_flag(), options_.stream_id);
    if (connected) {
      socket_ = std::move(*connected);
      bool broken = false;
      stage_->open([this, &broken](std::span<const std::byte> message) {
        if (send_srt_message(socket_, message, feed_.stop_flag())) return true;
        broken = true;
        return false;
      });
      srt_log()->info("stream {}: {} over SRT to {}, latency {}, {}", options_.stream_id,
                      stage_->describe(), remote_.to_string(),
                      format_duration(options_.srt.latency),
                      options_.srt.passphrase.empty()
                          ? std::string("unencrypted")
                          : fmt::format("AES-{}", options_.srt.key_length_bytes * 8));
      counters_.state.store(StreamState::running, std::memory_order_relaxed);
      feed_.opened(true);
      opened = true;
      ok = stream_frames(broken);
    }
  } catch (const StageError& error) {
    if (!feed_.stopped()) srt_log()->error("stream {}: {}", options_.stream_id, error.what());
    ok = false;
  }
  feed_.stop_accepting();
  if (!opened) feed_.opened(false);  // open() is still waiting
  if (socket_.is_open()) sample_stats(true);
  socket_.close();
  ok = ok && !feed_.stopped();
  counters_.state.store(ok ? StreamState::finished : StreamState::failed,
                        std::memory_order_relaxed);
  feed_.finished(ok);
}

// Frames from the queue until close() or stop(), each through the stage. false when the
// connection or the stage broke.
bool SrtMessageSender::stream_frames(const bool& broken) {
  std::uint64_t unreadable = 0;
  for (;;) {
    FramePtr frame;
    const FeedThread::Take take = feed_.take(frame);
    if (take == FeedThread::Take::stopped) return false;
    if (take == FeedThread::Take::closing) break;
    if (take == FeedThread::Take::idle) {
      sample_stats();
      continue;
    }
    try {
      counters_.add_frame(stage_->push(*frame), wall_clock_ns());
    } catch (const StageError& error) {
      if (error.frame_only()) {
        // One bad source frame costs one picture, counted, not the feed.
        counters_.drops.fetch_add(1, std::memory_order_relaxed);
        if (unreadable++ == 0) {
          srt_log()->warn("stream {}: frame {} not sent: {}", options_.stream_id, frame->seq,
                          error.what());
        }
        continue;
      }
      if (feed_.stopped()) return false;
      if (broken) {
        srt_log()->error("stream {}: SRT connection to {} lost", options_.stream_id,
                         remote_.to_string());
      } else {
        srt_log()->error("stream {}: {}", options_.stream_id, error.what());
      }
      return false;
    }
    sample_stats();
  }
  feed_.stop_accepting();
  counters_.bytes.fetch_add(stage_->finish(), std::memory_order_relaxed);  // throws StageError
  wait_until_played_out();
  return !feed_.stopped();
}

// Live mode has no linger, and a message receiver (TS) sends no END acknowledgement; a receiver
// whose peer closes discards what its latency buffer still holds. So wait (bounded) until the peer
// has acknowledged everything, then for its latency, so the last pictures are played out.
void SrtMessageSender::wait_until_played_out() {
  const auto acknowledged_by =
      std::chrono::steady_clock::now() + options_.srt.latency + std::chrono::seconds(1);
  while (!feed_.stopped() && socket_.unacknowledged_bytes() > 0 &&
         std::chrono::steady_clock::now() < acknowledged_by) {
    sample_stats();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // libsrt has no event for this
  }
  const auto played_by =
      std::chrono::steady_clock::now() + socket_.peer_latency() + std::chrono::milliseconds(20);
  while (!feed_.stopped() && std::chrono::steady_clock::now() < played_by) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

SubmitResult SrtMessageSender::submit(FramePtr frame) {
  return feed_.submit(std::move(frame));
}

awaitable<bool> SrtMessageSender::close(std::uint64_t frames_sent) {
  co_return co_await feed_.close(frames_sent);  // no END: the stream just stops
}

void SrtMessageSender::stop() {
  feed_.stop();  // every blocking call in run() returns within 100 ms (1 s while connecting)
}

}  // namespace hdstream
