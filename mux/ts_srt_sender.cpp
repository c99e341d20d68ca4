#include "mux/ts_srt_sender.hpp"

#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/units.hpp"
#include "media/media_error.hpp"
#include "media/video_decoder.hpp"
#include "mux/ts_encoder.hpp"
#include "transport/srt_link.hpp"

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
    : options_(std::move(options)),
      video_rate_bps_(video_rate_bps),
      counters_(counters),
      remote_{options_.destination.host,
              static_cast<std::uint16_t>(options_.destination.port + options_.stream_id)},
      feed_(std::move(executor), options_.max_queued_frames) {}

TsSrtSender::~TsSrtSender() {
  feed_.join();  // the thread does not own the sender (see SrtSender)
}

awaitable<bool> TsSrtSender::open() {
  // What goes on the wire is the MPEG-2 stream, not the feed's own rate.
  counters_.planned_bps.store(video_rate_bps_, std::memory_order_relaxed);
  co_return co_await feed_.start(weak_from_this(), [this] { run(); });
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
    std::optional<SrtSocket> connected = connect_srt_caller(
        plan, remote_, options_.connect_patience, feed_.stop_flag(), options_.stream_id);
    if (connected) {
      socket_ = std::move(*connected);
      bool broken = false;
      TsEncoder encoder(feed, video_rate_bps_, [this, &broken](std::span<const std::byte> message) {
        if (send_srt_message(socket_, message, feed_.stop_flag())) return true;
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
      feed_.opened(true);
      opened = true;
      ok = stream_frames(decoder, encoder, broken);
    }
  } catch (const MediaError& error) {
    if (!feed_.stopped()) log()->error("stream {}: --mux ts: {}", options_.stream_id, error.what());
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

// Frames from the queue until close() or stop(): decode, encode, send. false when the
// connection or the encoder broke.
bool TsSrtSender::stream_frames(VideoDecoder& decoder, TsEncoder& encoder, const bool& broken) {
  std::uint64_t undecodable = 0;
  for (;;) {
    FramePtr frame;
    const FeedThread::Take take = feed_.take(frame);
    if (take == FeedThread::Take::stopped) return false;
    if (take == FeedThread::Take::closing) break;
    if (take == FeedThread::Take::idle) {
      sample_stats();
      continue;
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
      if (feed_.stopped()) return false;
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
  feed_.stop_accepting();
  try {
    counters_.bytes.fetch_add(encoder.finish(), std::memory_order_relaxed);
  } catch (const MediaError& error) {
    if (!feed_.stopped()) log()->error("stream {}: --mux ts: {}", options_.stream_id, error.what());
    return false;
  }
  wait_until_played_out();
  return !feed_.stopped();
}

// Live mode has no linger, and a TS receiver sends no END acknowledgement; a receiver whose
// peer closes discards what its latency buffer still holds. So wait (bounded) until the peer
// has acknowledged everything, then for its latency, so the last pictures are played out.
void TsSrtSender::wait_until_played_out() {
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

SubmitResult TsSrtSender::submit(FramePtr frame) {
  return feed_.submit(std::move(frame));
}

awaitable<bool> TsSrtSender::close(std::uint64_t frames_sent) {
  co_return co_await feed_.close(frames_sent);  // MPEG-TS has no END: the stream just stops
}

void TsSrtSender::stop() {
  feed_.stop();  // every blocking call in run() returns within 100 ms (1 s while connecting)
}

}  // namespace hdstream
