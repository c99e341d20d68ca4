// ReassemblyPublisher turns a Reassembler's running totals into counter deltas, once each.
#include "transport/reassembly_publisher.hpp"

#include <gtest/gtest.h>

#include "common/log.hpp"

namespace hdstream {
namespace {

TEST(ReassemblyPublisher, PublishesEachDropAndChecksumErrorOnce) {
  StreamCounters counters;
  ReassemblyPublisher publisher(logger("test"), 3, "given up");
  ReassemblerCounters totals;
  publisher.publish(totals, counters);
  EXPECT_EQ(counters.drops.load(), 0u);

  totals.frames_dropped = 2;
  totals.checksum_errors = 1;
  publisher.publish(totals, counters);
  publisher.publish(totals, counters);  // nothing new: nothing added
  EXPECT_EQ(counters.drops.load(), 2u);
  EXPECT_EQ(counters.checksum_errors.load(), 1u);

  totals.frames_dropped = 5;
  totals.checksum_errors = 40;  // a corrupting link: every error counted
  for (int i = 0; i < 3; ++i) publisher.publish(totals, counters);
  EXPECT_EQ(counters.drops.load(), 5u);
  EXPECT_EQ(counters.checksum_errors.load(), 40u);
}

TEST(ReassemblyPublisher, CountersOfOtherSessionsAddUp) {
  // A restarted session starts its own totals at zero; the stream's counters keep the sum.
  StreamCounters counters;
  ReassemblerCounters first, second;
  first.frames_dropped = 4;
  second.frames_dropped = 1;
  ReassemblyPublisher(logger("test"), 0).publish(first, counters);
  ReassemblyPublisher(logger("test"), 0).publish(second, counters);
  EXPECT_EQ(counters.drops.load(), 5u);
}

// FEEDBACK extension 1's counters: summed over a stream's sessions, the longest run the longest
// of any session's.
TEST(ReassemblyPublisher, PublishesLossRunsLateFramesAndChunkOrderOverSessions) {
  StreamCounters counters;
  ReassemblerCounters first;
  first.frames_dropped = 6;
  first.late_frames = 1;
  first.loss_events = 2;
  first.longest_loss_run = 4;
  first.duplicate_chunks = 3;
  first.out_of_order_chunks = 8;
  ReassemblyPublisher one(logger("test"), 0);
  one.publish(first, counters);
  one.publish(first, counters);  // nothing new
  ReassemblerCounters second;
  second.frames_dropped = 2;
  second.loss_events = 1;
  second.longest_loss_run = 2;
  second.out_of_order_chunks = 1;
  ReassemblyPublisher(logger("test"), 0).publish(second, counters);
  EXPECT_EQ(counters.drops.load(), 8u);
  EXPECT_EQ(counters.late_frames.load(), 1u);
  EXPECT_EQ(counters.loss_events.load(), 3u);
  EXPECT_EQ(counters.longest_loss_run.load(), 4u);
  EXPECT_EQ(counters.duplicate_chunks.load(), 3u);
  EXPECT_EQ(counters.out_of_order_chunks.load(), 9u);
}

}  // namespace
}  // namespace hdstream
