// Nothing a peer says makes a receiver allocate without bound (docs/SECURITY.md, "Memory"). A
// stranger, with no key, attacks stream 1 of a real `hdstream recv --max-memory 256M --streams 2`
// (tcp, mtcp, srt) while a real `hdstream send` carries stream 0:
// - HELLOs with a huge latency budget or bit rate are refused by validation;
// - a HELLO whose frames in flight could need more than its stream's share (128 MiB) is refused,
//   a flood of them logged a few lines at a time;
// - the most a HELLO may ask for is granted, and 300 one-byte chunks each announcing a new
//   12 MiB frame (about 15 KB sent) cost the receiver at most that share: all but the frames in
//   flight are given up, where before the fix every chunk kept its frame (3.6 GB), and its RSS
//   stays under the --max-memory figure;
// - a chunk announcing a frame larger than its HELLO allows closes that session;
// and stream 0 loses nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "protocol/feed_limits.hpp"
#include "tests/security/hostile_peer.hpp"
#include "tests/security/process_helpers.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

constexpr std::uint16_t kHostileStream = 1;
constexpr long kMaxMemoryKib = 256 * 1024;  // --max-memory 256M, over 2 streams
// Frames the granted HELLO allows: 12 MiB, so 9 of them (tcp: 8 in flight + 1 being read) fit
// the stream's 128 MiB share.
constexpr std::uint32_t kGrantedFrameBytes = 12u << 20;
constexpr int kFrameStarts = 300;
// What else a receiver's RSS may grow by meanwhile: socket buffers (an SRT connection's libsrt
// buffers are the largest, ~8 MiB), allocator slack, log and stats buffers. Measured growth
// besides the frames: under 10 MiB on every transport.
constexpr long kSlackKib = 32 * 1024;

Hello hostile_hello(TransportKind transport) {
  Hello hello;
  hello.feed = FeedDescriptor{Codec::synthetic, 1920, 1080, 30, 1, 0};
  hello.feed.bit_rate_bps = std::uint64_t{kGrantedFrameBytes} * 8 * 30;  // frames of 12 MiB
  hello.transport = transport;
  hello.connections = 1;
  hello.chunk_bytes = transport == TransportKind::srt ? 1408 : 64 * 1024;
  hello.session_id = std::random_device{}();
  return hello;
}

class MemoryBound : public ::testing::TestWithParam<std::string> {
 protected:
  TransportKind transport() const { return *transport_from_string(GetParam()); }

  // A fresh connection to stream 1 presenting `hello`; its HELLO_ACK.
  std::optional<HelloAck> present(const Hello& hello) {
    test::HostilePeer peer(transport(), port_, kHostileStream);
    if (!peer.connected()) return std::nullopt;
    return peer.hello(kHostileStream, hello);
  }

  int port_ = test::free_port();
};

TEST_P(MemoryBound, AStrangerCannotMakeTheReceiverAllocateBeyondItsBudgetAndTheFeedLosesNothing) {
  auto dir = test::scratch_dir("memory-bound-" + GetParam());
  const std::string address = "127.0.0.1:" + std::to_string(port_);
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", address, "--streams", "2", "--transport",
                      GetParam(), "--max-memory", "256M", "--stats", "json", "--interval", "200ms"},
                     dir, "recv");
  // The feed queues a second of frames, not the default 120 ms: what this test asks is whether
  // the stranger costs it anything, not whether a busy CI machine (builds beside the tests) ever
  // stalls a process for 130 ms, which it does.
  test::Process send(
      {HDSTREAM_BINARY, "send", "--dest", address, "--transport", GetParam(), "--rate", "20M",
       "--latency", "1s", "--duration", "12s", "--stats", "json", "--interval", "200ms"},
      dir, "send");
  ASSERT_TRUE(test::frames_grow([&] { return recv.out(); }, 0, 10)) << recv.err();
  const long rss_before = test::rss_kib(recv.pid());
  ASSERT_GT(rss_before, 0);

  // Validation: values that would size buffers, windows and frames beyond reason.
  Hello hello = hostile_hello(transport());
  hello.latency_budget_ms = UINT32_MAX;
  auto ack = present(hello);
  ASSERT_TRUE(ack);
  EXPECT_EQ(ack->status, AckStatus::bad_request);
  EXPECT_NE(ack->reason.find("latency budget"), std::string::npos) << ack->reason;
  hello = hostile_hello(transport());
  hello.feed.bit_rate_bps = UINT64_MAX;
  ack = present(hello);
  ASSERT_TRUE(ack);
  EXPECT_NE(ack->reason.find("bit rate"), std::string::npos) << ack->reason;

  // Valid, but its frames in flight could need more than a stream's share: 64 MiB frames
  // (and for mtcp 10 s x 1000 fps of them).
  Hello greedy = hostile_hello(transport());
  greedy.feed.bit_rate_bps = kMaxBitRateBps;
  if (transport() == TransportKind::mtcp) {
    greedy.feed.frame_rate_num = 1000;
    greedy.latency_budget_ms = kMaxLatencyBudgetMs;
  }
  ack = present(greedy);
  ASSERT_TRUE(ack);
  EXPECT_EQ(ack->status, AckStatus::bad_request);
  EXPECT_NE(ack->reason.find("a stream may hold 128.0 MiB"), std::string::npos) << ack->reason;
  // A flood of them is refused every time and logged a few lines at a time (SRT connections
  // are slow to set up: the flood is tcp's and mtcp's; the limiter is the same object).
  const int flood = transport() == TransportKind::srt ? 0 : 30;
  for (int i = 0; i < flood; ++i) {
    ack = present(greedy);
    ASSERT_TRUE(ack) << i;
    EXPECT_EQ(ack->status, AckStatus::bad_request) << i;
  }

  // The most a HELLO may ask for is granted; 300 one-byte chunks each start a 12 MiB frame.
  test::HostilePeer attacker(transport(), port_, kHostileStream);
  ASSERT_TRUE(attacker.connected());
  const Hello granted = hostile_hello(transport());
  ack = attacker.hello(kHostileStream, granted);
  ASSERT_TRUE(ack);
  ASSERT_EQ(ack->status, AckStatus::accepted) << ack->reason;
  for (int seq = 0; seq < kFrameStarts; ++seq) {
    ASSERT_TRUE(attacker.send(test::frame_tail(kHostileStream, static_cast<std::uint64_t>(seq),
                                               granted.chunk_bytes, kGrantedFrameBytes)))
        << seq;
  }
  // Every frame start has been taken in once all but the frames in flight are given up.
  long rss_peak = rss_before;
  const bool taken_in = test::eventually(
      [&] {
        rss_peak = std::max(rss_peak, test::rss_kib(recv.pid()));
        return test::stream_value(recv.out(), kHostileStream, "drops").value_or(0) >=
               kFrameStarts - 8;
      },
      20s);
  EXPECT_TRUE(taken_in) << recv.err();
  rss_peak = std::max(rss_peak, test::rss_kib(recv.pid()));
  RecordProperty("rss_before_kib", std::to_string(rss_before));
  RecordProperty("rss_peak_kib", std::to_string(rss_peak));
  // Never beyond what --max-memory allows. (Frame buffers are not zeroed: a one-byte chunk
  // touches the page it lands on, so the 8 x 12 MiB frames in flight are reserved, not resident.
  // That every frame start was given up, not kept, is the drops count above.)
  EXPECT_LT(rss_peak - rss_before, kMaxMemoryKib + kSlackKib)
      << rss_before << " -> " << rss_peak << " KiB";

  // A frame larger than its HELLO allows closes that session.
  ASSERT_TRUE(attacker.send(test::one_byte_frame_start(kHostileStream, kFrameStarts, 64u << 20)));
  EXPECT_TRUE(attacker.closed_by_receiver(10s));

  // The real feed lost nothing.
  ASSERT_EQ(send.wait(60s), 0) << send.out() << send.err() << recv.err();
  auto sent = test::find_line(send.out(), "summary");
  ASSERT_TRUE(sent);
  EXPECT_EQ((*sent)["drops"], 0);
  EXPECT_EQ((*sent)["verdict"], "pass");  // end to end: the receiver's reports included
  const auto far_end = test::find_line(send.out(), "far_end");
  ASSERT_TRUE(far_end);
  EXPECT_EQ((*far_end)["frames"], (*sent)["frames"]);
  EXPECT_EQ((*far_end)["drops"], 0);
  EXPECT_EQ((*far_end)["checksum_errors"], 0);
  // The attacker's stream never ends cleanly: the receiver is told to finish.
  recv.signal(SIGTERM);
  ASSERT_TRUE(recv.wait(20s));
  EXPECT_EQ(test::stream_value(recv.out(), 0, "drops"), 0);
  EXPECT_EQ(test::stream_value(recv.out(), 0, "checksum_errors"), 0);

  // One line per refusal or closed session at most, naming the peer and the limit; the flood
  // is held back (5 lines per 10 s).
  const std::string log = recv.err();
  EXPECT_TRUE(test::contains(log, "refused feed from 127.0.0.1:")) << log;
  EXPECT_TRUE(test::contains(log, "(receiver --max-memory 256.0 MiB over 2 streams)")) << log;
  EXPECT_TRUE(test::contains(log,
                             "a frame of 67108864 bytes is above the 12582912 its HELLO "
                             "allows; closing the session"))
      << log;
  std::size_t budget_lines = 0;
  for (std::size_t at = log.find("memory budget:"); at != std::string::npos;
       at = log.find("memory budget:", at + 1)) {
    ++budget_lines;
  }
  EXPECT_GE(budget_lines, 1u);
  EXPECT_LE(budget_lines, 10u) << log;  // of 1 + flood refusals
}

// A stranger's capacity probes (as `check` runs them, one per stream) reserve from a budget of
// their own: with the most a probe may hold taken on every stream, a feed that needs the most a
// stream's share allows is still accepted.
TEST_P(MemoryBound, AStrangersProbesNeverTakeTheMemoryAFeedNeeds) {
  auto dir = test::scratch_dir("probe-memory-" + GetParam());
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", "127.0.0.1:" + std::to_string(port_),
                      "--streams", "2", "--transport", GetParam(), "--max-memory", "256M"},
                     dir, "recv");
  std::vector<std::unique_ptr<test::HostilePeer>> probes;
  for (std::uint16_t stream = 0; stream < 2; ++stream) {
    ASSERT_TRUE(test::eventually([&] {
      auto peer = std::make_unique<test::HostilePeer>(transport(), port_, stream,
                                                      /*announce_probe=*/true);
      if (!peer->connected()) return false;
      probes.push_back(std::move(peer));
      return true;
    }));
    Hello probe = hostile_hello(transport());
    probe.flags = kHelloProbe;
    const auto ack = probes.back()->hello(stream, probe);
    ASSERT_TRUE(ack) << recv.err();
    ASSERT_EQ(ack->status, AckStatus::accepted) << ack->reason;  // 9 x 12 MiB of 128 MiB
  }
  test::HostilePeer feed(transport(), port_, 0);
  ASSERT_TRUE(feed.connected());
  const auto ack = feed.hello(0, hostile_hello(transport()));
  ASSERT_TRUE(ack) << recv.err();
  EXPECT_EQ(ack->status, AckStatus::accepted) << ack->reason;
  recv.signal(SIGTERM);
  EXPECT_TRUE(recv.wait(20s));
}

INSTANTIATE_TEST_SUITE_P(Transports, MemoryBound, ::testing::Values("tcp", "mtcp", "srt"),
                         [](const auto& transport) { return transport.param; });

}  // namespace
}  // namespace hdstream
