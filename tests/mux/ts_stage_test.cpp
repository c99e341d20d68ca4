// mux/TsStage with the real libavcodec and libavformat: frames in, MPEG-TS messages out.
#include "mux/ts_stage.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "mux/ts_encoder.hpp"
#include "transport/srt_socket.hpp"

namespace hdstream {
namespace {

constexpr std::size_t kTsPacket = 188;

// UYVY 640x480 at 29.97: the VideoDecoder unpacks it, TsEncoder makes MPEG-2 4:2:2 of it.
FeedDescriptor uyvy_feed() {
  return FeedDescriptor{Codec::uyvy, 640, 480, 30000, 1001, 640 * 480 * 16 * 30};
}

Frame uyvy_frame(std::uint64_t seq) {
  Frame frame;
  frame.seq = seq;
  frame.data.resize(640 * 480 * 2);
  for (std::size_t i = 0; i < frame.data.size(); i += 2) {
    frame.data[i] = std::byte{128};                                            // U or V: grey
    frame.data[i + 1] = static_cast<std::byte>((i / 2 + seq * 7) % 220 + 16);  // Y: a ramp
  }
  return frame;
}

class TsStageTest : public ::testing::Test {
 protected:
  void open(bool accept = true) {
    accept_ = accept;
    stage_.prepare();
    stage_.open([this](std::span<const std::byte> message) {
      if (!accept_) return false;
      messages_.emplace_back(message.begin(), message.end());
      return true;
    });
  }
  std::uint64_t message_bytes() const {
    return std::accumulate(messages_.begin(), messages_.end(), std::uint64_t{0},
                           [](std::uint64_t sum, const auto& m) { return sum + m.size(); });
  }

  TsStage stage_{uyvy_feed(), kTsMinVideoRateBps};
  std::vector<std::vector<std::byte>> messages_;
  bool accept_ = true;
};

TEST_F(TsStageTest, FramesBecomeWholeTsPacketsInSrtSizedMessages) {
  open();
  std::uint64_t bytes = 0;
  for (std::uint64_t seq = 0; seq < 5; ++seq) bytes += stage_.push(uyvy_frame(seq));
  EXPECT_GT(bytes, 0u);
  bytes += stage_.finish();
  ASSERT_FALSE(messages_.empty());
  EXPECT_EQ(bytes, message_bytes());  // what the stage counts is what went on the wire
  for (const auto& message : messages_) {
    ASSERT_EQ(message.size() % kTsPacket, 0u);
    ASSERT_LE(message.size(), static_cast<std::size_t>(stage_.message_bytes()));
    for (std::size_t at = 0; at < message.size(); at += kTsPacket) {
      ASSERT_EQ(message[at], std::byte{0x47}) << "TS sync byte";
    }
  }
  // The first message carries the PAT (PID 0), as a demuxer joining the stream needs.
  const auto& first = messages_.front();
  bool pat = false;
  for (std::size_t at = 0; at < first.size(); at += kTsPacket) {
    const int pid =
        (std::to_integer<int>(first[at + 1]) & 0x1f) << 8 | std::to_integer<int>(first[at + 2]);
    pat = pat || pid == 0;
  }
  EXPECT_TRUE(pat);
  EXPECT_EQ(stage_.message_bytes(), kSrtTsPayloadBytes);
}

TEST_F(TsStageTest, AFrameThatDoesNotDecodeCostsOnlyThatFrame) {
  open();
  Frame short_frame = uyvy_frame(0);
  short_frame.data.resize(short_frame.data.size() / 2);  // half a picture: not a UYVY frame
  try {
    stage_.push(short_frame);
    FAIL() << "half a picture was accepted";
  } catch (const StageError& error) {
    EXPECT_TRUE(error.frame_only()) << error.what();
    EXPECT_NE(std::string(error.what()).find("--mux ts: "), std::string::npos) << error.what();
  }
  EXPECT_GT(stage_.push(uyvy_frame(1)), 0u);  // the decoder goes on with the next frame
}

TEST_F(TsStageTest, ASendThatFailsEndsTheFeed) {
  open(/*accept=*/false);
  try {
    for (std::uint64_t seq = 0; seq < 5; ++seq) stage_.push(uyvy_frame(seq));
    stage_.finish();
    FAIL() << "no send failure surfaced";
  } catch (const StageError& error) {
    EXPECT_FALSE(error.frame_only()) << error.what();
  }
  EXPECT_TRUE(messages_.empty());
}

TEST_F(TsStageTest, TheWireRateCoversTsOverheadAboveTheVideoRate) {
  EXPECT_EQ(stage_.planned_rate_bps(), kTsMinVideoRateBps);  // the verdict's rate is the video's
  EXPECT_GT(stage_.wire_rate_bps(), kTsMinVideoRateBps);
  EXPECT_LT(stage_.wire_rate_bps(), kTsMinVideoRateBps * 12 / 10);
  EXPECT_NE(stage_.describe().find("640x480"), std::string::npos) << stage_.describe();
}

}  // namespace
}  // namespace hdstream
