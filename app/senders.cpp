#include "app/senders.hpp"

#include <cmath>

#include <fmt/format.h>

#include "common/log.hpp"
#include "common/units.hpp"
#include "pipeline/synthetic.hpp"
#include "protocol/packetizer.hpp"

namespace hdstream {

SenderGroup::SenderGroup(Runtime& runtime, StatsRegistry& stats, const SendPlan& plan,
                         std::function<void()> on_all_done)
    : runtime_(runtime), stats_(stats), on_all_done_(std::move(on_all_done)) {
  const SendOptions& options = plan.options;
  FeedDescriptor feed = plan.format.feed;
  feed.bit_rate_bps = options.rate_bps;
  const std::size_t frame_bytes = options.unpaced ? options.frame_bytes : frame_bytes_for(feed);
  if (frame_bytes > kMaxFrameBytes) {
    throw UsageError(fmt::format("--rate: {} at {:.2f} fps makes {} byte frames; the limit is {}",
                                 format_rate(static_cast<double>(feed.bit_rate_bps)),
                                 feed.frames_per_second(), frame_bytes, kMaxFrameBytes));
  }
  if (options.chunk_bytes < min_chunk_bytes(frame_bytes)) {
    throw UsageError(fmt::format("--chunk-size: frames of {} bytes need chunks of at least {}",
                                 frame_bytes, min_chunk_bytes(frame_bytes)));
  }
  const double seconds = std::chrono::duration<double>(options.duration).count();

  for (std::size_t i = 0; i < options.streams; ++i) {
    const auto stream_id = static_cast<std::uint16_t>(i);
    SenderOptions transport_options;
    transport_options.destination = plan.endpoints.at(i);
    transport_options.stream_id = stream_id;
    transport_options.hello.feed = feed;
    transport_options.hello.transport = options.transport;
    if (options.probe) transport_options.hello.flags |= kHelloProbe;
    transport_options.hello.chunk_bytes = options.chunk_bytes;
    transport_options.hello.expected_rtt_us = static_cast<std::uint32_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(options.expected_rtt).count());
    transport_options.tuning.congestion_control = options.congestion_control;
    transport_options.tuning.notsent_lowat_bytes = 4 * options.chunk_bytes;
    transport_options.tuning.max_pacing_rate_bps =
        static_cast<std::uint64_t>(options.pacing_factor * static_cast<double>(options.rate_bps));
    transport_options.expected_rtt = options.expected_rtt;
    transport_options.hello.latency_budget_ms = static_cast<std::uint32_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(options.latency).count());
    // A live feed queues at most the latency budget's worth of frames (at least two).
    const double budget_frames =
        std::chrono::duration<double>(options.latency).count() * feed.frames_per_second();
    transport_options.max_queued_frames =
        std::max<std::size_t>(2, static_cast<std::size_t>(std::ceil(budget_frames)));
    transport_options.connect_patience = options.connect_patience;
    transport_options.key = options.common.key;

    Feed entry;
    entry.strand = asio::make_strand(runtime_.io());
    entry.transport = make_sender(options.transport, entry.strand, std::move(transport_options),
                                  stats_.stream(i));
    entry.source = std::make_unique<SyntheticSource>(stream_id, frame_bytes);
    entry.plan.feed = feed;
    entry.plan.frames = static_cast<std::uint64_t>(std::llround(seconds * feed.frames_per_second()));
    if (options.unpaced) {
      entry.plan.paced = false;
      entry.plan.frames = 0;
      entry.plan.run_for = options.duration;
    }
    feeds_.push_back(std::move(entry));
  }
}

void SenderGroup::start() {
  running_ = feeds_.size();
  for (auto& feed : feeds_) {
    asio::co_spawn(
        feed.strand,
        run_feed_sender(*feed.transport, *feed.source, feed.plan,
                        stats_.stream(&feed - feeds_.data()), runtime_.stop_token()),
        [this](std::exception_ptr error, bool ok) {
          if (error) {
            try {
              std::rethrow_exception(error);
            } catch (const std::exception& e) {
              logger("hdstream")->error("feed failed: {}", e.what());
            }
          }
          if (error || !ok) ++failures_;
          if (--running_ == 0 && on_all_done_) on_all_done_();
        });
  }
}

}  // namespace hdstream
