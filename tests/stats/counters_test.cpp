#include "stats/counters.hpp"

#include <gtest/gtest.h>

namespace hdstream {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kT0 = 1'700'000'000'000 * kMs;  // any wall-clock instant

// Frames `first`..`last` delivered (or handed to the transport) 33 ms apart from `at`.
std::int64_t note_frames(OutageCounters& outage, std::uint64_t first, std::uint64_t last,
                         std::int64_t at) {
  for (std::uint64_t seq = first; seq <= last; ++seq, at += 33 * kMs) outage.note_frame(seq, at);
  return at;
}

TEST(OutageCounters, CountsTheFramesMissingAcrossTheBreakAndHowLongItLasted) {
  OutageCounters outage;
  std::int64_t now = note_frames(outage, 100, 109, kT0);
  outage.begin(now);
  EXPECT_EQ(outage.count, 1u);
  EXPECT_NEAR(outage.seconds(now + 2000 * kMs), 2.0, 1e-9);  // in progress
  EXPECT_EQ(outage.end(now + 4000 * kMs, 0ms), 4000 * kMs);
  note_frames(outage, 230, 240, now + 4010 * kMs);  // frames 110..229 never came
  EXPECT_EQ(outage.frames_lost, 120u);
  EXPECT_EQ(outage.since_ns, 0);
  EXPECT_NEAR(outage.seconds(now + 9000 * kMs), 4.0, 1e-9);
  EXPECT_EQ(outage.end(now + 9000 * kMs, 0ms), 0);  // none in progress
}

// mtcp: the reassembler delivers the first frames after the sub-connections rejoin, then gives
// up frames that were in flight at the break within its latency budget. Those are the outage's
// too; a gap after the feed has settled (budget + 1 s) is ordinary loss, not the outage's.
TEST(OutageCounters, GapsUntilTheFeedHasSettledAreTheOutages) {
  OutageCounters outage;
  note_frames(outage, 1, 10, kT0);
  outage.begin(kT0 + 400 * kMs);
  const std::int64_t back = kT0 + 4400 * kMs;
  outage.end(back, 500ms);
  outage.note_frame(13, back + 10 * kMs);  // 11, 12 lost
  outage.note_frame(14, back + 20 * kMs);
  outage.note_frame(17, back + 1490 * kMs);  // 15, 16 given up within budget + 1 s
  EXPECT_EQ(outage.frames_lost, 4u);
  outage.note_frame(19, back + 1510 * kMs);  // settled: 18 is not the outage's
  EXPECT_EQ(outage.frames_lost, 4u);
}

// The first frame after a break counts however late it comes (a sender that came back after
// the settling time still lost what it never sent).
TEST(OutageCounters, TheFirstFrameAfterTheBreakCountsHoweverLate) {
  OutageCounters outage;
  note_frames(outage, 1, 10, kT0);
  outage.begin(kT0 + 400 * kMs);
  outage.end(kT0 + 500 * kMs, 0ms);
  outage.note_frame(50, kT0 + 60'000 * kMs);
  EXPECT_EQ(outage.frames_lost, 39u);
}

TEST(OutageCounters, ARestartedSenderNumberingFromItsFirstFrameLosesNothing) {
  OutageCounters outage;
  note_frames(outage, 500, 510, kT0);
  outage.begin(kT0 + 400 * kMs);
  outage.end(kT0 + 1400 * kMs, 0ms);
  note_frames(outage, 0, 20, kT0 + 1410 * kMs);
  EXPECT_EQ(outage.frames_lost, 0u);
}

TEST(OutageCounters, GapsWithoutAnOutageAreNotCounted) {
  OutageCounters outage;
  outage.note_frame(1, kT0);
  outage.note_frame(5, kT0 + 33 * kMs);
  EXPECT_EQ(outage.frames_lost, 0u);
  EXPECT_EQ(outage.count, 0u);
  EXPECT_EQ(outage.seconds(kT0 + 1000 * kMs), 0.0);
}

TEST(OutageCounters, ABreakBeginsOnceUntilItEnds) {
  OutageCounters outage;
  outage.begin(kT0);
  outage.begin(kT0 + 1000 * kMs);  // every sub-connection of a feed going down at once
  EXPECT_EQ(outage.count, 1u);
  EXPECT_EQ(outage.end(kT0 + 3000 * kMs, 0ms), 3000 * kMs);
  outage.begin(kT0 + 5000 * kMs);
  EXPECT_EQ(outage.count, 2u);
}

}  // namespace
}  // namespace hdstream
