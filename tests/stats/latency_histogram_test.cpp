#include "stats/latency_histogram.hpp"

#include <gtest/gtest.h>

namespace hdstream {
namespace {

TEST(LatencyHistogram, PercentilesWithinHalfABucket) {
  LatencyHistogram h;
  EXPECT_EQ(h.percentile_ms(0.5), 0.0);
  for (int i = 1; i <= 100; ++i) h.add_ns(i * 100'000);  // 0.1 .. 10 ms
  EXPECT_EQ(h.count(), 100u);
  EXPECT_NEAR(h.percentile_ms(0.50), 5.0, 0.05);
  EXPECT_NEAR(h.percentile_ms(0.99), 9.9, 0.05);
  h.add_ns(-5);               // clock skew: clamped to 0
  h.add_ns(500'000'000);      // 500 ms: coarse buckets
  h.add_ns(100'000'000'000);  // 100 s: last bucket
  EXPECT_GT(h.percentile_ms(1.0), 1000.0);
  h.reset();
  EXPECT_EQ(h.count(), 0u);
}

}  // namespace
}  // namespace hdstream
