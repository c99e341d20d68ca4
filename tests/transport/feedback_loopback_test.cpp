// Far-end feedback over real loopback tcp, mtcp and srt: the sender's stats show what the
// receiver reports, and the last report carries the receiver's final counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/clock.hpp"
#include "loopback_feeds.hpp"
#include "protocol/checksum.hpp"
#include "stats/report_json.hpp"
#include "stats/summary.hpp"
#include "transport/message_io.hpp"
#include "transport/tcp/tcp_sender.hpp"

namespace hdstream {

// Test names and messages say "mtcp", not "1-byte object <02>".
void PrintTo(TransportKind kind, std::ostream* out) {
  *out << to_string(kind);
}

namespace {

using testing::LoopbackFeeds;
using namespace std::chrono_literals;

class FeedbackOverTransport : public ::testing::TestWithParam<TransportKind> {};

TEST_P(FeedbackOverTransport, SenderSeesTheReceiversFramesAndFinalCount) {
  LoopbackFeeds feeds(2, 40'000'000, 0, GetParam());
  feeds.start();
  // Reports arrive about every 100 ms. The receiver's fps is over the last second of reports,
  // counted from the first report, which may come before the first frame (a session's start):
  // after 45 frames (1.5 s) on both streams the second it covers is all steady frames.
  ASSERT_TRUE(feeds.wait_until([&] {
    const auto s = feeds.sent.read();
    return s.streams[0].far_end.reports >= 5 && s.streams[0].far_end.frames >= 45 &&
           s.streams[1].far_end.frames >= 45;
  }));
  const auto live = feeds.sent.read();
  for (const auto& stream : live.streams) {
    EXPECT_TRUE(stream.far_end.valid);
    EXPECT_GT(stream.far_end.fps, 10.0);  // 29.97 fps feed, measured over ~1 s
    EXPECT_LT(stream.far_end.fps, 40.0);
    // Same host, same clock: a frame arrives after it was stamped, so a carried latency is > 0.
    EXPECT_GT(stream.far_end.latency_ms, 0.0);
    EXPECT_LT(stream.far_end.age_ms, 2000.0);
  }
  ASSERT_TRUE(feeds.finish());
  // After END the receiver sends one last report: the sender's far-end count is final.
  const auto sent = feeds.sent.read();
  const auto received = feeds.received.read();
  for (std::size_t i = 0; i < sent.streams.size(); ++i) {
    EXPECT_EQ(sent.streams[i].far_end.frames, received.streams[i].frames) << "stream " << i;
    EXPECT_EQ(sent.streams[i].far_end.drops, received.streams[i].drops);
    EXPECT_EQ(sent.streams[i].far_end.bytes, received.streams[i].bytes);
    // Jitter and latency travel as whole microseconds.
    EXPECT_NEAR(sent.streams[i].far_end.jitter_ms, received.streams[i].jitter_ms, 0.001);
    EXPECT_NEAR(sent.streams[i].far_end.latency_ms, received.streams[i].latency_ms, 0.001);
  }
  // FEEDBACK extension 1: the receiver's loss and chunk counters, and one transit sample per
  // frame it delivered, each sent once, in order, for the sender to take.
  for (std::size_t i = 0; i < sent.streams.size(); ++i) {
    const auto& far = sent.streams[i].far_end;
    const auto& rx = received.streams[i];
    EXPECT_TRUE(far.extended) << "stream " << i;
    EXPECT_EQ(far.loss_events, 0u);
    EXPECT_EQ(far.longest_loss_run, 0u);
    EXPECT_EQ(far.late_frames, 0u);
    EXPECT_EQ(far.transits_dropped, 0u);
    const auto& rxc = feeds.received.stream(i);
    EXPECT_EQ(far.duplicate_chunks, rxc.duplicate_chunks.load());
    EXPECT_EQ(far.out_of_order_chunks, rxc.out_of_order_chunks.load());
    if (GetParam() == TransportKind::tcp) {  // one in-order connection (this srt is striped)
      EXPECT_EQ(far.out_of_order_chunks, 0u);
      EXPECT_EQ(far.duplicate_chunks, 0u);
    }
    const auto transits = feeds.sent.take_transits(i);
    ASSERT_EQ(transits.size(), rx.frames) << "stream " << i;
    for (std::size_t k = 0; k < transits.size(); ++k) {
      // The feed starts at frame 0 and lost nothing: sample k is frame k's.
      ASSERT_EQ(transits[k].frame_seq, k) << "stream " << i;
      EXPECT_GT(transits[k].transit_us, 0);  // one host, one clock
      EXPECT_LT(transits[k].transit_us, 5'000'000);
    }
    EXPECT_TRUE(feeds.sent.take_transits(i).empty());
  }
  // And the sender's JSON carries it as separate far_end lines, keeping "interval" intact.
  auto line = far_end_json(sent, sent.streams[0]);
  EXPECT_EQ(line["type"], "far_end");
  EXPECT_EQ(line["frames"], received.streams[0].frames);
  EXPECT_EQ(line["extended"], true);
  EXPECT_EQ(line["loss_events"], 0u);
  EXPECT_FALSE(interval_json(sent, sent.streams[0]).contains("far_end"));
  // Nothing was lost, so the sender's end-to-end verdict passes.
  const auto summary = summarize(sent);
  EXPECT_TRUE(summary.pass) << fmt::format("{}", fmt::join(summary.reasons, "; "));
}

INSTANTIATE_TEST_SUITE_P(Transports, FeedbackOverTransport,
                         ::testing::Values(TransportKind::tcp, TransportKind::mtcp,
                                           TransportKind::srt),
                         [](const auto& param_info) {
                           return std::string(to_string(param_info.param));
                         });

// A hand-written receiver: accepts the HELLO, then reports drops the real sender must show,
// and sends malformed reports the sender must ignore without dropping the feed.
TEST(FeedbackLoopback, SenderShowsReportedDropsAndIgnoresMalformedReports) {
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  const auto port = acceptor.local_endpoint().port();

  StatsRegistry sent(Role::send, 1, "tcp");
  SenderOptions options;
  options.destination = Endpoint{"127.0.0.1", port};
  options.hello.feed = FeedDescriptor{Codec::synthetic, 1920, 1080, 30000, 1001, 10'000'000};
  options.hello.chunk_bytes = 64 * 1024;
  auto sender = std::make_shared<TcpSender>(asio::make_strand(io), options, sent.stream(0));
  std::atomic<bool> opened{false};
  asio::co_spawn(
      io, [&]() -> awaitable<void> { opened = co_await sender->open(); }, asio::detached);

  std::atomic<bool> receiver_done{false};
  asio::co_spawn(
      io,
      [&]() -> awaitable<void> {
        auto socket = co_await acceptor.async_accept(asio::use_awaitable);
        auto hello = co_await read_header(socket);
        std::vector<std::byte> body;
        co_await read_control_body(socket, hello.header, body);
        auto ack = encode_hello_ack(0, HelloAck{AckStatus::accepted, {}});
        co_await asio::async_write(socket, asio::buffer(ack), asio::use_awaitable);

        // 1. a truncated FEEDBACK body (valid header and checksum over the short body)
        Feedback f;
        f.report_ns = wall_clock_ns();
        f.frames = 90;
        f.drops = 7;
        f.interval_ms = 100;
        auto truncated = encode_feedback(0, f);
        truncated.resize(kHeaderBytes + 20);
        MessageHeader h;
        decode_header(truncated, h);
        h.payload_bytes = 20;
        h.payload_xxh3 =
            payload_checksum(std::span<const std::byte>(truncated).subspan(kHeaderBytes));
        encode_header(h, std::span<std::byte, kHeaderBytes>(truncated.data(), kHeaderBytes));
        co_await asio::async_write(socket, asio::buffer(truncated), asio::use_awaitable);
        // 2. a corrupted one (checksum mismatch)
        auto corrupted = encode_feedback(0, f);
        corrupted.back() ^= std::byte{0xFF};
        co_await asio::async_write(socket, asio::buffer(corrupted), asio::use_awaitable);
        // 3. a good one
        auto good = encode_feedback(0, f);
        co_await asio::async_write(socket, asio::buffer(good), asio::use_awaitable);
        // Keep the connection until the sender closes it.
        std::array<std::byte, 4096> sink;
        error_code ec;
        while (!ec) co_await socket.async_read_some(asio::buffer(sink), nothrow(ec));
        receiver_done = true;
      },
      asio::detached);

  std::jthread runner([&] { io.run(); });
  ASSERT_TRUE(testing::wait_until([&] { return sent.read().streams[0].far_end.reports >= 1; }));
  const auto snapshot = sent.read();
  EXPECT_TRUE(opened);
  EXPECT_EQ(snapshot.streams[0].far_end.reports, 1u);  // the two bad ones were ignored
  EXPECT_EQ(snapshot.streams[0].far_end.drops, 7u);
  EXPECT_EQ(snapshot.streams[0].far_end.frames, 90u);
  EXPECT_EQ(snapshot.streams[0].state, StreamState::running);  // the feed survived them
  // The sender's own verdict is end to end: the receiver's drops fail it.
  const auto summary = summarize(snapshot);
  EXPECT_FALSE(summary.pass);
  EXPECT_NE(std::find(summary.reasons.begin(), summary.reasons.end(),
                      "the receiver reported 7 frames dropped"),
            summary.reasons.end());
  sender->stop();
  ASSERT_TRUE(testing::wait_until([&] { return receiver_done.load(); }));
  io.stop();
}

}  // namespace
}  // namespace hdstream
