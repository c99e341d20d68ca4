#include "transport/feedback.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

namespace hdstream {
namespace {

template <typename T>
T clamp_to(double value, double low, double high) {
  if (!std::isfinite(value)) return T{};
  return static_cast<T>(std::llround(std::clamp(value, low, high)));
}

}  // namespace

Feedback FeedbackMeter::take(StreamCounters& c, std::int64_t now_ns, std::size_t max_transits) {
  Feedback f;
  f.report_ns = now_ns;
  f.bytes = c.bytes.load(std::memory_order_relaxed);
  f.frames = c.frames.load(std::memory_order_relaxed);
  f.drops = c.drops.load(std::memory_order_relaxed);
  f.checksum_errors = c.checksum_errors.load(std::memory_order_relaxed);
  f.jitter_us = clamp_to<std::uint32_t>(c.jitter_ms.load(std::memory_order_relaxed) * 1e3, 0,
                                        kMaxFeedbackJitterUs);
  f.latency_us = clamp_to<std::int32_t>(c.latency_ms.load(std::memory_order_relaxed) * 1e3,
                                        std::numeric_limits<std::int32_t>::min(),
                                        std::numeric_limits<std::int32_t>::max());
  f.interval_ms = static_cast<std::uint32_t>(interval_.count());
  f.extended = true;
  f.late_frames = c.late_frames.load(std::memory_order_relaxed);
  f.loss_events = c.loss_events.load(std::memory_order_relaxed);
  f.longest_loss_run = c.longest_loss_run.load(std::memory_order_relaxed);
  f.duplicate_chunks = c.duplicate_chunks.load(std::memory_order_relaxed);
  f.out_of_order_chunks = c.out_of_order_chunks.load(std::memory_order_relaxed);
  // Drops again, after the counters bounded by it: one published between the loads must not
  // exceed it, or the sender would refuse the report.
  f.drops = std::max(f.drops, c.drops.load(std::memory_order_relaxed));
  const auto transits = c.transits.take();
  const std::size_t kept = std::min({transits.size(), max_transits, kMaxFeedbackTransits});
  f.transits.reserve(kept);
  for (const auto& t : std::span(transits).last(kept)) {
    f.transits.push_back({t.frame_seq, t.transit_us});
  }

  history_.emplace_back(now_ns, f.frames);
  // Keep exactly one sample at or beyond the window's start as the baseline.
  while (history_.size() > 2 && now_ns - history_[1].first >= fps_window_ns_) history_.pop_front();
  const auto& [oldest_ns, oldest_frames] = history_.front();
  if (now_ns > oldest_ns) {
    const double fps = static_cast<double>(f.frames - oldest_frames) * 1e9 /
                       static_cast<double>(now_ns - oldest_ns);
    f.fps_milli = clamp_to<std::uint32_t>(fps * 1e3, 0, kMaxFeedbackFpsMilli);
  }
  return f;
}

void apply_feedback(const Feedback& f, StreamCounters::FarEnd& far, std::int64_t now_ns) {
  far.bytes.store(f.bytes, std::memory_order_relaxed);
  far.frames.store(f.frames, std::memory_order_relaxed);
  far.drops.store(f.drops, std::memory_order_relaxed);
  far.checksum_errors.store(f.checksum_errors, std::memory_order_relaxed);
  far.jitter_ms.store(f.jitter_us / 1e3, std::memory_order_relaxed);
  far.fps.store(f.fps_milli / 1e3, std::memory_order_relaxed);
  far.latency_ms.store(f.latency_us / 1e3, std::memory_order_relaxed);
  far.extended.store(f.extended, std::memory_order_relaxed);
  far.late_frames.store(f.late_frames, std::memory_order_relaxed);
  far.loss_events.store(f.loss_events, std::memory_order_relaxed);
  far.longest_loss_run.store(f.longest_loss_run, std::memory_order_relaxed);
  far.duplicate_chunks.store(f.duplicate_chunks, std::memory_order_relaxed);
  far.out_of_order_chunks.store(f.out_of_order_chunks, std::memory_order_relaxed);
  for (const auto& t : f.transits) far.transits.push({t.frame_seq, t.transit_us});
  far.reports.fetch_add(1, std::memory_order_relaxed);
  // Last, so that a reader seeing received_ns != 0 sees a complete first report.
  far.received_ns.store(now_ns, std::memory_order_release);
}

}  // namespace hdstream
