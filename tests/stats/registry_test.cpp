#include "stats/registry.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace hdstream {
namespace {

TEST(StatsRegistry, SnapshotsCarryCountersAndIntervalRates) {
  StatsRegistry stats(Role::recv, 2, "tcp");
  stats.sample();  // start an interval
  stats.stream(1).add_frame(1'000'000, 100);
  stats.stream(1).drops.fetch_add(2);
  stats.stream(1).state.store(StreamState::running);
  const Snapshot s = stats.sample();
  ASSERT_EQ(s.streams.size(), 2u);
  EXPECT_EQ(s.role, Role::recv);
  EXPECT_EQ(s.streams[1].stream, 1);
  EXPECT_EQ(s.streams[1].transport, "tcp");
  EXPECT_EQ(s.streams[1].bytes, 1'000'000u);
  EXPECT_EQ(s.streams[1].frames, 1u);
  EXPECT_EQ(s.streams[1].drops, 2u);
  EXPECT_EQ(s.streams[1].state, StreamState::running);
  EXPECT_GT(s.streams[1].mbps, 0.0);
  EXPECT_EQ(s.streams[0].mbps, 0.0);
  EXPECT_EQ(s.aggregate_drops(), 2u);
  // The next interval saw no new bytes.
  EXPECT_EQ(stats.sample().streams[1].mbps, 0.0);
}

TEST(StatsRegistry, CountersAreSafeToUpdateWhileSampling) {
  StatsRegistry stats(Role::send, 4, "tcp");
  constexpr int kFrames = 100'000;
  std::vector<std::jthread> writers;
  for (std::size_t i = 0; i < 4; ++i) {
    writers.emplace_back([&stats, i] {
      for (int f = 0; f < kFrames; ++f) stats.stream(i).add_frame(10, f + 1);
    });
  }
  std::uint64_t last_total = 0;
  for (int round = 0; round < 100; ++round) {
    std::uint64_t total = 0;
    for (const auto& s : stats.sample().streams) total += s.frames;
    EXPECT_GE(total, last_total);  // cumulative counters never go backwards
    last_total = total;
  }
  writers.clear();
  std::uint64_t frames = 0;
  for (const auto& s : stats.sample().streams) frames += s.frames;
  EXPECT_EQ(frames, 4u * kFrames);
}

}  // namespace
}  // namespace hdstream
