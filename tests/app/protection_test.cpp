// Two-path protection end to end on loopback: hdstream send --dest-b and hdstream recv as
// separate processes; both legs carry every frame, the receiver delivers each once.
// (Losing a path is tests/wan/protection_test.cpp's, through linkemu.)
#include <gtest/gtest.h>

#include <map>
#include <utility>

#include "tests/support/process.hpp"
#include "tests/support/stats_lines.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

constexpr int kStreams = 2;
constexpr int kFramesPerFeed = 150;  // round(5 s x 29.97 fps)
// Frames a leg's last JSON line may lag its end by: one 200 ms interval at 29.97 fps, rounded up.
constexpr int kFramesPerInterval = 7;

// The largest cumulative `frames` of each (stream, leg) in a run's leg lines.
std::map<std::pair<int, std::string>, int> frames_per_leg(const std::string& stats) {
  std::map<std::pair<int, std::string>, int> frames;
  for (const auto& line : test::json_lines(stats)) {
    if (line["type"] != "leg") continue;
    auto& most = frames[{line["stream"].get<int>(), line["leg"].get<std::string>()}];
    most = std::max(most, line["frames"].get<int>());
  }
  return frames;
}

TEST(Protection, BothLegsCarryEveryFrameAndTheReceiverDeliversEachOnce) {
  auto dir = test::scratch_dir("protection_loopback");
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", address, "--streams",
                      std::to_string(kStreams), "--duration", "60s", "--stats", "json",
                      "--interval", "200ms", "--stats-file", (dir / "r.jsonl").string()},
                     dir, "recv");
  test::Process send({HDSTREAM_BINARY, "send", "--dest", address, "--dest-b", address, "--streams",
                      std::to_string(kStreams), "--rate", "100M", "--duration", "5s", "--stats",
                      "json", "--interval", "200ms", "--stats-file", (dir / "s.jsonl").string()},
                     dir, "send");
  ASSERT_EQ(send.wait(60s), 0) << send.err();
  ASSERT_EQ(recv.wait(60s), 0) << recv.err();
  const std::string sent = test::read_file(dir / "s.jsonl");
  const std::string received = test::read_file(dir / "r.jsonl");

  auto sent_summary = test::find_line(sent, "summary");
  auto received_summary = test::find_line(received, "summary");
  ASSERT_TRUE(sent_summary && received_summary) << sent << received;
  EXPECT_EQ((*sent_summary)["frames"], kStreams * kFramesPerFeed);
  // Each frame once, though it arrived twice.
  EXPECT_EQ((*received_summary)["frames"], kStreams * kFramesPerFeed);
  EXPECT_EQ((*received_summary)["bytes"], (*sent_summary)["bytes"]);
  EXPECT_EQ((*received_summary)["drops"], 0);
  EXPECT_EQ((*received_summary)["verdict"], "pass");

  // Both legs carried every frame, on both ends.
  for (const auto* stats : {&sent, &received}) {
    const auto frames = frames_per_leg(*stats);
    ASSERT_EQ(frames.size(), 2u * kStreams) << *stats;
    for (const auto& [key, count] : frames) {
      EXPECT_GE(count, kFramesPerFeed - kFramesPerInterval) << key.first << key.second;
      EXPECT_LE(count, kFramesPerFeed) << key.first << key.second;
    }
  }
  // On a path that loses nothing, no frame needed the second leg.
  int protection_lines = 0;
  for (const auto& line : test::json_lines(received)) {
    if (line["type"] != "protection") continue;
    ++protection_lines;
    EXPECT_EQ(line["protected"], 0);
    EXPECT_LE(line["legs_up"].get<int>(), 2);
  }
  EXPECT_GT(protection_lines, 0);
}

TEST(Protection, ASecondPathOverMtcpIsRefusedWithOneLine) {
  auto dir = test::scratch_dir("protection_mtcp");
  test::Process send({HDSTREAM_BINARY, "send", "--dest", "127.0.0.1:9", "--dest-b", "127.0.0.1:9",
                      "--transport", "mtcp", "--duration", "1s"},
                     dir, "send");
  EXPECT_EQ(send.wait(30s), 2);
  EXPECT_NE(send.err().find("--dest-b: two paths work over tcp so far, not mtcp"),
            std::string::npos)
      << send.err();
}

// Over srt both legs of a feed reach the stream's one UDP port: leg B's caller announces its
// leg in SRTO_STREAMID, so the receiver serves it beside leg A, not after it.
TEST(Protection, OverSrtBothLegsShareEachStreamsPortAndEachFrameIsDeliveredOnce) {
  auto dir = test::scratch_dir("protection_srt");
  // UDP ports base and base + 1 (one per stream).
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", address, "--transport", "srt",
                      "--streams", std::to_string(kStreams), "--duration", "60s", "--stats", "json",
                      "--interval", "200ms", "--stats-file", (dir / "r.jsonl").string()},
                     dir, "recv");
  test::Process send(
      {HDSTREAM_BINARY, "send",        "--dest",     address,        "--dest-b",
       address,         "--transport", "srt",        "--streams",    std::to_string(kStreams),
       "--rate",        "100M",        "--duration", "5s",           "--stats",
       "json",          "--interval",  "200ms",      "--stats-file", (dir / "s.jsonl").string()},
      dir, "send");
  ASSERT_EQ(send.wait(60s), 0) << send.err();
  ASSERT_EQ(recv.wait(60s), 0) << recv.err();
  const std::string sent = test::read_file(dir / "s.jsonl");
  const std::string received = test::read_file(dir / "r.jsonl");

  auto sent_summary = test::find_line(sent, "summary");
  auto received_summary = test::find_line(received, "summary");
  ASSERT_TRUE(sent_summary && received_summary) << sent << received;
  EXPECT_EQ((*sent_summary)["frames"], kStreams * kFramesPerFeed);
  EXPECT_EQ((*received_summary)["frames"], kStreams * kFramesPerFeed);  // each once
  EXPECT_EQ((*received_summary)["bytes"], (*sent_summary)["bytes"]);
  EXPECT_EQ((*received_summary)["drops"], 0);
  EXPECT_EQ((*received_summary)["verdict"], "pass");

  // Both legs carried every frame, on both ends: leg B ran beside leg A, not after it.
  for (const auto* stats : {&sent, &received}) {
    const auto frames = frames_per_leg(*stats);
    ASSERT_EQ(frames.size(), 2u * kStreams) << *stats;
    for (const auto& [key, count] : frames) {
      EXPECT_GE(count, kFramesPerFeed - kFramesPerInterval) << key.first << key.second;
      EXPECT_LE(count, kFramesPerFeed) << key.first << key.second;
    }
  }
  // Each leg had its own session, and no caller waited or was turned away.
  const std::string log = recv.err();
  std::size_t accepted = 0;
  for (std::size_t at = log.find("accepted over SRT"); at != std::string::npos;
       at = log.find("accepted over SRT", at + 1)) {
    ++accepted;
  }
  EXPECT_EQ(accepted, 2u * kStreams) << log;
  EXPECT_EQ(log.find("waits already"), std::string::npos) << log;
  EXPECT_EQ(log.find("refused"), std::string::npos) << log;
}

TEST(Protection, ASecondPathWithMuxTsIsRefusedWithOneLine) {
  auto dir = test::scratch_dir("protection_mux_ts");
  test::Process send(
      {HDSTREAM_BINARY, "send", "--dest", "127.0.0.1:9", "--dest-b", "127.0.0.1:9", "--transport",
       "srt", "--mux", "ts", "--format", "dnxhd220", "--duration", "1s"},
      dir, "send");
  EXPECT_EQ(send.wait(30s), 2);
  EXPECT_NE(send.err().find("--dest-b: two paths need hdstream's own framing, not --mux ts"),
            std::string::npos)
      << send.err();
}

}  // namespace
}  // namespace hdstream
