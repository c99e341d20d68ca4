// Pre-shared-key authentication (protocol/auth): the HMAC answer to a challenge, fresh nonces,
// and the CHALLENGE / AUTH codecs against truncated and malformed bodies.
#include "protocol/auth.hpp"

#include <gtest/gtest.h>

#include "protocol/checksum.hpp"
#include "protocol/handshake.hpp"
#include "tests/protocol/test_keys.hpp"

namespace hdstream {
namespace {

using test::key_of;

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
  EXPECT_FALSE(decode_auth(
      std::span<const std::byte>(encode_challenge(5, challenge)).subspan(kHeaderBytes)));
}

TEST(Auth, UnauthorizedAckRoundTrips) {
  auto message = encode_hello_ack(1, HelloAck{AckStatus::unauthorized, "wrong key"});
  auto ack = decode_hello_ack(std::span<const std::byte>(message).subspan(kHeaderBytes));
  ASSERT_TRUE(ack);
  EXPECT_EQ(ack->status, AckStatus::unauthorized);
  EXPECT_EQ(to_string(AckStatus::unauthorized), "unauthorized");
}

}  // namespace
}  // namespace hdstream
