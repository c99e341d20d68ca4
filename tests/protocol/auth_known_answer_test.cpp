// Pins the authentication bytes: the HMAC-SHA-256 over a fixed key, nonces, stream id and
// HELLO body (from tests/protocol/known_answers.py and `openssl dgst -mac HMAC`, over the input
// docs/PROTOCOL.md names), and the exact CHALLENGE and AUTH messages.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "protocol/auth.hpp"
#include "protocol/wire.hpp"
#include "tests/protocol/known_answer.hpp"

namespace hdstream {
namespace {

template <std::size_t N>
std::array<std::byte, N> counting_from(std::uint8_t first) {
  std::array<std::byte, N> out;
  for (std::size_t i = 0; i < N; ++i) out[i] = static_cast<std::byte>(first + i);
  return out;
}

// Key 00 01 .. 1f, receiver nonce 20 .. 3f, sender nonce 40 .. 5f, stream id 2.
const PresharedKey kKey = counting_from<kKeyBytes>(0x00);
const Nonce kReceiverNonce = counting_from<kNonceBytes>(0x20);
const Nonce kSenderNonce = counting_from<kNonceBytes>(0x40);

// The HELLO body of control_known_answer_test.cpp (DNxHD 1080 over mtcp, sub-connection 3 of 4).
constexpr std::uint8_t kHelloBody[] = {
    0x02, 0x00, 0x07, 0x80, 0x04, 0x38, 0x00, 0x00, 0x75, 0x30, 0x00, 0x00, 0x03, 0xe9,
    0x00, 0x00, 0x00, 0x00, 0x0d, 0x1c, 0xef, 0x00, 0x02, 0x04, 0x00, 0x00, 0x00, 0x01,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x78, 0x00, 0x01, 0x7a, 0xe8, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x30, 0x39, 0x03, 0x00, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
};

// HMAC-SHA-256(key, "hdstream-auth-v1" || receiver nonce || sender nonce || 00 02 || HELLO body).
constexpr std::uint8_t kMac[] = {
    0xd9, 0x00, 0xc5, 0x37, 0xd8, 0x99, 0xe9, 0x93, 0x1d, 0xad, 0x1d, 0xa9, 0x0b, 0x62, 0x9b, 0x10,
    0xab, 0x28, 0x48, 0x7e, 0x67, 0x06, 0xbb, 0xd5, 0xca, 0x03, 0xde, 0x1c, 0x87, 0xdd, 0x4c, 0x04,
};

Mac pinned_mac() {
  Mac mac;
  std::memcpy(mac.data(), kMac, kMacBytes);
  return mac;
}

TEST(AuthKnownAnswer, MacIsHmacSha256OverTheDocumentedInput) {
  const Mac mac = auth_mac(kKey, kReceiverNonce, kSenderNonce, 2, test::bytes_of(kHelloBody));
  EXPECT_EQ(test::hex(mac), test::hex(kMac));
}

// A receiver must accept exactly this answer from an older sender, and nothing near it.
TEST(AuthKnownAnswer, ReceiverVerifiesThePinnedAnswerAndNothingElse) {
  const Challenge challenge{kAuthSchemeHmacSha256, kReceiverNonce};
  const auto hello = test::bytes_of(kHelloBody);
  AuthResponse answer{kAuthSchemeHmacSha256, kSenderNonce, pinned_mac()};
  EXPECT_TRUE(verify_auth(kKey, challenge, 2, hello, answer));
  EXPECT_FALSE(verify_auth(kKey, challenge, 3, hello, answer));  // another stream id
  auto altered = hello;
  altered[23] = std::byte{0x05};  // five connections instead of four
  EXPECT_FALSE(verify_auth(kKey, challenge, 2, altered, answer));
  answer.mac[31] ^= std::byte{0x80};
  EXPECT_FALSE(verify_auth(kKey, challenge, 2, hello, answer));
}

constexpr std::uint8_t kChallengeMessage[] = {
    // header
    0x48,
    0x44,
    0x53,
    0x54,  // magic "HDST"
    0x01,  // version 1
    0x07,  // type CHALLENGE
    0x00,
    0x02,  // stream_id 2
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,  // frame_seq
    0x00,
    0x00,
    0x00,
    0x00,  // frame_bytes
    0x00,
    0x00,  // chunk_index
    0x00,
    0x00,  // chunk_count
    0x00,
    0x00,
    0x00,
    0x00,  // payload_offset
    0x00,
    0x00,
    0x00,
    0x24,  // payload_bytes 36
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,  // timestamp_ns
    0x5b,
    0x4f,
    0xaf,
    0x5d,
    0x78,
    0x95,
    0x32,
    0xd9,  // payload_xxh3 of the body
    // body
    0x01,  // scheme 1: HMAC-SHA-256
    0x00,
    0x00,
    0x00,  // reserved
    0x20,
    0x21,
    0x22,
    0x23,
    0x24,
    0x25,
    0x26,
    0x27,
    0x28,
    0x29,
    0x2a,
    0x2b,
    0x2c,
    0x2d,
    0x2e,
    0x2f,
    0x30,
    0x31,
    0x32,
    0x33,
    0x34,
    0x35,
    0x36,
    0x37,
    0x38,
    0x39,
    0x3a,
    0x3b,
    0x3c,
    0x3d,
    0x3e,
    0x3f,
};

TEST(AuthKnownAnswer, ChallengeIsWrittenAndReadAsDocumented) {
  const Challenge challenge{kAuthSchemeHmacSha256, kReceiverNonce};
  EXPECT_EQ(test::hex(encode_challenge(2, challenge)), test::hex(kChallengeMessage));
  auto message = test::bytes_of(kChallengeMessage);
  auto body = std::span(message).subspan(kHeaderBytes);
  EXPECT_EQ(decode_challenge(body), challenge);
  body[0] = std::byte{2};  // an unknown scheme
  EXPECT_FALSE(decode_challenge(body));
}

constexpr std::uint8_t kAuthMessage[] = {
    // header
    0x48,
    0x44,
    0x53,
    0x54,  // magic "HDST"
    0x01,  // version 1
    0x08,  // type AUTH
    0x00,
    0x02,  // stream_id 2
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,  // frame_seq
    0x00,
    0x00,
    0x00,
    0x00,  // frame_bytes
    0x00,
    0x00,  // chunk_index
    0x00,
    0x00,  // chunk_count
    0x00,
    0x00,
    0x00,
    0x00,  // payload_offset
    0x00,
    0x00,
    0x00,
    0x44,  // payload_bytes 68
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,
    0x00,  // timestamp_ns
    0x7e,
    0x5a,
    0x6c,
    0x41,
    0xad,
    0xeb,
    0x04,
    0x8d,  // payload_xxh3 of the body
    // body
    0x01,  // scheme 1: HMAC-SHA-256
    0x00,
    0x00,
    0x00,  // reserved
    // sender nonce
    0x40,
    0x41,
    0x42,
    0x43,
    0x44,
    0x45,
    0x46,
    0x47,
    0x48,
    0x49,
    0x4a,
    0x4b,
    0x4c,
    0x4d,
    0x4e,
    0x4f,
    0x50,
    0x51,
    0x52,
    0x53,
    0x54,
    0x55,
    0x56,
    0x57,
    0x58,
    0x59,
    0x5a,
    0x5b,
    0x5c,
    0x5d,
    0x5e,
    0x5f,
    // HMAC (kMac)
    0xd9,
    0x00,
    0xc5,
    0x37,
    0xd8,
    0x99,
    0xe9,
    0x93,
    0x1d,
    0xad,
    0x1d,
    0xa9,
    0x0b,
    0x62,
    0x9b,
    0x10,
    0xab,
    0x28,
    0x48,
    0x7e,
    0x67,
    0x06,
    0xbb,
    0xd5,
    0xca,
    0x03,
    0xde,
    0x1c,
    0x87,
    0xdd,
    0x4c,
    0x04,
};

TEST(AuthKnownAnswer, AuthIsWrittenAndReadAsDocumented) {
  const AuthResponse answer{kAuthSchemeHmacSha256, kSenderNonce, pinned_mac()};
  EXPECT_EQ(test::hex(encode_auth(2, answer)), test::hex(kAuthMessage));
  const auto message = test::bytes_of(kAuthMessage);
  const auto body = std::span(message).subspan(kHeaderBytes);
  EXPECT_EQ(decode_auth(body), answer);
  EXPECT_FALSE(decode_auth(body.first(body.size() - 1)));
}

}  // namespace
}  // namespace hdstream
