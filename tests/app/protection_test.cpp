// Two-path protection end to end on loopback: hdstream send --dest-b and hdstream recv as
// separate processes; both legs carry every frame, the receiver delivers each once.
// (Losing a path is tests/wan/protection_test.cpp's, through linkemu.)
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "tests/support/process.hpp"
#include "tests/support/stats_lines.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

constexpr int kStreams = 2;
constexpr int kFramesPerFeed = 150;  // round(5 s x 29.97 fps)

// The last cumulative `frames` of each (stream, leg) in a run's leg lines: the final lines'.
std::map<std::pair<int, std::string>, int> frames_per_leg(const std::string& stats) {
  std::map<std::pair<int, std::string>, int> frames;
  for (const auto& line : test::json_lines(stats)) {
    if (line["type"] != "leg") continue;
    frames[{line["stream"].get<int>(), line["leg"].get<std::string>()}] = line["frames"].get<int>();
  }
  return frames;
}

class Protection : public ::testing::TestWithParam<std::string> {};

TEST_P(Protection, BothLegsCarryEveryFrameAndTheReceiverDeliversEachOnce) {
  const std::string transport = GetParam();
  auto dir = test::scratch_dir("protection_loopback_" + transport);
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process recv(
      {HDSTREAM_BINARY, "recv", "--listen", address, "--skew", "150ms", "--transport", transport,
       "--streams", std::to_string(kStreams), "--duration", "60s", "--stats", "json", "--interval",
       "200ms", "--stats-file", (dir / "r.jsonl").string()},
      dir, "recv");
  // Every leg must join within the sender's first second to carry every frame: an SRT caller
  // that calls before the listener exists joins a second or more later (seen once in 6 runs).
  ASSERT_TRUE(test::eventually([&] {
    return recv.err().find("listening on") != std::string::npos;
  })) << recv.err();
  test::Process send({HDSTREAM_BINARY, "send",
                      "--dest",        address,
                      "--dest-b",      address,
                      "--transport",   transport,
                      "--streams",     std::to_string(kStreams),
                      "--rate",        "100M",
                      "--duration",    "5s",
                      "--stats",       "json",
                      "--interval",    "200ms",
                      "--stats-file",  (dir / "s.jsonl").string(),
                      "--report",      (dir / "send.md").string()},
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
      EXPECT_EQ(count, kFramesPerFeed) << key.first << key.second;
    }
  }
  // Each leg had a session of its own, at once (srt: leg B's caller announced its leg, so the
  // receiver served it beside leg A on the stream's port, not after it), and none was refused.
  const std::string log = recv.err();
  std::size_t accepted = 0;
  for (auto at = log.find("accepted"); at != std::string::npos; at = log.find("accepted", at + 1))
    ++accepted;
  EXPECT_EQ(accepted, 2u * kStreams) << log;
  EXPECT_EQ(log.find("refused"), std::string::npos) << log;
  EXPECT_EQ(log.find("waits already"), std::string::npos) << log;

  // On a path that loses nothing, no frame needed the second leg.
  int protection_lines = 0;
  for (const auto& line : test::json_lines(received)) {
    if (line["type"] != "protection") continue;
    ++protection_lines;
    EXPECT_EQ(line["protected"], 0);
    EXPECT_LE(line["legs_up"].get<int>(), 2);
    EXPECT_DOUBLE_EQ(line["skew_ms"].get<double>(), 150.0);  // recv --skew
  }
  EXPECT_GT(protection_lines, 0);

  // The sender's link report has a protection section: each leg sent every frame.
  const std::string report = test::read_file(dir / "send.md");
  EXPECT_NE(report.find("## Protection"), std::string::npos) << report;
  for (int stream = 0; stream < kStreams; ++stream) {
    for (const char* leg : {"A", "B"}) {
      EXPECT_NE(
          report.find(fmt::format("| {} | {} | finished | {} |", stream, leg, kFramesPerFeed)),
          std::string::npos)
          << stream << leg << "\n"
          << report;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, Protection, ::testing::Values("tcp", "mtcp", "srt"),
                         [](const auto& param) { return param.param; });

// A destination preset's second path (hosts_b) and the address each path sends from (bind_a,
// bind_b), on each transport: the receiver sees leg A from 127.0.0.2 and leg B from 127.0.0.3.
class ProtectionPresets : public ::testing::TestWithParam<std::string> {};

TEST_P(ProtectionPresets, HostsBAndEachPathsSourceAddressComeFromTheDestination) {
  auto dir = test::scratch_dir("protection_presets_" + GetParam());
  const auto port = test::free_port();
  std::ofstream(dir / "paths.toml") << "[destinations.two]\nhosts = [\"127.0.0.1\"]\n"
                                    << "hosts_b = [\"127.0.0.1\"]\nbind_a = \"127.0.0.2\"\n"
                                    << "bind_b = \"127.0.0.3\"\nport = " << port << "\n"
                                    << "[destinations.stray]\nhosts = [\"127.0.0.1\"]\n"
                                    << "bind_a = \"192.0.2.1\"\nport = " << port << "\n";
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", "127.0.0.1:" + std::to_string(port),
                      "--transport", GetParam(), "--duration", "60s"},
                     dir, "recv");
  // Both legs must join within the 1 s feed (see above).
  ASSERT_TRUE(test::eventually([&] {
    return recv.err().find("listening on") != std::string::npos;
  })) << recv.err();
  test::Process send({HDSTREAM_BINARY, "send", "--config", (dir / "paths.toml").string(), "--dest",
                      "two", "--transport", GetParam(), "--rate", "20M", "--duration", "1s"},
                     dir, "send");
  ASSERT_EQ(send.wait(60s), 0) << send.err();
  ASSERT_EQ(recv.wait(60s), 0) << recv.err();
  EXPECT_NE(send.err().find("(127.0.0.1:" + std::to_string(port) +
                            " from 127.0.0.2; path B 127.0.0.1:" + std::to_string(port) +
                            " from 127.0.0.3)"),
            std::string::npos)
      << send.err();
  EXPECT_NE(recv.err().find("feed from 127.0.0.2:"), std::string::npos) << recv.err();
  EXPECT_NE(recv.err().find("feed from 127.0.0.3:"), std::string::npos) << recv.err();

  // An address this host does not have: one line naming it, and the feed does not start.
  test::Process stray({HDSTREAM_BINARY, "send", "--config", (dir / "paths.toml").string(), "--dest",
                       "stray", "--transport", GetParam(), "--duration", "1s"},
                      dir, "stray");
  EXPECT_EQ(stray.wait(60s), 1);
  EXPECT_NE(stray.err().find("cannot send from 192.0.2.1: Cannot assign requested address"),
            std::string::npos)
      << stray.err();
}

INSTANTIATE_TEST_SUITE_P(Transports, ProtectionPresets, ::testing::Values("tcp", "mtcp", "srt"),
                         [](const auto& param) { return param.param; });

TEST(ProtectionRefusal, ASecondPathWithMuxTsIsRefusedWithOneLine) {
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
