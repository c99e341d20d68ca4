// Uncompressed HD at line rate over an emulated 10 Gbps path: two 2.65 Gbps v210 1080p59.94
// feeds from a raw file clip, through linkemu at 4 ms RTT and MTU 9000, every frame carried whole
// and verified, none dropped. Skipped without root or /dev/net/tun.
//   ctest --test-dir build -R LineRate
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "tests/media/clip_fixture.hpp"
#include "tests/support/namespaces.hpp"
#include "tests/support/process.hpp"
#include "tests/support/stats_lines.hpp"
#include "tests/wan/netns_process.hpp"
#include "tools/linkemu/emulator.hpp"
#include "tools/linkemu/topology.hpp"

namespace hdstream::wan {
namespace {

using namespace std::chrono_literals;

constexpr int kFeeds = 2;
constexpr int kSeconds = 6;
constexpr std::uint64_t kV210FrameBytes = 40 * 128 * 1080;  // (1920 + 47) / 48 blocks of 128 B

// The queue is 4 BDPs (20 MB): each feed sends a 5.5 MB frame as one burst, and the two feeds'
// bursts at 10 Gbps into the default 1 BDP (5 MB) queue lost 157 packets and then 38 frames in a
// 10 s run here. With 20 MB, 10 s runs carried 1198 of 1198 frames.
// The latency budget is 400 ms, not the default 120 ms: on this 2-core machine linkemu forwards
// 5.3 Gbps (80 % of its ceiling at MTU 9000, tests/wan/linkemu_ceiling.sh) on the same cores as
// the sender and the receiver's v210 decode, and frames queue in the first second. Measured
// frame-ready -> decoded p99, worst interval of a run: 150-250 ms (5 runs); with 120 ms, 2 of 4
// runs dropped 2-4 frames in the first second, none on the path.
constexpr const char* kPath =
    "[link]\nrtt = \"4ms\"\nrate = \"10G\"\nmtu = 9000\nqueue = \"20M\"\n"
    "[[site]]\nname = \"a\"\n[[site]]\nname = \"b\"\n";

TEST(LineRate, TwoV210FeedsCrossATenGigabitPathWithZeroDrops) {
  if (auto why = test::namespaces_unavailable()) GTEST_SKIP() << *why;
  const auto dir = std::filesystem::path(WAN_WORK_DIR) / "line-rate-v210";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto file = [&](const std::string& name) { return (dir / name).string(); };
  // 30 frames (166 MB) looped, read from the page cache. Made in the test's own directory: this
  // test runs as root, and the build tree's media cache must stay writable for the others.
  const auto clip = test::clip(std::filesystem::path(WAN_WORK_DIR) / "media-cache",
                               test::v210_1080p60_feed(), 30);

  linkemu::Emulator wan(linkemu::parse_topology_text(kPath, "line_rate"));
  wan.up();
  const std::string listen = "198.18.1.1:9300";
  NetnsProcess receiver(
      wan.netns("b"),
      {HDSTREAM_BINARY, "recv", "--listen", listen, "--streams", std::to_string(kFeeds), "--stats",
       "json", "--stats-file", file("recv.jsonl")},
      file("recv.out"), file("recv.err"));
  ASSERT_TRUE(test::eventually([&] {
    return test::read_file(file("recv.err")).find("listening on") != std::string::npos;
  })) << "receiver did not listen; see "
      << dir;
  NetnsProcess sender(wan.netns("a"), {HDSTREAM_BINARY, "send",
                                       "--dest",        listen,
                                       "--streams",     std::to_string(kFeeds),
                                       "--format",      "v210-1080p60",
                                       "--source",      "file:" + clip.string(),
                                       "--rtt",         "4ms",
                                       "--latency",     "400ms",
                                       "--duration",    std::to_string(kSeconds) + "s",
                                       "--stats",       "json",
                                       "--stats-file",  file("send.jsonl")},
                      file("send.out"), file("send.err"));
  ASSERT_TRUE(sender.wait_for(60s)) << "sender did not finish; see " << dir;
  ASSERT_TRUE(receiver.wait_for(30s)) << "receiver did not finish; see " << dir;
  const auto counters = wan.stats_json();
  std::printf("linkemu: %s\n", counters.dump().c_str());

  const auto summary = test::find_line(test::read_file(file("recv.jsonl")), "summary");
  ASSERT_TRUE(summary) << "no receiver summary; see " << dir;
  const int frames_per_feed = kSeconds * 60000 / 1001;  // 359.64: the 360th is due
  const std::uint64_t frames = (*summary)["frames"];
  EXPECT_GE(frames, static_cast<std::uint64_t>(kFeeds * frames_per_feed)) << summary->dump();
  EXPECT_LE(frames, static_cast<std::uint64_t>(kFeeds * (frames_per_feed + 1)));
  EXPECT_EQ((*summary)["bytes"], frames * kV210FrameBytes);
  EXPECT_EQ((*summary)["drops"], 0) << summary->dump() << "; linkemu " << counters.dump();
  EXPECT_EQ((*summary)["checksum_errors"], 0);
  EXPECT_EQ(sender.exit_code(), 0) << test::read_file(file("send.err"));
  EXPECT_EQ(receiver.exit_code(), 0) << test::read_file(file("recv.err"));
}

}  // namespace
}  // namespace hdstream::wan
