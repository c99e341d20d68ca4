#include "pipeline/synthetic.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "pipeline/feed_sender.hpp"

namespace hdstream {
namespace {

TEST(Synthetic, FramesVerifyEndToEnd) {
  SyntheticSource source(3, 1'126'125);
  for (std::uint64_t seq = 0; seq < 5; ++seq) {
    auto frame = source.next_frame(seq);
    EXPECT_EQ(frame->data.size(), 1'126'125u);
    EXPECT_EQ(frame->stream_id, 3);
    EXPECT_TRUE(verify_synthetic(*frame)) << seq;
  }
}

TEST(Synthetic, EveryFrameIsUnique) {
  SyntheticSource a(0, 4096), b(1, 4096);
  auto f0 = a.next_frame(0);
  auto f1 = a.next_frame(1);
  auto g0 = b.next_frame(0);
  EXPECT_NE(f0->data, f1->data);
  EXPECT_NE(f0->data, g0->data);
  // ...and deterministic, so a test can regenerate what was sent.
  auto again = a.next_frame(1);
  EXPECT_EQ(again->data, f1->data);
}

TEST(Synthetic, AnyFlippedBitOrMislabelledFrameFailsVerification) {
  SyntheticSource source(2, 10'000);
  auto frame = source.next_frame(7);
  for (std::size_t at : {0ul, 5ul, 9ul, 20ul, 24ul, 5000ul, 9999ul}) {
    frame->data[at] ^= std::byte{0x10};
    EXPECT_FALSE(verify_synthetic(*frame)) << at;
    frame->data[at] ^= std::byte{0x10};
  }
  ASSERT_TRUE(verify_synthetic(*frame));
  frame->seq = 8;  // delivered as the wrong frame
  EXPECT_FALSE(verify_synthetic(*frame));
  frame->seq = 7;
  frame->stream_id = 1;  // delivered on the wrong stream
  EXPECT_FALSE(verify_synthetic(*frame));
  frame->stream_id = 2;
  frame->data.resize(10);  // truncated below the stamp
  EXPECT_FALSE(verify_synthetic(*frame));
}

TEST(Synthetic, ABenchSourceReusesItsBuffersAndRestampsThem) {
  SyntheticSource source(4, 8192, SyntheticContent::reused);
  std::vector<std::byte> first_content;
  {
    auto frame = source.next_frame(10);
    ASSERT_TRUE(verify_synthetic(*frame));
    first_content.assign(frame->data.begin() + kSyntheticHeaderBytes, frame->data.end());
  }  // back to the pool, content intact
  auto again = source.next_frame(11);
  EXPECT_EQ(again->seq, 11u);
  EXPECT_TRUE(verify_synthetic(*again));  // stamped with its own sequence number
  EXPECT_TRUE(std::equal(first_content.begin(), first_content.end(),
                         again->data.begin() + kSyntheticHeaderBytes));
  // A frame still held elsewhere is not shared: the next one is a new buffer, filled anew.
  auto other = source.next_frame(12);
  EXPECT_TRUE(verify_synthetic(*other));
  EXPECT_NE(other->data.data(), again->data.data());

  // A fresh source regenerates every frame: same sequence number, same bytes; next one differs.
  SyntheticSource fresh(4, 8192);
  auto f10 = fresh.next_frame(10);
  f10.reset();
  auto f11 = fresh.next_frame(11);
  EXPECT_FALSE(std::equal(first_content.begin(), first_content.end(),
                          f11->data.begin() + kSyntheticHeaderBytes));
}

TEST(FrameSize, MatchesTheFeedRate) {
  FeedDescriptor feed{Codec::synthetic, 1920, 1080, 30000, 1001, 270'000'000};
  EXPECT_EQ(frame_bytes_for(feed), 1'126'125u);  // 270e6 / 8 / 29.97
  feed.bit_rate_bps = 220'000'000;
  EXPECT_EQ(frame_bytes_for(feed), 917'583u);
  feed.frame_rate_num = 0;
  EXPECT_EQ(frame_bytes_for(feed), 0u);
}

}  // namespace
}  // namespace hdstream
