// SRT FEC (--srt-fec) on a path where retransmission has one chance at most: 100 ms RTT, 1 %
// random loss each way, SRT latency 150 ms (1.5 x RTT). Two feeds cross the same emulated link
// at the same time, one with libsrt's FEC filter and one without: the FEC feed delivers every
// frame (but, about one run in 200, one), the other drops some. Real hdstream processes in two
// linkemu sites; skipped without root or /dev/net/tun.
//   ctest --test-dir build -R SrtFecWan
//
// Why the plain feed drops frames at 1.5 x RTT: a lost packet is reported (NAK) as soon as the
// next one arrives and its retransmission lands ~1 RTT after the original would have, inside
// the 150 ms. But if that NAK or that retransmission is lost too (1 % each), the next report
// comes from libsrt's periodic NAK at least ~RTT/2 later, and the second retransmission lands
// after the packet's play time: it is dropped, and its frame with it. So ~2 % of the losses
// become drops (measured 1.3-2.8 %: 11-22 of ~800 losses in the runs below).
//
// The numbers (per feed): 80 Mbps for 12 s at 29.97 fps is 360 frames of 333,667 bytes, 238
// packets each (1404- or 1408-byte chunks): N ~ 85,700 data packets, ~857 of them lost.
// - FEC off: expected packet drops ~ 857 x 1.5 % ~ 13 (at the low end of what was measured);
//   P(no frame dropped) ~ e^-13 ~ 2e-6. Measured over 7 runs (one beside two busy loops on a
//   machine at load 5): 12, 15, 16, 16, 16, 20 and one unprinted, of 360 frames.
// - FEC on (10 x 5, arq:always: retransmission runs beside FEC): a packet is lost for good only
//   if FEC cannot rebuild it (at least its row's and its column's FEC packets lost with it,
//   p^3 = 1e-6; measured ~3e-6: 3 packets in 10 runs of ~100k that FEC did not rebuild, every
//   one retransmitted in time) and its single retransmission fails as well (~2 %):
//   85,700 x 3e-6 x 0.02 ~ 5e-3 expected drops, so about 1 run in 200 may see one (1 in 600
//   with p^3). That is this scenario's physics, not a tolerance: FEC leaves a residual loss,
//   and ARQ covers most of it. Measured: 0 drops in the same 7 runs, every loss (810-860 a run)
//   rebuilt by FEC.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/namespaces.hpp"
#include "tests/support/stats_lines.hpp"
#include "tests/wan/netns_process.hpp"
#include "tools/linkemu/emulator.hpp"
#include "tools/linkemu/topology.hpp"

namespace hdstream::wan {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

constexpr int kFrames = 360;  // round(12 s x 29.97 fps)
constexpr double kDataPackets = kFrames * 238.0;
constexpr double kLoss = 0.01;

// One feed across the link: a receiver in site b, its sender in site a.
struct Feed {
  std::string name;
  std::unique_ptr<NetnsProcess> receiver, sender;
  std::string recv_stats, send_stats, recv_err;
};

class SrtFecWan : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = test::namespaces_unavailable()) GTEST_SKIP() << *why;
    dir_ = std::filesystem::path(WAN_WORK_DIR) / "srt-fec";
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  Feed start_feed(const linkemu::Emulator& wan, const std::string& name, int port,
                  const std::vector<std::string>& fec) {
    Feed feed{name,
              nullptr,
              nullptr,
              file(name + "-recv.jsonl"),
              file(name + "-send.jsonl"),
              file(name + "-recv.err")};
    const std::string address = "198.18.1.1:" + std::to_string(port);
    feed.receiver = std::make_unique<NetnsProcess>(
        wan.netns("b"),
        std::vector<std::string>{HDSTREAM_BINARY, "recv", "--listen", address, "--transport", "srt",
                                 "--latency", "150ms", "--duration", "60s", "--stats", "json",
                                 "--stats-file", feed.recv_stats},
        file(name + "-recv.out"), feed.recv_err);
    std::vector<std::string> send{
        HDSTREAM_BINARY, "send", "--dest",  address, "--transport",  "srt",
        "--rate",        "80M",  "--rtt",   "100ms", "--latency",    "150ms",
        "--duration",    "12s",  "--stats", "json",  "--stats-file", feed.send_stats};
    send.insert(send.end(), fec.begin(), fec.end());
    feed.sender = std::make_unique<NetnsProcess>(wan.netns("a"), send, file(name + "-send.out"),
                                                 file(name + "-send.err"));
    return feed;
  }

  std::filesystem::path dir_;
};

TEST_F(SrtFecWan, FecRebuildsWhatRetransmissionAloneDropsFramesFor) {
  linkemu::Emulator wan(
      linkemu::parse_topology_text("[link]\nrtt = \"100ms\"\nrate = \"1G\"\nloss = 0.01\n"
                                   "[[site]]\nname = \"a\"\n[[site]]\nname = \"b\"\n",
                                   "srt_fec"));
  wan.up();
  Feed off = start_feed(wan, "off", 9000, {});
  Feed on = start_feed(wan, "on", 9100, {"--srt-fec", "fec,cols:10,rows:5,arq:always"});

  for (Feed* feed : {&off, &on}) {
    ASSERT_TRUE(feed->sender->wait_for(60s)) << feed->name << " sender did not finish";
    ASSERT_TRUE(feed->receiver->wait_for(30s)) << feed->name << " receiver did not finish";
  }
  // The emulator, not the path, losing packets would make this test meaningless.
  const auto link = wan.stats();
  ASSERT_FALSE(link.overloaded()) << wan.stats_json().dump();
  for (const auto& d : link.directions) {
    const double loss = static_cast<double>(d.emulated_loss_drops) / d.packets_in;
    EXPECT_NEAR(loss, kLoss, 0.25 * kLoss) << d.from << "->" << d.to;
  }

  json summary[2], links[2];
  for (Feed* feed : {&off, &on}) {
    const auto lines = test::read_stats_file(feed->recv_stats);
    const auto s = test::last_line(lines, "summary");
    const auto l = test::last_line(lines, "link");
    ASSERT_TRUE(s && l) << feed->name << ": see " << dir_;
    const int i = feed == &on;
    summary[i] = *s;
    links[i] = *l;
    const auto sent = test::last_line(test::read_stats_file(feed->send_stats), "summary");
    ASSERT_TRUE(sent);
    EXPECT_EQ((*sent)["frames"], kFrames) << feed->name;
    EXPECT_EQ((*sent)["drops"], 0) << feed->name;
    EXPECT_EQ((*s)["checksum_errors"], 0) << feed->name;
    // Every frame is accounted for: delivered or counted as dropped.
    EXPECT_EQ((*s)["frames"].get<int>() + (*s)["drops"].get<int>(), kFrames) << feed->name;
    std::printf(
        "[ %s ] frames %d, dropped %d; SRT lost %d, dropped %d packets; FEC packets %d, "
        "recovered %d\n",
        feed->name.c_str(), (*s)["frames"].get<int>(), (*s)["drops"].get<int>(),
        (*l)["lost_packets"].get<int>(), (*l)["dropped_packets"].get<int>(),
        (*l)["fec_packets"].get<int>(), (*l)["fec_recovered"].get<int>());
  }

  // FEC off: some of the ~857 losses were not retransmitted in time.
  EXPECT_GT(summary[0]["drops"], 0) << summary[0];
  EXPECT_GT(links[0]["dropped_packets"], 0) << links[0];
  EXPECT_EQ(links[0]["fec_packets"], 0);
  EXPECT_EQ(off.receiver->exit_code(), 3) << "drops fail the verdict; see " << off.recv_err;
  EXPECT_EQ(off.sender->exit_code(), 3) << "the far end's drops fail the sender's verdict too";

  // FEC on: most losses rebuilt by FEC, the rest retransmitted, and 1/10 + 1/5 more packets for
  // it (the first and last groups of a run are not all complete). The residual (see the top:
  // about one run in 200 drops one frame; seen once in CI, 843 of 844 losses rebuilt and the
  // last one's retransmission lost) is allowed once; two or more is a regression.
  EXPECT_LE(summary[1]["drops"].get<int>(), 1) << summary[1];
  EXPECT_LE(links[1]["dropped_packets"].get<int>(), 1) << links[1];
  EXPECT_LT(summary[1]["drops"].get<int>() * 5, summary[0]["drops"].get<int>())
      << "FEC must spare most of the frames retransmission alone loses";
  // The path did hit it: ~857 data packets lost (sigma ~29; measured 1.0 % of the data packets).
  const double lost = links[1]["lost_packets"].get<double>();
  EXPECT_NEAR(lost, kLoss * kDataPackets, 0.25 * kLoss * kDataPackets) << links[1];
  EXPECT_GE(links[1]["fec_recovered"].get<double>(), 0.95 * lost) << links[1];
  EXPECT_GE(links[1]["fec_packets"].get<double>(), 0.25 * kDataPackets) << links[1];
  EXPECT_LE(links[1]["fec_packets"].get<double>(), 0.30 * kDataPackets + 100) << links[1];
  // The verdict follows the drops (a dropped frame fails it).
  const int verdict_code = summary[1]["drops"] == 0 ? 0 : 3;
  EXPECT_EQ(on.receiver->exit_code(), verdict_code) << "see " << on.recv_err;
  EXPECT_EQ(on.sender->exit_code(), verdict_code) << "see " << file("on-send.err");
}

}  // namespace
}  // namespace hdstream::wan
