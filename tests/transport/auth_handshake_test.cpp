// The tcp handshake with pre-shared keys (transport/auth_handshake), a real TcpReceiver and
// TcpSenders in one process over loopback: right, wrong, missing, replayed and malformed answers.
#include <gtest/gtest.h>

#include <future>
#include <map>
#include <thread>

#include "protocol/auth.hpp"
#include "protocol/handshake.hpp"
#include "tests/protocol/test_keys.hpp"
#include "tests/support/eventually.hpp"
#include "tests/transport/collector.hpp"
#include "transport/tcp/tcp_receiver.hpp"
#include "transport/tcp/tcp_sender.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;
using test::key_of;

class AuthHandshakeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    stats_ = std::make_unique<StatsRegistry>(Role::recv, 4, "tcp");
    ReceiverOptions options{
        .listen = Endpoint{"127.0.0.1", 0}, .streams = 4, .handshake_timeout = 2s};
    options.key = key_of(7);
    receiver_ = std::make_shared<TcpReceiver>(io_, options, *stats_, collector_);
    receiver_->start();
    for (int i = 0; i < 2; ++i) threads_.emplace_back([this] { io_.run(); });
  }
  void TearDown() override {
    receiver_->stop();
    work_.reset();
    threads_.clear();
  }

  std::shared_ptr<TcpSender> make_sender(std::uint16_t stream, std::optional<PresharedKey> key,
                                         StreamCounters& counters) {
    SenderOptions options;
    options.destination = receiver_->local_endpoint();
    options.stream_id = stream;
    options.hello.feed = FeedDescriptor{Codec::synthetic, 640, 480, 30000, 1001, 10'000'000};
    options.hello.chunk_bytes = 16 * 1024;
    options.max_queued_frames = 64;
    options.connect_patience = 300ms;
    options.key = key;
    auto strand = asio::make_strand(io_);
    auto sender = std::make_shared<TcpSender>(strand, options, counters);
    strands_[sender.get()] = strand;
    return sender;
  }

  bool open(const std::shared_ptr<TcpSender>& sender) {
    // Every call on a sender runs on its strand, as in the pipeline.
    auto opened = asio::co_spawn(
        strands_.at(sender.get()),
        [sender]() -> awaitable<bool> { co_return co_await sender->open(); }, asio::use_future);
    return opened.get();
  }
  bool send_and_close(const std::shared_ptr<TcpSender>& sender, std::uint16_t stream, int frames) {
    auto done = asio::co_spawn(
        strands_.at(sender.get()),
        [this, sender, stream, frames]() -> awaitable<bool> {
          for (int seq = 0; seq < frames; ++seq) {
            auto frame = pool_.acquire(20'000);
            frame->stream_id = stream;
            frame->seq = static_cast<std::uint64_t>(seq);
            sender->submit(frame);
          }
          co_return co_await sender->close(static_cast<std::uint64_t>(frames));
        },
        asio::use_future);
    return done.get();
  }

  tcp::socket raw_connect() {
    tcp::socket socket(io_);
    const Endpoint local = receiver_->local_endpoint();
    socket.connect(tcp::endpoint(asio::ip::make_address(local.host), local.port));
    return socket;
  }
  // Reads one whole message (header + body) with a blocking socket.
  static std::pair<MessageHeader, std::vector<std::byte>> read_message(tcp::socket& socket) {
    std::array<std::byte, kHeaderBytes> raw;
    asio::read(socket, asio::buffer(raw));
    MessageHeader header;
    EXPECT_EQ(decode_header(raw, header), HeaderError::none);
    std::vector<std::byte> body(header.payload_bytes);
    asio::read(socket, asio::buffer(body));
    return {header, body};
  }

  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_ = asio::make_work_guard(io_);
  std::unique_ptr<StatsRegistry> stats_;
  test::Collector collector_;
  std::shared_ptr<TcpReceiver> receiver_;
  FramePool pool_;
  std::map<TcpSender*, asio::any_io_executor> strands_;
  std::vector<std::jthread> threads_;
};

TEST_F(AuthHandshakeTest, RightKeyIsAcceptedAndFramesFlow) {
  StreamCounters counters;
  auto sender = make_sender(0, key_of(7), counters);
  ASSERT_TRUE(open(sender));
  EXPECT_TRUE(send_and_close(sender, 0, 10));
  ASSERT_TRUE(collector_.wait_until([](auto& c) { return c.ended_.count(0) > 0; }, 5s));
  std::lock_guard lock(collector_.mutex_);
  EXPECT_EQ(collector_.checksums_[0].size(), 10u);
  EXPECT_TRUE(collector_.ended_[0]);
}

TEST_F(AuthHandshakeTest, WrongOrMissingKeyIsRefusedWhileAnotherFeedKeepsFlowing) {
  StreamCounters good_counters, wrong_counters, none_counters;
  auto good = make_sender(0, key_of(7), good_counters);
  ASSERT_TRUE(open(good));
  auto wrong = make_sender(1, key_of(8), wrong_counters);
  EXPECT_FALSE(open(wrong));
  EXPECT_EQ(wrong_counters.state.load(), StreamState::failed);
  auto none = make_sender(2, std::nullopt, none_counters);
  EXPECT_FALSE(open(none));
  EXPECT_TRUE(send_and_close(good, 0, 20));
  ASSERT_TRUE(collector_.wait_until([](auto& c) { return c.ended_.count(0) > 0; }, 5s));
  std::lock_guard lock(collector_.mutex_);
  EXPECT_EQ(collector_.checksums_[0].size(), 20u);
  EXPECT_EQ(collector_.sessions_.count(1), 0u);
  EXPECT_EQ(collector_.sessions_.count(2), 0u);
}

TEST_F(AuthHandshakeTest, ReplayedAuthIsRefused) {
  Hello hello;
  hello.feed = FeedDescriptor{Codec::synthetic, 640, 480, 30000, 1001, 10'000'000};
  hello.chunk_bytes = 16 * 1024;
  const auto hello_message = encode_hello(1, hello);
  const std::vector<std::byte> body(hello_message.begin() + kHeaderBytes, hello_message.end());

  std::vector<std::byte> recorded_auth;
  Nonce first_nonce;
  {
    auto socket = raw_connect();
    asio::write(socket, asio::buffer(hello_message));
    auto [header, challenge_body] = read_message(socket);
    ASSERT_EQ(header.type, MessageType::challenge);
    auto challenge = decode_challenge(challenge_body);
    ASSERT_TRUE(challenge);
    first_nonce = challenge->receiver_nonce;
    recorded_auth = encode_auth(1, answer_challenge(key_of(7), *challenge, 1, body));
    asio::write(socket, asio::buffer(recorded_auth));
    auto [ack_header, ack_body] = read_message(socket);
    ASSERT_EQ(ack_header.type, MessageType::hello_ack);
    EXPECT_EQ(decode_hello_ack(ack_body)->status, AckStatus::accepted);
  }
  // The receiver reports a session as started just after its HELLO_ACK went out.
  ASSERT_TRUE(collector_.wait_until([](auto& c) { return c.sessions_.count(1) > 0; }, 5s));
  // Same HELLO, same (recorded) AUTH on a new connection: the challenge differs, so it fails.
  // Until the first session has released stream 1, a HELLO on it is refused as busy.
  tcp::socket socket(io_);
  std::vector<std::byte> challenge_body;
  ASSERT_TRUE(test::eventually(
      [&] {
        socket = raw_connect();
        asio::write(socket, asio::buffer(hello_message));
        auto [header, reply] = read_message(socket);
        if (header.type != MessageType::challenge) return false;
        challenge_body = std::move(reply);
        return true;
      },
      5s));
  EXPECT_NE(decode_challenge(challenge_body)->receiver_nonce, first_nonce);
  asio::write(socket, asio::buffer(recorded_auth));
  auto [ack_header, ack_body] = read_message(socket);
  ASSERT_EQ(ack_header.type, MessageType::hello_ack);
  auto ack = decode_hello_ack(ack_body);
  ASSERT_TRUE(ack);
  EXPECT_EQ(ack->status, AckStatus::unauthorized);
  std::lock_guard lock(collector_.mutex_);
  EXPECT_EQ(collector_.sessions_[1], 1);
}

TEST_F(AuthHandshakeTest, MalformedAuthIsRefused) {
  Hello hello;
  hello.feed = FeedDescriptor{Codec::synthetic, 640, 480, 30000, 1001, 10'000'000};
  hello.chunk_bytes = 16 * 1024;
  auto socket = raw_connect();
  asio::write(socket, asio::buffer(encode_hello(2, hello)));
  auto [header, challenge_body] = read_message(socket);
  ASSERT_EQ(header.type, MessageType::challenge);
  // An AUTH message whose body is an END's: well-formed header, malformed body.
  auto bogus = encode_end(2, End{5});
  bogus[5] = static_cast<std::byte>(MessageType::auth);
  asio::write(socket, asio::buffer(bogus));
  auto [ack_header, ack_body] = read_message(socket);
  auto ack = decode_hello_ack(ack_body);
  ASSERT_TRUE(ack);
  EXPECT_EQ(ack->status, AckStatus::unauthorized);
  EXPECT_NE(ack->reason.find("malformed AUTH"), std::string::npos) << ack->reason;
}

TEST_F(AuthHandshakeTest, SilentPeerAfterChallengeIsClosedWithinTheHandshakeTimeout) {
  Hello hello;
  hello.feed = FeedDescriptor{Codec::synthetic, 640, 480, 30000, 1001, 10'000'000};
  hello.chunk_bytes = 16 * 1024;
  auto socket = raw_connect();
  asio::write(socket, asio::buffer(encode_hello(3, hello)));
  read_message(socket);  // the challenge; then say nothing
  const auto start = std::chrono::steady_clock::now();
  std::array<std::byte, 64> sink;
  error_code ec;
  socket.read_some(asio::buffer(sink), ec);
  EXPECT_TRUE(ec);  // closed by the receiver
  EXPECT_LT(std::chrono::steady_clock::now() - start, 4s);
}

}  // namespace
}  // namespace hdstream
