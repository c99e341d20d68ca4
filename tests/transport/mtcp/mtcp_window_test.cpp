// mtcp's resend window without sockets: chunks assigned, written, acknowledged, re-queued when a
// sub-connection breaks, and hostile ACKs refused without changing anything.
#include "transport/mtcp/mtcp_window.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace hdstream {
namespace {

constexpr std::uint32_t kChunkBytes = 1000;
constexpr std::uint64_t kRoom = 1 << 20;

FramePtr make_frame(std::uint64_t seq, std::size_t bytes) {
  auto frame = std::make_shared<Frame>();
  frame->stream_id = 1;
  frame->seq = seq;
  frame->data.resize(bytes);
  return frame;
}

class MtcpWindowTest : public ::testing::Test {
 protected:
  MtcpWindowTest()
      : window_(4, 2, 0, [this](const Frame& frame) { done_.push_back(frame.seq); }),
        loads_(2, SubconnectionLoad{true, 0, 0}) {}

  // Writes everything assigned to `sub`; returns how many chunks.
  std::size_t write_all(std::size_t sub) {
    std::size_t chunks = 0;
    window_.take_unwritten(sub, 1000, [&](const EncodedChunk&) { ++chunks; });
    return chunks;
  }
  std::uint32_t assign() { return window_.assign(loads_, kRoom); }

  std::vector<std::uint64_t> done_;
  MtcpWindow window_;
  std::vector<SubconnectionLoad> loads_;
};

TEST_F(MtcpWindowTest, FramesLeaveInOrderOnceEveryChunkIsAcknowledged) {
  ASSERT_TRUE(window_.submit(make_frame(0, 3 * kChunkBytes), kChunkBytes));  // 3 chunks
  ASSERT_TRUE(window_.submit(make_frame(1, 2 * kChunkBytes), kChunkBytes));  // 2 chunks
  loads_[1].usable = false;
  EXPECT_EQ(assign(), 0b01u);
  EXPECT_EQ(window_.queued_bytes(0), 5 * (kChunkBytes + kHeaderBytes));
  std::vector<std::uint64_t> payloads;
  EXPECT_EQ(window_.take_unwritten(
                0, 4, [&](const EncodedChunk& c) { payloads.push_back(c.payload.size()); }),
            4 * kChunkBytes);
  EXPECT_EQ(payloads.size(), 4u);
  EXPECT_TRUE(window_.has_unwritten(0));
  EXPECT_EQ(window_.sent_end_seq(), 2u);
  EXPECT_EQ(window_.on_ack(0, Ack{0, 2, 0}), std::nullopt);
  EXPECT_TRUE(done_.empty());
  EXPECT_EQ(window_.on_ack(0, Ack{1, 3, 0}), std::nullopt);
  EXPECT_EQ(done_, std::vector<std::uint64_t>{0});
  EXPECT_EQ(write_all(0), 1u);
  EXPECT_EQ(window_.on_ack(0, Ack{2, 5, 0}), std::nullopt);
  EXPECT_EQ(done_, (std::vector<std::uint64_t>{0, 1}));
  EXPECT_TRUE(window_.empty());
  EXPECT_EQ(window_.delivered_seq(), 2u);
}

TEST_F(MtcpWindowTest, AFullWindowRefusesFramesUntilOneLeaves) {
  for (std::uint64_t seq = 0; seq < 4; ++seq) {
    ASSERT_TRUE(window_.submit(make_frame(seq, 10), kChunkBytes));
  }
  EXPECT_TRUE(window_.full());
  EXPECT_FALSE(window_.submit(make_frame(4, 10), kChunkBytes));
  assign();
  write_all(0);
  write_all(1);
  // Chunks went to the sub-connection with the fewest unsent bytes: alternately.
  ASSERT_EQ(window_.on_ack(0, Ack{1, 1, 0}), std::nullopt);
  EXPECT_FALSE(window_.full());
  EXPECT_TRUE(window_.submit(make_frame(4, 10), kChunkBytes));
}

TEST_F(MtcpWindowTest, ABrokenSubconnectionsUnacknowledgedChunksGoToTheOthersFirst) {
  ASSERT_TRUE(window_.submit(make_frame(0, 4 * kChunkBytes), kChunkBytes));
  assign();  // chunks 0 and 2 on sub 0, 1 and 3 on sub 1
  ASSERT_EQ(write_all(0), 2u);
  ASSERT_EQ(write_all(1), 2u);
  ASSERT_EQ(window_.on_ack(1, Ack{0, 1, 1}), std::nullopt);  // chunk 1 arrived
  EXPECT_EQ(window_.requeue(1), 1u);                         // chunk 3 written, not acknowledged
  loads_[1].usable = false;
  ASSERT_TRUE(window_.submit(make_frame(1, kChunkBytes), kChunkBytes));
  EXPECT_EQ(assign(), 0b01u);
  std::vector<std::byte> first_header;
  std::size_t n = 0;
  window_.take_unwritten(0, 10, [&](const EncodedChunk& c) {
    if (n++ == 0) first_header.assign(c.header.begin(), c.header.end());
  });
  EXPECT_EQ(n, 2u);  // the re-sent chunk, then the new frame's
  MessageHeader header;
  ASSERT_EQ(decode_header(first_header, header), HeaderError::none);
  EXPECT_EQ(header.frame_seq, 0u);
  EXPECT_EQ(header.chunk_index, 3u);
  // Sub 0 now has written 4 and none acknowledged; all arrive.
  ASSERT_EQ(window_.on_ack(0, Ack{2, 4, 0}), std::nullopt);
  EXPECT_EQ(done_, (std::vector<std::uint64_t>{0, 1}));
  // The re-established sub-connection counts from zero again.
  window_.reopen(1);
  EXPECT_EQ(window_.on_ack(1, Ack{2, 0, 1}), std::nullopt);
}

TEST_F(MtcpWindowTest, FramesTheReceiverHasDeliveredAreNotSentAgain) {
  ASSERT_TRUE(window_.submit(make_frame(0, 2 * kChunkBytes), kChunkBytes));
  ASSERT_TRUE(window_.submit(make_frame(1, kChunkBytes), kChunkBytes));
  assign();
  write_all(0);
  write_all(1);
  ASSERT_EQ(window_.on_ack(0, Ack{0, 1, 0}), std::nullopt);
  // Sub 1 breaks with frame 0's chunk 1 unacknowledged, but sub 0's next ACK says the receiver
  // gave frame 0 up: the re-send is dropped and frame 0 leaves the window.
  EXPECT_EQ(window_.requeue(1), 1u);
  ASSERT_EQ(window_.on_ack(0, Ack{1, 2, 0}), std::nullopt);
  loads_[1].usable = false;
  assign();
  EXPECT_EQ(done_, (std::vector<std::uint64_t>{0, 1}));
  EXPECT_FALSE(window_.has_unwritten(0));
}

// A hostile (or broken) receiver: each ACK below is refused and changes nothing.
TEST_F(MtcpWindowTest, AnAckForFramesNeverSentIsRefused) {
  for (std::uint64_t seq = 0; seq < 3; ++seq) {
    ASSERT_TRUE(window_.submit(make_frame(seq, kChunkBytes), kChunkBytes));
  }
  loads_[1].usable = false;
  assign();
  window_.take_unwritten(0, 1, [](const EncodedChunk&) {});  // only frame 0's chunk written
  for (std::uint64_t hostile : {std::uint64_t{2}, std::uint64_t{3}, ~std::uint64_t{0}}) {
    auto why = window_.on_ack(0, Ack{hostile, 1, 0});
    ASSERT_TRUE(why) << hostile;
    EXPECT_NE(why->find("only frames below 1 were sent"), std::string::npos) << *why;
  }
  EXPECT_TRUE(done_.empty());
  EXPECT_EQ(window_.frames(), 3u);
  EXPECT_EQ(window_.delivered_seq(), 0u);
  // Nothing was dropped: the queued frames are still written.
  EXPECT_EQ(write_all(0), 2u);
  EXPECT_EQ(window_.on_ack(0, Ack{3, 3, 0}), std::nullopt);
  EXPECT_EQ(done_, (std::vector<std::uint64_t>{0, 1, 2}));
}

TEST_F(MtcpWindowTest, AckCountsThatGoBackwardsOrExceedWhatWasWrittenAreRefused) {
  ASSERT_TRUE(window_.submit(make_frame(0, 4 * kChunkBytes), kChunkBytes));
  assign();
  ASSERT_EQ(write_all(0), 2u);
  EXPECT_TRUE(window_.on_ack(0, Ack{0, 3, 0}));  // 3 of 2 written
  ASSERT_EQ(window_.on_ack(0, Ack{0, 2, 0}), std::nullopt);
  EXPECT_TRUE(window_.on_ack(0, Ack{0, 1, 0}));  // backwards
  EXPECT_TRUE(window_.on_ack(0, Ack{0, ~std::uint64_t{0}, 0}));
  EXPECT_TRUE(window_.on_ack(7, Ack{0, 0, 7}));  // no such sub-connection
  EXPECT_TRUE(window_.on_ack(1, Ack{0, 1, 1}));  // nothing written there yet
  EXPECT_EQ(window_.frames(), 1u);
  EXPECT_TRUE(done_.empty());
  ASSERT_EQ(write_all(1), 2u);
  EXPECT_EQ(window_.on_ack(1, Ack{1, 2, 1}), std::nullopt);
  EXPECT_EQ(done_, std::vector<std::uint64_t>{0});
}

TEST_F(MtcpWindowTest, AResumedFeedMayBeAcknowledgedUpToItsFirstFrameBeforeAnyIsWritten) {
  MtcpWindow resumed(4, 1, 100, nullptr);
  EXPECT_EQ(resumed.sent_end_seq(), 100u);
  EXPECT_EQ(resumed.on_ack(0, Ack{100, 0, 0}), std::nullopt);
  EXPECT_TRUE(resumed.on_ack(0, Ack{101, 0, 0}));
}

}  // namespace
}  // namespace hdstream
