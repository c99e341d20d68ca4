// Two-path protection at an SrtReceiver over real libsrt on loopback: both legs of a protected
// feed arrive on the stream's one UDP port and run at once (each on its listener lane), the
// consumer sees each frame once; a stranger on leg B of a busy stream, and a HELLO naming
// another leg than its caller's stream id, are refused.
#include "transport/srt/srt_receiver.hpp"

#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <vector>

#include "common/provenance.hpp"
#include "protocol/frame.hpp"
#include "protocol/handshake.hpp"
#include "protocol/packetizer.hpp"
#include "stats/registry.hpp"
#include "tests/support/eventually.hpp"
#include "tests/transport/collector.hpp"
#include "tests/transport/srt/srt_messages.hpp"
#include "transport/srt/srt_link.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

constexpr std::uint64_t kFeedId = 0x5eed'0001;
constexpr std::uint64_t kStrangerFeedId = 0x5eed'0002;

Hello leg_hello(std::uint8_t leg, std::uint64_t feed_id = kFeedId) {
  Hello hello;
  hello.feed = FeedDescriptor{Codec::synthetic, 1920, 1080, 30000, 1001, 10'000'000};
  hello.transport = TransportKind::srt;
  hello.chunk_bytes = kSrtChunkBytes;
  hello.latency_budget_ms = 120;
  hello.expected_rtt_us = 1000;
  hello.legs = 2;
  hello.leg = leg;
  hello.feed_id = feed_id;
  return hello;
}

// An SRT caller speaking hdstream by hand, its stream id announcing `announced_leg`.
class LegCaller {
 public:
  LegCaller(const Endpoint& port, std::uint8_t announced_leg)
      : socket_(SrtSocket::caller(SrtPlan{.rate_bps = 10'000'000, .leg = announced_leg})) {
    socket_.connect(port);
  }

  // Sends the HELLO; the HELLO_ACK within 5 s, or nullopt.
  std::optional<HelloAck> hello(const Hello& hello) {
    return test::exchange_hello(socket_, 0, hello);
  }

  // Frame `seq` (its bytes follow from seq), in chunks of one SRT message each.
  bool send_frame(std::uint64_t seq) {
    Frame frame;
    frame.seq = seq;
    frame.ready_ns = 1'000'000'000 + static_cast<std::int64_t>(seq) * 33'366'667;
    frame.data.resize(4000 + seq);
    for (std::size_t i = 0; i < frame.data.size(); ++i) {
      frame.data[i] = static_cast<std::byte>(i * 31 + seq);
    }
    std::vector<EncodedChunk> chunks;
    packetize(frame, kSrtChunkBytes, chunks);
    for (const auto& chunk : chunks) {
      if (!test::send_chunk(socket_, chunk)) return false;
    }
    return true;
  }

  // END, then the receiver's last report or its close (within 5 s); then this side closes, as
  // SrtSender does, which ends the receiver's session.
  bool end(std::uint64_t frames_sent) {
    if (socket_.send(encode_end(0, End{frames_sent})) != SrtIo::ok) return false;
    bool confirmed = false;
    for (auto deadline = std::chrono::steady_clock::now() + 5s;
         !confirmed && std::chrono::steady_clock::now() < deadline;) {
      const SrtIo io = socket_.receive(buffer_, received_);
      MessageHeader header;
      confirmed = io == SrtIo::closed ||
                  (io == SrtIo::ok && decode_header(message(), header) == HeaderError::none &&
                   header.type == MessageType::feedback && header.frame_seq == kLastFeedbackMark);
    }
    socket_.close();
    return confirmed;
  }

 private:
  std::span<const std::byte> message() const {
    return std::span<const std::byte>(buffer_).first(received_);
  }

  SrtSocket socket_;
  std::array<std::byte, 2048> buffer_{};
  std::size_t received_ = 0;
};

class SrtReceiverLegs : public ::testing::Test {
 protected:
  void SetUp() override {
    ensure_srt_started();
    ReceiverOptions options;
    options.listen = Endpoint{"127.0.0.1", 0};
    options.streams = 1;
    options.skew = 200ms;
    receiver_ = std::make_shared<SrtReceiver>(options, stats_, collector_);
    receiver_->start();
    port_ = receiver_->local_endpoint();
  }
  void TearDown() override { receiver_->stop(); }

  StatsRegistry stats_{Role::recv, 1, "srt"};
  test::Collector collector_;
  std::shared_ptr<SrtReceiver> receiver_;
  Endpoint port_;
};

TEST_F(SrtReceiverLegs, LegBArrivesWhileLegARunsAndTheFeedGetsEachFrameOnce) {
  LegCaller leg_a(port_, 0);
  ASSERT_EQ(leg_a.hello(leg_hello(0)), (HelloAck{AckStatus::accepted, receiver_identity()}));
  ASSERT_TRUE(leg_a.send_frame(0));
  ASSERT_TRUE(collector_.wait_until([](auto& c) { return c.checksums_[0].size() == 1; }));

  // Leg A's session still runs on the port: leg B's is served beside it, not after it.
  LegCaller leg_b(port_, 1);
  ASSERT_EQ(leg_b.hello(leg_hello(1)), (HelloAck{AckStatus::accepted, receiver_identity()}));
  for (std::uint64_t seq = 0; seq < 10; ++seq) ASSERT_TRUE(leg_b.send_frame(seq));
  for (std::uint64_t seq = 1; seq < 10; ++seq) ASSERT_TRUE(leg_a.send_frame(seq));
  ASSERT_TRUE(test::eventually([&] {
    return stats_.leg(0, 0).frames.load() == 10 && stats_.leg(0, 1).frames.load() == 10;
  }));
  EXPECT_TRUE(leg_a.end(10));
  EXPECT_TRUE(leg_b.end(10));
  ASSERT_TRUE(collector_.wait_until([](auto& c) { return c.ended_.count(0) > 0; }));

  std::lock_guard lock(collector_.mutex_);
  EXPECT_EQ(collector_.sessions_[0], 1);  // one feed, though two sessions carried it
  EXPECT_TRUE(collector_.ended_[0]);
  std::vector<std::uint64_t> seqs;
  for (const auto& [seq, checksum] : collector_.checksums_[0]) seqs.push_back(seq);
  EXPECT_EQ(seqs, (std::vector<std::uint64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(stats_.stream(0).drops.load(), 0u);
  // Frame 0 went out before leg B was up: only leg A delivered it; every other frame both did.
  EXPECT_EQ(stats_.stream(0).protection.protected_frames.load(), 1u);
  EXPECT_EQ(stats_.stream(0).protection.only_frames[0].load(), 1u);
}

TEST_F(SrtReceiverLegs, AStrangerOnLegBOfABusyStreamIsRefusedAsBusy) {
  LegCaller leg_a(port_, 0);
  ASSERT_EQ(leg_a.hello(leg_hello(0)), (HelloAck{AckStatus::accepted, receiver_identity()}));
  {
    LegCaller stranger(port_, 1);
    const auto ack = stranger.hello(leg_hello(1, kStrangerFeedId));
    ASSERT_TRUE(ack);
    EXPECT_EQ(ack->status, AckStatus::stream_busy);
    EXPECT_EQ(ack->reason, "another sender is already connected");
  }  // closes: the receiver waits for that after a refusal
  // The refusal held nothing: the feed's own leg B still gets in.
  LegCaller leg_b(port_, 1);
  EXPECT_EQ(leg_b.hello(leg_hello(1)), (HelloAck{AckStatus::accepted, receiver_identity()}));
}

TEST_F(SrtReceiverLegs, AHelloNamingAnotherLegThanItsStreamIdIsRefused) {
  {
    LegCaller says_b(port_, 1);
    const auto ack = says_b.hello(leg_hello(0));
    ASSERT_TRUE(ack);
    EXPECT_EQ(ack->status, AckStatus::bad_request);
    EXPECT_EQ(ack->reason, "the SRT stream id announced leg B, the HELLO leg A");
  }
  {
    LegCaller says_a(port_, 0);  // announces no leg: leg A
    const auto ack = says_a.hello(leg_hello(1));
    ASSERT_TRUE(ack);
    EXPECT_EQ(ack->status, AckStatus::bad_request);
    EXPECT_EQ(ack->reason, "the SRT stream id announced leg A, the HELLO leg B");
  }
  // Neither refusal kept a leg of the stream.
  LegCaller leg_a(port_, 0);
  EXPECT_EQ(leg_a.hello(leg_hello(0)), (HelloAck{AckStatus::accepted, receiver_identity()}));
  LegCaller leg_b(port_, 1);
  EXPECT_EQ(leg_b.hello(leg_hello(1)), (HelloAck{AckStatus::accepted, receiver_identity()}));
}

TEST_F(SrtReceiverLegs, ALegThatBreaksComesBackBesideTheOther) {
  LegCaller leg_b(port_, 1);
  ASSERT_EQ(leg_b.hello(leg_hello(1)), (HelloAck{AckStatus::accepted, receiver_identity()}));
  {
    LegCaller leg_a(port_, 0);
    ASSERT_EQ(leg_a.hello(leg_hello(0)), (HelloAck{AckStatus::accepted, receiver_identity()}));
    ASSERT_TRUE(leg_a.send_frame(0));
  }  // leg A's connection breaks without END
  ASSERT_TRUE(leg_b.send_frame(0));
  ASSERT_TRUE(leg_b.send_frame(1));
  // Its session ends and frees leg A's place; the new connection resumes beside leg B.
  LegCaller leg_a(port_, 0);
  Hello resumed = leg_hello(0);
  resumed.first_frame_seq = 2;
  ASSERT_EQ(leg_a.hello(resumed), (HelloAck{AckStatus::accepted, receiver_identity()}));
  ASSERT_TRUE(leg_a.send_frame(2));
  ASSERT_TRUE(leg_b.send_frame(2));
  EXPECT_TRUE(leg_a.end(3));
  EXPECT_TRUE(leg_b.end(3));
  ASSERT_TRUE(collector_.wait_until([](auto& c) { return c.ended_.count(0) > 0; }));
  std::lock_guard lock(collector_.mutex_);
  EXPECT_EQ(collector_.sessions_[0], 1);
  EXPECT_TRUE(collector_.ended_[0]);
  std::vector<std::uint64_t> seqs;
  for (const auto& [seq, checksum] : collector_.checksums_[0]) seqs.push_back(seq);
  EXPECT_EQ(seqs, (std::vector<std::uint64_t>{0, 1, 2}));
}

}  // namespace
}  // namespace hdstream
