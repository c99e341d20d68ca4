// Added-latency distribution of one feed, written by its decode worker and read by the stats
// timer without locks: fixed buckets of relaxed atomics, percentiles computed on read.
//   histogram.add_ns(decoded_ns - frame->ready_ns);   double p99 = histogram.percentile_ms(0.99);
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

namespace hdstream {

class LatencyHistogram {
 public:
  // 50 µs buckets up to 100 ms (where the targets live), then 1 ms buckets up to 2 s; later
  // values land in the last bucket. Resolution error is at most half a bucket.
  static constexpr std::int64_t kFineStepNs = 50'000;
  static constexpr std::size_t kFineBuckets = 2000;
  static constexpr std::int64_t kCoarseStepNs = 1'000'000;
  static constexpr std::size_t kCoarseBuckets = 1900;

  void add_ns(std::int64_t latency_ns);
  std::uint64_t count() const { return count_.load(std::memory_order_relaxed); }
  // The latency under which `fraction` (0..1) of the samples fall, in ms (bucket midpoint);
  // 0 when empty.
  double percentile_ms(double fraction) const;
  void reset();

 private:
  std::array<std::atomic<std::uint32_t>, kFineBuckets + kCoarseBuckets> buckets_{};
  std::atomic<std::uint64_t> count_{0};
};

}  // namespace hdstream
