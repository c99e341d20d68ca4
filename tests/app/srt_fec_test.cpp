// --srt-fec end to end on loopback: hdstream recv and send as separate processes over real
// libsrt. Whichever end asks for FEC, every frame arrives and both ends' "link" lines carry the
// FEC figures; two ends that ask for different matrices are refused with a clear line on each.
// (Loopback loses nothing, so nothing is recovered here: tests/wan/srt_fec_test.cpp is the
// lossy path.)
#include <gtest/gtest.h>

#include <csignal>

#include "tests/support/eventually.hpp"
#include "tests/support/process.hpp"
#include "tests/support/stats_lines.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

struct FecRun {
  std::string sent;
  std::string received;
};

// One 50 Mbps feed for 3 s; extra arguments for each end.
FecRun run_feed(const std::string& name, const std::vector<std::string>& recv_extra,
                const std::vector<std::string>& send_extra) {
  auto dir = test::scratch_dir(name);
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  std::vector<std::string> recv_args{HDSTREAM_BINARY, "recv",
                                     "--listen",      address,
                                     "--transport",   "srt",
                                     "--stats",       "json",
                                     "--duration",    "60s",
                                     "--interval",    "500ms",
                                     "--stats-file",  (dir / "r.jsonl").string()};
  std::vector<std::string> send_args{
      HDSTREAM_BINARY, "send",  "--dest",       address,
      "--transport",   "srt",   "--rate",       "50M",
      "--duration",    "3s",    "--stats",      "json",
      "--interval",    "500ms", "--stats-file", (dir / "s.jsonl").string()};
  recv_args.insert(recv_args.end(), recv_extra.begin(), recv_extra.end());
  send_args.insert(send_args.end(), send_extra.begin(), send_extra.end());
  test::Process recv(recv_args, dir, "recv");
  test::Process send(send_args, dir, "send");
  EXPECT_EQ(send.wait(60s), 0) << send.err();
  EXPECT_EQ(recv.wait(60s), 0) << recv.err();
  return FecRun{test::read_file(dir / "s.jsonl"), test::read_file(dir / "r.jsonl")};
}

void expect_every_frame(const FecRun& run) {
  auto sent = test::find_line(run.sent, "summary");
  auto received = test::find_line(run.received, "summary");
  ASSERT_TRUE(sent && received) << run.sent << run.received;
  EXPECT_EQ((*sent)["frames"], 90);  // round(3 s x 29.97 fps)
  EXPECT_EQ((*received)["frames"], 90);
  EXPECT_EQ((*received)["bytes"], (*sent)["bytes"]);
  EXPECT_EQ((*received)["drops"], 0);
  EXPECT_EQ((*received)["checksum_errors"], 0);
}

// The last "link" line of a stats file.
nlohmann::json last_link(const std::string& stats) {
  nlohmann::json last;
  for (const auto& line : test::json_lines(stats)) {
    if (line["type"] == "link") last = line;
  }
  return last;
}

// The FEC packets of a 10 x 5 matrix: a row packet per 10 data packets and a column packet per
// 5, at most 30 % more. 3 s at 50 Mbps in 1404-byte chunks is ~13,400 data packets, ~4,000 FEC
// packets; measured 3,568 in the sender's last line (the last packets leave after it) and 3,701
// at the receiver (the staircase leaves the first groups uncovered, the last unfinished): at
// least 20 % here.
constexpr double kDataPackets = 3 * 50e6 / 8 / 1404;

TEST(SrtFecFeeds, ASendersFecCarriesEveryFrameAndBothEndsCountItsPackets) {
  const FecRun run = run_feed("srt-fec", {}, {"--srt-fec", "10,5,staircase"});
  expect_every_frame(run);
  const auto sender = last_link(run.sent), receiver = last_link(run.received);
  ASSERT_TRUE(sender.is_object() && receiver.is_object()) << run.sent << run.received;
  for (const auto* link : {&sender, &receiver}) {
    EXPECT_GE((*link)["fec_packets"].get<double>(), 0.20 * kDataPackets) << *link;
    EXPECT_LE((*link)["fec_packets"].get<double>(), 0.30 * kDataPackets + 100) << *link;
  }
  EXPECT_EQ(receiver["fec_recovered"], 0);  // loopback loses nothing
  EXPECT_EQ(receiver["fec_uncorrectable"], 0);
  EXPECT_EQ(sender["fec_recovered"], 0);  // a sender rebuilds none of the feed's packets
}

TEST(SrtFecFeeds, WithoutFecTheFiguresAreZero) {
  const FecRun run = run_feed("srt-no-fec", {}, {});
  expect_every_frame(run);
  for (const auto* stats : {&run.sent, &run.received}) {
    const auto link = last_link(*stats);
    EXPECT_EQ(link["fec_packets"], 0) << link;
    EXPECT_EQ(link["fec_recovered"], 0) << link;
    EXPECT_EQ(link["fec_uncorrectable"], 0) << link;
  }
}

// A receiver's --srt-fec is taken by a sender that asked for none (libsrt: the caller takes
// the listener's filter), which then sends chunks 4 bytes smaller.
TEST(SrtFecFeeds, AReceiversFecIsTakenByASenderWithoutOne) {
  const FecRun run = run_feed("srt-fec-recv", {"--srt-fec", "fec,cols:8,rows:4"}, {});
  expect_every_frame(run);
  const auto sender = last_link(run.sent);
  // 8 x 4: 1/8 + 1/4 = 37.5 % more packets (as above, a little less is seen).
  EXPECT_GE(sender["fec_packets"].get<double>(), 0.25 * kDataPackets) << sender;
  EXPECT_LE(sender["fec_packets"].get<double>(), 0.375 * kDataPackets + 100) << sender;
}

// 10 x 5 packets of 1452 bytes at 2 Mbps take 290 ms to send, more than the 120 ms latency.
TEST(SrtFecFeeds, AMatrixThatOutlastsTheLatencyIsWarnedAbout) {
  auto dir = test::scratch_dir("srt-fec-slow");
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process recv(
      {HDSTREAM_BINARY, "recv", "--listen", address, "--transport", "srt", "--duration", "20s"},
      dir, "recv");
  test::Process send({HDSTREAM_BINARY, "send", "--dest", address, "--transport", "srt", "--srt-fec",
                      "10,5", "--rate", "2M", "--duration", "1s"},
                     dir, "send");
  EXPECT_EQ(send.wait(30s), 0) << send.err();
  EXPECT_EQ(recv.wait(30s), 0) << recv.err();
  EXPECT_NE(send.err().find("the FEC matrix (50 packets) takes 290.4 ms to send at 2 Mbps, longer "
                            "than the latency 120 ms"),
            std::string::npos)
      << send.err();
}

TEST(SrtFecFeeds, MatricesThatDisagreeAreRefusedWithAClearLineOnBothEnds) {
  auto dir = test::scratch_dir("srt-fec-conflict");
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", address, "--transport", "srt",
                      "--srt-fec", "8,4", "--duration", "20s"},
                     dir, "recv");
  test::Process send({HDSTREAM_BINARY, "send", "--dest", address, "--transport", "srt", "--srt-fec",
                      "10,5", "--rate", "10M", "--duration", "2s", "--connect-timeout", "5s"},
                     dir, "send");
  // Refused at once, not after --connect-timeout's retries.
  EXPECT_EQ(send.wait(4s), 1) << send.err();
  EXPECT_NE(send.err().find("its packet filter does not agree with this sender's --srt-fec "
                            "fec,cols:10,rows:5 (check --srt-fec on both ends)"),
            std::string::npos)
      << send.err();
  ASSERT_TRUE(test::eventually(
      [&] {
        return recv.err().find(
                   "refused an SRT caller: Packet Filter settings error (libsrt "
                   "reject code 1014); check --srt-fec on both ends") != std::string::npos;
      },
      5s))
      << recv.err();
  recv.signal(SIGINT);
  EXPECT_EQ(recv.wait(10s), 130) << recv.err();
}

}  // namespace
}  // namespace hdstream
