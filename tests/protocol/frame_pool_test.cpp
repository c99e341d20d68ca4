#include "protocol/frame.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "protocol/memory_budget.hpp"

namespace hdstream {
namespace {

TEST(FramePool, RecyclesBuffersInsteadOfAllocating) {
  FramePool pool(4);
  const std::byte* first_buffer = nullptr;
  {
    auto frame = pool.acquire(1 << 20);
    first_buffer = frame->data.data();
    frame->seq = 99;
  }
  EXPECT_EQ(pool.idle_frames(), 1u);
  auto again = pool.acquire(1 << 20);
  EXPECT_EQ(again->data.data(), first_buffer);
  EXPECT_EQ(again->seq, 0u);  // identity is reset, only the buffer is reused
  EXPECT_EQ(pool.idle_frames(), 0u);
}

TEST(FramePool, KeepsAtMostMaxIdle) {
  FramePool pool(2);
  {
    std::vector<FramePtr> frames;
    for (int i = 0; i < 5; ++i) frames.push_back(pool.acquire(10));
  }
  EXPECT_EQ(pool.idle_frames(), 2u);
}

TEST(FramePool, AnIdleBufferLargerThanTheFrameMayHoldIsFreedNotReused) {
  FramePool pool(4);
  { auto big = pool.acquire(1 << 20); }  // a hostile session's 1 MiB frame goes idle
  ASSERT_EQ(pool.idle_bytes(), (std::size_t{1} << 20) + kFrameSlackBytes);
  auto small = pool.acquire(1000, 64 * 1024);  // a session allowed 64 KiB per frame
  EXPECT_EQ(small->data.size(), 1000u);
  EXPECT_LE(small->data.capacity(), 64u * 1024 + kFrameSlackBytes);
  EXPECT_EQ(pool.idle_bytes(), 0u);
  // Growing a recycled buffer allocates exactly what is asked, not a doubling.
  small.reset();
  auto grown = pool.acquire(3000, 64 * 1024);
  EXPECT_EQ(grown->data.capacity(), 3000u + kFrameSlackBytes);
}

// Two sessions of different frame sizes share a receiver's pool: a stranger's huge frames going
// idle last must not cost the feed its buffer (it once freed the feed's and zero-filled a new one
// per frame while a stranger's 12 MiB frames came and went).
TEST(FramePool, EachFrameGetsTheSmallestIdleBufferThatFitsIt) {
  FramePool pool(4);
  const std::byte* feed_buffer = nullptr;
  const std::byte* stranger_buffer = nullptr;
  {
    auto feed = pool.acquire(80'000, 100'000);
    feed_buffer = feed->data.data();
    auto medium = pool.acquire(90'000);
    auto stranger = pool.acquire(12 << 20, 12 << 20);
    stranger_buffer = stranger->data.data();
  }  // idle, newest last: the stranger's
  ASSERT_EQ(pool.idle_frames(), 3u);
  auto feed = pool.acquire(80'000, 100'000);
  EXPECT_EQ(feed->data.data(), feed_buffer);
  EXPECT_EQ(pool.idle_frames(), 2u);  // the stranger's buffer stays for the stranger's frames
  auto stranger = pool.acquire(12 << 20, 12 << 20);
  EXPECT_EQ(stranger->data.data(), stranger_buffer);  // and back to whom it fits
  EXPECT_TRUE(stranger->recycled);
  EXPECT_EQ(pool.idle_frames(), 1u);
}

// Nothing idle fits: the oldest idle buffer is the one replaced, the newer ones stay.
TEST(FramePool, WhenNothingFitsTheOldestIdleBufferIsReplaced) {
  FramePool pool(4);
  const std::byte* newest = nullptr;
  {
    auto oldest = pool.acquire(1000, 2000);
    auto newer = pool.acquire(1500, 2000);
    newest = newer->data.data();
    oldest.reset();  // idle first
  }
  ASSERT_EQ(pool.idle_frames(), 2u);
  auto big = pool.acquire(1 << 20);
  EXPECT_FALSE(big->recycled);  // a fresh buffer: its contents are anything
  EXPECT_GE(big->data.capacity(), (std::size_t{1} << 20) + kFrameSlackBytes);
  ASSERT_EQ(pool.idle_frames(), 1u);
  auto small = pool.acquire(1500, 2000);
  EXPECT_EQ(small->data.data(), newest);
}

TEST(FramePool, WithABudgetIdleBuffersOnlyUseUnreservedRoom) {
  auto budget = std::make_shared<MemoryBudget>(10'000, 1);
  FramePool pool(16, budget);
  auto session = budget->reserve(6'000);
  ASSERT_TRUE(session);
  {
    std::vector<FramePtr> frames;
    for (int i = 0; i < 6; ++i) frames.push_back(pool.acquire(1'000));
  }  // six buffers of 1,000 bytes and their slack come back; 4,000 bytes are unreserved
  constexpr std::size_t kBuffer = 1'000 + kFrameSlackBytes;
  EXPECT_EQ(pool.idle_frames(), 4'000 / kBuffer);
  EXPECT_EQ(pool.idle_bytes(), 4'000 / kBuffer * kBuffer);
  // Another session reserves most of the rest: the next acquire gives the room back.
  auto other = budget->reserve(3'500);
  ASSERT_TRUE(other);
  auto frame = pool.acquire(1'000);
  EXPECT_LE(pool.idle_bytes(), budget->unreserved_bytes());
  EXPECT_EQ(pool.idle_bytes(), 0u);  // one reused, the rest freed: 500 cannot hold 1,000
}

// Code reading whole SIMD blocks may run past a frame's last byte: every buffer, fresh or
// recycled, larger or smaller before, has the slack after it.
TEST(FramePool, EveryBufferHasItsSlackPastTheFrame) {
  FramePool pool(4);
  // 4,030 finds the 4,064-byte buffer of the 4,000 before it: room for the frame, not its slack.
  for (const std::size_t bytes : {std::size_t{10}, std::size_t{4'000}, std::size_t{4'000},
                                  std::size_t{3'999}, std::size_t{4'030}, std::size_t{4'147'200}}) {
    auto frame = pool.acquire(bytes);
    EXPECT_EQ(frame->data.size(), bytes);
    EXPECT_GE(frame->data.capacity(), bytes + kFrameSlackBytes) << bytes;
  }
}

TEST(FramePool, FramesMayOutliveThePool) {
  FramePtr survivor;
  {
    FramePool pool;
    survivor = pool.acquire(100);
  }
  ASSERT_EQ(survivor->data.size(), 100u);
  survivor->data[0] = std::byte{1};
  std::weak_ptr<Frame> watch = survivor;
  survivor.reset();  // returns to the pool's shared state, which is still alive
  EXPECT_TRUE(watch.expired());
}

}  // namespace
}  // namespace hdstream
