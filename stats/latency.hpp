// Frame latency histogram (sender "frame ready" -> receiver "frame whole"), cheap enough for
// every frame: one relaxed atomic increment into a log-linear bucket (~3% resolution).
//   LatencyHistogram h;  h.add(frame.arrival_ns - frame.ready_ns);
//   LatencySummary s = h.summary();  // s.p50_ms, s.p99_ms, s.max_ms
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace hdstream {

struct LatencySummary {
  std::uint64_t frames = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
};

class LatencyHistogram {
 public:
  // Below 32 us one bucket per microsecond; above, 32 buckets per power of two up to ~25 days.
  static constexpr std::size_t kLinearBuckets = 32;
  static constexpr std::size_t kOctaves = 36;
  static constexpr std::size_t kBuckets = kLinearBuckets + kOctaves * kLinearBuckets;

  // Negative latencies (clocks of two hosts out of step) count as zero. Thread safe.
  void add(std::int64_t latency_ns);

  // Percentiles are the upper edge of their bucket: a conservative (never low) estimate.
  LatencySummary summary() const;

  static std::size_t bucket_of(std::uint64_t latency_us);
  static std::uint64_t upper_us(std::size_t bucket);

 private:
  std::array<std::atomic<std::uint64_t>, kBuckets> counts_{};
  std::atomic<std::uint64_t> max_ns_{0};
};

}  // namespace hdstream
