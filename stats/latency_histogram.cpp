#include "stats/latency_histogram.hpp"

#include <algorithm>
#include <cmath>

namespace hdstream {

void LatencyHistogram::add_ns(std::int64_t latency_ns) {
  // Clocks of two hosts can disagree by more than the latency: a negative sample is clamped.
  latency_ns = std::max<std::int64_t>(0, latency_ns);
  std::size_t index = 0;
  if (latency_ns < kFineStepNs * static_cast<std::int64_t>(kFineBuckets)) {
    index = static_cast<std::size_t>(latency_ns / kFineStepNs);
  } else {
    const std::int64_t beyond = latency_ns - kFineStepNs * static_cast<std::int64_t>(kFineBuckets);
    index = kFineBuckets + std::min<std::size_t>(kCoarseBuckets - 1,
                                                 static_cast<std::size_t>(beyond / kCoarseStepNs));
  }
  buckets_[index].fetch_add(1, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
}

double LatencyHistogram::percentile_ms(double fraction) const {
  std::uint64_t total = 0;
  for (const auto& bucket : buckets_) total += bucket.load(std::memory_order_relaxed);
  if (total == 0) return 0;
  const auto rank = static_cast<std::uint64_t>(
      std::ceil(std::clamp(fraction, 0.0, 1.0) * static_cast<double>(total)));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i].load(std::memory_order_relaxed);
    if (seen >= std::max<std::uint64_t>(rank, 1)) {
      const double start_ns =
          i < kFineBuckets
              ? static_cast<double>(i) * kFineStepNs
              : static_cast<double>(kFineStepNs * static_cast<std::int64_t>(kFineBuckets)) +
                    static_cast<double>(i - kFineBuckets) * kCoarseStepNs;
      const double width_ns = i < kFineBuckets ? kFineStepNs : kCoarseStepNs;
      return (start_ns + width_ns / 2) / 1e6;
    }
  }
  return 0;
}

void LatencyHistogram::reset() {
  for (auto& bucket : buckets_) bucket.store(0, std::memory_order_relaxed);
  count_.store(0, std::memory_order_relaxed);
}

}  // namespace hdstream
