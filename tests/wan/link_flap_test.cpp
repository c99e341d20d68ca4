// Link flap: real hdstream processes in two linkemu sites; the emulated link is pulled for 2 s
// mid-stream (Emulator::set_link_down) and put back. Skipped without root or /dev/net/tun.
//   ctest --test-dir build -R LinkFlap

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/support/eventually.hpp"
#include "tests/support/namespaces.hpp"
#include "tests/support/stats_lines.hpp"
#include "tests/wan/netns_process.hpp"
#include "tools/linkemu/emulator.hpp"
#include "tools/linkemu/topology.hpp"

namespace hdstream::wan {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr int kStreams = 2;
constexpr double kRateMbps = 200;       // per feed
constexpr auto kOutage = 2s;            // how long the cable is out
constexpr auto kRecoveryLimit = 4s;     // frames flowing again after the link returns
constexpr auto kNominalRateLimit = 6s;  // each feed back at >= 80 % of its rate
constexpr double kNominalFraction = 0.8;

// Cumulative received frames per stream, from the last interval line of each.
std::map<int, std::uint64_t> frames_per_stream(const std::vector<json>& lines) {
  std::map<int, std::uint64_t> frames;
  for (const auto& j : lines) {
    if (j.value("type", "") == "interval") frames[j.value("stream", -1)] = j.value("frames", 0ULL);
  }
  return frames;
}

class LinkFlap : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (auto why = test::namespaces_unavailable()) GTEST_SKIP() << *why;
    dir_ = std::filesystem::path(WAN_WORK_DIR) / ("link-flap-" + GetParam());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

TEST_P(LinkFlap, FeedsRecoverAfterATwoSecondOutageAndTheLostFramesAreCounted) {
  const std::string transport = GetParam();
  // 4 ms RTT, 1 Gbps, jumbo frames (fewer packets for the emulator on a shared 2-core box).
  linkemu::Emulator wan(
      linkemu::parse_topology_text("[link]\nrtt = \"4ms\"\nrate = \"1G\"\nmtu = 9000\n"
                                   "[[site]]\nname = \"a\"\n[[site]]\nname = \"b\"\n",
                                   "link_flap"));
  wan.up();
  const std::string listen = "198.18.1.1:9000";
  const std::string recv_stats = file("recv.jsonl"), send_stats = file("send.jsonl");
  NetnsProcess receiver(wan.netns("b"),
                        {HDSTREAM_BINARY, "recv", "--listen", listen, "--streams",
                         std::to_string(kStreams), "--transport", transport, "--stats", "json",
                         "--stats-file", recv_stats, "--interval", "250ms", "--log-level", "info"},
                        file("recv.out"), file("recv.err"));
  NetnsProcess sender(wan.netns("a"), {HDSTREAM_BINARY, "send",
                                       "--dest",        listen,
                                       "--streams",     std::to_string(kStreams),
                                       "--transport",   transport,
                                       "--rate",        fmt::format("{}M", kRateMbps),
                                       "--rtt",         "4ms",
                                       "--duration",    "16s",
                                       "--stats",       "json",
                                       "--stats-file",  send_stats,
                                       "--interval",    "250ms",
                                       "--log-level",   "info"},
                      file("send.out"), file("send.err"));

  // Every feed flowing (a second of frames) before the cable is pulled.
  ASSERT_TRUE(test::eventually(
      [&] {
        const auto frames = frames_per_stream(test::read_stats_file(recv_stats));
        if (frames.size() != kStreams) return false;
        for (const auto& [stream, n] : frames) {
          if (n < 30) return false;
        }
        return true;
      },
      20s))
      << "feeds never started; see " << dir_;

  wan.set_link_down(true);
  // The outage itself: the fault lasts this long by definition; nothing is being waited for.
  std::this_thread::sleep_for(kOutage);
  const auto during = frames_per_stream(test::read_stats_file(recv_stats));
  wan.set_link_down(false);
  const auto link_up = Clock::now();
  const auto lines_before_recovery = test::read_stats_file(recv_stats).size();

  // Recovery: every stream has received 10 more frames (a third of a second) than it had when
  // the link came back.
  std::map<int, std::uint64_t> after;
  const bool recovered = test::eventually(
      [&] {
        after = frames_per_stream(test::read_stats_file(recv_stats));
        for (const auto& [stream, n] : during) {
          if (after[stream] < n + 10) return false;
        }
        return true;
      },
      kRecoveryLimit + 4s);
  const double recovery_s = std::chrono::duration<double>(Clock::now() - link_up).count();
  ASSERT_TRUE(recovered) << "frames did not flow again within " << recovery_s << " s";
  EXPECT_LT(recovery_s, std::chrono::duration<double>(kRecoveryLimit).count());
  RecordProperty("recovery_ms", static_cast<int>(recovery_s * 1000));
  std::printf("[ %s ] frames flowing again %.2f s after the link came back\n", transport.c_str(),
              recovery_s);

  // Back at nominal rate: each stream shows two consecutive intervals (the first could be the
  // burst of the few frames the sender held) at >= 80 % of its rate, written after the link
  // came back.
  std::map<int, double> back_at_s;
  test::eventually(
      [&] {
        const auto lines = test::read_stats_file(recv_stats);
        std::map<int, int> consecutive;
        for (std::size_t i = lines_before_recovery; i < lines.size(); ++i) {
          const auto& j = lines[i];
          if (j.value("type", "") != "interval" || j.value("role", "") != "recv") continue;
          const int stream = j.value("stream", -1);
          const bool nominal = j.value("mbps", 0.0) >= kNominalFraction * kRateMbps;
          consecutive[stream] = nominal ? consecutive[stream] + 1 : 0;
          if (!back_at_s.count(stream) && consecutive[stream] >= 2) {
            back_at_s[stream] = std::chrono::duration<double>(Clock::now() - link_up).count();
          }
        }
        return back_at_s.size() == kStreams;
      },
      kNominalRateLimit);
  EXPECT_EQ(back_at_s.size(), static_cast<std::size_t>(kStreams))
      << "not every feed got back to " << kNominalFraction * kRateMbps << " Mbps within "
      << std::chrono::duration<double>(kNominalRateLimit).count() << " s";
  for (const auto& [stream, s] : back_at_s) {
    std::printf("[ %s ] stream %d back at nominal rate %.2f s after the link came back\n",
                transport.c_str(), stream, s);
  }

  ASSERT_TRUE(sender.wait_for(40s)) << "sender did not finish";
  ASSERT_TRUE(receiver.wait_for(20s)) << "receiver did not finish after the feeds ended";
  // Drops fail the verdict (exit 3), which is expected here; a runtime failure (1) is not.
  EXPECT_EQ(sender.exit_code(), 3) << "see " << file("send.err");
  EXPECT_EQ(receiver.exit_code(), 3) << "see " << file("recv.err");

  const auto recv_lines = test::read_stats_file(recv_stats),
             send_lines = test::read_stats_file(send_stats);
  const auto recv_summary = test::last_line(recv_lines, "summary");
  const auto send_summary = test::last_line(send_lines, "summary");
  ASSERT_TRUE(recv_summary && send_summary);
  EXPECT_EQ(recv_summary->value("checksum_errors", 1ULL), 0u);
  const auto sender_drops = send_summary->value("drops", 0ULL);
  const auto receiver_drops = recv_summary->value("drops", 0ULL);
  std::printf("[ %s ] sender drops %llu, receiver drops %llu, frames sent %llu received %llu\n",
              transport.c_str(), static_cast<unsigned long long>(sender_drops),
              static_cast<unsigned long long>(receiver_drops),
              static_cast<unsigned long long>(send_summary->value("frames", 0ULL)),
              static_cast<unsigned long long>(recv_summary->value("frames", 0ULL)));
  // A 2 s outage is ~60 frame periods per feed; the sender holds at most --latency (120 ms,
  // 4 frames) of them, so it must have dropped most of them.
  EXPECT_GT(sender_drops, static_cast<std::uint64_t>(kStreams) * 40);
  // Every frame is accounted for, on both ends: delivered or counted as dropped.
  const auto sent_frames = send_summary->value("frames", 0ULL);
  const auto received_frames = recv_summary->value("frames", 0ULL);
  EXPECT_EQ(received_frames + receiver_drops, sent_frames + sender_drops);
  if (transport == "tcp") {
    // What TCP carries it delivers: the connection survives the outage (retransmission, no
    // reset), so every frame the sender wrote arrives, and the frames the sender dropped are
    // exactly the receiver's sequence gaps.
    EXPECT_EQ(receiver_drops, sender_drops);
  } else {
    // mtcp waits for a frame's missing chunks only within its latency budget (120 ms): frames
    // in flight when the link went down are given up too, at most the sender's resend window
    // (the budget's frames and a few) per feed.
    EXPECT_GE(receiver_drops, sender_drops);
    EXPECT_LE(receiver_drops - sender_drops, static_cast<std::uint64_t>(kStreams) * 8);
  }

  const auto link = wan.stats();
  std::uint64_t outage_drops = 0;
  for (const auto& d : link.directions) outage_drops += d.outage_drops;
  EXPECT_GT(outage_drops, 0u);  // the outage really cut traffic
}

// A path that goes silent (no resets: the link emulator drops everything) for 7 s, longer than
// each transport's session timeout: SRT's peer-idle timeout and TCP's stall timeout
// (TCP_USER_TIMEOUT, transport/tcp_tuning.hpp), both 5 s, so both ends see their sessions die.
// The receiver keeps the stream's slot, the sender keeps reconnecting (--reconnect's default),
// and the feed resumes within 3 s of the path's return (one bounded connect attempt and its
// backoff). Without the stall timeout TCP's retransmission backoff resumed it 5.6 s after the
// path's return (its next RTO, at 12.6 s), and after a 60 s cut ~50 s after, with no outage seen.
class SilentPath : public LinkFlap {};

TEST_P(SilentPath, SessionsBreakAndTheFeedResumesWithinSecondsOfThePathsReturn) {
  const std::string transport = GetParam();
  constexpr auto kSilence = 7s;
  constexpr double kResumeLimitS = 3.0;
  linkemu::Emulator wan(linkemu::parse_topology_text(
      "[link]\nrtt = \"4ms\"\nrate = \"1G\"\n[[site]]\nname = \"a\"\n[[site]]\nname = \"b\"\n",
      "silent_path"));
  wan.up();
  const std::string listen = "198.18.1.1:9100";
  const std::string recv_stats = file("recv.jsonl"), send_stats = file("send.jsonl");
  NetnsProcess receiver(wan.netns("b"),
                        {HDSTREAM_BINARY, "recv", "--listen", listen, "--transport", transport,
                         "--stats", "json", "--stats-file", recv_stats, "--interval", "250ms"},
                        file("recv.out"), file("recv.err"));
  NetnsProcess sender(wan.netns("a"),
                      {HDSTREAM_BINARY, "send", "--dest", listen, "--transport", transport,
                       "--rate", "20M", "--rtt", "4ms", "--duration", "22s", "--stats", "json",
                       "--stats-file", send_stats, "--interval", "250ms"},
                      file("send.out"), file("send.err"));
  ASSERT_TRUE(test::eventually(
      [&] { return frames_per_stream(test::read_stats_file(recv_stats))[0] >= 30; }, 20s))
      << "the feed never started; see " << dir_;

  wan.set_link_down(true);
  std::this_thread::sleep_for(kSilence);  // the outage itself: its length is the scenario
  EXPECT_FALSE(receiver.wait_for(0s)) << "the receiver exited during the outage";
  EXPECT_FALSE(sender.wait_for(0s)) << "the sender exited during the outage";
  const auto during = frames_per_stream(test::read_stats_file(recv_stats))[0];
  wan.set_link_down(false);
  const auto link_up = Clock::now();
  ASSERT_TRUE(test::eventually(
      [&] { return frames_per_stream(test::read_stats_file(recv_stats))[0] >= during + 15; }, 8s))
      << "the feed did not resume; see " << dir_;
  // 15 frames are half a second: the feed was back half a second before this.
  const double resume_s = std::chrono::duration<double>(Clock::now() - link_up).count() - 0.5;
  std::printf("[ %s ] the feed resumed %.2f s after the path came back\n", transport.c_str(),
              resume_s);
  EXPECT_LT(resume_s, kResumeLimitS);

  ASSERT_TRUE(sender.wait_for(40s)) << "sender did not finish";
  ASSERT_TRUE(receiver.wait_for(20s)) << "receiver did not finish after the feed ended";
  EXPECT_EQ(sender.exit_code(), 3) << "see " << file("send.err");
  EXPECT_EQ(receiver.exit_code(), 3) << "see " << file("recv.err");
  const auto recv_lines = test::read_stats_file(recv_stats),
             send_lines = test::read_stats_file(send_stats);
  const double silence_s = std::chrono::duration<double>(kSilence).count();
  for (const auto* lines : {&recv_lines, &send_lines}) {
    const auto outage = test::last_line(*lines, "outage");
    ASSERT_TRUE(outage) << "no outage line; see " << dir_;
    EXPECT_EQ(outage->value("outages", 0), 1) << outage->dump();
    EXPECT_FALSE(outage->value("in_progress", true));
    // The session dies after its 5 s timeout and comes back after the path: at least the
    // silence minus the timeout, at most the silence and the resumption.
    EXPECT_GE(outage->value("outage_s", 0.0), silence_s - 5.5) << outage->dump();
    EXPECT_LE(outage->value("outage_s", 0.0), silence_s + kResumeLimitS) << outage->dump();
    // At least the frames of the outage itself (the receiver's count spans the whole silence;
    // the sender's SRT buffer took frames until its session died).
    EXPECT_GE(outage->value("frames_lost", 0), static_cast<int>((silence_s - 5.5) * 29.97))
        << outage->dump();
  }
  const auto recv_summary = test::last_line(recv_lines, "summary");
  ASSERT_TRUE(recv_summary);
  EXPECT_EQ(recv_summary->value("checksum_errors", 1ULL), 0u);
}

INSTANTIATE_TEST_SUITE_P(Transports, LinkFlap, ::testing::Values("tcp", "mtcp"),
                         [](const auto& param_info) { return param_info.param; });
INSTANTIATE_TEST_SUITE_P(Transports, SilentPath, ::testing::Values("tcp", "mtcp", "srt"),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace hdstream::wan
