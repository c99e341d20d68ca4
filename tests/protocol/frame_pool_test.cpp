#include "protocol/frame.hpp"

#include <gtest/gtest.h>

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
