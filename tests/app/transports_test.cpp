// mtcp and srt end to end: hdstream recv and hdstream send as separate processes on loopback,
// five feeds for 10 s at 90 Mbps (a third of SC99's rate), every chunk and frame verified; SRT
// passphrase refusal; bounded stop.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "tests/support/process.hpp"
#include "tests/support/stats_lines.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

struct FeedRun {
  std::string sent;
  std::string received;
};

// A UDP/TCP base port with `count` ports above it free a moment ago (SRT uses base + stream).
int free_port_range(int count) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    const int base = test::free_port();
    if (base + count < 65000) return base;
  }
  return 40000;
}

void expect_clean_run(const std::string& transport, const FeedRun& run, double feed_mbps) {
  auto sent = test::find_line(run.sent, "summary");
  auto received = test::find_line(run.received, "summary");
  ASSERT_TRUE(sent && received) << run.sent << run.received;
  // round(10 s x 29.97 fps) = 300 frames per feed.
  EXPECT_EQ((*sent)["frames"], 1500);
  EXPECT_EQ((*sent)["drops"], 0);
  EXPECT_EQ((*received)["frames"], 1500);
  EXPECT_EQ((*received)["bytes"], (*sent)["bytes"]);
  EXPECT_EQ((*received)["drops"], 0);
  EXPECT_EQ((*received)["checksum_errors"], 0);
  EXPECT_EQ((*received)["verdict"], "pass");
  EXPECT_NEAR((*received)["mbps"].get<double>(), 5 * feed_mbps, 0.02 * 5 * feed_mbps);
  int interval_lines = 0;
  for (const auto& line : test::json_lines(run.received)) {
    if (line["type"] != "interval") continue;
    ++interval_lines;
    EXPECT_EQ(line["transport"], transport);
    EXPECT_GE(line["rtt_ms"].get<double>(), 0.0);
    EXPECT_LT(line["rtt_ms"].get<double>(), 1000.0);
    // TCP on loopback never loses a segment; SRT may retransmit what the kernel's UDP
    // buffers dropped (every frame's arrival is asserted above).
    if (transport != "srt") {
      EXPECT_EQ(line["retransmits"].get<std::int64_t>(), 0);
    }
  }
  EXPECT_GE(interval_lines, 5 * 9);
}

FeedRun run_feeds(const std::string& name, double feed_mbps,
                  std::vector<std::string> transport_args) {
  auto dir = test::scratch_dir(name);
  const std::string address = "127.0.0.1:" + std::to_string(free_port_range(5));
  std::vector<std::string> recv_args{
      HDSTREAM_BINARY, "recv", "--listen", address, "--streams",    "5",
      "--duration",    "60s",  "--stats",  "json",  "--stats-file", (dir / "r.jsonl").string()};
  std::vector<std::string> send_args{HDSTREAM_BINARY, "send",
                                     "--dest",        address,
                                     "--streams",     "5",
                                     "--rate",        fmt::format("{}M", feed_mbps),
                                     "--duration",    "10s",
                                     "--stats",       "json",
                                     "--stats-file",  (dir / "s.jsonl").string()};
  for (const auto& arg : transport_args) {
    if (arg != "--conns" && arg != "4") recv_args.push_back(arg);
    send_args.push_back(arg);
  }
  test::Process recv(recv_args, dir, "recv");
  test::Process send(send_args, dir, "send");
  EXPECT_EQ(send.wait(60s), 0) << send.err();
  EXPECT_EQ(recv.wait(60s), 0) << recv.err();
  return FeedRun{test::read_file(dir / "s.jsonl"), test::read_file(dir / "r.jsonl")};
}

// Each interval line of an mtcp feed is followed by one "subconn" line per sub-connection, whose
// rates add up to the feed's (the chunk headers make the difference).
void expect_subconnection_lines(const std::string& stats, std::size_t connections,
                                double feed_mbps) {
  std::map<std::pair<double, int>, std::pair<double, double>> feed_vs_subs;  // (t, stream)
  std::map<std::pair<double, int>, std::size_t> subs_per_interval;
  for (const auto& line : test::json_lines(stats)) {
    const auto key = std::make_pair(line.value("t", 0.0), line.value("stream", -1));
    if (line["type"] == "interval") feed_vs_subs[key].first = line["mbps"].get<double>();
    if (line["type"] != "subconn") continue;
    EXPECT_LT(line["index"].get<int>(), static_cast<int>(connections));
    EXPECT_GE(line["rtt_ms"].get<double>(), 0.0);
    EXPECT_EQ(line["reconnects"], 0);
    feed_vs_subs[key].second += line["mbps"].get<double>();
    ++subs_per_interval[key];
  }
  ASSERT_GE(subs_per_interval.size(), 5u * 9);
  for (const auto& [key, count] : subs_per_interval) EXPECT_EQ(count, connections);
  std::size_t busy = 0;
  for (const auto& [key, rates] : feed_vs_subs) {
    if (rates.first < 0.37 * feed_mbps) continue;  // the first and last intervals are partial
    ++busy;
    EXPECT_NEAR(rates.second, rates.first, 0.05 * rates.first) << "t " << key.first;
  }
  EXPECT_GE(busy, 5u * 8);
}

// At a third of SC99's rate, as srt below: at 270 Mbps a feed had no room for this machine's
// other work (a stall of the 2-core machine under CI's load gave up 3 frames of each feed at
// once, past the 120 ms budget). The 270 Mbps figure is bench/transports.py's.
TEST(Transports, MtcpFiveFeedsOverFourConnectionsEachArriveComplete) {
  const FeedRun run = run_feeds("mtcp", 90, {"--transport", "mtcp", "--conns", "4"});
  expect_clean_run("mtcp", run, 90);
  expect_subconnection_lines(run.sent, 4, 90);
  expect_subconnection_lines(run.received, 4, 90);
}

// At a third of SC99's rate: five feeds at 270 Mbps cost libsrt 1.4 of this machine's 2 cores
// (15 CPU s in 10.7 s), so that verdict would be the CPU's. Their capacity is bench/transports.py's
// figure (docs/PERFORMANCE.md, "srt, 5 x 270 Mbps").
TEST(Transports, SrtFiveFeedsArriveComplete) {
  const FeedRun run = run_feeds("srt", 90, {"--transport", "srt"});
  expect_clean_run("srt", run, 90);
  // SRT's own figures ride in "link" lines: nothing lost or dropped on loopback, and the
  // receiver holds about the latency's worth of packets.
  std::size_t link_lines = 0;
  for (const auto& line : test::json_lines(run.received)) {
    if (line["type"] != "link") continue;
    ++link_lines;
    EXPECT_EQ(line["transport"], "srt");
    EXPECT_EQ(line["dropped_packets"], 0);
    EXPECT_LE(line["buffer_ms"].get<double>(), 1000.0);
  }
  EXPECT_GE(link_lines, 5u * 9);
}

// A sender asking for far more latency than the receiver's default: the receiver sizes the
// connection's buffers from what the caller announced (1.5 s at 270 Mbps is ~50 MB, beyond the
// 1 Gbps x 120 ms the listener plans for), so nothing is dropped.
TEST(Transports, SrtReceiverHoldsTheLatencyTheSenderAskedFor) {
  auto dir = test::scratch_dir("srt-latency");
  const std::string address = "127.0.0.1:" + std::to_string(free_port_range(1));
  test::Process recv(
      {HDSTREAM_BINARY, "recv", "--listen", address, "--transport", "srt", "--duration", "60s",
       "--stats", "json", "--stats-file", (dir / "r.jsonl").string()},
      dir, "recv");
  test::Process send({HDSTREAM_BINARY, "send", "--dest", address, "--transport", "srt", "--rate",
                      "270M", "--latency", "1500ms", "--duration", "4s", "--stats", "json",
                      "--stats-file", (dir / "s.jsonl").string()},
                     dir, "send");
  EXPECT_EQ(send.wait(60s), 0) << send.err();
  EXPECT_EQ(recv.wait(60s), 0) << recv.err();
  auto sent = test::find_line(test::read_file(dir / "s.jsonl"), "summary");
  auto received = test::find_line(test::read_file(dir / "r.jsonl"), "summary");
  ASSERT_TRUE(sent && received);
  EXPECT_EQ((*sent)["frames"], 120);  // round(4 s x 29.97 fps)
  EXPECT_EQ((*received)["frames"], 120);
  EXPECT_EQ((*received)["drops"], 0);
  EXPECT_EQ((*received)["verdict"], "pass");
  // And it really held them that long: the receive buffer reached about the latency.
  double most_buffered_ms = 0;
  for (const auto& line : test::json_lines(test::read_file(dir / "r.jsonl"))) {
    if (line["type"] == "link") {
      most_buffered_ms = std::max(most_buffered_ms, line["buffer_ms"].get<double>());
    }
  }
  EXPECT_GT(most_buffered_ms, 1000.0);
}

TEST(Transports, SrtWrongPassphraseIsRefusedWithAClearLineOnBothEnds) {
  auto dir = test::scratch_dir("srt-key");
  std::ofstream(dir / "right.key") << "correct horse battery staple\n";
  std::ofstream(dir / "wrong.key") << "not the right passphrase\n";
  const std::string address = "127.0.0.1:" + std::to_string(free_port_range(1));
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", address, "--transport", "srt",
                      "--key-file", (dir / "right.key").string(), "--duration", "20s"},
                     dir, "recv");
  test::Process send({HDSTREAM_BINARY, "send", "--dest", address, "--transport", "srt",
                      "--key-file", (dir / "wrong.key").string(), "--rate", "10M", "--duration",
                      "2s", "--connect-timeout", "2s"},
                     dir, "send");
  EXPECT_EQ(send.wait(30s), 1) << send.err();
  EXPECT_NE(send.err().find("wrong passphrase"), std::string::npos) << send.err();
  ASSERT_TRUE(test::eventually(
      [&] {
        return recv.err().find("refused an SRT caller: Incorrect passphrase") != std::string::npos;
      },
      5s))
      << recv.err();
  recv.signal(SIGINT);
  EXPECT_EQ(recv.wait(10s), 130) << recv.err();
}

// One feed striped over three SRT connections by the real binaries: stripe 0 on the stream's
// port, stripes 1 and 2 on port + 1 and port + 2 (the receiver serves one stream), each stripe a
// `subconn` line, every frame and byte verified.
TEST(Transports, SrtOneFeedStripedOverThreeConnectionsDeliversEveryFrame) {
  auto dir = test::scratch_dir("srt-stripes");
  const std::string address = "127.0.0.1:" + std::to_string(free_port_range(3));
  test::Process recv(
      {HDSTREAM_BINARY, "recv", "--listen", address, "--transport", "srt", "--duration", "60s",
       "--stats", "json", "--stats-file", (dir / "r.jsonl").string()},
      dir, "recv");
  test::Process send(
      {HDSTREAM_BINARY, "send", "--dest", address, "--transport", "srt", "--conns", "3", "--rate",
       "500M", "--duration", "5s", "--stats", "json", "--stats-file", (dir / "s.jsonl").string()},
      dir, "send");
  EXPECT_EQ(send.wait(60s), 0) << send.err();
  EXPECT_EQ(recv.wait(60s), 0) << recv.err();
  const std::string sent_lines = test::read_file(dir / "s.jsonl");
  const std::string received_lines = test::read_file(dir / "r.jsonl");
  auto sent = test::find_line(sent_lines, "summary");
  auto received = test::find_line(received_lines, "summary");
  ASSERT_TRUE(sent && received) << sent_lines << received_lines;
  EXPECT_EQ((*sent)["frames"], 150);  // round(5 s x 29.97 fps)
  EXPECT_EQ((*sent)["drops"], 0);
  EXPECT_EQ((*received)["frames"], 150);
  EXPECT_EQ((*received)["bytes"], (*sent)["bytes"]);
  EXPECT_EQ((*received)["drops"], 0);
  EXPECT_EQ((*received)["checksum_errors"], 0);
  EXPECT_EQ((*received)["verdict"], "pass");
  std::map<int, std::int64_t> stripe_bytes;
  for (const auto& line : test::json_lines(received_lines)) {
    if (line["type"] == "subconn") stripe_bytes[line["index"].get<int>()] = line["bytes"];
  }
  ASSERT_EQ(stripe_bytes.size(), 3u) << received_lines;
  for (const auto& [stripe, bytes] : stripe_bytes) EXPECT_GT(bytes, 0) << "stripe " << stripe;
  EXPECT_NE(recv.err().find("striped over 3 connections"), std::string::npos) << recv.err();
}

TEST(Transports, SrtFeedsStopInBoundedTimeOnInterrupt) {
  auto dir = test::scratch_dir("srt-stop");
  const std::string address = "127.0.0.1:" + std::to_string(free_port_range(2));
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", address, "--streams", "2", "--transport",
                      "srt", "--stats", "json", "--interval", "100ms"},
                     dir, "recv");
  test::Process send({HDSTREAM_BINARY, "send", "--dest", address, "--streams", "2", "--transport",
                      "srt", "--rate", "50M", "--stats", "json"},
                     dir, "send");
  ASSERT_TRUE(test::eventually([&] {
    auto aggregate = test::find_line(recv.out(), "aggregate");
    return aggregate && (*aggregate)["mbps"].get<double>() > 10.0;
  })) << recv.err()
      << send.err();
  const auto start = std::chrono::steady_clock::now();
  send.signal(SIGINT);
  recv.signal(SIGINT);
  EXPECT_EQ(send.wait(5s), 130) << send.err();
  EXPECT_EQ(recv.wait(5s), 130) << recv.err();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

// Three feeds at a modest rate over each transport: cheap enough for the sanitizer stages
// (scripts/test.sh runs these under TSan), where a data race aborts a process and fails the
// test; in the normal build they are a quick end-to-end check of every transport.
class ThreeFeeds : public ::testing::TestWithParam<std::string> {};

TEST_P(ThreeFeeds, ArriveCompleteAndVerified) {
  const std::string transport = GetParam();
  auto dir = test::scratch_dir("three-" + transport);
  const std::string address = "127.0.0.1:" + std::to_string(free_port_range(3));
  std::vector<std::string> common{"--streams", "3", "--transport", transport, "--stats", "json"};
  std::vector<std::string> recv_args{
      HDSTREAM_BINARY, "recv", "--listen",     address,
      "--duration",    "60s",  "--stats-file", (dir / "r.jsonl").string()};
  std::vector<std::string> send_args{
      HDSTREAM_BINARY, "send",       "--dest", address,        "--rate",
      "50M",           "--duration", "3s",     "--stats-file", (dir / "s.jsonl").string()};
  recv_args.insert(recv_args.end(), common.begin(), common.end());
  send_args.insert(send_args.end(), common.begin(), common.end());
  if (transport == "mtcp") send_args.insert(send_args.end(), {"--conns", "3"});
  test::Process recv(recv_args, dir, "recv");
  test::Process send(send_args, dir, "send");
  EXPECT_EQ(send.wait(60s), 0) << send.err();
  EXPECT_EQ(recv.wait(60s), 0) << recv.err();
  auto sent = test::find_line(test::read_file(dir / "s.jsonl"), "summary");
  auto received = test::find_line(test::read_file(dir / "r.jsonl"), "summary");
  ASSERT_TRUE(sent && received);
  EXPECT_EQ((*sent)["frames"], 3 * 90);  // round(3 s x 29.97 fps) per feed
  EXPECT_EQ((*received)["frames"], 3 * 90);
  EXPECT_EQ((*received)["bytes"], (*sent)["bytes"]);
  EXPECT_EQ((*sent)["drops"], 0);
  EXPECT_EQ((*received)["drops"], 0);
  EXPECT_EQ((*received)["checksum_errors"], 0);
}

INSTANTIATE_TEST_SUITE_P(Transports, ThreeFeeds, ::testing::Values("tcp", "mtcp", "srt"),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace hdstream
