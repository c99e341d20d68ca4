#include "pipeline/feed_sender.hpp"

#include <chrono>
#include <cmath>

#include "common/clock.hpp"

namespace hdstream {

std::size_t frame_bytes_for(const FeedDescriptor& feed) {
  const double fps = feed.frames_per_second();
  if (fps <= 0) return 0;
  return static_cast<std::size_t>(std::llround(static_cast<double>(feed.bit_rate_bps) / 8.0 / fps));
}

awaitable<bool> run_feed_sender(SenderTransport& transport, FrameSource& source,
                                const FeedPlan& plan, StreamCounters& counters,
                                std::stop_token stop) {
  if (!co_await transport.open()) co_return false;

  auto executor = co_await asio::this_coro::executor;
  asio::steady_timer timer(executor);
  const auto start = std::chrono::steady_clock::now();
  const double frame_period_ns = 1e9 / plan.feed.frames_per_second();
  std::uint64_t produced = 0;
  for (; plan.frames == 0 || produced < plan.frames; ++produced) {
    // Frame n is due at n frame periods after the start: no accumulated drift.
    const auto due = start + std::chrono::nanoseconds(
                                 std::llround(static_cast<double>(produced) * frame_period_ns));
    timer.expires_at(due);
    error_code ignored;
    co_await timer.async_wait(nothrow(ignored));
    if (stop.stop_requested()) break;

    FramePtr frame = source.next_frame(plan.first_seq + produced);
    if (!frame) {
      if (source.ended()) break;
      // A live source with nothing ready this period: the frame is missing, as on a wire.
      counters.drops.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    frame->ready_ns = wall_clock_ns();
    const auto result = transport.submit(std::move(frame));
    if (result == SubmitResult::dropped) {
      counters.drops.fetch_add(1, std::memory_order_relaxed);
    } else if (result == SubmitResult::closed) {
      break;
    }
  }
  co_return co_await transport.close(plan.first_seq + produced);
}

}  // namespace hdstream
