// LegMerge with a hand-driven clock: which frames reach the consumer, once and in order, from
// which leg, what waits and for how long, what is given up, and who may claim a stream.
#include "transport/leg_merge.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace hdstream {
namespace {

using namespace std::chrono_literals;

struct Recorder : FrameConsumer {
  void session_started(std::uint16_t, const Hello& hello) override {
    starts.push_back(hello.first_frame_seq);
  }
  void frame_received(std::uint16_t, FramePtr frame) override { seqs.push_back(frame->seq); }
  void session_ended(std::uint16_t, bool clean, std::uint64_t next_seq) override {
    ends.push_back({clean, next_seq});
  }
  std::vector<std::uint64_t> starts;
  std::vector<std::uint64_t> seqs;
  std::vector<std::pair<bool, std::uint64_t>> ends;
};

Hello leg_hello(std::uint8_t leg, std::uint64_t first_seq = 0, std::uint64_t feed_id = 42) {
  Hello hello;
  hello.feed = FeedDescriptor{Codec::synthetic, 0, 0, 30, 1, 100'000'000};
  hello.chunk_bytes = 1024;
  hello.legs = 2;
  hello.leg = leg;
  hello.feed_id = feed_id;
  hello.first_frame_seq = first_seq;
  return hello;
}

FramePtr frame(std::uint64_t seq) {
  auto f = std::make_shared<Frame>();
  f->seq = seq;
  f->data.resize(100);
  return f;
}

class LegMergeTest : public ::testing::Test {
 protected:
  LegMergeTest() { make({}); }
  void make(std::optional<std::chrono::nanoseconds> skew, std::size_t max_held = 8) {
    merge_.reset();
    merge_ = std::make_unique<LegMerge>(
        recorder_, stats_,
        LegMergeOptions{.streams = 2, .skew = skew, .max_held_frames = max_held, .clock = [this] {
                          return now_ns_;
                        }});
  }
  void start_both(std::uint64_t first_seq = 0) {
    std::string reason;
    for (std::uint8_t leg : {0, 1}) {
      ASSERT_EQ(merge_->claim(0, leg_hello(leg, first_seq), reason), AckStatus::accepted);
      merge_->leg(leg).session_started(0, leg_hello(leg, first_seq));
    }
  }
  void deliver(std::uint8_t leg, std::uint64_t seq) {
    merge_->leg(leg).frame_received(0, frame(seq));
  }
  const ProtectionCounters& protection() { return stats_.stream(0).protection; }

  Recorder recorder_;
  StatsRegistry stats_{Role::recv, 2, "tcp"};
  std::int64_t now_ns_ = 1'000'000'000;
  std::unique_ptr<LegMerge> merge_;
};

TEST_F(LegMergeTest, AFeedOfOneLegPassesStraightThrough) {
  Hello hello = leg_hello(0);
  hello.legs = 1;
  hello.feed_id = 0;
  std::string reason;
  ASSERT_EQ(merge_->claim(0, hello, reason), AckStatus::accepted);
  EXPECT_EQ(&merge_->counters(0, hello), &stats_.stream(0));
  merge_->leg(0).session_started(0, hello);
  for (std::uint64_t seq : {0, 1, 3}) deliver(0, seq);  // a gap is the consumer's to see
  merge_->leg(0).session_ended(0, true, 4);
  EXPECT_EQ(recorder_.seqs, (std::vector<std::uint64_t>{0, 1, 3}));
  EXPECT_EQ(recorder_.ends, (std::vector<std::pair<bool, std::uint64_t>>{{true, 4}}));
  EXPECT_FALSE(protection().present.load());
}

TEST_F(LegMergeTest, EveryFrameOnceInOrderFromWhicheverLegCameFirst) {
  start_both();
  EXPECT_EQ(recorder_.starts.size(), 1u);  // one session for the consumer, not one per leg
  // B runs two frames behind A.
  for (std::uint64_t seq = 0; seq < 10; ++seq) {
    deliver(0, seq);
    if (seq >= 2) deliver(1, seq - 2);
  }
  deliver(1, 8);
  deliver(1, 9);
  std::vector<std::uint64_t> expected(10);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(recorder_.seqs, expected);
  EXPECT_EQ(stats_.stream(0).drops.load(), 0u);
  EXPECT_EQ(protection().protected_frames.load(), 0u);  // both legs brought every frame
  EXPECT_EQ(stats_.leg(0, 0).frames.load(), 10u);
  EXPECT_EQ(stats_.leg(0, 1).frames.load(), 10u);
}

TEST_F(LegMergeTest, AFrameOneLegLostIsTakenFromTheOtherAndCountedAsProtected) {
  make(100ms);
  start_both();
  for (std::uint64_t seq : {0, 1, 3, 4}) deliver(0, seq);  // A lost 2: 3 and 4 wait
  EXPECT_EQ(recorder_.seqs, (std::vector<std::uint64_t>{0, 1}));
  now_ns_ += 20'000'000;  // B, 20 ms behind, within the window
  for (std::uint64_t seq : {0, 1, 2, 3, 4}) deliver(1, seq);
  EXPECT_EQ(recorder_.seqs, (std::vector<std::uint64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(stats_.stream(0).drops.load(), 0u);
  EXPECT_EQ(protection().protected_frames.load(), 1u);
  EXPECT_EQ(protection().only_frames[1].load(), 1u);
  EXPECT_EQ(protection().only_frames[0].load(), 0u);
}

TEST_F(LegMergeTest, AGapNeitherLegCanFillIsGivenUpAtOnce) {
  make(10s);  // a window so long that only "both legs passed it" can end the wait
  start_both();
  deliver(0, 0);
  deliver(0, 2);
  deliver(1, 0);
  EXPECT_EQ(recorder_.seqs, (std::vector<std::uint64_t>{0}));  // B may still bring 1
  deliver(1, 2);                                               // it will not
  EXPECT_EQ(recorder_.seqs, (std::vector<std::uint64_t>{0, 2}));
  EXPECT_EQ(stats_.stream(0).drops.load(), 1u);
}

TEST_F(LegMergeTest, AHeldFrameWaitsTheSkewWindowAndNoLonger) {
  make(50ms);
  start_both();
  deliver(0, 0);
  deliver(0, 2);  // 1 missing on A; B (up) has sent nothing yet
  now_ns_ += 49'000'000;
  deliver(0, 3);
  EXPECT_EQ(recorder_.seqs, (std::vector<std::uint64_t>{0}));
  now_ns_ += 1'000'000;  // 2 has now waited 50 ms
  deliver(0, 4);
  EXPECT_EQ(recorder_.seqs, (std::vector<std::uint64_t>{0, 2, 3, 4}));
  EXPECT_EQ(stats_.stream(0).drops.load(), 1u);
  EXPECT_DOUBLE_EQ(protection().skew_ms.load(), 50.0);
}

TEST_F(LegMergeTest, HoldsAtMostItsBoundOfFrames) {
  make(std::nullopt, /*max_held=*/4);  // the clock stands still: only the bound gives up
  start_both();
  deliver(0, 0);
  for (std::uint64_t seq = 2; seq <= 5; ++seq) deliver(0, seq);  // four held: at the bound
  EXPECT_EQ(recorder_.seqs.size(), 1u);
  deliver(0, 6);  // a fifth would pass it: 1 is given up
  EXPECT_EQ(recorder_.seqs, (std::vector<std::uint64_t>{0, 2, 3, 4, 5, 6}));
  EXPECT_EQ(stats_.stream(0).drops.load(), 1u);
}

TEST_F(LegMergeTest, AFixedSkewHoldsWhatArrivesWithinItAndReservesIt) {
  make(500ms, /*max_held=*/8);  // 500 ms at 30 fps: 15 frames, and one more
  start_both();
  deliver(0, 0);
  for (std::uint64_t seq = 2; seq <= 17; ++seq) deliver(0, seq);  // sixteen held
  EXPECT_EQ(recorder_.seqs.size(), 1u);
  deliver(0, 18);  // a seventeenth would pass it: 1 is given up
  EXPECT_EQ(recorder_.seqs.size(), 18u);
  EXPECT_EQ(stats_.stream(0).drops.load(), 1u);

  ReassemblerConfig reassembly;
  reassembly.max_frames_in_flight = 8;
  EXPECT_EQ(merge_->reserved_config(leg_hello(0), reassembly).max_frames_in_flight, 8u + 16u);
  Hello one_leg = leg_hello(0);
  one_leg.legs = 1;
  EXPECT_EQ(merge_->reserved_config(one_leg, reassembly).max_frames_in_flight, 8u);
}

TEST_F(LegMergeTest, ALegThatBreaksAndComesBackIsInvisibleToTheConsumer) {
  start_both();
  for (std::uint64_t seq = 0; seq < 5; ++seq) {
    deliver(0, seq);
    deliver(1, seq);
  }
  merge_->leg(0).session_ended(0, /*clean=*/false, 5);  // path A cut
  EXPECT_EQ(protection().legs_up.load(), 1u);
  for (std::uint64_t seq = 5; seq < 10; ++seq) deliver(1, seq);
  merge_->leg(0).session_started(0, leg_hello(0, 10));  // A re-established
  EXPECT_EQ(protection().legs_up.load(), 2u);
  for (std::uint64_t seq = 10; seq < 12; ++seq) {
    deliver(1, seq);
    deliver(0, seq);
  }
  std::vector<std::uint64_t> expected(12);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(recorder_.seqs, expected);
  EXPECT_EQ(recorder_.starts.size(), 1u);
  EXPECT_TRUE(recorder_.ends.empty());
  EXPECT_EQ(stats_.stream(0).drops.load(), 0u);
  EXPECT_EQ(protection().protected_frames.load(), 5u);  // 5..9: path A alone lost them
  EXPECT_EQ(protection().only_frames[1].load(), 5u);
  // Leg A's own count: the frames sent while it was away (its sessions saw no gap).
  EXPECT_EQ(stats_.leg(0, 0).drops.load(), 5u);
  EXPECT_EQ(stats_.leg(0, 1).drops.load(), 0u);
}

TEST_F(LegMergeTest, ALegThatNeverComesBackDidNotDeliverTheRestOfTheFeed) {
  start_both();
  for (std::uint64_t seq = 0; seq < 4; ++seq) {
    deliver(0, seq);
    deliver(1, seq);
  }
  merge_->leg(0).session_ended(0, /*clean=*/false, 4);  // path A gone for good
  for (std::uint64_t seq = 4; seq < 10; ++seq) deliver(1, seq);
  merge_->leg(1).session_ended(0, /*clean=*/true, 10);
  EXPECT_EQ(stats_.leg(0, 0).drops.load(), 6u);
  EXPECT_EQ(stats_.leg(0, 0).frames.load() + stats_.leg(0, 0).drops.load(), 10u);
  EXPECT_EQ(protection().protected_frames.load(), 6u);
  EXPECT_EQ(stats_.stream(0).drops.load(), 0u);
}

// A TCP leg whose path went silent sends what it queued once the path is back: those copies
// come seconds after the other leg's, yet its path did not lose them.
TEST_F(LegMergeTest, ACopySecondsLateStillCountsAsDelivered) {
  start_both();
  constexpr std::uint64_t kFrames = 150;  // 5 s at 30 fps
  for (std::uint64_t seq = 0; seq < kFrames; ++seq) {
    deliver(1, seq);
    now_ns_ += 33'333'333;
  }
  for (std::uint64_t seq = 0; seq < kFrames; ++seq) deliver(0, seq);
  merge_->leg(0).session_ended(0, /*clean=*/true, kFrames);
  merge_->leg(1).session_ended(0, /*clean=*/true, kFrames);
  EXPECT_EQ(recorder_.seqs.size(), kFrames);
  EXPECT_EQ(protection().protected_frames.load(), 0u);
  EXPECT_EQ(protection().only_frames[1].load(), 0u);
}

TEST_F(LegMergeTest, TheFeedEndsOnceWhenItsLastLegEnds) {
  start_both();
  for (std::uint64_t seq = 0; seq < 3; ++seq) deliver(0, seq);
  merge_->leg(0).session_ended(0, /*clean=*/true, 3);
  EXPECT_TRUE(recorder_.ends.empty());  // B is still up
  for (std::uint64_t seq = 0; seq < 3; ++seq) deliver(1, seq);
  merge_->leg(1).session_ended(0, /*clean=*/true, 3);
  EXPECT_EQ(recorder_.ends, (std::vector<std::pair<bool, std::uint64_t>>{{true, 3}}));
  EXPECT_EQ(recorder_.seqs, (std::vector<std::uint64_t>{0, 1, 2}));
  EXPECT_EQ(protection().protected_frames.load(), 0u);
}

TEST_F(LegMergeTest, BothLegsBrokenEndTheSessionAndTheNextLegStartsAnother) {
  start_both();
  deliver(0, 0);
  merge_->leg(0).session_ended(0, false, 1);
  merge_->leg(1).session_ended(0, false, 0);
  EXPECT_EQ(recorder_.ends, (std::vector<std::pair<bool, std::uint64_t>>{{false, 1}}));
  merge_->leg(1).session_started(0, leg_hello(1, 7));
  EXPECT_EQ(recorder_.starts, (std::vector<std::uint64_t>{0, 7}));
}

TEST_F(LegMergeTest, OnlyTheOtherLegOfTheSameFeedMayJoinAStream) {
  std::string reason;
  EXPECT_EQ(merge_->claim(0, leg_hello(0), reason), AckStatus::accepted);
  EXPECT_EQ(merge_->claim(0, leg_hello(0), reason), AckStatus::stream_busy);
  EXPECT_EQ(reason, "leg A of this feed is already connected");
  EXPECT_EQ(merge_->claim(0, leg_hello(1, 0, /*feed_id=*/43), reason), AckStatus::stream_busy);
  EXPECT_EQ(reason, "another sender is already connected");
  Hello single = leg_hello(0);
  single.legs = 1;
  EXPECT_EQ(merge_->claim(0, single, reason), AckStatus::stream_busy);
  EXPECT_EQ(merge_->claim(2, leg_hello(0), reason), AckStatus::bad_stream);
  EXPECT_EQ(reason, "this receiver serves streams 0..1");
  EXPECT_EQ(merge_->claim(0, leg_hello(1), reason), AckStatus::accepted);
  EXPECT_EQ(&merge_->counters(0, leg_hello(1)), &stats_.leg(0, 1));
  // Once both legs are released the stream is anybody's again.
  merge_->release(0, 0);
  merge_->release(0, 1);
  EXPECT_EQ(merge_->claim(0, single, reason), AckStatus::accepted);
  EXPECT_EQ(merge_->claim(0, leg_hello(1), reason), AckStatus::stream_busy);
}

TEST(SkewWindow, IsTheRttDifferencePlusJitterAndAFrame) {
  // 20 ms and 35 ms paths, 0.5 ms jitter, 30 fps: 15 + 2 + 33.3 ms.
  EXPECT_EQ(skew_window(20, 35, 0.5, 30), std::chrono::nanoseconds(50'333'333));
  EXPECT_EQ(skew_window(35, 20, 0, 0), 15ms);
}

}  // namespace
}  // namespace hdstream
