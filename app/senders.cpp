#include "app/senders.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/log.hpp"
#include "common/units.hpp"
#include "media/formats.hpp"
#include "mux/wire.hpp"
#include "pipeline/media_sources.hpp"
#include "pipeline/synthetic.hpp"
#include "protocol/feed_limits.hpp"
#include "protocol/packetizer.hpp"
#include "transport/feed_request.hpp"

namespace hdstream {

SenderGroup::SenderGroup(Runtime& runtime, StatsRegistry& stats, const SendPlan& plan,
                         std::function<void()> on_all_done)
    : runtime_(runtime), stats_(stats), on_all_done_(std::move(on_all_done)) {
  const SendOptions& options = plan.options;
  const double seconds = std::chrono::duration<double>(options.duration).count();
  if (options.mux == Mux::ts && !is_video(plan.format.feed.codec)) {
    throw UsageError(fmt::format(
        "--mux ts: format '{}' is not video; pick a video --format (dnxhd220, sdi270, uyvy1080, "
        "v210-1080p60)",
        plan.format.name));
  }
  Wire wire{options.transport, options.mux};
  if (auto problem = wire_problem(wire)) throw UsageError(*problem);
  if (options.mux == Mux::ts) {
    // --mux ts re-encodes as MPEG-2 4:2:2: --rate sets its bit rate only when the user gave it.
    wire.ts_video_rate_bps = ts_video_rate_bps(options.common.explicit_options.count("rate") > 0
                                                   ? std::optional<std::uint64_t>(options.rate_bps)
                                                   : std::nullopt);
  }
  // Every feed asks for the same; the transport's policy is decided in sender_options().
  FeedRequest request = feed_request(plan);

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
      made.source = std::make_unique<SyntheticSource>(stream_id, options.frame_bytes);
      made.summary = fmt::format("unpaced synthetic frames of {} bytes", options.frame_bytes);
    } else {
      try {
        made = make_feed_source(specs[i], stream_id, plan.format.feed, options.rate_bps);
      } catch (const SpecError& error) {
        throw UsageError(error.what());
      }
    }
    request.destination = plan.endpoints.at(i);
    request.stream_id = stream_id;
    request.feed = made.feed;
    SenderOptions transport_options = sender_options(request);
    const FeedDescriptor feed = transport_options.hello.feed;
    const auto latency = std::chrono::milliseconds(transport_options.hello.latency_budget_ms);
    logger("hdstream")->info("stream {}: {}", i, made.summary);

    Feed entry;
    entry.strand = asio::make_strand(runtime_.io());
    entry.transport =
        make_sender(wire, entry.strand, std::move(transport_options), stats_.stream(i));
    entry.source = std::move(made.source);
    entry.plan.feed = feed;
    entry.plan.latency_budget = latency;
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
