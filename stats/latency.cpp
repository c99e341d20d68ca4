#include "stats/latency.hpp"

#include <algorithm>
#include <bit>

namespace hdstream {

std::size_t LatencyHistogram::bucket_of(std::uint64_t latency_us) {
  if (latency_us < kLinearBuckets) return static_cast<std::size_t>(latency_us);
  const int octave = std::bit_width(latency_us) - 1;  // >= 5
  const int shift = octave - 5;
  const std::size_t index = kLinearBuckets + static_cast<std::size_t>(shift) * kLinearBuckets +
                            static_cast<std::size_t>((latency_us >> shift) - kLinearBuckets);
  return std::min(index, kBuckets - 1);
}

std::uint64_t LatencyHistogram::upper_us(std::size_t bucket) {
  if (bucket < kLinearBuckets) return bucket + 1;
  const std::size_t shift = (bucket - kLinearBuckets) / kLinearBuckets;
  const std::uint64_t sub = (bucket - kLinearBuckets) % kLinearBuckets;
  return (kLinearBuckets + sub + 1) << shift;
}

void LatencyHistogram::add(std::int64_t latency_ns) {
  const std::uint64_t ns = latency_ns > 0 ? static_cast<std::uint64_t>(latency_ns) : 0;
  counts_[bucket_of(ns / 1000)].fetch_add(1, std::memory_order_relaxed);
  std::uint64_t seen = max_ns_.load(std::memory_order_relaxed);
  while (ns > seen && !max_ns_.compare_exchange_weak(seen, ns, std::memory_order_relaxed)) {
  }
}

LatencySummary LatencyHistogram::summary() const {
  std::array<std::uint64_t, kBuckets> counts{};
  LatencySummary out;
  for (std::size_t i = 0; i < kBuckets; ++i) {
    counts[i] = counts_[i].load(std::memory_order_relaxed);
    out.frames += counts[i];
  }
  if (out.frames == 0) return out;
  auto percentile_ms = [&](double fraction) {
    // The smallest bucket holding at least `fraction` of the frames (nearest-rank).
    const auto rank = std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(fraction * static_cast<double>(out.frames) + 0.999999));
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < kBuckets; ++i) {
      seen += counts[i];
      if (seen >= rank) return static_cast<double>(upper_us(i)) / 1000.0;
    }
    return static_cast<double>(upper_us(kBuckets - 1)) / 1000.0;
  };
  out.max_ms = static_cast<double>(max_ns_.load(std::memory_order_relaxed)) / 1e6;
  out.p50_ms = std::min(percentile_ms(0.50), out.max_ms);
  out.p99_ms = std::min(percentile_ms(0.99), out.max_ms);
  return out;
}

}  // namespace hdstream
