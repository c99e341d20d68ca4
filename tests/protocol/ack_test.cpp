// The mtcp ACK message: round trip, and malformed input refused.
#include "protocol/ack.hpp"

#include <gtest/gtest.h>

#include <random>

namespace hdstream {
namespace {

TEST(Ack, RoundTripsThroughTheWire) {
  const Ack ack{
      .next_frame_seq = 0x1122334455667788ULL, .chunks_received = 123456789, .subconnection = 3};
  std::array<std::byte, kAckMessageBytes> message;
  encode_ack(9, ack, message);
  MessageHeader header;
  ASSERT_EQ(decode_header(message, header), HeaderError::none);
  EXPECT_EQ(header.type, MessageType::ack);
  EXPECT_EQ(header.stream_id, 9);
  ASSERT_EQ(header.payload_bytes, kAckBodyBytes);
  auto decoded = decode_ack(std::span(message).subspan(kHeaderBytes));
  ASSERT_TRUE(decoded);
  EXPECT_EQ(*decoded, ack);
}

TEST(Ack, TruncatedBodiesAreRejectedAtEveryLength) {
  std::array<std::byte, kAckMessageBytes> message;
  encode_ack(0, Ack{.next_frame_seq = 5, .chunks_received = 7, .subconnection = 1}, message);
  auto body = std::span<const std::byte>(message).subspan(kHeaderBytes);
  for (std::size_t n = 0; n < body.size(); ++n) EXPECT_FALSE(decode_ack(body.first(n))) << n;
}

TEST(Ack, SubconnectionBeyondTheLimitIsRejected) {
  std::array<std::byte, kAckMessageBytes> message;
  encode_ack(0, Ack{.subconnection = kMaxSubconnections}, message);
  EXPECT_FALSE(decode_ack(std::span(message).subspan(kHeaderBytes)));
}

TEST(Ack, LongerBodiesFromANewerRevisionAreAccepted) {
  std::array<std::byte, kAckMessageBytes> message;
  const Ack ack{.next_frame_seq = 1, .chunks_received = 2, .subconnection = 0};
  encode_ack(0, ack, message);
  std::vector<std::byte> longer(message.begin() + kHeaderBytes, message.end());
  longer.resize(longer.size() + 12, std::byte{0x7f});
  EXPECT_EQ(decode_ack(longer), ack);
}

TEST(Ack, RandomBodiesNeverCrash) {
  std::mt19937 random(7);
  for (int i = 0; i < 2000; ++i) {
    std::vector<std::byte> body(random() % 40);
    for (auto& b : body) b = static_cast<std::byte>(random());
    auto ack = decode_ack(body);
    if (ack) {
      EXPECT_LT(ack->subconnection, kMaxSubconnections);
    }
  }
}

}  // namespace
}  // namespace hdstream
