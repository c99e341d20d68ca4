// One srt feed striped over K SRT connections, over real libsrt on loopback, in one process:
// the real SrtSender against the real SrtReceiver at 400-500 Mbps over 2 and 3 stripes (with
// and without a passphrase), every frame delivered once, in order, verified; and by hand, what
// a stranger may try on a striped feed's ports, and a stripe that breaks mid-feed.
#include <gtest/gtest.h>

#include <array>
#include <future>
#include <optional>
#include <thread>
#include <vector>

#include "common/provenance.hpp"
#include "protocol/checksum.hpp"
#include "protocol/handshake.hpp"
#include "protocol/packetizer.hpp"
#include "tests/protocol/test_frames.hpp"
#include "tests/support/eventually.hpp"
#include "tests/transport/collector.hpp"
#include "tests/transport/srt/srt_messages.hpp"
#include "transport/feed_request.hpp"
#include "transport/srt/srt_link.hpp"
#include "transport/srt/srt_receiver.hpp"
#include "transport/srt/srt_sender.hpp"
#include "transport/srt/srt_stripes.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

constexpr std::uint64_t kSession = 0x5171'0001;
constexpr std::size_t kFrameBytes = 2'000'000;  // 480 Mbps at 29.97 fps

class SrtStripedFeed : public ::testing::Test {
 protected:
  void start_receiver(std::size_t streams, std::string passphrase = {}) {
    ensure_srt_started();
    stats_ = std::make_unique<StatsRegistry>(Role::recv, streams, "srt");
    ReceiverOptions options{.listen = Endpoint{"127.0.0.1", 0}, .streams = streams};
    options.srt.passphrase = std::move(passphrase);
    options.handshake_timeout = 3s;
    receiver_ = std::make_shared<SrtReceiver>(options, *stats_, collector_);
    receiver_->start();
    port_ = receiver_->local_endpoint();
    threads_.emplace_back([this] { io_.run(); });
  }

  void TearDown() override {
    if (receiver_) receiver_->stop();
    work_.reset();
    threads_.clear();
  }

  SenderOptions planned(std::size_t stripes, std::string passphrase = {}) {
    FeedRequest request;
    request.transport = TransportKind::srt;
    request.destination = port_;
    request.feed = FeedDescriptor{Codec::synthetic, 0, 0, 30000, 1001, 480'000'000};
    request.connections = stripes;
    request.latency = 500ms;  // generous: this box is shared with builds
    request.latency_given = true;
    request.connect_patience = 3s;
    request.reconnect_patience = 0s;
    request.srt.passphrase = std::move(passphrase);
    return sender_options(request);
  }

  struct SendResult {
    bool opened = false;
    bool closed = false;
    std::vector<std::uint64_t> checksums;
  };

  // Paced at 29.97 fps, as a live feed: `frames` frames of kFrameBytes, then END.
  SendResult send_feed(SenderOptions options, StreamCounters& counters, int frames) {
    auto strand = asio::make_strand(io_);
    auto sender = std::make_shared<SrtSender>(strand, std::move(options), counters);
    return asio::co_spawn(
               strand,
               [this, sender, frames]() -> awaitable<SendResult> {
                 SendResult result;
                 result.opened = co_await sender->open();
                 if (!result.opened) co_return result;
                 asio::steady_timer timer(co_await asio::this_coro::executor);
                 auto due = std::chrono::steady_clock::now();
                 for (int seq = 0; seq < frames; ++seq) {
                   auto frame = test::random_frame(pool_, 0, static_cast<std::uint64_t>(seq),
                                                   kFrameBytes - seq);
                   result.checksums.push_back(payload_checksum(frame->data));
                   if (sender->submit(frame) != SubmitResult::queued) co_return result;
                   due += 33'366'667ns;
                   timer.expires_at(due);
                   co_await timer.async_wait(asio::use_awaitable);
                 }
                 result.closed = co_await sender->close(static_cast<std::uint64_t>(frames));
                 co_return result;
               },
               asio::use_future)
        .get();
  }

  void expect_every_frame_once_in_order(const SendResult& result) {
    ASSERT_TRUE(collector_.wait_until([](auto& c) { return c.ended_.count(0) > 0; }));
    std::lock_guard lock(collector_.mutex_);
    EXPECT_TRUE(collector_.ended_[0]);
    const auto& received = collector_.checksums_[0];
    ASSERT_EQ(received.size(), result.checksums.size());
    for (std::size_t i = 0; i < received.size(); ++i) {
      EXPECT_EQ(received[i].first, i);
      EXPECT_EQ(received[i].second, result.checksums[i]) << "frame " << i;
    }
  }

  void run_striped(std::size_t stripes, std::string passphrase = {}) {
    start_receiver(1, passphrase);
    StatsRegistry sent(Role::send, 1, "srt");
    const SendResult result = send_feed(planned(stripes, passphrase), sent.stream(0), 90);
    ASSERT_TRUE(result.opened);
    EXPECT_TRUE(result.closed);
    expect_every_frame_once_in_order(result);
    const StreamCounters& rx = stats_->stream(0);
    EXPECT_EQ(rx.drops.load(), 0u);
    EXPECT_EQ(rx.checksum_errors.load(), 0u);
    EXPECT_EQ(sent.stream(0).drops.load(), 0u);
    EXPECT_EQ(sent.stream(0).frames.load(), 90u);
    // Every stripe carried a real share of the feed, at both ends.
    const std::uint64_t total = sent.stream(0).bytes.load();
    std::uint64_t striped = 0;
    for (std::size_t k = 0; k < stripes; ++k) {
      const std::uint64_t sent_k = sent.stream(0).striped.subconnections[k].bytes.load();
      EXPECT_GT(sent_k, total / stripes / 4) << "stripe " << k;
      EXPECT_EQ(rx.striped.subconnections[k].bytes.load(), sent_k) << "stripe " << k;
      striped += sent_k;
    }
    EXPECT_EQ(striped, total);
  }

  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_{io_.get_executor()};
  std::vector<std::jthread> threads_;
  std::unique_ptr<StatsRegistry> stats_;
  test::Collector collector_;
  std::shared_ptr<SrtReceiver> receiver_;
  Endpoint port_;
  FramePool pool_{64};
};

TEST_F(SrtStripedFeed, TwoStripesCarryOneFeedEveryFrameOnceInOrder) {
  run_striped(2);
}

TEST_F(SrtStripedFeed, ThreeStripesCarryOneFeedEveryFrameOnceInOrder) {
  run_striped(3);
}

TEST_F(SrtStripedFeed, ThreeStripesWithAPassphraseEveryStripeEncrypted) {
  run_striped(3, "correct horse battery staple");
}

TEST_F(SrtStripedFeed, AStripeWithoutThePassphraseIsRefusedByLibsrt) {
  start_receiver(1, "correct horse battery staple");
  StatsRegistry sent(Role::send, 1, "srt");
  const SendResult result = send_feed(planned(2, "the wrong passphrase"), sent.stream(0), 3);
  EXPECT_FALSE(result.opened);
}

// An SRT caller speaking hdstream by hand on one stripe of a striped feed.
class StripeCaller {
 public:
  explicit StripeCaller(const Endpoint& port, std::uint16_t stream = 0)
      : stream_(stream), socket_(SrtSocket::caller(SrtPlan{.rate_bps = 10'000'000})) {
    socket_.connect(port);
  }

  static Hello hello(std::uint8_t stripe, std::uint8_t stripes = 2,
                     std::uint64_t session = kSession) {
    Hello hello;
    hello.feed = FeedDescriptor{Codec::synthetic, 1920, 1080, 30000, 1001, 10'000'000};
    hello.transport = TransportKind::srt;
    hello.chunk_bytes = kSrtChunkBytes;
    hello.latency_budget_ms = 120;
    hello.expected_rtt_us = 1000;
    hello.connections = stripes;
    hello.subconnection = stripe;
    hello.session_id = session;
    return hello;
  }

  // Sends the HELLO; the HELLO_ACK within 5 s, or nullopt (closed unheard).
  std::optional<HelloAck> send_hello(const Hello& hello) {
    return test::exchange_hello(socket_, stream_, hello);
  }

  // Chunks `index % of` of frame `seq`: the stripes of a feed split each frame between them.
  bool send_chunks(std::uint64_t seq, std::size_t index, std::size_t of) {
    Frame frame;
    frame.stream_id = stream_;
    frame.seq = seq;
    frame.ready_ns = 1'000'000'000 + static_cast<std::int64_t>(seq) * 33'366'667;
    frame.data.resize(6000 + seq);
    for (std::size_t i = 0; i < frame.data.size(); ++i) {
      frame.data[i] = static_cast<std::byte>(i * 31 + seq);
    }
    std::vector<EncodedChunk> chunks;
    packetize(frame, kSrtChunkBytes, chunks);
    for (std::size_t c = index; c < chunks.size(); c += of) {
      if (!test::send_chunk(socket_, chunks[c])) return false;
    }
    return true;
  }

  bool send_end(std::uint64_t frames_sent) {
    return socket_.send(encode_end(stream_, End{frames_sent})) == SrtIo::ok;
  }
  void close() { socket_.close(); }

 private:
  std::uint16_t stream_;
  SrtSocket socket_;
};

// Stream 0's `frames` frames over two stripes, then END on both, until the receiver ended the
// feed. Frame by frame, as a paced feed: a burst of frames on one stripe ahead of the other
// would overrun the frames a feed may have in flight.
::testing::AssertionResult carry_feed(StripeCaller& stripe0, StripeCaller& stripe1,
                                      std::uint64_t frames, test::Collector& collector) {
  for (std::uint64_t seq = 0; seq < frames; ++seq) {
    if (!stripe0.send_chunks(seq, 0, 2) || !stripe1.send_chunks(seq, 1, 2)) {
      return ::testing::AssertionFailure() << "frame " << seq << " could not be sent";
    }
    if (!collector.wait_until([seq](auto& c) { return c.checksums_[0].size() == seq + 1; })) {
      return ::testing::AssertionFailure() << "frame " << seq << " never arrived";
    }
  }
  if (!stripe1.send_end(frames) || !stripe0.send_end(frames)) {
    return ::testing::AssertionFailure() << "END could not be sent";
  }
  if (!collector.wait_until([](auto& c) { return c.ended_.count(0) > 0; })) {
    return ::testing::AssertionFailure() << "the feed never ended";
  }
  return ::testing::AssertionSuccess();
}

TEST_F(SrtStripedFeed, HostileStripeAnnouncementsOnTheStreamsPortAreRefused) {
  start_receiver(1);
  struct Case {
    Hello hello;
    std::string reason;
  };
  Hello zero = StripeCaller::hello(0);
  zero.connections = 0;
  const std::vector<Case> cases{
      {StripeCaller::hello(2, 2), "sub-connection 2 of 2"},
      {zero, "zero connections"},
      {StripeCaller::hello(0, 200), "200 connections (at most 16)"},
      {StripeCaller::hello(1, 2),
       fmt::format("stripe 1 of a striped feed connects to its own UDP port ({}), not the "
                   "stream's",
                   port_.port + 1)},
      {StripeCaller::hello(0, 2, 0), "a striped feed without a session id"},
  };
  for (const auto& c : cases) {
    StripeCaller stranger(port_);
    const auto ack = stranger.send_hello(c.hello);
    ASSERT_TRUE(ack) << c.reason;
    EXPECT_EQ(ack->status, AckStatus::bad_request);
    EXPECT_EQ(ack->reason, c.reason);
    EXPECT_TRUE(ack->stripe_ports.empty());
  }
  std::lock_guard lock(collector_.mutex_);
  EXPECT_TRUE(collector_.sessions_.empty());
}

TEST_F(SrtStripedFeed, StrangersOnAStripesPortAreRefusedAndTheFeedGoesOn) {
  start_receiver(1);
  StripeCaller stripe0(port_);
  const auto ack = stripe0.send_hello(StripeCaller::hello(0));
  ASSERT_TRUE(ack);
  ASSERT_EQ(ack->status, AckStatus::accepted);
  ASSERT_EQ(ack->stripe_ports,
            (std::vector<std::uint16_t>{static_cast<std::uint16_t>(port_.port + 1)}));
  const Endpoint stripe_port{"127.0.0.1", ack->stripe_ports[0]};
  {
    StripeCaller stranger(stripe_port);  // another session's id
    const auto refused = stranger.send_hello(StripeCaller::hello(1, 2, kSession + 1));
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, AckStatus::bad_request);
    EXPECT_EQ(refused->reason, "a stripe of an unknown session");
  }
  {
    StripeCaller wrong_index(stripe_port);
    Hello hello = StripeCaller::hello(1, 3);  // a count that is not the session's
    const auto refused = wrong_index.send_hello(hello);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->reason, "a stripe of an unknown session");
  }
  StripeCaller stripe1(stripe_port);
  ASSERT_EQ(stripe1.send_hello(StripeCaller::hello(1)),
            (HelloAck{AckStatus::accepted, receiver_identity(), {}}));
  {
    // A second stripe 1 while the first is connected: closed unheard.
    StripeCaller duplicate(stripe_port);
    EXPECT_FALSE(duplicate.send_hello(StripeCaller::hello(1)));
  }
  ASSERT_TRUE(carry_feed(stripe0, stripe1, 20, collector_));
  {
    std::lock_guard lock(collector_.mutex_);
    EXPECT_TRUE(collector_.ended_[0]);
    ASSERT_EQ(collector_.checksums_[0].size(), 20u);
    for (std::uint64_t seq = 0; seq < 20; ++seq) {
      EXPECT_EQ(collector_.checksums_[0][seq].first, seq);
    }
  }
  EXPECT_EQ(stats_->stream(0).drops.load(), 0u);
  EXPECT_EQ(stats_->stream(0).checksum_errors.load(), 0u);
  stripe0.close();
  stripe1.close();
  // The session over, its stripe port is closed: nothing there for a stranger to join.
  ASSERT_TRUE(test::eventually([&] {
    try {
      SrtSocket late = SrtSocket::caller(SrtPlan{.rate_bps = 10'000'000});
      late.connect(stripe_port);
      return false;
    } catch (const SrtError&) {
      return true;
    }
  }));
}

// Strangers that reach a stripe's port first, without the passphrase the feed does not have:
// one connects and says nothing, another sends a HELLO it is refused for and keeps its
// connection open. Neither keeps the real stripe out: it is accepted within a second (the
// handshake timeout is 3 s; before, the silent one held the port until then and the session
// broke), and the feed runs.
TEST_F(SrtStripedFeed, SilentOrLingeringStrangersOnAStripesPortDoNotKeepTheStripeOut) {
  start_receiver(1);
  StripeCaller stripe0(port_);
  const auto ack = stripe0.send_hello(StripeCaller::hello(0));
  ASSERT_TRUE(ack && ack->status == AckStatus::accepted);
  const Endpoint stripe_port{"127.0.0.1", ack->stripe_ports.at(0)};
  StripeCaller silent(stripe_port);
  StripeCaller lingering(stripe_port);
  const auto refused = lingering.send_hello(StripeCaller::hello(1, 2, kSession + 1));
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, AckStatus::bad_request);

  const auto start = std::chrono::steady_clock::now();
  StripeCaller stripe1(stripe_port);
  ASSERT_EQ(stripe1.send_hello(StripeCaller::hello(1)),
            (HelloAck{AckStatus::accepted, receiver_identity(), {}}));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  ASSERT_TRUE(carry_feed(stripe0, stripe1, 10, collector_));
  std::lock_guard lock(collector_.mutex_);
  EXPECT_TRUE(collector_.ended_[0]);
  EXPECT_EQ(stats_->stream(0).drops.load(), 0u);
}

TEST_F(SrtStripedFeed, AStripeThatBreaksEndsTheSessionWithDropsAndTheOtherFeedAndNextSessionRun) {
  start_receiver(2);
  // Stream 1: a plain feed of one connection beside the striped one.
  StripeCaller plain(Endpoint{"127.0.0.1", static_cast<std::uint16_t>(port_.port + 1)}, 1);
  Hello plain_hello = StripeCaller::hello(0, 1, 0);
  ASSERT_EQ(plain.send_hello(plain_hello),
            (HelloAck{AckStatus::accepted, receiver_identity(), {}}));

  std::optional<StripeCaller> stripe0(port_);
  const auto ack = stripe0->send_hello(StripeCaller::hello(0));
  ASSERT_TRUE(ack && ack->status == AckStatus::accepted);
  // Two streams served: stream 0's stripe 1 follows both streams' own ports.
  ASSERT_EQ(ack->stripe_ports,
            (std::vector<std::uint16_t>{static_cast<std::uint16_t>(port_.port + 2)}));
  std::optional<StripeCaller> stripe1(Endpoint{"127.0.0.1", ack->stripe_ports[0]});
  ASSERT_EQ(stripe1->send_hello(StripeCaller::hello(1)),
            (HelloAck{AckStatus::accepted, receiver_identity(), {}}));
  for (std::uint64_t seq = 0; seq < 5; ++seq) {
    ASSERT_TRUE(stripe0->send_chunks(seq, 0, 2));
    ASSERT_TRUE(stripe1->send_chunks(seq, 1, 2));
    ASSERT_TRUE(
        collector_.wait_until([seq](auto& c) { return c.checksums_[0].size() == seq + 1; }));
  }
  // Frame 5 half sent, then stripe 1 breaks.
  ASSERT_TRUE(stripe0->send_chunks(5, 0, 2));
  stripe1.reset();
  ASSERT_TRUE(collector_.wait_until([](auto& c) { return c.ended_.count(0) > 0; }));
  {
    std::lock_guard lock(collector_.mutex_);
    EXPECT_FALSE(collector_.ended_[0]);  // broken, not ended: the sender may re-open
  }
  stripe0.reset();

  // The other feed never noticed.
  for (std::uint64_t seq = 0; seq < 5; ++seq) ASSERT_TRUE(plain.send_chunks(seq, 0, 1));
  ASSERT_TRUE(collector_.wait_until([](auto& c) { return c.checksums_[1].size() == 5; }));

  // The sender re-opens the striped feed as a new session from frame 6: frame 5 is a drop.
  Hello again0 = StripeCaller::hello(0, 2, kSession + 7);
  again0.first_frame_seq = 6;
  Hello again1 = again0;
  again1.subconnection = 1;
  StripeCaller new0(port_);
  ASSERT_TRUE(test::eventually([&] {
    const auto reopened = new0.send_hello(again0);
    return reopened && reopened->status == AckStatus::accepted;
  }));
  StripeCaller new1(Endpoint{"127.0.0.1", ack->stripe_ports[0]});
  ASSERT_EQ(new1.send_hello(again1), (HelloAck{AckStatus::accepted, receiver_identity(), {}}));
  for (std::uint64_t seq = 6; seq < 10; ++seq) {
    ASSERT_TRUE(new0.send_chunks(seq, 0, 2));
    ASSERT_TRUE(new1.send_chunks(seq, 1, 2));
    ASSERT_TRUE(collector_.wait_until([seq](auto& c) { return c.checksums_[0].size() == seq; }));
  }
  ASSERT_TRUE(new1.send_end(10));
  ASSERT_TRUE(new0.send_end(10));
  ASSERT_TRUE(collector_.wait_until([](auto& c) { return c.ended_[0]; }));
  std::lock_guard lock(collector_.mutex_);
  std::vector<std::uint64_t> seqs;
  for (const auto& [seq, checksum] : collector_.checksums_[0]) seqs.push_back(seq);
  // Frame 5 never came whole: the pipeline counts it (the gap to the new session's first
  // frame, as for a feed of one connection, pipeline/feed_receiver.cpp).
  EXPECT_EQ(seqs, (std::vector<std::uint64_t>{0, 1, 2, 3, 4, 6, 7, 8, 9}));
  EXPECT_EQ(stats_->stream(0).checksum_errors.load(), 0u);
  EXPECT_EQ(collector_.sessions_[0], 2);
}

}  // namespace
}  // namespace hdstream
