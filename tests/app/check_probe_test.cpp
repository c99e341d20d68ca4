// `hdstream check`'s capacity probe against a receiver whose feeds are running, on tcp, mtcp and
// srt: the probe runs beside the feeds (also on the stream ids they hold), the receiver measures
// it apart and reports it back, and the feeds lose nothing and never see it. Real processes on
// loopback; a stranger's probe HELLO with absurd values is refused in one line.
#include <gtest/gtest.h>

#include <csignal>
#include <random>
#include <sstream>

#include "protocol/handshake.hpp"
#include "tests/security/hostile_peer.hpp"
#include "tests/security/process_helpers.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

constexpr int kFeeds = 2;          // on stream ids 0 and 1
constexpr int kStreamsServed = 3;  // stream 2 has no feed
constexpr double kProbeMbpsPerStream = 40.0;

std::size_t count_lines(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) count += line.find(needle) != std::string::npos;
  return count;
}

class CapacityProbe : public ::testing::TestWithParam<std::string> {};

TEST_P(CapacityProbe, MeasuresThePathBesideRunningFeedsWhichLoseNothingAndNeverSeeIt) {
  const std::string transport = GetParam();
  auto dir = test::scratch_dir("check-probe-" + transport);
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port(kStreamsServed));
  // --latency 1s everywhere: this test is about the probe's isolation, not latency, and SRT
  // drops packets it cannot play within its latency; under ThreadSanitizer on a loaded 2-core
  // machine a process stalls beyond 120 ms (seen: 4 probe frames lost to "too late to play").
  test::Process recv(
      {HDSTREAM_BINARY, "recv", "--listen", address, "--streams", std::to_string(kStreamsServed),
       "--transport", transport, "--latency", "1s", "--stats", "json", "--interval", "200ms"},
      dir, "recv");
  ASSERT_TRUE(test::eventually([&] {
    return recv.err().find("listening on") != std::string::npos;
  })) << recv.err();
  test::Process send(
      {HDSTREAM_BINARY, "send", "--dest", address, "--streams", std::to_string(kFeeds),
       "--transport", transport, "--rate", "50M", "--latency", "1s", "--duration", "14s", "--stats",
       "json", "--interval", "200ms"},
      dir, "send");
  for (int stream = 0; stream < kFeeds; ++stream) {
    ASSERT_TRUE(test::frames_grow([&] { return recv.out(); }, stream, 10)) << recv.err();
  }
  std::vector<long> frames_before;
  for (int stream = 0; stream < kFeeds; ++stream) {
    frames_before.push_back(test::stream_frames(recv.out(), stream).value_or(0));
  }

  // The probe: one per stream served, so two on stream ids a feed holds and one on a free one.
  // The path is planned at 20 ms so that the RTT item (a connect's round trip, several ms on a
  // loaded 2-core machine or under TSan) does not decide a test of the probe.
  const auto check_started = std::chrono::steady_clock::now();
  test::Process check({HDSTREAM_BINARY, "check", "--dest", address, "--streams",
                       std::to_string(kStreamsServed), "--transport", transport, "--rate", "40M",
                       "--rtt", "20ms", "--latency", "1s", "--duration", "2s", "--stats", "json"},
                      dir, "check");
  ASSERT_EQ(check.wait(60s), 0) << check.out() << check.err() << recv.err();
  const double check_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - check_started).count();
  auto result = test::find_line(check.out(), "check");
  ASSERT_TRUE(result) << check.out();
  EXPECT_EQ((*result)["verdict"], "pass") << check.out();
  const auto& probe = (*result)["probe"];
  const double planned_mbps = kStreamsServed * kProbeMbpsPerStream;
  EXPECT_EQ(probe["streams"], kStreamsServed);
  EXPECT_EQ(probe["drops"], 0);
  EXPECT_NEAR(probe["mbps"].get<double>(), planned_mbps, 0.05 * planned_mbps);
  // What the receiver measured and sent back, not what the sender sent.
  const auto& received = probe["received"];
  EXPECT_GE(received["reports"].get<long>(), kStreamsServed) << probe;
  EXPECT_EQ(received["bytes"], probe["bytes"]);
  EXPECT_EQ(received["frames"], probe["frames"]);
  EXPECT_GT(received["frames"].get<long>(), 0);
  EXPECT_EQ(received["drops"], 0);
  EXPECT_EQ(received["checksum_errors"], 0);
  EXPECT_NEAR(received["mbps"].get<double>(), planned_mbps, 0.05 * planned_mbps);
  EXPECT_GE(received["jitter_ms"].get<double>(), 0.0);
  std::cout << "[ measured ] " << transport << " probe: sent " << probe["mbps"]
            << " Mbps, receiver verified " << received["mbps"] << " Mbps in " << received["frames"]
            << " frames, jitter " << received["jitter_ms"] << " ms\n";

  // The feeds flowed through the probe: still running once it ended, at their rate meanwhile.
  for (int stream = 0; stream < kFeeds; ++stream) {
    const long during = test::stream_frames(recv.out(), stream).value_or(0) - frames_before[stream];
    EXPECT_GE(during, static_cast<long>(0.7 * 29.97 * check_s))
        << "stream " << stream << " over " << check_s << " s";
  }
  EXPECT_EQ(send.wait(60s), 0) << send.err();

  // The receiver measured each probe apart, on its own, and the feeds never saw one.
  const std::string log = recv.err();
  EXPECT_EQ(count_lines(log, "capacity probe from"), 2u * kStreamsServed) << log;
  EXPECT_EQ(count_lines(log, "ended (clean): 60 frames, 10009980 bytes verified"),
            std::size_t{kStreamsServed})
      << log;
  EXPECT_EQ(count_lines(log, "refused"), 0u) << log;
  EXPECT_EQ(count_lines(log, "busy"), 0u) << log;
  recv.signal(SIGINT);
  EXPECT_EQ(recv.wait(20s), 130) << recv.err();

  // Every frame the feeds sent, verified, and nothing more: the probes' frames are not in it.
  auto sent_summary = test::find_line(send.out(), "summary");
  auto received_summary = test::find_line(recv.out(), "summary");
  ASSERT_TRUE(sent_summary && received_summary) << send.out() << recv.out();
  EXPECT_EQ((*sent_summary)["drops"], 0);
  EXPECT_EQ((*received_summary)["frames"], (*sent_summary)["frames"]);
  EXPECT_EQ((*received_summary)["bytes"], (*sent_summary)["bytes"]);
  EXPECT_EQ((*received_summary)["drops"], 0);
  EXPECT_EQ((*received_summary)["checksum_errors"], 0);
  const std::string recv_lines = recv.out();
  for (const auto& line : test::json_lines(recv_lines)) {
    if (line["type"] != "interval") continue;
    EXPECT_EQ(line["drops"], 0) << line;
    if (line["stream"] == kStreamsServed - 1) {
      EXPECT_EQ(line["frames"], 0) << line;  // the free stream id's probe is not a feed
      EXPECT_EQ(line["bytes"], 0) << line;
      EXPECT_EQ(line["mbps"], 0) << line;
    }
  }
}

TEST_P(CapacityProbe, AProbeHelloWithAbsurdValuesIsRefusedInOneLine) {
  const TransportKind kind = *transport_from_string(GetParam());
  auto dir = test::scratch_dir("check-probe-hostile-" + GetParam());
  const int port = test::free_port(1);
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", "127.0.0.1:" + std::to_string(port),
                      "--streams", "1", "--transport", GetParam()},
                     dir, "recv");
  ASSERT_TRUE(test::eventually([&] {
    return recv.err().find("listening on") != std::string::npos;
  })) << recv.err();
  Hello hello;
  hello.feed = FeedDescriptor{Codec::synthetic, 0, 0, 30000, 1001, UINT64_MAX};
  hello.flags = kHelloProbe;
  hello.transport = kind;
  hello.connections = 1;
  hello.chunk_bytes = kind == TransportKind::srt ? 1408 : 64 * 1024;
  hello.session_id = std::random_device{}();
  test::HostilePeer peer(kind, port, 0, /*announce_probe=*/true);
  ASSERT_TRUE(peer.connected());
  auto ack = peer.hello(0, hello);
  ASSERT_TRUE(ack);
  EXPECT_EQ(ack->status, AckStatus::bad_request);
  EXPECT_NE(ack->reason.find("bit rate 18446744073709551615 bit/s out of range"), std::string::npos)
      << ack->reason;
  ASSERT_TRUE(peer.closed_by_receiver(10s));
  ASSERT_TRUE(test::eventually([&] { return count_lines(recv.err(), "bit rate") > 0; }));
  EXPECT_EQ(count_lines(recv.err(), "bit rate 18446744073709551615 bit/s out of range"), 1u)
      << recv.err();
  EXPECT_EQ(count_lines(recv.err(), "accepted"), 0u) << recv.err();
  recv.signal(SIGINT);
  EXPECT_EQ(recv.wait(20s), 130) << recv.err();
}

INSTANTIATE_TEST_SUITE_P(Transports, CapacityProbe, ::testing::Values("tcp", "mtcp", "srt"),
                         [](const auto& transport) { return transport.param; });

}  // namespace
}  // namespace hdstream
