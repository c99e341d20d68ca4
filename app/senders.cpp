#include "app/senders.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/log.hpp"
#include "common/units.hpp"
#include "pipeline/media_sources.hpp"
#include "pipeline/synthetic.hpp"
#include "transport/feed_request.hpp"
#include "transport/protected_sender.hpp"

namespace hdstream {

SenderGroup::SenderGroup(Runtime& runtime, StatsRegistry& stats,
                         const std::vector<FeedSetup>& feeds, std::function<void()> on_all_done)
    : runtime_(runtime), stats_(stats), on_all_done_(std::move(on_all_done)) {
  for (std::size_t i = 0; i < feeds.size(); ++i) {
    const FeedSetup& setup = feeds[i];
    const std::uint16_t stream_id = setup.request.stream_id;
    const std::size_t unpaced_frame_bytes = setup.request.unpaced_frame_bytes;
    FeedSource made;
    if (unpaced_frame_bytes > 0) {
      // Memory-to-memory (bench): synthetic frames of a fixed size, as fast as they go.
      made.feed = setup.format;
      made.source = std::make_unique<SyntheticSource>(stream_id, unpaced_frame_bytes);
      made.summary = fmt::format("unpaced synthetic frames of {} bytes", unpaced_frame_bytes);
    } else {
      try {
        made = make_feed_source(setup.source, stream_id, setup.format, setup.rate_bps, setup.sound);
      } catch (const SpecError& error) {
        throw UsageError(error.what());
      }
    }
    // The source decides the sound (a clip's own, --audio-source): only now can --mux ts check it.
    if (setup.wire.mux == Mux::ts) {
      if (auto problem = ts_audio_problem(made.feed.audio, setup.wire.ts.audio))
        throw UsageError(*problem);
    }
    FeedRequest request = setup.request;
    request.feed = made.feed;
    std::vector<SenderOptions> legs = leg_options(request);
    SenderOptions& transport_options = legs.front();
    logger("hdstream")->info("stream {}: {}", i, made.summary);

    Feed entry;
    entry.plan.feed = transport_options.hello.feed;
    entry.plan.latency_budget =
        std::chrono::milliseconds(transport_options.hello.latency_budget_ms);
    entry.strand = asio::make_strand(runtime_.io());
    if (legs.size() == 1) {
      entry.transport =
          make_sender(setup.wire, entry.strand, std::move(transport_options), stats_.stream(i));
    } else {
      // Two-path protection: one transport per leg, counting into the leg's counters.
      std::array<ProtectedSender::LegTransport, 2> made_legs;
      for (std::size_t leg = 0; leg < 2; ++leg) {
        made_legs[leg] = {make_sender(setup.wire, entry.strand, legs[leg], stats_.leg(i, leg)),
                          &stats_.leg(i, leg)};
      }
      entry.transport = std::make_shared<ProtectedSender>(entry.strand, std::move(made_legs),
                                                          stats_.stream(i), stream_id);
    }
    entry.source = std::move(made.source);
    const FeedDescriptor& feed = entry.plan.feed;
    if (unpaced_frame_bytes > 0) {
      entry.plan.paced = false;
      entry.plan.run_for = setup.duration;
    } else {
      entry.plan.frames = static_cast<std::uint64_t>(std::llround(
          std::chrono::duration<double>(setup.duration).count() * feed.frames_per_second()));
      if (setup.spread_over > 0) entry.plan.phase = spread_phase(feed, i, setup.spread_over);
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
