// The mtcp scheduler: a chunk goes to the usable sub-connection with the most room.
#include "transport/mtcp/mtcp_scheduler.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace hdstream {
namespace {

constexpr std::uint64_t kRoom = 512 * 1024;

TEST(MtcpScheduler, PrefersTheConnectionWithTheFewestUnsentBytes) {
  std::vector<SubconnectionLoad> loads{
      {true, 200'000, 100'000}, {true, 0, 250'000}, {true, 64'000, 0}, {true, 300'000, 0}};
  EXPECT_EQ(pick_subconnection(loads, kRoom), 2u);
  loads[2].kernel_unsent_bytes = 400'000;  // its socket is backed up: someone else now
  EXPECT_EQ(pick_subconnection(loads, kRoom), 1u);
}

TEST(MtcpScheduler, NeverPicksAFullOrUnusableConnection) {
  std::vector<SubconnectionLoad> loads{
      {false, 0, 0}, {true, kRoom, 0}, {true, 0, kRoom + 1}, {false, 0, 0}};
  EXPECT_FALSE(pick_subconnection(loads, kRoom));
  loads[3].usable = true;
  EXPECT_EQ(pick_subconnection(loads, kRoom), 3u);
}

TEST(MtcpScheduler, IsNotRoundRobin) {
  // A stalled connection keeps its backlog; fresh chunks flow to the others.
  std::vector<SubconnectionLoad> loads(4, SubconnectionLoad{true, 0, 0});
  loads[0].kernel_unsent_bytes = 400'000;
  std::vector<int> picks(4, 0);
  for (int chunk = 0; chunk < 30; ++chunk) {
    auto pick = pick_subconnection(loads, kRoom);
    ASSERT_TRUE(pick);
    ++picks[*pick];
    loads[*pick].queued_bytes += 16 * 1024;
  }
  EXPECT_EQ(picks[0], 0);
  EXPECT_EQ(picks[1] + picks[2] + picks[3], 30);
  EXPECT_LE(std::max({picks[1], picks[2], picks[3]}) - std::min({picks[1], picks[2], picks[3]}), 1);
}

TEST(MtcpScheduler, TiesGoToTheLowestIndexAndNothingUsableIsNullopt) {
  std::vector<SubconnectionLoad> loads(3, SubconnectionLoad{true, 10, 10});
  EXPECT_EQ(pick_subconnection(loads, kRoom), 0u);
  EXPECT_FALSE(pick_subconnection(std::vector<SubconnectionLoad>{}, kRoom));
}

}  // namespace
}  // namespace hdstream
