// Two-path protection through linkemu: two emulated paths between the same two namespaces
// (A: 20 ms, B: 35 ms RTT, 1 Gbps each), real hdstream processes, `send --dest-b`, on each
// transport. Path A is cut for 5 s mid-run: the receiver loses no frame, and counts as
// `protected` the frames that only path B delivered. (srt: leg B's caller announces its leg,
// x-hdstream-leg=1, so the receiver serves it beside leg A on the stream's port. During the cut
// leg A's SRT connection either outlives it, SRT's peer idle timeout being 5 s too, or breaks
// and is reconnected; either way leg B alone carries the cut's frames.) Skipped without root
// or /dev/net/tun.
//   ctest --test-dir build -R Protection
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

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
constexpr auto kOutage = 5s;
constexpr double kFps = 30000.0 / 1001.0;

// The latest cumulative figure `field` of each stream's lines of `type` (leg lines: of `leg`).
std::map<int, std::uint64_t> latest(const std::vector<json>& lines, const std::string& type,
                                    const std::string& field, const std::string& leg = {}) {
  std::map<int, std::uint64_t> values;
  for (const auto& j : lines) {
    if (j.value("type", "") != type) continue;
    if (!leg.empty() && j.value("leg", "") != leg) continue;
    values[j.value("stream", -1)] = j.value(field, 0ULL);
  }
  return values;
}

// Every stream's figure is at least `at_least` (and every stream has one).
bool all_at_least(const std::map<int, std::uint64_t>& values, std::uint64_t at_least) {
  if (values.size() != kStreams) return false;
  for (const auto& [stream, value] : values) {
    if (value < at_least) return false;
  }
  return true;
}

// Two emulated paths between sites a and b (A: 20 ms, B: 35 ms RTT, 1 Gbps each), a receiver
// in b and a sender in a sending every feed over both, on the test's transport.
class Protection : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (auto why = test::namespaces_unavailable()) GTEST_SKIP() << *why;
  }

  // The paths (path B down at first if asked), this run's directory, and the receiver.
  void start_receiver(const std::string& run, bool path_b_down = false) {
    dir_ = std::filesystem::path(WAN_WORK_DIR) / (run + "-" + GetParam());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    wan_ = std::make_unique<linkemu::Emulator>(
        linkemu::parse_topology_text("[link]\nrtt = \"20ms\"\nrate = \"1G\"\nmtu = 9000\n"
                                     "[path_b]\nrtt = \"35ms\"\nrate = \"1G\"\nmtu = 9000\n"
                                     "[[site]]\nname = \"a\"\n[[site]]\nname = \"b\"\n",
                                     "protection"));
    wan_->up();
    if (path_b_down) wan_->set_path_down(linkemu::Path::b, true);
    receiver_ = std::make_unique<NetnsProcess>(
        wan_->netns("b"),
        std::vector<std::string>{HDSTREAM_BINARY, "recv", "--listen", "0.0.0.0:9000", "--transport",
                                 GetParam(), "--streams", std::to_string(kStreams), "--stats",
                                 "json", "--stats-file", file("recv.jsonl"), "--interval", "250ms"},
        file("recv.out"), file("recv.err"));
  }

  // Two 100 Mbps feeds for `duration`, each over both paths.
  void start_sender(const std::string& duration, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{HDSTREAM_BINARY, "send",
                                  "--dest",        "198.18.1.1:9000",
                                  "--dest-b",      "198.19.1.1:9000",
                                  "--transport",   GetParam(),
                                  "--streams",     std::to_string(kStreams),
                                  "--rate",        "100M",
                                  "--rtt",         "35ms",
                                  "--duration",    duration,
                                  "--stats",       "json",
                                  "--stats-file",  file("send.jsonl"),
                                  "--interval",    "250ms"};
    args.insert(args.end(), extra.begin(), extra.end());
    sender_ =
        std::make_unique<NetnsProcess>(wan_->netns("a"), args, file("send.out"), file("send.err"));
  }

  // Both processes ended, each with exit code 0.
  void expect_clean_ends() {
    ASSERT_TRUE(sender_->wait_for(60s)) << "sender did not finish";
    ASSERT_TRUE(receiver_->wait_for(30s)) << "receiver did not finish after the feeds ended";
    EXPECT_EQ(sender_->exit_code(), 0) << "see " << file("send.err");
    EXPECT_EQ(receiver_->exit_code(), 0) << "see " << file("recv.err");
  }

  // Until every feed's leg `leg` has delivered `frames` (at most 20 s).
  bool leg_delivers(const std::string& leg, std::uint64_t frames) const {
    return test::eventually(
        [&] { return all_at_least(latest(received(), "leg", "frames", leg), frames); }, 20s);
  }

  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<json> received() const { return test::read_stats_file(file("recv.jsonl")); }
  std::vector<json> sent() const { return test::read_stats_file(file("send.jsonl")); }

  std::filesystem::path dir_;
  std::unique_ptr<linkemu::Emulator> wan_;  // outlives the processes in its namespaces
  std::unique_ptr<NetnsProcess> receiver_;
  std::unique_ptr<NetnsProcess> sender_;
};

TEST_P(Protection, PathACutForFiveSecondsCostsNoFrame) {
  start_receiver("protection-cut");
  start_sender("16s");
  // Both legs of every feed delivering before path A is cut.
  ASSERT_TRUE(leg_delivers("a", 30) && leg_delivers("b", 30))
      << "the legs never started; see " << dir_;

  wan_->set_path_down(linkemu::Path::a, true);
  // The fault lasts this long by definition; nothing is being waited for.
  std::this_thread::sleep_for(kOutage);
  wan_->set_path_down(linkemu::Path::a, false);
  const auto a_frames_at_restore = latest(received(), "leg", "frames", "a");

  expect_clean_ends();
  const auto recv_lines = received(), send_lines = sent();
  const auto recv_summary = test::last_line(recv_lines, "summary");
  const auto send_summary = test::last_line(send_lines, "summary");
  ASSERT_TRUE(recv_summary && send_summary);
  // round(16 s x 29.97 fps) = 480 frames per feed, every one delivered once.
  EXPECT_EQ((*send_summary)["frames"], kStreams * 480);
  EXPECT_EQ((*recv_summary)["frames"], kStreams * 480);
  EXPECT_EQ((*recv_summary)["drops"], 0);
  EXPECT_EQ((*recv_summary)["verdict"], "pass");

  // While A was cut, path B alone delivered: at least the outage's frames (more: path A is
  // back only once TCP's backoff retries it). Leg A alone carried only the first frames, sent
  // before leg B's longer handshake completed: well under a second's worth.
  const auto protected_frames = latest(recv_lines, "protection", "protected");
  const auto only_b = latest(recv_lines, "leg", "only_frames", "b");
  const auto only_a = latest(recv_lines, "leg", "only_frames", "a");
  const auto outage_frames =
      static_cast<std::uint64_t>(std::chrono::duration<double>(kOutage).count() * kFps * 0.95);
  for (int stream = 0; stream < kStreams; ++stream) {
    EXPECT_GE(only_b.at(stream), outage_frames) << "stream " << stream;
    EXPECT_LE(only_b.at(stream), 480u) << "stream " << stream;
    EXPECT_LT(only_a.at(stream), 30u) << "stream " << stream;
    EXPECT_EQ(protected_frames.at(stream), only_a.at(stream) + only_b.at(stream))
        << "stream " << stream;
  }
  // The skew window, sized from the paths as measured: their 15 ms RTT difference and a frame
  // (48.4 ms), less what smoothed RTTs may be off by, plus 4 x the feeds' jitter (a few ms on
  // these paths; runs measured 48.5 .. 61.6 ms).
  std::vector<double> skews;
  for (const auto& j : recv_lines) {
    if (j.value("type", "") == "protection") skews.push_back(j.value("skew_ms", 0.0));
  }
  ASSERT_FALSE(skews.empty());
  std::nth_element(skews.begin(), skews.begin() + skews.size() / 2, skews.end());
  EXPECT_GE(skews[skews.size() / 2], 45.0);
  EXPECT_LE(skews[skews.size() / 2], 70.0);

  // Path A came back and carried at least a second of frames again before the end.
  const auto a_frames_at_end = latest(recv_lines, "leg", "frames", "a");
  for (int stream = 0; stream < kStreams; ++stream) {
    EXPECT_GE(a_frames_at_end.at(stream), a_frames_at_restore.at(stream) + 30)
        << "leg A of stream " << stream << " did not come back";
  }
}

// Path B is down when the show starts: the feed starts at once on path A, and leg B joins when
// its path comes back. tcp: its first connection gives up after --connect-timeout 1s and the
// leg is retried in the background; mtcp and srt: their first connection is still being
// retried (10 s) when the path returns.
TEST_P(Protection, PathBDownAtTheStartJoinsWhenItComesBack) {
  start_receiver("protection-late", /*path_b_down=*/true);
  start_sender("12s", GetParam() == "tcp" ? std::vector<std::string>{"--connect-timeout", "1s"}
                                          : std::vector<std::string>{});
  // The feeds start on leg A alone, while path B is still down.
  ASSERT_TRUE(leg_delivers("a", 30)) << "the feeds did not start on path A; see " << dir_;
  for (const auto& [stream, frames] : latest(received(), "leg", "frames", "b")) {
    EXPECT_EQ(frames, 0u) << "stream " << stream;
  }
  wan_->set_path_down(linkemu::Path::b, false);
  // Leg B joins and carries a second of frames on every feed.
  EXPECT_TRUE(leg_delivers("b", 30)) << "leg B never joined; see " << dir_;

  expect_clean_ends();
  const auto recv_lines = received();
  const auto recv_summary = test::last_line(recv_lines, "summary");
  ASSERT_TRUE(recv_summary);
  // round(12 s x 29.97 fps) = 360 frames per feed, every one delivered once.
  EXPECT_EQ((*recv_summary)["frames"], kStreams * 360);
  EXPECT_EQ((*recv_summary)["drops"], 0);
  // Leg B's session starts at the feed's first frame, so the frames it missed before it joined
  // count as its drops: each leg's frames and drops add up to the feed's.
  const auto b_frames = latest(recv_lines, "leg", "frames", "b");
  const auto b_drops = latest(recv_lines, "leg", "drops", "b");
  for (int stream = 0; stream < kStreams; ++stream) {
    EXPECT_GE(b_drops.at(stream), 30u) << "stream " << stream;  // down for over a second
    EXPECT_EQ(b_frames.at(stream) + b_drops.at(stream), 360u) << "stream " << stream;
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, Protection, ::testing::Values("tcp", "mtcp", "srt"),
                         [](const auto& param) { return param.param; });

}  // namespace
}  // namespace hdstream::wan
