// Far-end feedback: the receiver turns a stream's counters into FEEDBACK reports about every
// 100 ms; the sender stores what it hears in its counters' far_end block
// (docs/PROTOCOL.md#feedback).
//   FeedbackMeter meter(100ms);  auto bytes = encode_feedback(id, meter.take(counters, now_ns));
//   apply_feedback(*decode_feedback(body), sender_counters.far_end, wall_clock_ns());
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <utility>

#include "protocol/handshake.hpp"
#include "stats/counters.hpp"

namespace hdstream {

inline constexpr std::chrono::milliseconds kFeedbackInterval{100};

class FeedbackMeter {
 public:
  // fps is measured over `fps_window` so that a 29.97 fps feed sampled every 100 ms does not
  // read as 20 / 30 / 40 fps depending on where frames fall.
  explicit FeedbackMeter(std::chrono::milliseconds interval = kFeedbackInterval,
                         std::chrono::milliseconds fps_window = std::chrono::milliseconds(1000))
      : interval_(interval), fps_window_ns_(fps_window.count() * 1'000'000) {}

  // Also drains the transit samples of the frames delivered since the last take (the newest
  // `max_transits` of them: srt fits fewer in one packet).
  Feedback take(StreamCounters& counters, std::int64_t now_ns,
                std::size_t max_transits = kMaxFeedbackTransits);

 private:
  std::chrono::milliseconds interval_;
  std::int64_t fps_window_ns_;
  std::deque<std::pair<std::int64_t, std::uint64_t>> history_;  // (now_ns, frames)
};

// Stores a decoded report in `far_end`, its transit samples in far_end.transits.
void apply_feedback(const Feedback& feedback, StreamCounters::FarEnd& far_end, std::int64_t now_ns);

}  // namespace hdstream
