// What every receiver makes of a message that should be a HELLO: the valid one, and every way a
// peer can get it wrong (another message, corrupted, cut short, padded, garbage, out of bounds,
// for another transport), as one datagram (srt) and as a header and body (tcp, mtcp).
#include "transport/hello_intake.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "protocol/checksum.hpp"

namespace hdstream {
namespace {

Hello valid_hello(TransportKind transport) {
  Hello hello;
  hello.feed = FeedDescriptor{Codec::synthetic, 1920, 1080, 30, 1, 100'000'000};
  hello.transport = transport;
  hello.connections = 1;
  hello.chunk_bytes = 1408;
  hello.latency_budget_ms = 120;
  return hello;
}

HelloIntake examine_split(const std::vector<std::byte>& message, TransportKind transport) {
  MessageHeader header;
  EXPECT_EQ(decode_header(message, header), HeaderError::none);
  const auto body = std::span<const std::byte>(message).subspan(kHeaderBytes);
  return examine_hello(header, body, payload_checksum(body) == header.payload_xxh3, transport);
}

TEST(HelloIntake, AValidHelloForThisTransportIsTaken) {
  const auto message = encode_hello(3, valid_hello(TransportKind::srt));
  for (const auto& intake :
       {examine_hello(message, TransportKind::srt), examine_split(message, TransportKind::srt)}) {
    ASSERT_TRUE(intake.hello) << intake.reason;
    EXPECT_EQ(intake.stream_id, 3);
    EXPECT_EQ(intake.status, AckStatus::accepted);
    EXPECT_EQ(intake.hello->feed.bit_rate_bps, 100'000'000u);
  }
}

TEST(HelloIntake, AHelloForAnotherTransportIsRefusedWithAReply) {
  const auto message = encode_hello(0, valid_hello(TransportKind::mtcp));
  const auto intake = examine_split(message, TransportKind::tcp);
  EXPECT_FALSE(intake.hello);
  EXPECT_TRUE(intake.reply);
  EXPECT_EQ(intake.status, AckStatus::bad_request);
  EXPECT_EQ(intake.reason, "this listener serves tcp, not mtcp");
}

TEST(HelloIntake, FieldsOutOfBoundsAreRefusedWithValidationsReason) {
  Hello hello = valid_hello(TransportKind::srt);
  hello.latency_budget_ms = UINT32_MAX;
  const auto intake = examine_hello(encode_hello(0, hello), TransportKind::srt);
  EXPECT_FALSE(intake.hello);
  EXPECT_TRUE(intake.reply);
  EXPECT_EQ(intake.reason, validate_hello(hello));
  EXPECT_NE(intake.reason.find("latency budget"), std::string::npos) << intake.reason;
}

TEST(HelloIntake, AnotherMessageOrACorruptedHelloIsClosedWithoutAReply) {
  const auto end = encode_end(0, End{100});
  auto intake = examine_hello(end, TransportKind::srt);
  EXPECT_FALSE(intake.reply);
  EXPECT_EQ(intake.reason, "expected a HELLO, got another message");

  auto corrupted = encode_hello(0, valid_hello(TransportKind::srt));
  corrupted.back() ^= std::byte{1};  // the body no longer matches the header's checksum
  intake = examine_hello(corrupted, TransportKind::srt);
  EXPECT_FALSE(intake.hello);
  EXPECT_FALSE(intake.reply);
  EXPECT_EQ(intake.reason, "expected a HELLO, got a corrupted message");
  intake = examine_split(corrupted, TransportKind::srt);
  EXPECT_FALSE(intake.reply);
}

TEST(HelloIntake, ADatagramCutShortOrPaddedIsNotTakenForItsHeader) {
  const auto message = encode_hello(0, valid_hello(TransportKind::srt));
  const std::span<const std::byte> whole(message);
  for (const std::size_t size :
       {std::size_t{0}, std::size_t{1}, kHeaderBytes - 1, kHeaderBytes, message.size() - 1}) {
    const auto intake = examine_hello(whole.first(size), TransportKind::srt);
    EXPECT_FALSE(intake.hello) << size;
    EXPECT_FALSE(intake.reply) << size;
    EXPECT_NE(intake.reason.find("expected a HELLO"), std::string::npos) << intake.reason;
  }
  auto padded = message;
  padded.push_back(std::byte{0});
  const auto intake = examine_hello(padded, TransportKind::srt);
  EXPECT_FALSE(intake.reply);
  EXPECT_EQ(intake.reason, "expected a HELLO, got a message whose length is not its header's");
}

TEST(HelloIntake, AnIntactHelloHeaderOverGarbageIsAMalformedHello) {
  // The header is right and its checksum matches: the peer speaks the protocol, its body not.
  const auto valid = encode_hello(0, valid_hello(TransportKind::srt));
  MessageHeader header;
  ASSERT_EQ(decode_header(valid, header), HeaderError::none);
  std::mt19937 random(7);
  for (const std::size_t size : {std::size_t{0}, std::size_t{3}, std::size_t{40}}) {
    std::vector<std::byte> body(size);
    for (auto& byte : body) byte = static_cast<std::byte>(random());
    header.payload_bytes = static_cast<std::uint32_t>(size);
    header.payload_xxh3 = payload_checksum(body);
    const auto intake = examine_hello(header, body, /*checksum_ok=*/true, TransportKind::srt);
    EXPECT_FALSE(intake.hello) << size;
    EXPECT_TRUE(intake.reply) << size;
    EXPECT_EQ(intake.status, AckStatus::bad_request);
    EXPECT_EQ(intake.reason, "malformed HELLO") << size;
  }
}

// A valid HELLO with bytes of its body changed and its checksum made right again: it reaches the
// decoder and the bounds. Whatever is taken is valid for this transport; the rest is refused with
// a reason.
TEST(HelloIntake, MutatedHellosAreTakenOnlyWhenValid) {
  const auto valid = encode_hello(0, valid_hello(TransportKind::srt));
  std::mt19937 random(13);
  int taken = 0;
  int refused = 0;
  for (int i = 0; i < 5000; ++i) {
    auto message = valid;
    const auto body = std::span<std::byte>(message).subspan(kHeaderBytes);
    for (int flips = 1 + static_cast<int>(random() % 4); flips > 0; --flips) {
      body[random() % body.size()] ^= static_cast<std::byte>(1u << (random() % 8));
    }
    MessageHeader header;
    ASSERT_EQ(decode_header(message, header), HeaderError::none);
    header.payload_xxh3 = payload_checksum(body);
    const auto intake = examine_hello(header, body, /*checksum_ok=*/true, TransportKind::srt);
    if (intake.hello) {
      ++taken;
      EXPECT_EQ(validate_hello(*intake.hello), "") << i;
      EXPECT_EQ(intake.hello->transport, TransportKind::srt) << i;
    } else {
      ++refused;
      EXPECT_TRUE(intake.reply) << i;
      EXPECT_FALSE(intake.reason.empty()) << i;
    }
  }
  // Both happen: flips in fields without bounds pass, flips in bounded ones do not.
  EXPECT_GT(taken, 0);
  EXPECT_GT(refused, 0);
}

TEST(HelloIntake, RandomDatagramsNeverPassAndNeverCrash) {
  std::mt19937 random(11);
  for (int i = 0; i < 2000; ++i) {
    std::vector<std::byte> datagram(random() % 200);
    for (auto& byte : datagram) byte = static_cast<std::byte>(random());
    const auto intake = examine_hello(datagram, TransportKind::srt);
    EXPECT_FALSE(intake.hello) << i;
    EXPECT_FALSE(intake.reason.empty()) << i;
  }
}

}  // namespace
}  // namespace hdstream
