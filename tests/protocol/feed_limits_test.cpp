#include "protocol/feed_limits.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace hdstream {
namespace {

Hello hello_for(Codec codec, std::uint16_t width, std::uint16_t height, std::uint32_t num,
                std::uint32_t den, std::uint64_t rate_bps, std::uint32_t chunk_bytes = 65536) {
  Hello hello;
  hello.feed = FeedDescriptor{codec, width, height, num, den, rate_bps};
  hello.chunk_bytes = chunk_bytes;
  return hello;
}

// How senders size synthetic frames (pipeline/feed_sender.cpp, frame_bytes_for), restated here
// because protocol/ cannot depend on pipeline/.
std::size_t sender_frame_bytes(const FeedDescriptor& feed) {
  return static_cast<std::size_t>(
      std::llround(static_cast<double>(feed.bit_rate_bps) / 8.0 / feed.frames_per_second()));
}

TEST(FeedLimits, RawFramesAreExactlyTheirSize) {
  // The preset formats (presets/hdstream.toml): v210 pads rows to 128 bytes per 48 pixels.
  EXPECT_EQ(raw_frame_bytes({Codec::v210, 1920, 1080}), 5'529'600u);
  EXPECT_EQ(raw_frame_bytes({Codec::v210, 720, 486}), 933'120u);
  EXPECT_EQ(raw_frame_bytes({Codec::uyvy, 1920, 1080}), 4'147'200u);
  EXPECT_EQ(raw_frame_bytes({Codec::dnxhd, 1920, 1080}), 0u);
  EXPECT_EQ(raw_frame_bytes({Codec::synthetic, 1920, 1080}), 0u);
  // Whatever the announced rate says, a raw frame may be its size and no more.
  EXPECT_EQ(max_frame_bytes(hello_for(Codec::v210, 1920, 1080, 60000, 1001, 2'651'556'444)),
            5'529'600u);
  EXPECT_EQ(max_frame_bytes(hello_for(Codec::uyvy, 1920, 1080, 30000, 1001, 1)), 4'147'200u);
}

TEST(FeedLimits, CompressedFramesGetTheMarginAboveTheirAverage) {
  // DNxHD 220 (CID 1238) frames are 917,504 bytes; the preset rate says so to the bit.
  const Hello dnxhd = hello_for(Codec::dnxhd, 1920, 1080, 30000, 1001, 219'980'979);
  EXPECT_EQ(max_frame_bytes(dnxhd), 2 * 917'504u);
  EXPECT_EQ(kCompressedFrameMargin, 2u);
}

TEST(FeedLimits, SyntheticFramesAreBoundedByTheirRateAndNeverRefused) {
  EXPECT_EQ(max_frame_bytes(hello_for(Codec::synthetic, 1920, 1080, 30000, 1001, 270'000'000)),
            1'126'125u);
  // Every rate/fps a sender may announce: its own frames fit (rounding cannot bite).
  std::mt19937_64 random(11);
  for (int i = 0; i < 20000; ++i) {
    const auto num = static_cast<std::uint32_t>(1 + random() % 120000);
    const auto den = static_cast<std::uint32_t>(1 + random() % 1001);
    const std::uint64_t rate = random() % 40'000'000'000ull;
    const Hello hello = hello_for(Codec::synthetic, 1920, 1080, num, den, rate, 4u << 20);
    if (hello.feed.frames_per_second() > 1000.0) continue;
    const std::size_t frame = sender_frame_bytes(hello.feed);
    if (frame > kMaxFrameBytes) continue;  // the sender refuses these itself
    EXPECT_GE(max_frame_bytes(hello), frame) << rate << " at " << num << "/" << den;
  }
}

TEST(FeedLimits, TinyFeedsGetTheFloor) {
  EXPECT_EQ(max_frame_bytes(hello_for(Codec::synthetic, 1920, 1080, 30, 1, 1'000'000)),
            kMinFrameBytesBound);
  EXPECT_EQ(max_frame_bytes(hello_for(Codec::dnxhd, 1920, 1080, 30, 1, 0)), kMinFrameBytesBound);
}

TEST(FeedLimits, HostileValuesStayWithinTheWireLimits) {
  constexpr auto kU32 = std::numeric_limits<std::uint32_t>::max();
  constexpr auto kU64 = std::numeric_limits<std::uint64_t>::max();
  // Huge rate, slowest frame rate: the product overflows 64 bits; the bound saturates.
  EXPECT_EQ(max_frame_bytes(hello_for(Codec::dnxhd, 1920, 1080, 1, kU32, kU64, 4u << 20)),
            kMaxFrameBytes);
  // No frame rate at all (validate_hello refuses it, but the bound is still defined).
  EXPECT_EQ(max_frame_bytes(hello_for(Codec::synthetic, 1, 1, 0, 0, 1000, 4u << 20)),
            kMaxFrameBytes);
  // The chunk size caps it: 65535 chunks of 1 byte.
  EXPECT_EQ(max_frame_bytes(hello_for(Codec::dnxhd, 1920, 1080, 30, 1, kU64, 1)), 65535u);
  EXPECT_EQ(max_frame_bytes(hello_for(Codec::synthetic, 1920, 1080, 30, 1, 1000, 1)), 65535u);
  EXPECT_EQ(max_frame_bytes(hello_for(Codec::synthetic, 1920, 1080, 30, 1, 1000, 0)), 0u);
  // The largest raw picture: capped (validate_hello refuses the HELLO: it cannot fit).
  EXPECT_EQ(max_frame_bytes(hello_for(Codec::v210, 65535, 65535, 30, 1, 0, 4u << 20)),
            kMaxFrameBytes);
}

}  // namespace
}  // namespace hdstream
