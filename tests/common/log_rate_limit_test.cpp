#include "common/log_rate_limit.hpp"

#include <gtest/gtest.h>

namespace hdstream {
namespace {

using namespace std::chrono_literals;

TEST(LogRateLimit, LetsABurstThroughThenCountsWhatItHoldsBack) {
  LogRateLimit limit(3, 10s);
  const auto start = LogRateLimit::Clock::time_point{} + 1h;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(limit.admit(start + i * 1ms), 0u) << i;
  for (int i = 0; i < 1000; ++i) EXPECT_FALSE(limit.admit(start + 5s)) << i;
  // The next period lets a line through again, carrying the count of those held back.
  EXPECT_EQ(limit.admit(start + 10s), 1000u);
  EXPECT_EQ(limit.admit(start + 10s), 0u);
  EXPECT_EQ(held_back_note(0), "");
  EXPECT_EQ(held_back_note(1000), " (1000 similar lines held back)");
}

}  // namespace
}  // namespace hdstream
