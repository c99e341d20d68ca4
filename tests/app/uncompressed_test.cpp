// Uncompressed HD on loopback: two 994 Mbps UYVY 1080 feeds from a raw file clip, over tcp and
// mtcp, every frame carried whole and verified, none dropped, every one decoded by the
// receiver's picture checks. Correctness only, at a rate this 2-core machine carries with room to
// spare (five feeds, 5 Gbps, needed both cores and dropped frames beside a busy neighbour): what
// five cost is bench/'s figure (docs/PERFORMANCE.md, "Uncompressed HD: 5 x uyvy1080").
#include <gtest/gtest.h>

#include "tests/media/clip_fixture.hpp"
#include "tests/support/process.hpp"
#include "tests/support/stats_lines.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

constexpr int kFeeds = 2;
constexpr int kSeconds = 5;
constexpr std::uint64_t kUyvyFrameBytes = 1920 * 1080 * 2;

class UncompressedLineRate : public ::testing::TestWithParam<std::string> {};

TEST_P(UncompressedLineRate, TwoUyvy1080FeedsFromAFileArriveWholeWithZeroDrops) {
  const std::string transport = GetParam();
  auto dir = test::scratch_dir("uyvy-two-" + transport);
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
  std::uint64_t decoded = 0;
  for (int stream = 0; stream < kFeeds; ++stream) {
    nlohmann::json last;
    for (auto& line : test::json_lines(received)) {
      if (line["type"] != "media" || line["stream"] != stream) continue;
      // A moving clip: a frozen alarm would mean the frames' fingerprints stopped changing.
      EXPECT_FALSE(line["frozen"].get<bool>()) << line.dump();
      last = line;
    }
    ASSERT_FALSE(last.is_null()) << "no media line for stream " << stream;
    EXPECT_EQ(last["dropped_before_decode"], 0) << stream;
    EXPECT_EQ(last["decode_errors"], 0) << last.dump();
    decoded += last["frames_decoded"].get<std::uint64_t>();
  }
  EXPECT_EQ(decoded, frames) << "every frame received is decoded";
}

// One frame looped: every frame carries the same bytes, so the receiver's frozen alarm must rise
// after its 2 s hold (the moving clip above checks that the fingerprints behind it do change).
TEST(UncompressedStill, AOneFrameClipRaisesTheFrozenAlarm) {
  auto dir = test::scratch_dir("uyvy-still");
  const auto clip = test::clip(HDSTREAM_MEDIA_CACHE, test::uyvy1080_feed(), 1);
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", address, "--duration", "60s", "--stats",
                      "json", "--stats-file", (dir / "r.jsonl").string()},
                     dir, "recv");
  ASSERT_TRUE(test::eventually([&] {
    return recv.err().find("listening on") != std::string::npos;
  })) << recv.err();
  test::Process send({HDSTREAM_BINARY, "send", "--dest", address, "--format", "uyvy1080",
                      "--source", "file:" + clip.string(), "--duration", "4s"},
                     dir, "send");
  ASSERT_EQ(send.wait(60s), 0) << send.err();
  ASSERT_EQ(recv.wait(60s), 0) << recv.err();
  int frozen_lines = 0, media_lines = 0;
  for (auto& line : test::json_lines(test::read_file(dir / "r.jsonl"))) {
    if (line["type"] != "media") continue;
    ++media_lines;
    if (line["frozen"].get<bool>()) ++frozen_lines;
  }
  ASSERT_GE(media_lines, 3);
  EXPECT_GE(frozen_lines, 1) << "the still picture never raised the frozen alarm";
}

INSTANTIATE_TEST_SUITE_P(Transports, UncompressedLineRate, ::testing::Values("tcp", "mtcp"),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace hdstream
