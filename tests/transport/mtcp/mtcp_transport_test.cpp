// MultiTcpSender and MultiTcpReceiver over real loopback sockets, in one process: striping,
// in-order verified delivery, no frame lost while sub-connections are reset repeatedly, and a
// sender that believes no lying ACK.
#include <sys/socket.h>
#include <sys/time.h>

#include <gtest/gtest.h>

#include <array>
#include <future>
#include <thread>

#include "protocol/ack.hpp"
#include "protocol/checksum.hpp"
#include "protocol/handshake.hpp"
#include "tests/protocol/test_frames.hpp"
#include "tests/transport/collector.hpp"
#include "transport/mtcp/mtcp_receiver.hpp"
#include "transport/mtcp/mtcp_sender.hpp"
#include "transport/tcp/tcp_sender.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

class MtcpTransportTest : public ::testing::Test {
 protected:
  void start_receiver(std::size_t streams) {
    stats_ = std::make_unique<StatsRegistry>(Role::recv, streams, "mtcp");
    ReceiverOptions options{.listen = Endpoint{"127.0.0.1", 0}, .streams = streams};
    receiver_ = std::make_shared<MultiTcpReceiver>(io_, options, *stats_, collector_);
    receiver_->start();
    for (int i = 0; i < 2; ++i) threads_.emplace_back([this] { io_.run(); });
  }

  void TearDown() override {
    if (receiver_) receiver_->stop();
    work_.reset();
    threads_.clear();
  }

  SenderOptions sender_options(std::uint16_t stream, std::uint8_t connections = 4) {
    SenderOptions options;
    options.destination = receiver_->local_endpoint();
    options.stream_id = stream;
    options.hello.feed = FeedDescriptor{Codec::synthetic, 1920, 1080, 30000, 1001, 100'000'000};
    options.hello.transport = TransportKind::mtcp;
    options.hello.connections = connections;
    options.hello.chunk_bytes = 16 * 1024;
    options.hello.latency_budget_ms = 1000;  // generous: this box is shared and slow
    options.tuning.notsent_lowat_bytes = 64 * 1024;
    options.max_queued_frames = 64;
    options.connect_patience = 2s;
    return options;
  }

  struct SendResult {
    bool opened = false;
    bool closed = false;
    std::vector<std::uint64_t> checksums;
  };

  // Opens a feed and sends `frames` frames, one every `period` (0: as fast as the window
  // allows); `between(seq)` runs after each submit (fault injection). Closes with END.
  std::future<SendResult> send_feed(std::shared_ptr<MultiTcpSender> sender,
                                    asio::any_io_executor strand, std::uint16_t stream, int frames,
                                    std::chrono::milliseconds period,
                                    std::function<void(int)> between = {}) {
    return asio::co_spawn(
        strand,
        [this, sender, frames, stream, period, between]() -> awaitable<SendResult> {
          SendResult result;
          result.opened = co_await sender->open();
          if (!result.opened) co_return result;
          asio::steady_timer timer(co_await asio::this_coro::executor);
          for (int seq = 0; seq < frames; ++seq) {
            auto frame = test::random_frame(pool_, stream, static_cast<std::uint64_t>(seq),
                                            150'000 + seq * 97);
            result.checksums.push_back(payload_checksum(frame->data));
            // A full resend window waits (this test wants every frame, not live-feed drops).
            SubmitResult submitted;
            while ((submitted = sender->submit(frame)) == SubmitResult::dropped) {
              timer.expires_after(2ms);
              co_await timer.async_wait(asio::use_awaitable);
            }
            if (submitted == SubmitResult::closed) break;
            if (between) between(seq);
            if (period.count() > 0) {
              timer.expires_after(period);
              co_await timer.async_wait(asio::use_awaitable);
            }
          }
          result.closed = co_await sender->close(static_cast<std::uint64_t>(frames));
          co_return result;
        },
        asio::use_future);
  }

  void expect_complete(std::uint16_t stream, const SendResult& result) {
    ASSERT_TRUE(
        collector_.wait_until([stream](test::Collector& c) { return c.ended_.count(stream) > 0; }));
    std::lock_guard lock(collector_.mutex_);
    const auto& received = collector_.checksums_[stream];
    ASSERT_EQ(received.size(), result.checksums.size());
    for (std::size_t i = 0; i < received.size(); ++i) {
      EXPECT_EQ(received[i].first, i);
      EXPECT_EQ(received[i].second, result.checksums[i]) << "frame " << i;
    }
    EXPECT_TRUE(collector_.ended_[stream]);
  }

  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_{io_.get_executor()};
  std::vector<std::jthread> threads_;
  std::unique_ptr<StatsRegistry> stats_;
  test::Collector collector_;
  std::shared_ptr<MultiTcpReceiver> receiver_;
  FramePool pool_{256};
};

TEST_F(MtcpTransportTest, FourSubconnectionsDeliverEveryFrameInOrder) {
  start_receiver(2);
  StatsRegistry sent(Role::send, 2, "mtcp");
  std::vector<std::future<SendResult>> feeds;
  for (std::uint16_t s = 0; s < 2; ++s) {
    auto strand = asio::make_strand(io_);
    auto sender = std::make_shared<MultiTcpSender>(strand, sender_options(s), sent.stream(s));
    feeds.push_back(send_feed(sender, strand, s, 150, 0ms));
  }
  for (std::uint16_t s = 0; s < 2; ++s) {
    SendResult result = feeds[s].get();
    ASSERT_TRUE(result.opened);
    EXPECT_TRUE(result.closed);
    expect_complete(s, result);
    EXPECT_EQ(sent.stream(s).frames.load(), 150u);
    EXPECT_EQ(sent.stream(s).state.load(), StreamState::finished);
  }
  const Snapshot tx = sent.sample();
  const Snapshot rx = stats_->sample();
  for (std::uint16_t s = 0; s < 2; ++s) {
    EXPECT_EQ(rx.streams[s].drops, 0u);
    EXPECT_EQ(rx.streams[s].checksum_errors, 0u);
    EXPECT_EQ(rx.streams[s].state, StreamState::finished);
    // Striped: every sub-connection carried part of the feed, on both ends.
    ASSERT_EQ(tx.streams[s].striped.subconnections.size(), 4u);
    ASSERT_EQ(rx.streams[s].striped.subconnections.size(), 4u);
    for (int k = 0; k < 4; ++k) {
      EXPECT_GT(tx.streams[s].striped.subconnections[k].bytes, 0u) << "sub-connection " << k;
      EXPECT_GT(rx.streams[s].striped.subconnections[k].bytes, 0u) << "sub-connection " << k;
    }
  }
}

TEST_F(MtcpTransportTest, RepeatedlyResetSubconnectionsLoseNoFrame) {
  start_receiver(1);
  StatsRegistry sent(Role::send, 1, "mtcp");
  auto strand = asio::make_strand(io_);
  auto sender = std::make_shared<MultiTcpSender>(strand, sender_options(0), sent.stream(0));
  // Every 25th frame, reset one sub-connection (RST), cycling through all four.
  int breaks = 0;
  auto feed = send_feed(sender, strand, 0, 400, 4ms, [&](int seq) {
    if (seq % 25 == 12) {
      sender->break_subconnection(static_cast<std::size_t>((seq / 25) % 4));
      ++breaks;
    }
  });
  SendResult result = feed.get();
  ASSERT_TRUE(result.opened);
  EXPECT_TRUE(result.closed);
  expect_complete(0, result);
  EXPECT_EQ(breaks, 16);

  const Snapshot tx = sent.sample();
  const Snapshot rx = stats_->sample();
  EXPECT_EQ(rx.streams[0].drops, 0u);
  EXPECT_EQ(rx.streams[0].checksum_errors, 0u);
  EXPECT_EQ(tx.streams[0].frames, 400u);
  std::uint64_t sender_reconnects = 0, receiver_reconnects = 0;
  for (const auto& sub : tx.streams[0].striped.subconnections) sender_reconnects += sub.reconnects;
  for (const auto& sub : rx.streams[0].striped.subconnections) receiver_reconnects += sub.reconnects;
  // A break that lands while that sub-connection is still reconnecting is a no-op, so at
  // least most of them, not exactly 16.
  EXPECT_GE(sender_reconnects, 8u);
  EXPECT_GE(receiver_reconnects, 8u);
  EXPECT_GT(tx.streams[0].striped.resent_chunks + rx.streams[0].striped.duplicate_chunks, 0u);
}

TEST_F(MtcpTransportTest, APlainTcpSenderIsRefusedWithAClearReason) {
  start_receiver(1);
  StatsRegistry sent(Role::send, 1, "tcp");
  auto strand = asio::make_strand(io_);
  auto options = sender_options(0);
  options.hello.transport = TransportKind::tcp;
  options.hello.connections = 1;
  auto sender = std::make_shared<TcpSender>(strand, options, sent.stream(0));
  auto opened = asio::co_spawn(strand, sender->open(), asio::use_future);
  EXPECT_FALSE(opened.get());
  EXPECT_EQ(sent.stream(0).state.load(), StreamState::failed);
}

TEST_F(MtcpTransportTest, AStrangerSessionOnABusyStreamIsRefused) {
  start_receiver(1);
  StatsRegistry sent(Role::send, 2, "mtcp");
  auto strand = asio::make_strand(io_);
  auto first = std::make_shared<MultiTcpSender>(strand, sender_options(0), sent.stream(0));
  ASSERT_TRUE(asio::co_spawn(strand, first->open(), asio::use_future).get());
  auto other_strand = asio::make_strand(io_);
  auto second = std::make_shared<MultiTcpSender>(other_strand, sender_options(0), sent.stream(1));
  EXPECT_FALSE(asio::co_spawn(other_strand, second->open(), asio::use_future).get());
  first->stop();
}

TEST_F(MtcpTransportTest, StopEndsAFeedMidStreamInBoundedTime) {
  start_receiver(1);
  StatsRegistry sent(Role::send, 1, "mtcp");
  auto strand = asio::make_strand(io_);
  auto sender = std::make_shared<MultiTcpSender>(strand, sender_options(0), sent.stream(0));
  std::promise<void> flowing;
  auto feed = send_feed(sender, strand, 0, 100000, 2ms, [&](int seq) {
    if (seq == 20) flowing.set_value();
  });
  flowing.get_future().wait();
  const auto start = std::chrono::steady_clock::now();
  sender->stop();
  receiver_->stop();
  ASSERT_EQ(feed.wait_for(3s), std::future_status::ready);
  EXPECT_FALSE(feed.get().closed);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

TEST_F(MtcpTransportTest, StopWhileConnectingReturnsPromptly) {
  start_receiver(1);
  StatsRegistry sent(Role::send, 1, "mtcp");
  auto options = sender_options(0);
  tcp::acceptor reserve(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  options.destination.port = reserve.local_endpoint().port();
  reserve.close();  // refuses connections: open() would retry for connect_patience
  options.connect_patience = 60s;
  auto strand = asio::make_strand(io_);
  auto sender = std::make_shared<MultiTcpSender>(strand, options, sent.stream(0));
  auto opened = asio::co_spawn(strand, sender->open(), asio::use_future);
  const auto start = std::chrono::steady_clock::now();
  sender->stop();
  ASSERT_EQ(opened.wait_for(3s), std::future_status::ready);
  EXPECT_FALSE(opened.get());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
}

// A receiver that speaks the protocol but lies in its ACK: it claims frames delivered that were
// never sent. The sender must refuse it (a protocol error on that sub-connection: it breaks and
// is re-established) and neither drop its queued chunks nor count their frames as sent.
TEST_F(MtcpTransportTest, AnAckForFramesNeverSentIsRefusedAndNothingCountsAsSent) {
  threads_.emplace_back([this] { io_.run(); });
  asio::io_context fake_io;
  tcp::acceptor acceptor(fake_io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));

  StatsRegistry sent(Role::send, 1, "mtcp");
  SenderOptions options;
  options.destination = Endpoint{"127.0.0.1", acceptor.local_endpoint().port()};
  options.hello.feed = FeedDescriptor{Codec::synthetic, 1920, 1080, 30000, 1001, 100'000'000};
  options.hello.transport = TransportKind::mtcp;
  options.hello.connections = 1;
  options.hello.chunk_bytes = 16 * 1024;
  options.hello.latency_budget_ms = 1000;
  options.connect_patience = 5s;
  auto strand = asio::make_strand(io_);
  auto sender = std::make_shared<MultiTcpSender>(strand, options, sent.stream(0));
  auto opened = asio::co_spawn(
      strand,
      [&]() -> awaitable<bool> {
        if (!co_await sender->open()) co_return false;
        for (std::uint64_t seq = 0; seq < 3; ++seq) {
          sender->submit(test::random_frame(pool_, 0, seq, 100'000));
        }
        co_return true;
      },
      asio::use_future);

  error_code ec;
  auto read_message = [&ec](tcp::socket& socket, MessageHeader& header,
                            std::vector<std::byte>& body) {
    std::array<std::byte, kHeaderBytes> raw{};
    asio::read(socket, asio::buffer(raw), ec);
    if (ec || decode_header(raw, header) != HeaderError::none) return false;
    body.resize(header.payload_bytes);
    asio::read(socket, asio::buffer(body), ec);
    return !ec;
  };
  auto accept_hello = [&](tcp::socket& socket) -> std::optional<Hello> {
    acceptor.accept(socket);
    timeval timeout{10, 0};
    ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    MessageHeader header;
    std::vector<std::byte> body;
    if (!read_message(socket, header, body) || header.type != MessageType::hello) return {};
    auto hello = decode_hello(body);
    if (hello) asio::write(socket, asio::buffer(encode_hello_ack(0, {AckStatus::accepted, {}})));
    return hello;
  };

  tcp::socket first(fake_io);
  auto hello = accept_hello(first);
  ASSERT_TRUE(hello);
  EXPECT_EQ(hello->first_frame_seq, 0u);
  ASSERT_TRUE(opened.get());
  MessageHeader header;
  std::vector<std::byte> body;
  ASSERT_TRUE(read_message(first, header, body));
  ASSERT_EQ(header.type, MessageType::chunk);
  std::array<std::byte, kAckMessageBytes> lie{};
  encode_ack(0, Ack{1'000'000, 1, 0}, lie);  // one chunk arrived, "a million frames delivered"
  asio::write(first, asio::buffer(lie));
  // The sender breaks the sub-connection: reading the chunks it had written ends in EOF or a
  // reset, not in our 10 s timeout.
  while (read_message(first, header, body)) {
  }
  ASSERT_TRUE(ec == asio::error::eof || ec == asio::error::connection_reset) << ec.message();
  // Re-established, it still starts at frame 0: it believed nothing of the lie.
  tcp::socket second(fake_io);
  auto again = accept_hello(second);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->first_frame_seq, 0u);
  EXPECT_EQ(sent.stream(0).frames.load(), 0u);
  sender->stop();
}

}  // namespace
}  // namespace hdstream
