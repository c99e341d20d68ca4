#include "common/log_rate_limit.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include <spdlog/sinks/ostream_sink.h>

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

// A flood that stops is still counted: once its period is over, flush_all() reports what it
// held back as one line, once; a flood that goes on carries its count on the next line let
// through instead, never both.
TEST(LogRateLimit, AFloodThatStopsIsCountedOnceItsPeriodIsOver) {
  std::ostringstream captured;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(captured);
  auto log = std::make_shared<spdlog::logger>("flood-test", sink);
  log->set_pattern("%v");
  LogRateLimit limit(3, 10s, log, "refused strangers");
  const auto start = LogRateLimit::Clock::now() + 1h;  // later than any window flush_all sees
  for (int i = 0; i < 1482 + 3; ++i) limit.admit(start + 1s);

  EXPECT_FALSE(limit.take_ended(start + 9s));  // the period still runs
  LogRateLimit::flush_all(start + 9s);
  EXPECT_EQ(captured.str(), "");
  LogRateLimit::flush_all(start + 11s);
  EXPECT_EQ(captured.str(), "refused strangers: … and 1482 more like it in 10 s\n");
  LogRateLimit::flush_all(start + 30s);  // counted once
  EXPECT_EQ(captured.str(), "refused strangers: … and 1482 more like it in 10 s\n");
  EXPECT_EQ(limit.admit(start + 31s), 0u);  // and not again on the next line

  // Held back again, then a line let through in a later period carries the count instead.
  for (int i = 0; i < 10; ++i) limit.admit(start + 32s);
  EXPECT_EQ(limit.admit(start + 45s), 8u);
  EXPECT_FALSE(limit.take_ended(start + 60s));

  // At exit (Runtime::run's end), a period still running is counted too.
  for (int i = 0; i < 7; ++i) limit.admit(start + 70s);
  captured.str("");
  LogRateLimit::flush_all(LogRateLimit::Clock::time_point::max());
  EXPECT_EQ(captured.str(), "refused strangers: … and 4 more like it in 10 s\n");
}

}  // namespace
}  // namespace hdstream
