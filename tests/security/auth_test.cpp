// Pre-shared-key authentication: the HMAC exchange (protocol/auth), key files
// (transport/key_file) and the tcp handshake with keys (transport/auth_handshake), in one
// process over loopback.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <condition_variable>
#include <fstream>
#include <future>
#include <map>
#include <thread>

#include "protocol/auth.hpp"
#include "protocol/checksum.hpp"
#include "protocol/handshake.hpp"
#include "tests/support/process.hpp"
#include "transport/key_file.hpp"
#include "transport/tcp_receiver.hpp"
#include "transport/tcp_sender.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

PresharedKey key_of(std::uint8_t fill) {
  PresharedKey key;
  key.fill(static_cast<std::byte>(fill));
  return key;
}

std::vector<std::byte> hello_body(std::uint64_t first_seq = 0) {
  Hello hello;
  hello.feed = FeedDescriptor{Codec::synthetic, 1920, 1080, 30000, 1001, 100'000'000};
  hello.chunk_bytes = 16 * 1024;
  hello.first_frame_seq = first_seq;
  auto message = encode_hello(1, hello);
  return {message.begin() + kHeaderBytes, message.end()};
}

TEST(Auth, RightKeyVerifies) {
  const auto challenge = make_challenge();
  const auto body = hello_body();
  const auto auth = answer_challenge(key_of(1), challenge, 3, body);
  EXPECT_TRUE(verify_auth(key_of(1), challenge, 3, body, auth));
}

TEST(Auth, WrongKeyTamperedHelloOtherStreamOrOtherChallengeFail) {
  const auto challenge = make_challenge();
  const auto body = hello_body();
  const auto auth = answer_challenge(key_of(1), challenge, 3, body);
  EXPECT_FALSE(verify_auth(key_of(2), challenge, 3, body, auth));
  EXPECT_FALSE(verify_auth(key_of(1), challenge, 4, body, auth));
  EXPECT_FALSE(verify_auth(key_of(1), challenge, 3, hello_body(99), auth));
  // Replay: the same answer against a fresh challenge.
  EXPECT_FALSE(verify_auth(key_of(1), make_challenge(), 3, body, auth));
  auto flipped = auth;
  flipped.mac[31] ^= std::byte{1};
  EXPECT_FALSE(verify_auth(key_of(1), challenge, 3, body, flipped));
}

TEST(Auth, NoncesAreFresh) {
  EXPECT_NE(make_challenge().receiver_nonce, make_challenge().receiver_nonce);
  const auto challenge = make_challenge();
  EXPECT_NE(answer_challenge(key_of(1), challenge, 0, {}).sender_nonce,
            answer_challenge(key_of(1), challenge, 0, {}).sender_nonce);
}

TEST(Auth, MessagesRoundTripAndMalformedBodiesAreRejected) {
  const auto challenge = make_challenge();
  auto message = encode_challenge(5, challenge);
  MessageHeader header;
  ASSERT_EQ(decode_header(message, header), HeaderError::none);
  EXPECT_EQ(header.type, MessageType::challenge);
  auto body = std::span<const std::byte>(message).subspan(kHeaderBytes);
  EXPECT_EQ(payload_checksum(body), header.payload_xxh3);
  EXPECT_EQ(decode_challenge(body), challenge);
  EXPECT_FALSE(decode_challenge(body.first(body.size() - 1)));
  EXPECT_FALSE(decode_challenge({}));
  std::vector<std::byte> bad_scheme(body.begin(), body.end());
  bad_scheme[0] = std::byte{9};
  EXPECT_FALSE(decode_challenge(bad_scheme));

  const auto auth = answer_challenge(key_of(1), challenge, 5, {});
  message = encode_auth(5, auth);
  ASSERT_EQ(decode_header(message, header), HeaderError::none);
  EXPECT_EQ(header.type, MessageType::auth);
  body = std::span<const std::byte>(message).subspan(kHeaderBytes);
  EXPECT_EQ(decode_auth(body), auth);
  EXPECT_FALSE(decode_auth(body.first(body.size() - 1)));
  bad_scheme.assign(body.begin(), body.end());
  bad_scheme[0] = std::byte{0};
  EXPECT_FALSE(decode_auth(bad_scheme));
  // A CHALLENGE is not an AUTH.
  EXPECT_FALSE(decode_auth(std::span<const std::byte>(encode_challenge(5, challenge)).subspan(kHeaderBytes)));
}

TEST(Auth, UnauthorizedAckRoundTrips) {
  auto message = encode_hello_ack(1, HelloAck{AckStatus::unauthorized, "wrong key"});
  auto ack = decode_hello_ack(std::span<const std::byte>(message).subspan(kHeaderBytes));
  ASSERT_TRUE(ack);
  EXPECT_EQ(ack->status, AckStatus::unauthorized);
  EXPECT_EQ(to_string(AckStatus::unauthorized), "unauthorized");
}

std::filesystem::path write_key(const std::string& name, const std::string& contents, mode_t mode) {
  auto path = test::scratch_dir("keys") / name;
  std::ofstream(path, std::ios::binary) << contents;
  ::chmod(path.c_str(), mode);
  return path;
}

TEST(KeyFile, HexAndRawKeysLoad) {
  const std::string hex(64, 'a');
  EXPECT_EQ(load_key_file(write_key("hex", hex + "\n", 0600)), key_of(0xaa));
  EXPECT_EQ(load_key_file(write_key("hex_nonl", hex, 0400)), key_of(0xaa));
  EXPECT_EQ(load_key_file(write_key("raw", std::string(32, '\x11'), 0600)), key_of(0x11));
}

TEST(KeyFile, WrongSizePermissionsOrDigitsAreOneClearLine) {
  auto expect_error = [](const std::filesystem::path& path, const std::string& needle) {
    try {
      load_key_file(path);
      ADD_FAILURE() << "loaded " << path;
    } catch (const KeyFileError& error) {
      const std::string what = error.what();
      EXPECT_NE(what.find(needle), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  };
  expect_error(write_key("short", "abcd\n", 0600), "expected 64 hex digits");
  expect_error(write_key("open", std::string(64, 'a'), 0644), "chmod 600");
  expect_error(write_key("notx", std::string(63, 'a') + "g", 0600), "not a hex digit");
  expect_error(test::scratch_dir("keys-missing") / "none", "No such file");
}

// ---- tcp handshake with keys ------------------------------------------------------------

class Collector : public FrameConsumer {
 public:
  void session_started(std::uint16_t stream, const Hello&) override {
    std::lock_guard lock(mutex);
    ++sessions[stream];
  }
  void frame_received(std::uint16_t stream, FramePtr) override {
    std::lock_guard lock(mutex);
    ++frames[stream];
    changed.notify_all();
  }
  void session_ended(std::uint16_t stream, bool clean, std::uint64_t next_seq) override {
    std::lock_guard lock(mutex);
    ended[stream] = clean;
    (void)next_seq;
    changed.notify_all();
  }
  std::mutex mutex;
  std::condition_variable changed;
  std::map<std::uint16_t, int> sessions, frames;
  std::map<std::uint16_t, bool> ended;
};

class AuthHandshakeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    stats_ = std::make_unique<StatsRegistry>(Role::recv, 4, "tcp");
    ReceiverOptions options{.listen = Endpoint{"127.0.0.1", 0}, .streams = 4,
                            .handshake_timeout = 2s};
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
    auto opened = asio::co_spawn(strands_.at(sender.get()), [sender]() -> awaitable<bool> { co_return co_await sender->open(); },
                                 asio::use_future);
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
  Collector collector_;
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
  std::unique_lock lock(collector_.mutex);
  ASSERT_TRUE(collector_.changed.wait_for(lock, 5s, [&] { return collector_.ended.count(0) > 0; }));
  EXPECT_EQ(collector_.frames[0], 10);
  EXPECT_TRUE(collector_.ended[0]);
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
  std::unique_lock lock(collector_.mutex);
  ASSERT_TRUE(collector_.changed.wait_for(lock, 5s, [&] { return collector_.ended.count(0) > 0; }));
  EXPECT_EQ(collector_.frames[0], 20);
  EXPECT_EQ(collector_.sessions.count(1), 0u);
  EXPECT_EQ(collector_.sessions.count(2), 0u);
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
  // Same HELLO, same (recorded) AUTH on a new connection: the challenge differs, so it fails.
  std::this_thread::sleep_for(200ms);  // the first session releases stream 1
  auto socket = raw_connect();
  asio::write(socket, asio::buffer(hello_message));
  auto [header, challenge_body] = read_message(socket);
  ASSERT_EQ(header.type, MessageType::challenge);
  EXPECT_NE(decode_challenge(challenge_body)->receiver_nonce, first_nonce);
  asio::write(socket, asio::buffer(recorded_auth));
  auto [ack_header, ack_body] = read_message(socket);
  ASSERT_EQ(ack_header.type, MessageType::hello_ack);
  auto ack = decode_hello_ack(ack_body);
  ASSERT_TRUE(ack);
  EXPECT_EQ(ack->status, AckStatus::unauthorized);
  EXPECT_EQ(collector_.sessions[1], 1);
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
