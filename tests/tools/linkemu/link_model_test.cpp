// LinkModel and DelayLine: the emulator's arithmetic and storage, without namespaces.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <deque>
#include <random>
#include <vector>

#include "tools/linkemu/delay_line.hpp"
#include "tools/linkemu/link_model.hpp"

namespace hdstream::linkemu {
namespace {

using namespace std::chrono_literals;

LinkProfile profile(std::uint64_t rate_bps, std::chrono::nanoseconds one_way, std::uint64_t queue) {
  LinkProfile p;
  p.rate_bps = rate_bps;
  p.one_way_delay = one_way;
  p.queue_bytes = queue;
  return p;
}

TEST(LinkModel, SerializesAtTheBottleneckRateAfterTheDelay) {
  LinkModel link(profile(1'000'000'000, 10ms, 1 << 20), 1);
  // 1500 bytes at 1 Gbps take 12 us; a burst leaves 12 us apart, 10 ms later.
  for (int i = 1; i <= 10; ++i) {
    const auto v = link.admit(0, 1500);
    ASSERT_EQ(v.fate, Fate::forward);
    EXPECT_EQ(v.due_ns, 10'000'000 + i * 12'000);
  }
}

TEST(LinkModel, DropTailWhenTheQueueIsFull) {
  LinkModel link(profile(8'000'000, 0ns, 10'000), 1);  // 1 byte per microsecond
  int forwarded = 0, dropped = 0;
  for (int i = 0; i < 20; ++i) {
    (link.admit(0, 1000).fate == Fate::forward ? forwarded : dropped)++;
  }
  EXPECT_EQ(forwarded, 10);
  EXPECT_EQ(dropped, 10);
  // Once the bottleneck has drained the queue there is room again.
  EXPECT_EQ(link.admit(10'000'000, 1000).fate, Fate::forward);
}

TEST(LinkModel, RandomLossRateWithinStatisticalBounds) {
  LinkProfile p = profile(0, 1ms, 1 << 20);
  p.random_loss = 0.01;
  LinkModel link(p, 42);
  const int n = 200'000;
  int lost = 0;
  for (int i = 0; i < n; ++i) lost += link.admit(i, 100).fate == Fate::lost;
  const double mean = n * p.random_loss, sd = std::sqrt(mean * (1 - p.random_loss));
  EXPECT_NEAR(lost, mean, 5 * sd);
}

TEST(LinkModel, GilbertElliottLosesInBurstsOfTheConfiguredMeanLength) {
  LinkProfile p = profile(0, 1ms, 1 << 20);
  p.burst = {0.001, 0.25, 1.0, 0.0};  // mean burst 4 packets, ~0.4% of packets lost
  LinkModel link(p, 7);
  int lost = 0, bursts = 0;
  bool previous = false;
  const int n = 1'000'000;
  for (int i = 0; i < n; ++i) {
    const bool now_lost = link.admit(i, 100).fate == Fate::lost;
    lost += now_lost;
    bursts += now_lost && !previous;
    previous = now_lost;
  }
  ASSERT_GT(bursts, 100);
  EXPECT_NEAR(static_cast<double>(lost) / bursts, 4.0, 0.6);
  EXPECT_NEAR(static_cast<double>(lost) / n, 0.001 / (0.001 + 0.25) * 1.0, 0.001);
}

TEST(LinkModel, JitterNeverReorders) {
  LinkProfile p = profile(0, 20ms, 1 << 20);
  p.jitter = 5ms;
  LinkModel link(p, 3);
  std::int64_t previous = 0;
  std::int64_t min_delay = INT64_MAX, max_delay = 0;
  for (std::int64_t t = 0; t < 1'000'000'000; t += 100'000) {
    const auto v = link.admit(t, 1000);
    ASSERT_GE(v.due_ns, previous);
    previous = v.due_ns;
    min_delay = std::min(min_delay, v.due_ns - t);
    max_delay = std::max(max_delay, v.due_ns - t);
  }
  EXPECT_GE(min_delay, 15'000'000);
  EXPECT_LE(max_delay, 25'000'000);
  // The jitter is really there, though never reordering trims its low side on dense traffic.
  EXPECT_GT(max_delay - min_delay, 2'000'000);
}

TEST(DelayLine, IsAFifoAcrossWrapsAndReportsFull) {
  DelayLine line(64 * 1024);
  std::deque<std::vector<std::byte>> model;
  std::mt19937 random(1);
  std::uniform_int_distribution<int> size(1, 9000);
  std::uint32_t next = 0, expected = 0;
  for (int step = 0; step < 100'000; ++step) {
    if (random() % 2 == 0) {
      std::vector<std::byte> packet(static_cast<std::size_t>(size(random)));
      std::memcpy(packet.data(), &next, std::min(packet.size(), sizeof next));
      if (line.push(step, next, packet)) {
        model.push_back(std::move(packet));
        ++next;
      } else {
        // Full: a ring of 64 KiB cannot hold what is queued plus this packet.
        std::size_t queued = 0;
        for (const auto& p : model) queued += p.size();
        EXPECT_GT(queued + packet.size() + 2 * 9000, 64u * 1024 / 2);
      }
    } else if (auto* front = line.front()) {
      ASSERT_FALSE(model.empty());
      ASSERT_EQ(front->destination, expected);
      ASSERT_EQ(front->bytes, model.front().size());
      ASSERT_EQ(std::memcmp(front->data(), model.front().data(), front->bytes), 0);
      model.pop_front();
      line.pop();
      ++expected;
    } else {
      ASSERT_TRUE(model.empty());
    }
    ASSERT_EQ(line.packets(), model.size());
  }
}

}  // namespace
}  // namespace hdstream::linkemu
