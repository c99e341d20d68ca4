#include "pipeline/feed_sender.hpp"

#include <chrono>
#include <cmath>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/log_rate_limit.hpp"

namespace hdstream {

std::size_t frame_bytes_for(const FeedDescriptor& feed) {
  const double fps = feed.frames_per_second();
  if (fps <= 0) return 0;
  return static_cast<std::size_t>(std::llround(static_cast<double>(feed.bit_rate_bps) / 8.0 / fps));
}

std::chrono::nanoseconds spread_phase(const FeedDescriptor& feed, std::size_t index,
                                      std::size_t count) {
  const double fps = feed.frames_per_second();
  if (fps <= 0 || count == 0) return std::chrono::nanoseconds{0};
  const double fraction = static_cast<double>(index % count) / static_cast<double>(count);
  return std::chrono::nanoseconds(std::llround(1e9 / fps * fraction));
}

namespace {

// Memory-to-memory mode: the next frame is made as soon as the transport has room for it.
awaitable<bool> run_unpaced(SenderTransport& transport, FrameSource& source, const FeedPlan& plan,
                            std::stop_token stop) {
  const auto end = std::chrono::steady_clock::now() + plan.run_for;
  std::uint64_t produced = 0;
  for (; plan.frames == 0 || produced < plan.frames; ++produced) {
    if (stop.stop_requested()) break;
    if (plan.run_for.count() > 0 && std::chrono::steady_clock::now() >= end) break;
    FramePtr frame = source.next_frame(plan.first_seq + produced);
    frame->ready_ns = wall_clock_ns();
    auto result = transport.submit(frame);
    while (result == SubmitResult::dropped) {
      co_await transport.wait_for_room();
      result = transport.submit(frame);
    }
    if (result == SubmitResult::closed) break;
  }
  co_return co_await transport.close(plan.first_seq + produced);
}

}  // namespace

awaitable<bool> run_feed_sender(SenderTransport& transport, FrameSource& source, FeedPlan plan,
                                StreamCounters& counters, std::stop_token stop) {
  if (!co_await transport.open()) co_return false;
  if (!plan.paced) co_return co_await run_unpaced(transport, source, plan, stop);

  auto executor = co_await asio::this_coro::executor;
  asio::steady_timer timer(executor);
  const auto start = std::chrono::steady_clock::now() + plan.phase;
  const double frame_period_ns = 1e9 / plan.feed.frames_per_second();
  // A frame the transport had no room for is lost: say so, a line now and then, with how many.
  LogRateLimit queue_full(1, std::chrono::seconds(10), logger("feed"),
                          "frames dropped, send queue full");
  std::uint16_t stream = 0;
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
    const std::uint64_t seq = frame->seq;
    stream = frame->stream_id;
    const auto result = transport.submit(std::move(frame));
    if (result == SubmitResult::queued) counters.outage.note_frame(seq, wall_clock_ns());
    if (result == SubmitResult::dropped) {
      counters.drops.fetch_add(1, std::memory_order_relaxed);
      if (auto held_back = queue_full.admit()) {
        logger("feed")->warn(
            "stream {}: frame {} dropped: the send queue ({} ms of frames) is full, the path or "
            "the receiver is not keeping up{}",
            stream, seq, plan.latency_budget.count(), held_back_note(*held_back));
      }
    } else if (result == SubmitResult::closed) {
      if (stop.stop_requested()) break;
      // The session broke (receiver restarted, link reset): this frame is lost; retry and
      // resume with the frame due when the new session is up. Frames due meanwhile are
      // dropped and counted; the receiver sees them as a gap.
      counters.drops.fetch_add(1, std::memory_order_relaxed);
      counters.outage.begin(wall_clock_ns());
      bool resumed = false;
      {
        std::stop_callback abort_on_stop(stop, [&transport] { transport.stop(); });
        resumed = co_await transport.reopen(plan.first_seq + produced + 1);
      }
      if (!resumed) break;
      counters.outage.end(wall_clock_ns(), plan.latency_budget);
      const auto elapsed_ns =
          std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start)
              .count();
      auto next = static_cast<std::uint64_t>(std::ceil(elapsed_ns / frame_period_ns));
      if (plan.frames != 0) next = std::min(next, plan.frames);
      if (next > produced + 1) {
        counters.drops.fetch_add(next - produced - 1, std::memory_order_relaxed);
        produced = next - 1;  // the loop's ++produced makes it `next`
      }
    }
  }
  if (auto held_back = queue_full.take_ended(LogRateLimit::Clock::now() + std::chrono::seconds(10));
      held_back && *held_back > 0) {
    logger("feed")->warn("stream {}: … and {} more frames dropped at the full send queue", stream,
                         *held_back);
  }
  if (plan.frames != 0) produced = std::min(produced, plan.frames);
  co_return co_await transport.close(plan.first_seq + produced);
}

}  // namespace hdstream
