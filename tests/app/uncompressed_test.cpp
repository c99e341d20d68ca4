// Uncompressed HD at line rate on loopback: five 994 Mbps UYVY 1080 feeds from a raw file clip,
// over tcp and mtcp, every frame carried whole and verified, none dropped, every one decoded by
// the receiver's picture checks. Correctness only: what it costs is in bench/
// (docs/PERFORMANCE.md).
#include <gtest/gtest.h>

#include "tests/media/clip_fixture.hpp"
#include "tests/support/process.hpp"
#include "tests/support/stats_lines.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

constexpr int kFeeds = 5;
constexpr int kSeconds = 5;
constexpr std::uint64_t kUyvyFrameBytes = 1920 * 1080 * 2;

class UncompressedLineRate : public ::testing::TestWithParam<std::string> {};

TEST_P(UncompressedLineRate, FiveUyvy1080FeedsFromAFileArriveWholeWithZeroDrops) {
  const std::string transport = GetParam();
  auto dir = test::scratch_dir("uyvy-five-" + transport);
  // 30 frames (124 MB) looped: read from the page cache, the source costs next to nothing.
  const auto clip = test::clip(HDSTREAM_MEDIA_CACHE, test::uyvy1080_feed(), 30);
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", address, "--transport", transport,
                      "--streams", std::to_string(kFeeds), "--duration", "60s", "--stats", "json",
                      "--stats-file", (dir / "r.jsonl").string()},
                     dir, "recv");
  ASSERT_TRUE(test::eventually([&] {
    return recv.err().find("listening on") != std::string::npos;
  })) << recv.err();
  test::Process send({HDSTREAM_BINARY, "send", "--dest", address, "--transport", transport,
                      "--streams", std::to_string(kFeeds), "--format", "uyvy1080", "--source",
                      "file:" + clip.string(), "--duration", std::to_string(kSeconds) + "s",
                      "--stats", "json", "--stats-file", (dir / "s.jsonl").string()},
                     dir, "send");
  ASSERT_EQ(send.wait(90s), 0) << send.err();
  ASSERT_EQ(recv.wait(90s), 0) << recv.err();

  const std::string received = test::read_file(dir / "r.jsonl");
  auto summary = test::find_line(received, "summary");
  ASSERT_TRUE(summary);
  const int frames_per_feed = kSeconds * 30000 / 1001;  // 149.85: the sender's 150th is due
  const std::uint64_t frames = (*summary)["frames"];
  EXPECT_GE(frames, static_cast<std::uint64_t>(kFeeds * frames_per_feed));
  EXPECT_LE(frames, static_cast<std::uint64_t>(kFeeds * (frames_per_feed + 1)));
  EXPECT_EQ((*summary)["bytes"], frames * kUyvyFrameBytes);
  EXPECT_EQ((*summary)["drops"], 0);
  EXPECT_EQ((*summary)["checksum_errors"], 0);
  EXPECT_EQ((*summary)["verdict"], "pass");
  EXPECT_GT((*summary)["mbps"].get<double>(), 0.99 * kFeeds * 994.2) << summary->dump();
  for (int stream = 0; stream < kFeeds; ++stream) {
    nlohmann::json last;
    for (auto& line : test::json_lines(received)) {
      if (line["type"] == "media" && line["stream"] == stream) last = line;
    }
    ASSERT_FALSE(last.is_null()) << "no media line for stream " << stream;
    EXPECT_EQ(last["dropped_before_decode"], 0) << stream;
    EXPECT_EQ(last["decode_errors"], 0) << last.dump();
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, UncompressedLineRate, ::testing::Values("tcp", "mtcp"),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace hdstream
