// The sending side of one feed: frames from a source, paced at the feed's frame rate on an
// absolute schedule (no drift, no bursts), handed to the transport; frames the transport cannot
// take in time are dropped and counted, as a live feed must.
//   bool ok = co_await run_feed_sender(*transport, source, plan, counters, stop_token);
#pragma once

#include <chrono>
#include <cstdint>
#include <stop_token>

#include "common/asio.hpp"
#include "pipeline/source.hpp"
#include "protocol/handshake.hpp"
#include "stats/counters.hpp"
#include "transport/transport.hpp"

namespace hdstream {

struct FeedPlan {
  FeedDescriptor feed;
  std::uint64_t first_seq = 0;
  std::uint64_t frames = 0;  // 0: until stopped
  // Paced: frame n is due at phase + n frame periods after the session opens. Feeds spread
  // over the frame period never put their frames on the link, or into the far end's decoders,
  // at the same instant.
  std::chrono::nanoseconds phase{0};
  // The feed's latency budget: after an outage, frames lost within it count as the outage's.
  std::chrono::milliseconds latency_budget{0};
  // Unpaced (bench): frames go out as fast as the transport takes them, with backpressure
  // instead of drops, for `run_for` (0: until `frames` or stopped).
  bool paced = true;
  std::chrono::nanoseconds run_for{0};
};

// Bytes per frame that make `bit_rate_bps` at the feed's frame rate.
std::size_t frame_bytes_for(const FeedDescriptor& feed);

// Feed `index` of `count` spread evenly over the frame period: index/count of a period.
std::chrono::nanoseconds spread_phase(const FeedDescriptor& feed, std::size_t index,
                                      std::size_t count);

// Runs one feed to completion (all frames sent, or stop requested) and closes the session with
// END. Returns false when the session could not open or broke. The plan is taken by value:
// the coroutine outlives the call expression, so a reference to a temporary would dangle.
awaitable<bool> run_feed_sender(SenderTransport& transport, FrameSource& source, FeedPlan plan,
                                StreamCounters& counters, std::stop_token stop);

}  // namespace hdstream
