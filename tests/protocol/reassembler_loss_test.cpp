// What the reassembler tells a sender about loss (FEEDBACK extension 1): runs of lost frames,
// frames that arrived whole after they were given up, duplicate and out-of-order chunks.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "protocol/reassembler.hpp"
#include "tests/protocol/test_frames.hpp"

namespace hdstream {
namespace {

constexpr std::uint32_t kChunk = 1000;
constexpr std::size_t kFrameBytes = 3500;  // 4 chunks: 3 full, one of 500
constexpr std::int64_t kBudgetNs = 50'000'000;

class ReassemblerLossTest : public ::testing::Test {
 protected:
  std::vector<test::WireChunk> frame_chunks(std::uint64_t seq) {
    auto frame = test::random_frame(source_pool_, 1, seq, kFrameBytes);
    return test::chunks_of(*frame, kChunk);
  }
  ChunkResult push(Reassembler& r, const test::WireChunk& chunk, std::int64_t now = 0) {
    return r.push(chunk.header, chunk.payload, now);
  }
  std::vector<std::uint64_t> drain(Reassembler& r, std::int64_t now = 0) {
    std::vector<std::uint64_t> seqs;
    while (FramePtr frame = r.pop(now)) seqs.push_back(frame->seq);
    return seqs;
  }

  FramePool source_pool_;
  FramePool pool_;
};

// A tcp-like (in-order, budget 0) feed of frames 0..11 where 5, 6, 7 and 9 never arrive.
TEST_F(ReassemblerLossTest, LostFramesFiveSixSevenAndNineAreTwoLossEventsTheLongestThree) {
  Reassembler r(1, {.latency_budget_ns = 0}, pool_);
  std::vector<std::uint64_t> delivered;
  for (std::uint64_t seq = 0; seq < 12; ++seq) {
    if (seq == 5 || seq == 6 || seq == 7 || seq == 9) continue;
    for (const auto& chunk : frame_chunks(seq)) push(r, chunk);
    auto now = drain(r);
    delivered.insert(delivered.end(), now.begin(), now.end());
  }
  EXPECT_EQ(delivered, (std::vector<std::uint64_t>{0, 1, 2, 3, 4, 8, 10, 11}));
  const auto& c = r.counters();
  EXPECT_EQ(c.frames_dropped, 4u);
  EXPECT_EQ(c.loss_events, 2u);
  EXPECT_EQ(c.longest_loss_run, 3u);
  EXPECT_EQ(c.late_frames, 0u);  // missing, not late
  EXPECT_EQ(c.out_of_order_chunks, 0u);
  EXPECT_EQ(c.duplicate_chunks, 0u);
}

// Incomplete frames and frames never seen, given up one at a time or together, and the frames
// END says were never delivered: one run as long as nothing is delivered between.
TEST_F(ReassemblerLossTest, ARunSpansIncompleteAndUnseenFramesUntilAFrameIsDelivered) {
  Reassembler r(1, {.latency_budget_ns = 0}, pool_);
  for (const auto& chunk : frame_chunks(0)) push(r, chunk);
  push(r, frame_chunks(1)[0]);  // 1 incomplete; 2, 3 never seen
  for (const auto& chunk : frame_chunks(4)) push(r, chunk);
  EXPECT_EQ(drain(r), (std::vector<std::uint64_t>{0, 4}));
  EXPECT_EQ(r.counters().loss_events, 1u);
  EXPECT_EQ(r.counters().longest_loss_run, 3u);
  push(r, frame_chunks(5)[0]);  // incomplete, then END says 8 frames: 5, 6, 7 lost
  r.finish(8);
  EXPECT_TRUE(drain(r).empty());
  EXPECT_EQ(r.counters().frames_dropped, 6u);
  EXPECT_EQ(r.counters().loss_events, 2u);
  EXPECT_EQ(r.counters().longest_loss_run, 3u);
}

// mtcp/srt-like: frame 1's last chunk is held up past the budget, so frame 1 is given up
// (a drop) when frame 2 has waited long enough; then the chunk arrives: frame 1 arrived whole,
// but late. A copy of it again is a duplicate, not a second late frame.
TEST_F(ReassemblerLossTest, AFrameCompletedAfterItWasGivenUpIsLateAndStillADrop) {
  Reassembler r(1, {.latency_budget_ns = kBudgetNs}, pool_);
  for (const auto& chunk : frame_chunks(0)) push(r, chunk, 0);
  auto held_up = frame_chunks(1);
  for (std::size_t i = 0; i + 1 < held_up.size(); ++i) push(r, held_up[i], 1'000'000);
  for (const auto& chunk : frame_chunks(2)) push(r, chunk, 2'000'000);
  EXPECT_EQ(drain(r, 2'000'000), std::vector<std::uint64_t>{0});
  EXPECT_EQ(drain(r, 2'000'000 + kBudgetNs), std::vector<std::uint64_t>{2});  // 1 given up
  EXPECT_EQ(r.counters().frames_dropped, 1u);
  EXPECT_EQ(r.counters().late_frames, 0u);

  EXPECT_EQ(push(r, held_up.back(), 60'000'000), ChunkResult::late);
  EXPECT_EQ(r.counters().late_frames, 1u);
  EXPECT_EQ(r.counters().frames_dropped, 1u);  // counted once, as a drop that was late
  EXPECT_EQ(push(r, held_up.back(), 61'000'000), ChunkResult::duplicate);
  EXPECT_EQ(push(r, held_up.front(), 61'000'000), ChunkResult::duplicate);
  EXPECT_EQ(r.counters().late_frames, 1u);
  EXPECT_EQ(r.counters().duplicate_chunks, 2u);
  // The late chunk came after frame 2's chunks: out of order. Nothing else was.
  EXPECT_EQ(r.counters().out_of_order_chunks, 1u);
}

// A frame given up before any of its chunks came, which then arrives whole: late.
TEST_F(ReassemblerLossTest, AnUnseenFrameThatArrivesWholeAfterBeingGivenUpIsLate) {
  Reassembler r(1, {.latency_budget_ns = kBudgetNs}, pool_);
  for (const auto& chunk : frame_chunks(1)) push(r, chunk, 0);
  EXPECT_EQ(drain(r, kBudgetNs), std::vector<std::uint64_t>{1});  // 0 given up unseen
  auto late = frame_chunks(0);
  for (std::size_t i = 0; i < late.size(); ++i) {
    EXPECT_EQ(push(r, late[i], kBudgetNs + 1), ChunkResult::late);
    EXPECT_EQ(r.counters().late_frames, i + 1 == late.size() ? 1u : 0u) << "chunk " << i;
  }
  EXPECT_EQ(r.counters().loss_events, 1u);
  EXPECT_EQ(r.counters().frames_dropped, 1u);
}

// Chunks of a frame that only partly arrives after being given up: still just missing.
TEST_F(ReassemblerLossTest, APartlyLateFrameIsNotLate) {
  Reassembler r(1, {.latency_budget_ns = kBudgetNs}, pool_);
  for (const auto& chunk : frame_chunks(1)) push(r, chunk, 0);
  EXPECT_EQ(drain(r, kBudgetNs), std::vector<std::uint64_t>{1});
  auto late = frame_chunks(0);
  for (std::size_t i = 0; i + 1 < late.size(); ++i) push(r, late[i], kBudgetNs + 1);
  EXPECT_EQ(r.counters().late_frames, 0u);
  EXPECT_EQ(r.counters().late_chunks, late.size() - 1);
}

TEST_F(ReassemblerLossTest, DuplicatesAreCountedWhetherTheirFrameIsPendingOrDelivered) {
  Reassembler r(1, {.latency_budget_ns = kBudgetNs}, pool_);
  auto chunks = frame_chunks(0);
  push(r, chunks[0]);
  EXPECT_EQ(push(r, chunks[0]), ChunkResult::duplicate);  // frame pending
  for (std::size_t i = 1; i < chunks.size(); ++i) push(r, chunks[i]);
  EXPECT_EQ(drain(r), std::vector<std::uint64_t>{0});
  EXPECT_EQ(push(r, chunks[1]), ChunkResult::duplicate);  // frame delivered
  EXPECT_EQ(push(r, chunks[3]), ChunkResult::duplicate);
  EXPECT_EQ(r.counters().duplicate_chunks, 3u);
  EXPECT_EQ(r.counters().out_of_order_chunks, 0u);  // duplicates are counted once, as such
  EXPECT_EQ(r.counters().frames_dropped, 0u);
}

// Chunk order as mtcp's sub-connections may deliver it: within a frame, and across frames.
TEST_F(ReassemblerLossTest, OutOfOrderChunksAreThoseAfterALaterChunkOrALaterFrame) {
  Reassembler r(1, {.latency_budget_ns = kBudgetNs}, pool_);
  auto zero = frame_chunks(0);
  auto one = frame_chunks(1);
  // 0/0, 0/2, 0/1 (after a later chunk of its frame), 1/0, 0/3 (after a later frame's chunk),
  // 1/1, 1/3, 1/2 (after 1/3).
  const std::vector<const test::WireChunk*> order{&zero[0], &zero[2], &zero[1], &one[0],
                                                  &zero[3], &one[1],  &one[3],  &one[2]};
  for (const auto* chunk : order) EXPECT_EQ(push(r, *chunk), ChunkResult::accepted);
  EXPECT_EQ(drain(r), (std::vector<std::uint64_t>{0, 1}));
  EXPECT_EQ(r.counters().out_of_order_chunks, 3u);
  EXPECT_EQ(r.counters().duplicate_chunks, 0u);
}

TEST_F(ReassemblerLossTest, InOrderChunksAreNeverOutOfOrder) {
  Reassembler r(1, {}, pool_);
  for (std::uint64_t seq = 0; seq < 20; ++seq) {
    for (const auto& chunk : frame_chunks(seq)) push(r, chunk);
    drain(r);
  }
  EXPECT_EQ(r.counters().out_of_order_chunks, 0u);
  EXPECT_EQ(r.counters().loss_events, 0u);
  EXPECT_EQ(r.counters().longest_loss_run, 0u);
}

}  // namespace
}  // namespace hdstream
