// transport/feed_request: every transport policy from one request, and the transports' refusal
// of options it did not plan.
#include "transport/feed_request.hpp"

#include <gtest/gtest.h>

#include "common/asio.hpp"
#include "protocol/feed_limits.hpp"
#include "protocol/packetizer.hpp"
#include "stats/registry.hpp"
#include "transport/mtcp/mtcp_sender.hpp"
#include "transport/srt/srt_link.hpp"
#include "transport/srt/srt_sender.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

FeedRequest request_for(TransportKind transport) {
  FeedRequest request;
  request.transport = transport;
  request.destination = Endpoint{"127.0.0.1", 9000};
  request.feed = FeedDescriptor{Codec::synthetic, 1920, 1080, 30000, 1001, 270'000'000};
  return request;
}

std::chrono::milliseconds budget(const SenderOptions& options) {
  return std::chrono::milliseconds(options.hello.latency_budget_ms);
}

TEST(FeedRequest, SrtCarriesOnePacketPerChunkWhateverChunkSizeWasAsked) {
  FeedRequest request = request_for(TransportKind::srt);
  request.chunk_bytes = 256 * 1024;
  const SenderOptions options = sender_options(request);
  EXPECT_EQ(options.hello.chunk_bytes, kSrtChunkBytes);
  EXPECT_EQ(options.hello.connections, 1);
  EXPECT_EQ(options.hello.transport, TransportKind::srt);
  // With FEC, libsrt's filter takes 4 bytes of every packet: 1404-byte chunks, 1452 on the wire.
  request.srt.fec = parse_srt_fec("10,5");
  EXPECT_EQ(sender_options(request).hello.chunk_bytes, kSrtFecChunkBytes);
  EXPECT_EQ(kSrtFecChunkBytes + kHeaderBytes, 1452u);
}

TEST(FeedRequest, SrtChoosesFourRttsWithinItsBounds) {
  FeedRequest request = request_for(TransportKind::srt);
  request.expected_rtt = 1ms;  // 4 ms: the 120 ms floor
  EXPECT_EQ(budget(sender_options(request)), 120ms);
  request.expected_rtt = 100ms;
  const SenderOptions options = sender_options(request);
  EXPECT_EQ(budget(options), 400ms);
  EXPECT_EQ(options.srt.latency, 400ms);  // libsrt's SRTO_LATENCY is the same budget
  request.expected_rtt = 4s;              // 16 s: the receiver's ceiling
  EXPECT_EQ(budget(sender_options(request)), std::chrono::milliseconds(kMaxLatencyBudgetMs));
}

TEST(FeedRequest, MtcpDefaultsToFourSubconnectionsAndTenRtts) {
  FeedRequest request = request_for(TransportKind::mtcp);
  request.expected_rtt = 100ms;
  const SenderOptions options = sender_options(request);
  EXPECT_EQ(options.hello.connections, kDefaultMtcpConnections);
  EXPECT_EQ(budget(options), 1000ms);
  request.connections = 64;  // a preset may ask for more than a receiver serves
  EXPECT_EQ(sender_options(request).hello.connections, kMaxSubconnections);
  request.connections = 2;
  EXPECT_EQ(sender_options(request).hello.connections, 2);
}

TEST(FeedRequest, AGivenLatencyIsKeptByEveryTransport) {
  for (TransportKind transport : {TransportKind::tcp, TransportKind::mtcp, TransportKind::srt}) {
    FeedRequest request = request_for(transport);
    request.expected_rtt = 200ms;
    request.latency = 150ms;
    request.latency_given = true;
    EXPECT_EQ(budget(sender_options(request)), 150ms) << to_string(transport);
  }
  FeedRequest tcp = request_for(TransportKind::tcp);
  tcp.expected_rtt = 200ms;  // tcp never scales its budget with the RTT
  EXPECT_EQ(budget(sender_options(tcp)), 120ms);
}

TEST(FeedRequest, TheQueueHoldsTheBudgetsWorthOfFramesAndAtLeastTwo) {
  FeedRequest request = request_for(TransportKind::tcp);
  request.latency = 500ms;
  request.latency_given = true;
  EXPECT_EQ(sender_options(request).max_queued_frames, 15u);  // ceil(0.5 s x 29.97)
  request.latency = 10ms;
  EXPECT_EQ(sender_options(request).max_queued_frames, 2u);
}

TEST(FeedRequest, LiveFeedsBoundUnsentBytesAndUnpacedOnesDoNot) {
  FeedRequest request = request_for(TransportKind::tcp);
  const std::size_t frame = planned_frame_bytes(request.feed);  // 1'126'125 bytes
  EXPECT_EQ(sender_options(request).tuning.notsent_lowat_bytes, frame);
  request.chunk_bytes = 512 * 1024;  // 4 chunks are more than a frame
  EXPECT_EQ(sender_options(request).tuning.notsent_lowat_bytes, 4u * 512 * 1024);
  request.unpaced_frame_bytes = 1 << 20;
  EXPECT_EQ(sender_options(request).tuning.notsent_lowat_bytes, 0u);
}

TEST(FeedRequest, UnpacedFramesRaiseTheAnnouncedRateToWhatTheyMake) {
  FeedRequest request = request_for(TransportKind::tcp);
  request.feed.bit_rate_bps = 1'000'000;
  request.unpaced_frame_bytes = 4 << 20;
  const SenderOptions options = sender_options(request);
  // The receiver bounds frames by the HELLO's rate: it must accept the 4 MiB frames.
  EXPECT_GT(options.hello.feed.bit_rate_bps, 1'000'000u);
  EXPECT_GE(max_frame_bytes(options.hello), 4u << 20);
  request.unpaced_frame_bytes = 0;  // a live feed announces its own rate
  EXPECT_EQ(sender_options(request).hello.feed.bit_rate_bps, 1'000'000u);
}

TEST(FeedRequest, CongestionControlAndPacingFollowTheRttAndRate) {
  FeedRequest request = request_for(TransportKind::tcp);
  request.expected_rtt = 1ms;
  EXPECT_EQ(sender_options(request).tuning.congestion_control, "cubic");
  request.expected_rtt = 50ms;
  EXPECT_EQ(sender_options(request).tuning.congestion_control, "bbr");
  request.congestion_control = "reno";
  EXPECT_EQ(sender_options(request).tuning.congestion_control, "reno");
  request.pacing_factor = 1.5;
  EXPECT_EQ(sender_options(request).tuning.max_pacing_rate_bps, 405'000'000u);
}

TEST(FeedRequest, RequestsNoReceiverAcceptsNameTheOptionToFix) {
  auto message_of = [](const FeedRequest& request) -> std::string {
    try {
      sender_options(request);
    } catch (const FeedRequestError& error) {
      return error.what();
    }
    return "accepted";
  };
  FeedRequest huge = request_for(TransportKind::tcp);
  huge.feed.bit_rate_bps = 100'000'000'000;  // ~417 MB frames at 29.97 fps
  EXPECT_EQ(message_of(huge).rfind("--rate: ", 0), 0u) << message_of(huge);
  FeedRequest tiny_chunks = request_for(TransportKind::tcp);
  tiny_chunks.chunk_bytes = 16;  // 1.1 MB frames in 16-byte chunks: more than 65535 of them
  EXPECT_EQ(message_of(tiny_chunks).rfind("--chunk-size: ", 0), 0u) << message_of(tiny_chunks);
  FeedRequest slow = request_for(TransportKind::mtcp);
  slow.latency = 11s;
  slow.latency_given = true;
  EXPECT_EQ(message_of(slow), "--latency 11 s: a receiver accepts at most 10 s");
}

TEST(FeedRequest, TransportsRefuseOptionsItDidNotPlan) {
  asio::io_context io;
  StatsRegistry stats(Role::send, 1, "test");
  SenderOptions srt = sender_options(request_for(TransportKind::srt));
  EXPECT_NO_THROW(SrtSender(io.get_executor(), srt, stats.stream(0)));
  srt.hello.chunk_bytes = 64 * 1024;  // more than one SRT packet
  EXPECT_THROW(SrtSender(io.get_executor(), srt, stats.stream(0)), std::invalid_argument);

  SenderOptions mtcp = sender_options(request_for(TransportKind::mtcp));
  EXPECT_NO_THROW(MultiTcpSender(io.get_executor(), mtcp, stats.stream(0)));
  mtcp.hello.connections = kMaxSubconnections + 1;
  EXPECT_THROW(MultiTcpSender(io.get_executor(), mtcp, stats.stream(0)), std::invalid_argument);
  mtcp = sender_options(request_for(TransportKind::tcp));  // a tcp plan is not an mtcp one
  EXPECT_THROW(MultiTcpSender(io.get_executor(), mtcp, stats.stream(0)), std::invalid_argument);
}

TEST(FeedRequest, ASecondPathMakesTwoLegsOfOneFeed) {
  FeedRequest request = request_for(TransportKind::tcp);
  EXPECT_EQ(leg_options(request).size(), 1u);
  EXPECT_EQ(leg_options(request).front().hello.legs, 1);
  request.destination_b = Endpoint{"198.19.1.1", 9000};
  const auto legs = leg_options(request);
  ASSERT_EQ(legs.size(), 2u);
  for (std::uint8_t leg = 0; leg < 2; ++leg) {
    EXPECT_EQ(legs[leg].hello.legs, 2);
    EXPECT_EQ(legs[leg].hello.leg, leg);
    EXPECT_EQ(validate_hello(legs[leg].hello), "");
  }
  EXPECT_NE(legs[0].hello.feed_id, 0u);
  EXPECT_EQ(legs[0].hello.feed_id, legs[1].hello.feed_id);
  EXPECT_NE(leg_options(request).front().hello.feed_id, legs[0].hello.feed_id);  // per feed
  EXPECT_EQ(legs[0].destination, request.destination);
  EXPECT_EQ(legs[1].destination, *request.destination_b);
  // Everything else is the same feed, planned once.
  Hello a = legs[0].hello, b = legs[1].hello;
  b.leg = a.leg;
  EXPECT_EQ(a, b);
  EXPECT_EQ(legs[0].max_queued_frames, legs[1].max_queued_frames);
}

TEST(FeedRequest, AnMtcpFeedOfTwoPathsIsTwoStripedLegs) {
  FeedRequest request = request_for(TransportKind::mtcp);
  request.destination_b = Endpoint{"198.19.1.1", 9000};
  const auto legs = leg_options(request);
  ASSERT_EQ(legs.size(), 2u);
  for (std::uint8_t leg = 0; leg < 2; ++leg) {
    EXPECT_EQ(legs[leg].hello.leg, leg);
    EXPECT_EQ(legs[leg].hello.connections, kDefaultMtcpConnections);
  }
  EXPECT_EQ(legs[0].hello.feed_id, legs[1].hello.feed_id);
}

TEST(FeedRequest, ACapacityProbeHasOnePath) {
  FeedRequest probe = request_for(TransportKind::tcp);
  probe.probe = true;
  probe.destination_b = Endpoint{"198.19.1.1", 9000};
  EXPECT_THROW(leg_options(probe), FeedRequestError);
}

TEST(FeedRequest, ASecondPathOverSrtMakesTwoLegsOfOneFeed) {
  FeedRequest request = request_for(TransportKind::srt);
  request.destination_b = Endpoint{"198.19.1.1", 9000};
  const auto legs = leg_options(request);
  ASSERT_EQ(legs.size(), 2u);
  for (std::uint8_t leg = 0; leg < 2; ++leg) {
    EXPECT_EQ(legs[leg].hello.legs, 2);
    EXPECT_EQ(legs[leg].hello.leg, leg);
    EXPECT_EQ(legs[leg].hello.chunk_bytes, kSrtChunkBytes);
    EXPECT_EQ(validate_hello(legs[leg].hello), "");
  }
  EXPECT_EQ(legs[0].hello.feed_id, legs[1].hello.feed_id);
  EXPECT_EQ(legs[1].destination, *request.destination_b);
  // The same SRT plan on both paths (latency, passphrase, FEC).
  EXPECT_EQ(legs[0].srt.latency, legs[1].srt.latency);
  EXPECT_EQ(legs[0].srt.passphrase, legs[1].srt.passphrase);
}

}  // namespace
}  // namespace hdstream
