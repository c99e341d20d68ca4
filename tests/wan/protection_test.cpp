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
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/media/clip_fixture.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/namespaces.hpp"
#include "tests/support/process.hpp"
#include "tests/support/stats_lines.hpp"
#include "tests/wan/netns_process.hpp"
#include "tools/linkemu/emulator.hpp"
#include "tools/linkemu/topology.hpp"

namespace hdstream::wan {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

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

// Frames a feed of `duration` carries at 29.97 fps (the sender rounds the same way).
std::uint64_t frames_in(std::chrono::duration<double> duration) {
  return static_cast<std::uint64_t>(std::lround(duration.count() * kFps));
}

// Two emulated paths between sites a and b (A: 20 ms, B: 35 ms RTT, 1 Gbps each), a receiver
// in b and a sender in a sending every feed over both, on the test's transport.
class Protection : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (auto why = test::namespaces_unavailable()) GTEST_SKIP() << *why;
  }

  // The paths (path B down at first if asked), this run's directory, and the receiver.
  void start_receiver(const std::string& run, bool path_b_down = false,
                      const std::string& path_rate = "1G", std::vector<std::string> extra = {}) {
    dir_ = std::filesystem::path(WAN_WORK_DIR) / (run + "-" + GetParam());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    wan_ = std::make_unique<linkemu::Emulator>(linkemu::parse_topology_text(
        "[link]\nrtt = \"20ms\"\nrate = \"" + path_rate +
            "\"\nmtu = 9000\n[path_b]\nrtt = \"35ms\"\nrate = \"" + path_rate +
            "\"\nmtu = 9000\n[[site]]\nname = \"a\"\n"
            "[[site]]\nname = \"b\"\n",
        "protection"));
    wan_->up();
    if (path_b_down) wan_->set_path_down(linkemu::Path::b, true);
    std::vector<std::string> args{
        HDSTREAM_BINARY, "recv",     "--listen",     "0.0.0.0:9000",
        "--transport",   GetParam(), "--streams",    std::to_string(streams_),
        "--stats",       "json",     "--stats-file", file("recv.jsonl"),
        "--interval",    "250ms"};
    args.insert(args.end(), extra.begin(), extra.end());
    receiver_ =
        std::make_unique<NetnsProcess>(wan_->netns("b"), args, file("recv.out"), file("recv.err"));
  }

  // The feeds (streams_ of rate_ each) for `duration`, each over both paths, once the receiver
  // listens: both legs then join within the sender's first second (an SRT caller that calls
  // before the listener exists joins a second or more later).
  void start_sender(const std::string& duration, std::vector<std::string> extra = {}) {
    ASSERT_TRUE(test::eventually([&] {
      return test::read_file(file("recv.err")).find("listening on") != std::string::npos;
    })) << "the receiver never listened; see "
        << dir_;
    std::vector<std::string> args{HDSTREAM_BINARY, "send",
                                  "--dest",        "198.18.1.1:9000",
                                  "--dest-b",      "198.19.1.1:9000",
                                  "--transport",   GetParam(),
                                  "--streams",     std::to_string(streams_),
                                  "--rtt",         "35ms",
                                  "--duration",    duration,
                                  "--stats",       "json",
                                  "--stats-file",  file("send.jsonl"),
                                  "--interval",    "250ms"};
    if (!rate_.empty()) args.insert(args.end(), {"--rate", rate_});
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

  // Until every feed's leg `leg` has delivered `frames` more than it had when asked (at most
  // 20 s): the leg carries again after a fault on its path.
  bool leg_advances(const std::string& leg, std::uint64_t frames) const {
    const auto before = latest(received(), "leg", "frames", leg);
    return test::eventually(
        [&] {
          const auto now = latest(received(), "leg", "frames", leg);
          if (now.size() != static_cast<std::size_t>(streams_)) return false;
          return std::all_of(now.begin(), now.end(), [&](const auto& entry) {
            const auto was = before.find(entry.first);
            return entry.second >= (was == before.end() ? 0 : was->second) + frames;
          });
        },
        20s);
  }

  // Every stream's figure is at least `at_least` (and every stream has one).
  bool all_at_least(const std::map<int, std::uint64_t>& values, std::uint64_t at_least) const {
    if (values.size() != static_cast<std::size_t>(streams_)) return false;
    for (const auto& [stream, value] : values) {
      if (value < at_least) return false;
    }
    return true;
  }

  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<json> received() const { return test::read_stats_file(file("recv.jsonl")); }
  std::vector<json> sent() const { return test::read_stats_file(file("send.jsonl")); }

  int streams_ = 2;
  // Each feed's rate (empty: the source's own). srt's at 30 Mbps: at 100 its four connections
  // took 1.34 cores of libsrt's per-packet wakeups and the emulator's; at 30, 0.87.
  std::string rate_ = GetParam() == "srt" ? "30M" : "100M";
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
  EXPECT_EQ((*send_summary)["frames"], streams_ * 480);
  EXPECT_EQ((*recv_summary)["frames"], streams_ * 480);
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
  for (int stream = 0; stream < streams_; ++stream) {
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
  for (int stream = 0; stream < streams_; ++stream) {
    EXPECT_GE(a_frames_at_end.at(stream), a_frames_at_restore.at(stream) + 30)
        << "leg A of stream " << stream << " did not come back";
  }
}

// Path B is down when the show starts: the feed starts at once on path A, and leg B joins when
// its path comes back. Leg B's first connection gives up after --connect-timeout 1s, before the
// path returns, and the leg is retried in the background until it is back (mtcp: a sender
// whose first open failed starts over as a new session).
TEST_P(Protection, PathBDownAtTheStartJoinsWhenItComesBack) {
  start_receiver("protection-late", /*path_b_down=*/true);
  start_sender("12s", {"--connect-timeout", "1s"});
  // The feeds start on leg A alone, while path B is still down.
  ASSERT_TRUE(leg_delivers("a", 30)) << "the feeds did not start on path A; see " << dir_;
  for (const auto& [stream, frames] : latest(received(), "leg", "frames", "b")) {
    EXPECT_EQ(frames, 0u) << "stream " << stream;
  }
  wan_->set_path_down(linkemu::Path::b, false);
  // Leg B joins and carries a second of frames on every feed.
  EXPECT_TRUE(leg_delivers("b", 30)) << "leg B never joined; see " << dir_;

  expect_clean_ends();
  // Leg B came back through the background retries, not its first connection.
  const std::string send_log = test::read_file(file("send.err"));
  for (int stream = 0; stream < streams_; ++stream) {
    EXPECT_NE(send_log.find(fmt::format("stream {}: leg B is back", stream)), std::string::npos)
        << send_log;
  }
  const auto recv_lines = received();
  const auto recv_summary = test::last_line(recv_lines, "summary");
  ASSERT_TRUE(recv_summary);
  // round(12 s x 29.97 fps) = 360 frames per feed, every one delivered once.
  EXPECT_EQ((*recv_summary)["frames"], streams_ * 360);
  EXPECT_EQ((*recv_summary)["drops"], 0);
  // Leg B's session starts at the feed's first frame, so the frames it missed before it joined
  // count as its drops: each leg's frames and drops add up to the feed's.
  const auto b_frames = latest(recv_lines, "leg", "frames", "b");
  const auto b_drops = latest(recv_lines, "leg", "drops", "b");
  for (int stream = 0; stream < streams_; ++stream) {
    EXPECT_GE(b_drops.at(stream), 30u) << "stream " << stream;  // down for over a second
    EXPECT_EQ(b_frames.at(stream) + b_drops.at(stream), 360u) << "stream " << stream;
  }
}

// What each of five feeds over both paths carries here: a third of what this machine (2 cores,
// where the two emulated paths and both ends share the CPU) carried at its limit, so that the
// verdict is the protection's, not the CPU's (a busy neighbour once cost srt 4 frames). At the
// limit: tcp carried SC99's 270 Mbps in 61 of the test's 90 CPU seconds; mtcp 150 Mbps in 56
// (at 270 its sender starved). srt pays libsrt's wakeups for every packet at both ends
// (docs/PERFORMANCE.md): 17 Mbps a feed took 1.25 cores, 8 Mbps 0.81, which passes with one of
// the two cores busy with other work. SC99's full rate over two paths is bench/protection.py's
// figure.
std::string scenario_rate(const std::string& transport) {
  if (transport == "mtcp") return "50M";
  if (transport == "srt") return "8M";
  return "90M";
}

// SC99's five feeds (at a third of this machine's limit, srt at what its wakeups allow:
// scenario_rate) over two OC-48 paths through a run of faults, one after the other: path A cut for
// 5 s, path B losing 2 % of its packets for 10 s, then path A and path B each down for 2 s, at
// different times. Every frame arrives, once. Each leg's own session is what its path alone would
// have delivered: the frames it lacked are the ones the other leg saved, and `protected` counts
// exactly those. The sender's 500 ms budget is SC99's (tests/wan/sc99.toml: BBR's PROBE_RTT; both
// legs' connections start together, so they may probe together).
TEST_P(Protection, FiveFeedsRideOutACutLossAndFlaps) {
  streams_ = 5;
  rate_ = scenario_rate(GetParam());
  // The faults end about 25 s in (srt, CI: 4 s start-up, 5 s cut, 0.4 s to resume, 10 s of
  // loss, two 2 s flaps, each leg back within a second): 8 s to spare.
  constexpr auto kDuration = 33s;
  start_receiver("protection-sc99", /*path_b_down=*/false, "2.488G");
  start_sender("33s", {"--latency", "500ms"});
  // Mid-run: both legs past their start-up (4 s), carrying every feed.
  ASSERT_TRUE(leg_delivers("a", 120) && leg_delivers("b", 120))
      << "the legs never started; see " << dir_;

  // Each fault lasts this long by definition; what follows it is waited for, not slept.
  wan_->set_path_down(linkemu::Path::a, true);
  std::this_thread::sleep_for(kOutage);
  wan_->set_path_down(linkemu::Path::a, false);
  ASSERT_TRUE(leg_advances("a", 30)) << "path A never came back; see " << dir_;

  wan_->set_path_loss(linkemu::Path::b, 0.02);
  std::this_thread::sleep_for(10s);
  wan_->set_path_loss(linkemu::Path::b, 0);

  for (const auto path : {linkemu::Path::a, linkemu::Path::b}) {
    wan_->set_path_down(path, true);
    std::this_thread::sleep_for(2s);
    wan_->set_path_down(path, false);
    ASSERT_TRUE(leg_advances(path == linkemu::Path::a ? "a" : "b", 30))
        << "a path never came back from its flap; see " << dir_;
  }

  expect_clean_ends();
  const auto recv_lines = received(), send_lines = sent();
  const auto recv_summary = test::last_line(recv_lines, "summary");
  const auto send_summary = test::last_line(send_lines, "summary");
  ASSERT_TRUE(recv_summary && send_summary);
  const auto frames = frames_in(kDuration);
  EXPECT_EQ((*send_summary)["frames"], streams_ * frames);
  EXPECT_EQ((*recv_summary)["frames"], streams_ * frames);
  EXPECT_EQ((*recv_summary)["drops"], 0);
  EXPECT_EQ((*recv_summary)["checksum_errors"], 0);
  EXPECT_EQ((*recv_summary)["verdict"], "pass");

  const auto protected_frames = latest(recv_lines, "protection", "protected");
  const auto only_a = latest(recv_lines, "leg", "only_frames", "a");
  const auto only_b = latest(recv_lines, "leg", "only_frames", "b");
  const auto drops_a = latest(recv_lines, "leg", "drops", "a");
  const auto drops_b = latest(recv_lines, "leg", "drops", "b");
  // Path A was down for 7 s in all, path B for 2 s. A leg loses an outage's frames less what
  // carried over it: its sender's queue (the 500 ms budget, 15 frames), its socket buffer (at
  // least kMinBufferBytes, 4 MiB: ~4 frames at 270 Mbps, more as the kernel sizes it) and the
  // emulator's queue, held through a cut (path B's 10.9 MB, ~10 frames). For B's 2 s flap
  // (60 frames) that leaves about 30: 37..47 in runs, 28 once (CI, 2026-11-28), so the bound is
  // half a second of frames. For A's 7 s, 250..270 in runs: at least 5 s of frames.
  const auto a_outage = frames_in(5s), b_outage = frames_in(500ms);
  for (int stream = 0; stream < streams_; ++stream) {
    SCOPED_TRACE("stream " + std::to_string(stream));
    EXPECT_GE(only_b.at(stream), a_outage);
    EXPECT_GE(only_a.at(stream), b_outage);
    // The frames each leg lacked are exactly the ones the other delivered alone.
    EXPECT_EQ(only_b.at(stream), drops_a.at(stream));
    EXPECT_EQ(only_a.at(stream), drops_b.at(stream));
    EXPECT_EQ(protected_frames.at(stream), only_a.at(stream) + only_b.at(stream));
  }
  // The loss was applied: path B's emulation dropped packets (2 % of 10 s of five feeds at the
  // lowest rate, srt's 8 Mbps in 1,456-byte packets: ~690 data packets, and their acks).
  std::uint64_t b_loss_drops = 0;
  for (const auto& direction : wan_->stats().directions) {
    if (direction.path == linkemu::Path::b) b_loss_drops += direction.emulated_loss_drops;
  }
  EXPECT_GT(b_loss_drops, 400u);
}

// What the far end shows: one DNxHD 220 feed (a real clip, decoded by libavcodec, --output
// null) over both paths while path A is cut for 5 s. Every frame is decoded and none waits
// longer than the protection allows: the p99 from frame ready at the sender to decoded at the
// receiver stays within the skew window plus the latency budget.
TEST_P(Protection, DecodedPicturesKeepTheirLatencyThroughACut) {
  constexpr auto kDuration = 14s;
  constexpr double kBudgetMs = 200;
  const auto clip = test::dnxhd_clip(std::filesystem::path(WAN_WORK_DIR) / "media-cache", 30);
  streams_ = 1;
  rate_.clear();
  start_receiver("protection-media", /*path_b_down=*/false, "1G",
                 {"--output", "null", "--latency", "200ms"});
  start_sender("14s",
               {"--format", "dnxhd220", "--source", "file:" + clip.string(), "--latency", "200ms"});
  ASSERT_TRUE(leg_delivers("a", 60) && leg_delivers("b", 60))
      << "the legs never started; see " << dir_;
  wan_->set_path_down(linkemu::Path::a, true);
  std::this_thread::sleep_for(kOutage);  // the fault lasts this long by definition
  wan_->set_path_down(linkemu::Path::a, false);

  expect_clean_ends();
  const auto recv_lines = received();
  const auto summary = test::last_line(recv_lines, "summary");
  const auto media = test::last_line(recv_lines, "media");
  ASSERT_TRUE(summary && media);
  EXPECT_EQ((*summary)["frames"], frames_in(kDuration));
  EXPECT_EQ((*summary)["drops"], 0);
  EXPECT_EQ((*media)["frames_decoded"], frames_in(kDuration));
  EXPECT_EQ((*media)["decode_errors"], 0);
  EXPECT_EQ((*media)["dropped_before_decode"], 0);
  const auto protected_frames = latest(recv_lines, "protection", "protected");
  EXPECT_GE(protected_frames.at(0), frames_in(kOutage) * 95 / 100);  // B carried the cut

  double skew_ms = 0;
  for (const auto& j : recv_lines) {
    if (j.value("type", "") == "protection") skew_ms = std::max(skew_ms, j.value("skew_ms", 0.0));
  }
  const double p50 = (*media)["latency_ms_p50"].get<double>();
  const double p99 = (*media)["latency_ms_p99"].get<double>();
  // Measured p50 / p99: tcp 28 / 37 ms, mtcp 28 / 41 ms, srt 229 / 238..246 ms; the window was
  // 48 to 54 ms. The cut moves the tail by less than the window...
  EXPECT_GT(p50, 10.0);  // at least path A's 10 ms one way: a real measurement
  EXPECT_LE(p99, p50 + skew_ms) << "skew window " << skew_ms << " ms";
  // ...and stays within the window plus the budget, counted from the frame's last packet: a
  // frame's packets leave over up to a frame period, and SRT plays each one out its 200 ms
  // latency after it was sent.
  const double frame_ms = 1000.0 / kFps;
  EXPECT_LE(p99, skew_ms + kBudgetMs + frame_ms) << "skew window " << skew_ms << " ms";
}

INSTANTIATE_TEST_SUITE_P(Transports, Protection, ::testing::Values("tcp", "mtcp", "srt"),
                         [](const auto& param) { return param.param; });

}  // namespace
}  // namespace hdstream::wan
