#include "app/senders.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "app/srt_settings.hpp"
#include "common/log.hpp"
#include "common/units.hpp"
#include "media/formats.hpp"
#include "mux/ts_encoder.hpp"
#include "mux/ts_srt_sender.hpp"
#include "pipeline/media_sources.hpp"
#include "pipeline/synthetic.hpp"
#include "protocol/feed_limits.hpp"
#include "protocol/packetizer.hpp"
#include "transport/srt_link.hpp"

namespace hdstream {

SenderGroup::SenderGroup(Runtime& runtime, StatsRegistry& stats, const SendPlan& plan,
                         std::function<void()> on_all_done)
    : runtime_(runtime), stats_(stats), on_all_done_(std::move(on_all_done)) {
  const SendOptions& options = plan.options;
  const bool srt = options.transport == TransportKind::srt;
  // SRT carries one chunk per packet: its chunk size is fixed by the packet size.
  const std::uint32_t chunk_bytes = srt ? kSrtChunkBytes : options.chunk_bytes;
  const SrtSettings srt_options = srt ? srt_settings(options) : SrtSettings{};
  const std::size_t connections = options.transport == TransportKind::mtcp
                                      ? (options.connections > 0 ? options.connections : 4)
                                      : 1;
  const double seconds = std::chrono::duration<double>(options.duration).count();
  const bool ts = options.mux == "ts";
  if (ts && !is_video(plan.format.feed.codec)) {
    throw UsageError(fmt::format(
        "--mux ts: format '{}' is not video; pick a video --format (dnxhd220, sdi270, uyvy1080, "
        "v210-1080p60)",
        plan.format.name));
  }
  // --mux ts re-encodes as MPEG-2 4:2:2: --rate sets its bit rate only when the user gave it.
  const std::uint64_t ts_rate_bps =
      ts ? ts_video_rate_bps(options.common.explicit_options.count("rate") > 0
                                 ? std::optional<std::uint64_t>(options.rate_bps)
                                 : std::nullopt)
         : 0;

  // A striped feed reorders within its latency budget, a lost chunk comes back after at least
  // an RTT, and K TCP start-ups take several RTTs to carry the feed between them: unless told
  // otherwise, give mtcp max(budget, 10 x RTT). (At 100 ms RTT, 4 x RTT dropped 13 of the first
  // 60 frames while the sub-connections ramped up; 10 x RTT dropped none: docs/SCENARIOS.md.)
  // A receiver refuses a budget above kMaxLatencyBudgetMs: a chosen one is clamped to it, a
  // given one is a usage error.
  constexpr auto kMaxLatency = std::chrono::milliseconds(kMaxLatencyBudgetMs);
  const auto latency = srt ? srt_options.latency
                       : options.transport == TransportKind::mtcp && !options.latency_given
                           ? std::max<std::chrono::nanoseconds>(
                                 options.latency, std::min<std::chrono::nanoseconds>(
                                                      10 * options.expected_rtt, kMaxLatency))
                           : options.latency;
  if (latency > kMaxLatency) {
    throw UsageError(fmt::format("--latency {}: a receiver accepts at most {}",
                                 format_duration(latency), format_duration(kMaxLatency)));
  }

  std::vector<std::string> specs;
  try {
    specs = per_feed_specs(options.sources, options.streams, plan.format.default_source);
  } catch (const SpecError& error) {
    throw UsageError(error.what());
  }
  for (std::size_t i = 0; i < options.streams; ++i) {
    const auto stream_id = static_cast<std::uint16_t>(i);
    FeedSource made;
    if (options.unpaced) {
      // Memory-to-memory (bench): synthetic frames of a fixed size, as fast as they go.
      made.feed = plan.format.feed;
      // The HELLO's rate bounds the receiver's frames (protocol/feed_limits.hpp): announce at
      // least what frames of this size make at the feed's frame rate.
      made.feed.bit_rate_bps =
          std::max(made.feed.bit_rate_bps,
                   static_cast<std::uint64_t>(std::ceil(static_cast<double>(options.frame_bytes) *
                                                        8.0 * made.feed.frames_per_second())));
      made.source = std::make_unique<SyntheticSource>(stream_id, options.frame_bytes);
      made.summary = fmt::format("unpaced synthetic frames of {} bytes", options.frame_bytes);
    } else {
      try {
        made = make_feed_source(specs[i], stream_id, plan.format.feed, options.rate_bps);
      } catch (const SpecError& error) {
        throw UsageError(error.what());
      }
    }
    const FeedDescriptor feed = made.feed;
    // Synthetic frames have the size the rate asks for; media frames have their own (DNxHD 220
    // is ~0.9 MB, v210 1080 is 5.5 MB): the limits apply to the largest plausible frame.
    const std::size_t frame_bytes = options.unpaced ? options.frame_bytes
                                    : feed.codec == Codec::synthetic
                                        ? frame_bytes_for(feed)
                                        : kCompressedFrameMargin * frame_bytes_for(feed);
    if (frame_bytes > kMaxFrameBytes) {
      throw UsageError(fmt::format("--rate: {} at {:.2f} fps makes {} byte frames; the limit is {}",
                                   format_rate(static_cast<double>(feed.bit_rate_bps)),
                                   feed.frames_per_second(), frame_bytes, kMaxFrameBytes));
    }
    if (chunk_bytes < min_chunk_bytes(frame_bytes)) {
      throw UsageError(fmt::format("--chunk-size: frames of {} bytes need chunks of at least {}",
                                   frame_bytes, min_chunk_bytes(frame_bytes)));
    }
    logger("hdstream")->info("stream {}: {}", i, made.summary);

    SenderOptions transport_options;
    transport_options.destination = plan.endpoints.at(i);
    transport_options.stream_id = stream_id;
    transport_options.hello.feed = feed;
    transport_options.hello.transport = options.transport;
    if (options.probe) transport_options.hello.flags |= kHelloProbe;
    transport_options.hello.chunk_bytes = chunk_bytes;
    transport_options.hello.connections = static_cast<std::uint8_t>(connections);
    transport_options.srt = srt_options;
    transport_options.hello.expected_rtt_us = static_cast<std::uint32_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(options.expected_rtt).count());
    transport_options.tuning.congestion_control =
        choose_congestion_control(options.congestion_control, options.expected_rtt);
    // NOTSENT_LOWAT bounds a live feed's sender-side latency to about one frame unsent in the
    // kernel: a lower mark splits every frame's gather write into several sendmsg calls and
    // wake-ups (12 % more CPU per GB at 5 x 270 Mbps with 4 chunks). Memory-to-memory runs
    // (bench, unpaced) want throughput and set none.
    transport_options.tuning.notsent_lowat_bytes =
        options.unpaced ? 0
                        : static_cast<std::uint32_t>(
                              std::max<std::size_t>(4 * options.chunk_bytes, frame_bytes));
    transport_options.tuning.max_pacing_rate_bps =
        static_cast<std::uint64_t>(options.pacing_factor * static_cast<double>(feed.bit_rate_bps));
    transport_options.expected_rtt = options.expected_rtt;
    transport_options.hello.latency_budget_ms = static_cast<std::uint32_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(latency).count());
    // A live feed queues at most the latency budget's worth of frames (at least two).
    const double budget_frames =
        std::chrono::duration<double>(latency).count() * feed.frames_per_second();
    transport_options.max_queued_frames =
        std::max<std::size_t>(2, static_cast<std::size_t>(std::ceil(budget_frames)));
    transport_options.connect_patience = options.connect_patience;
    transport_options.reconnect_patience = options.reconnect_patience;
    transport_options.key = options.common.key;

    Feed entry;
    entry.strand = asio::make_strand(runtime_.io());
    if (ts) {
      entry.transport = std::make_shared<TsSrtSender>(entry.strand, std::move(transport_options),
                                                      ts_rate_bps, stats_.stream(i));
    } else {
      entry.transport = make_sender(options.transport, entry.strand, std::move(transport_options),
                                    stats_.stream(i));
    }
    entry.source = std::move(made.source);
    entry.plan.feed = feed;
    entry.plan.latency_budget = std::chrono::duration_cast<std::chrono::milliseconds>(latency);
    entry.plan.frames =
        static_cast<std::uint64_t>(std::llround(seconds * feed.frames_per_second()));
    if (!options.align_frames) entry.plan.phase = spread_phase(feed, i, options.streams);
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
    feed.source->start();
    asio::co_spawn(feed.strand,
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
