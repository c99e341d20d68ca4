#include "stats/latency.hpp"

#include <gtest/gtest.h>

namespace hdstream {
namespace {

TEST(LatencyHistogram, EmptyHasNoFrames) {
  LatencyHistogram h;
  EXPECT_EQ(h.summary().frames, 0u);
}

TEST(LatencyHistogram, BucketsCoverEveryValueWithinThreePercent) {
  for (std::uint64_t us : {0ull, 1ull, 31ull, 32ull, 33ull, 1000ull, 9999ull, 123456789ull}) {
    const auto bucket = LatencyHistogram::bucket_of(us);
    const auto upper = LatencyHistogram::upper_us(bucket);
    EXPECT_GT(upper, us) << us;
    EXPECT_LE(static_cast<double>(upper), static_cast<double>(us) * 1.032 + 1) << us;
  }
}

TEST(LatencyHistogram, PercentilesAreConservative) {
  LatencyHistogram h;
  for (int i = 1; i <= 100; ++i) h.add(std::int64_t{i} * 100'000);  // 0.1 .. 10 ms
  const auto s = h.summary();
  EXPECT_EQ(s.frames, 100u);
  EXPECT_GE(s.p50_ms, 5.0);
  EXPECT_LT(s.p50_ms, 5.2);
  EXPECT_GE(s.p99_ms, 9.9);
  EXPECT_LE(s.p99_ms, 10.0);
  EXPECT_DOUBLE_EQ(s.max_ms, 10.0);
}

TEST(LatencyHistogram, NegativeLatencyCountsAsZero) {
  LatencyHistogram h;
  h.add(-5'000'000);
  EXPECT_EQ(h.summary().frames, 1u);
  EXPECT_EQ(h.summary().max_ms, 0.0);
}

}  // namespace
}  // namespace hdstream
