#include "transport/frame_memory.hpp"

#include <gtest/gtest.h>

#include "protocol/feed_limits.hpp"
#include "transport/mtcp/mtcp_scheduler.hpp"

namespace hdstream {
namespace {

// What a receiver reserves for a feed, as the tcp (readers 1, 8 frames), srt (readers 0) and
// mtcp (a frame per sub-connection, the latency budget's window) receivers compute it.
std::uint64_t need(const FeedDescriptor& feed, TransportKind transport, std::uint32_t latency_ms,
                   std::uint8_t connections = 4) {
  Hello hello;
  hello.feed = feed;
  hello.transport = transport;
  hello.chunk_bytes = transport == TransportKind::srt ? 1408 : 64 * 1024;
  hello.latency_budget_ms = latency_ms;
  ReassemblerConfig config = reassembler_config(hello);
  config.max_frames_in_flight = 8;
  if (transport == TransportKind::mtcp) {
    config.max_frames_in_flight =
        std::max<std::size_t>(8, mtcp_window_frames(latency_ms, feed.frames_per_second()));
    return memory_bytes(config, connections);
  }
  return memory_bytes(config, transport == TransportKind::tcp ? 1 : 0);
}

// The figures kDefaultMemoryPerStreamBytes is chosen from (transport/frame_memory.hpp), for
// the preset formats (presets/hdstream.toml).
TEST(FrameMemory, TheDefaultShareHoldsEveryPresetFormatOnEveryTransport) {
  const FeedDescriptor v210_p60{Codec::v210, 1920, 1080, 60000, 1001, 2'651'556'444};
  const FeedDescriptor uyvy{Codec::uyvy, 1920, 1080, 30000, 1001, 994'333'666};
  const FeedDescriptor dnxhd{Codec::dnxhd, 1920, 1080, 30000, 1001, 219'980'979};
  const FeedDescriptor synthetic{Codec::synthetic, 1920, 1080, 30000, 1001, 270'000'000};
  for (const auto& feed : {v210_p60, uyvy, dnxhd, synthetic}) {
    EXPECT_LT(need(feed, TransportKind::tcp, 120), 50'000'000u) << to_string(feed.codec);
    EXPECT_LT(need(feed, TransportKind::srt, 120), 50'000'000u) << to_string(feed.codec);
    EXPECT_LT(need(feed, TransportKind::mtcp, 400), kDefaultMemoryPerStreamBytes)
        << to_string(feed.codec);
  }
  EXPECT_NEAR(static_cast<double>(need(v210_p60, TransportKind::mtcp, 400)), 177e6, 1e6);
  // pasadena: 264 ms RTT, so mtcp's budget is 10 x RTT.
  EXPECT_NEAR(static_cast<double>(need(dnxhd, TransportKind::mtcp, 2640)), 161e6, 1e6);
  EXPECT_EQ(default_max_memory_bytes(5), 5 * kDefaultMemoryPerStreamBytes);
  EXPECT_EQ(default_max_memory_bytes(0), kDefaultMemoryPerStreamBytes);
}

TEST(FrameMemory, AFeedThatCouldNeedMoreThanItsShareIsRefusedWithTheFigures) {
  FrameMemory memory(64u << 20, 2, 8, "test");  // 32 MiB a stream
  const FeedDescriptor v210_p60{Codec::v210, 1920, 1080, 60000, 1001, 2'651'556'444};
  Hello hello;
  hello.feed = v210_p60;
  hello.chunk_bytes = 64 * 1024;
  ReassemblerConfig config = reassembler_config(hello);
  config.max_frames_in_flight = 8;  // 9 x 5.5 MB: 47.5 MiB
  std::string refusal;
  EXPECT_FALSE(memory.admit(config, 1, "192.0.2.7:4000", 1, refusal));
  EXPECT_EQ(refusal,
            "frames in flight would need 47.5 MiB; a stream may hold 32.0 MiB here (receiver "
            "--max-memory 64.0 MiB over 2 streams)");
  EXPECT_EQ(memory.budget().reserved_bytes(), 0u);
  // Four frames in flight fit; a third session finds the budget taken.
  config.max_frames_in_flight = 4;  // 5 x 5.5 MB: 26.4 MiB
  auto first = memory.admit(config, 1, "192.0.2.7:4000", 0, refusal);
  auto second = memory.admit(config, 1, "192.0.2.7:4001", 1, refusal);
  ASSERT_TRUE(first && second);
  EXPECT_FALSE(memory.admit(config, 1, "192.0.2.7:4002", 1, refusal));
  EXPECT_NE(refusal.find("MiB of the receiver's --max-memory 64.0 MiB are free"), std::string::npos)
      << refusal;
  first.reset();
  EXPECT_TRUE(memory.admit(config, 1, "192.0.2.7:4003", 0, refusal));
}

// The two legs of a protected feed share their stream's share: a stranger sending both legs
// holds no more than one feed of one leg could.
TEST(FrameMemory, EachLegOfAProtectedFeedMayHoldHalfItsStreamsShare) {
  FrameMemory memory(64u << 20, 2, 8, "test");  // 32 MiB a stream
  Hello hello;
  hello.feed = FeedDescriptor{Codec::v210, 1920, 1080, 60000, 1001, 2'651'556'444};
  hello.chunk_bytes = 64 * 1024;
  ReassemblerConfig config = reassembler_config(hello);
  config.max_frames_in_flight = 2;  // 3 x 5.5 MB: 15.8 MiB, within 16
  std::string refusal;
  auto a = memory.admit(config, 1, "192.0.2.7:4000", 0, refusal, /*legs=*/2);
  auto b = memory.admit(config, 1, "192.0.2.7:4001", 0, refusal, /*legs=*/2);
  ASSERT_TRUE(a && b) << refusal;
  config.max_frames_in_flight = 3;  // 4 x 5.5 MB: 21.1 MiB, a stream's share but not a leg's
  EXPECT_TRUE(memory.admit(config, 1, "192.0.2.7:4002", 1, refusal));
  EXPECT_FALSE(memory.admit(config, 1, "192.0.2.7:4003", 1, refusal, /*legs=*/2));
  EXPECT_EQ(refusal,
            "frames in flight would need 21.1 MiB; a leg of a stream may hold 16.0 MiB here "
            "(receiver --max-memory 64.0 MiB over 2 streams)");
}

}  // namespace
}  // namespace hdstream
