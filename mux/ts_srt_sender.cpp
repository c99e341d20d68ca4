#include "mux/ts_srt_sender.hpp"

#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/units.hpp"
#include "media/media_error.hpp"
#include "media/video_decoder.hpp"
#include "mux/ts_encoder.hpp"
#include "transport/srt_sender.hpp"

namespace hdstream {
namespace {

std::shared_ptr<spdlog::logger> log() {
  return logger("ts");
}

// TS and PES headers, PAT/PMT and PCR add a few percent to the video rate.
constexpr double kTsOverhead = 1.1;

}  // namespace

TsSrtSender::TsSrtSender(asio::any_io_executor executor, SenderOptions options,
                         std::uint64_t video_rate_bps, StreamCounters& counters)
    : executor_(std::move(executor)),
      options_(std::move(options)),
      video_rate_bps_(video_rate_bps),
      counters_(counters),
      remote_{options_.destination.host,
              static_cast<std::uint16_t>(options_.destination.port + options_.stream_id)},
      opened_(executor_),
      closed_(executor_) {}

TsSrtSender::~TsSrtSender() {
  // The thread does not own the sender (see SrtSender): the last owner waits for it here.
  stopped_ = true;
  queue_changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void TsSrtSender::report(AsyncEvent& event, bool& result, bool value) {
  asio::post(executor_, [weak = weak_from_this(), &event, &result, value] {
    if (auto self = weak.lock()) {
      result = value;
      event.set();
    }
  });
}

awaitable<bool> TsSrtSender::open() {
  // What goes on the wire is the MPEG-2 stream, not the feed's own rate.
  counters_.planned_bps.store(video_rate_bps_, std::memory_order_relaxed);
  thread_ = std::thread([this] { run(); });
  co_await opened_.wait();
  co_return open_ok_;
}

void TsSrtSender::sample_stats(bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && now < next_stats_) return;
  next_stats_ = now + std::chrono::milliseconds(250);
  publish_srt_stats(socket_.stats(), /*sender=*/true, counters_);
}

void TsSrtSender::run() {
  const FeedDescriptor& feed = options_.hello.feed;
  bool opened = false;
  bool ok = false;
  try {
    VideoDecoder decoder(feed);
    SrtPlan plan = srt_plan(static_cast<std::uint64_t>(kTsOverhead * video_rate_bps_), options_.srt,
                            options_.expected_rtt);
    plan.payload_bytes = kSrtTsPayloadBytes;
    std::optional<SrtSocket> connected =
        connect_srt_caller(plan, remote_, options_.connect_patience, stopped_, options_.stream_id);
    if (connected) {
      socket_ = std::move(*connected);
      bool broken = false;
      TsEncoder encoder(feed, video_rate_bps_, [this, &broken](std::span<const std::byte> message) {
        if (send_srt_message(socket_, message, stopped_)) return true;
        broken = true;
        return false;
      });
      log()->info(
          "stream {}: MPEG-TS over SRT to {}: {}x{} {:.2f} fps as MPEG-2 4:2:2 I-frames "
          "at {}, latency {}, {}",
          options_.stream_id, remote_.to_string(), feed.width, feed.height,
          feed.frames_per_second(), format_rate(static_cast<double>(video_rate_bps_)),
          format_duration(options_.srt.latency),
          options_.srt.passphrase.empty()
              ? std::string("unencrypted")
              : fmt::format("AES-{}", options_.srt.key_length_bytes * 8));
      counters_.state.store(StreamState::running, std::memory_order_relaxed);
      report(opened_, open_ok_, true);
      opened = true;
      ok = stream_frames(decoder, encoder, broken);
    }
  } catch (const MediaError& error) {
    if (!stopped_) log()->error("stream {}: --mux ts: {}", options_.stream_id, error.what());
    ok = false;
  }
  accepting_ = false;
  if (!opened) report(opened_, open_ok_, false);  // open() is still waiting
  if (socket_.is_open()) sample_stats(true);
  socket_.close();
  ok = ok && !stopped_;
  counters_.state.store(ok ? StreamState::finished : StreamState::failed,
                        std::memory_order_relaxed);
  report(closed_, close_ok_, ok);
}

// Frames from the queue until close() or stop(): decode, encode, send. false when the
// connection or the encoder broke.
bool TsSrtSender::stream_frames(VideoDecoder& decoder, TsEncoder& encoder, const bool& broken) {
  std::uint64_t undecodable = 0;
  for (;;) {
    FramePtr frame;
    {
      std::unique_lock lock(mutex_);
      queue_changed_.wait_for(lock, std::chrono::milliseconds(100),
                              [&] { return stopped_ || closing_ || !queue_.empty(); });
      if (stopped_) return false;
      if (queue_.empty()) {
        if (closing_) break;
        lock.unlock();
        sample_stats();
        continue;
      }
      frame = std::move(queue_.front());
      queue_.pop_front();
    }
    const Picture* picture = nullptr;
    try {
      picture = &decoder.decode(frame->data);
    } catch (const MediaError& error) {
      // One bad source frame costs one picture, counted, not the feed.
      counters_.drops.fetch_add(1, std::memory_order_relaxed);
      if (undecodable++ == 0) {
        log()->warn("stream {}: frame {} not sent: {}", options_.stream_id, frame->seq,
                    error.what());
      }
      continue;
    }
    try {
      counters_.add_frame(encoder.encode(*picture), wall_clock_ns());
    } catch (const MediaError& error) {
      if (stopped_) return false;
      if (broken) {
        log()->error("stream {}: SRT connection to {} lost", options_.stream_id,
                     remote_.to_string());
      } else {
        log()->error("stream {}: --mux ts: {}", options_.stream_id, error.what());
      }
      return false;
    }
    sample_stats();
  }
  accepting_ = false;
  try {
    counters_.bytes.fetch_add(encoder.finish(), std::memory_order_relaxed);
  } catch (const MediaError& error) {
    if (!stopped_) log()->error("stream {}: --mux ts: {}", options_.stream_id, error.what());
    return false;
  }
  wait_until_played_out();
  return !stopped_;
}

// Live mode has no linger, and a TS receiver sends no END acknowledgement; a receiver whose
// peer closes discards what its latency buffer still holds. So wait (bounded) until the peer
// has acknowledged everything, then for its latency, so the last pictures are played out.
void TsSrtSender::wait_until_played_out() {
  const auto acknowledged_by =
      std::chrono::steady_clock::now() + options_.srt.latency + std::chrono::seconds(1);
  while (!stopped_ && socket_.unacknowledged_bytes() > 0 &&
         std::chrono::steady_clock::now() < acknowledged_by) {
    sample_stats();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // libsrt has no event for this
  }
  const auto played_by =
      std::chrono::steady_clock::now() + socket_.peer_latency() + std::chrono::milliseconds(20);
  while (!stopped_ && std::chrono::steady_clock::now() < played_by) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

SubmitResult TsSrtSender::submit(FramePtr frame) {
  if (!accepting_ || stopped_) return SubmitResult::closed;
  {
    std::lock_guard lock(mutex_);
    if (closing_) return SubmitResult::closed;
    if (queue_.size() >= options_.max_queued_frames) return SubmitResult::dropped;
    queue_.push_back(std::move(frame));
  }
  queue_changed_.notify_one();
  return SubmitResult::queued;
}

awaitable<bool> TsSrtSender::close(std::uint64_t frames_sent) {
  (void)frames_sent;  // MPEG-TS has no END message: the stream just stops
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
  }
  queue_changed_.notify_one();
  if (!thread_.joinable()) co_return false;
  co_await closed_.wait();
  co_return close_ok_;
}

void TsSrtSender::stop() {
  stopped_ = true;  // every blocking call in run() returns within 100 ms (1 s while connecting)
  queue_changed_.notify_all();
}

}  // namespace hdstream
