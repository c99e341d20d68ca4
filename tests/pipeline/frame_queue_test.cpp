#include "pipeline/frame_queue.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace hdstream {
namespace {

FramePtr frame(std::uint64_t seq) {
  auto f = std::make_shared<Frame>();
  f->seq = seq;
  return f;
}

TEST(FrameQueue, FullQueueDropsTheOldestAndKeepsOrder) {
  FrameQueue queue(3);
  for (std::uint64_t i = 0; i < 3; ++i) EXPECT_FALSE(queue.push_drop_oldest(frame(i)));
  EXPECT_TRUE(queue.push_drop_oldest(frame(3)));
  EXPECT_TRUE(queue.push_drop_oldest(frame(4)));
  EXPECT_EQ(queue.depth(), 3u);
  EXPECT_EQ(queue.try_pop()->seq, 2u);
  EXPECT_EQ(queue.try_pop()->seq, 3u);
  EXPECT_EQ(queue.try_pop()->seq, 4u);
  EXPECT_EQ(queue.try_pop(), nullptr);
}

TEST(FrameQueue, CloseDrainsThenEndsTheConsumer) {
  FrameQueue queue(4);
  queue.push_drop_oldest(frame(7));
  queue.close();
  EXPECT_TRUE(queue.push_drop_oldest(frame(8)));  // refused after close
  EXPECT_EQ(queue.pop_wait()->seq, 7u);
  EXPECT_EQ(queue.pop_wait(), nullptr);
}

TEST(FrameQueue, PushWaitBlocksUntilRoomAndCloseReleasesIt) {
  FrameQueue queue(1);
  ASSERT_TRUE(queue.push_wait(frame(0)));
  std::thread producer([&] { EXPECT_FALSE(queue.push_wait(frame(1))); });
  queue.close();  // the blocked producer must return false, not hang
  producer.join();
  EXPECT_EQ(queue.pop_wait()->seq, 0u);
}

}  // namespace
}  // namespace hdstream
