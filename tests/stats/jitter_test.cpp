#include "stats/jitter.hpp"

#include <gtest/gtest.h>

namespace hdstream {
namespace {

constexpr std::int64_t kMs = 1'000'000;

// Hand-worked with RFC 3550 section 6.4.1: J(i) = J(i-1) + (|D(i-1,i)| - J(i-1)) / 16.
// Sent at 0, 20, 40, 60 ms; arrived at 10, 32, 49, 75 ms.
// Transit times 10, 12, 9, 15 -> |D| = 2, 3, 6.
// J1 = 0 + (2 - 0)/16              = 0.125
// J2 = 0.125 + (3 - 0.125)/16      = 0.3046875
// J3 = 0.3046875 + (6 - 0.3046875)/16 = 0.66064453125
TEST(Jitter, MatchesAHandWorkedRfc3550Example) {
  JitterEstimator j;
  j.add(0 * kMs, 10 * kMs);
  EXPECT_DOUBLE_EQ(j.jitter_ms(), 0.0);
  j.add(20 * kMs, 32 * kMs);
  EXPECT_DOUBLE_EQ(j.jitter_ms(), 0.125);
  j.add(40 * kMs, 49 * kMs);
  EXPECT_DOUBLE_EQ(j.jitter_ms(), 0.3046875);
  j.add(60 * kMs, 75 * kMs);
  EXPECT_DOUBLE_EQ(j.jitter_ms(), 0.66064453125);
}

TEST(Jitter, ConstantTransitHasNoJitterWhateverTheClockOffset) {
  JitterEstimator j;
  const std::int64_t offset = -3'600'000 * kMs;  // receiver clock an hour behind
  for (int i = 0; i < 100; ++i) j.add(i * 33 * kMs, i * 33 * kMs + 7 * kMs + offset);
  EXPECT_DOUBLE_EQ(j.jitter_ms(), 0.0);
}

TEST(Jitter, ConvergesToTheMeanAbsoluteTransitDifference) {
  JitterEstimator j;
  // Transit alternates 10 ms and 14 ms: |D| is always 4 ms, so J tends to 4 ms.
  for (int i = 0; i < 1000; ++i) j.add(i * 33 * kMs, i * 33 * kMs + (i % 2 ? 14 : 10) * kMs);
  EXPECT_NEAR(j.jitter_ms(), 4.0, 1e-6);
}

}  // namespace
}  // namespace hdstream
