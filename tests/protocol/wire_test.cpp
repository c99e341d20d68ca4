#include "protocol/wire.hpp"

#include <gtest/gtest.h>

#include <array>
#include <random>

namespace hdstream {
namespace {

MessageHeader sample_chunk() {
  MessageHeader h;
  h.type = MessageType::chunk;
  h.stream_id = 4;
  h.frame_seq = 0x0102030405060708ull;
  h.frame_bytes = 1'126'126;
  h.chunk_index = 3;
  h.chunk_count = 18;
  h.payload_offset = 3 * 65536;
  h.payload_bytes = 65536;
  h.timestamp_ns = 1'700'000'000'123'456'789;
  h.payload_xxh3 = 0xdeadbeefcafef00dull;
  return h;
}

std::array<std::byte, kHeaderBytes> encoded(const MessageHeader& h) {
  std::array<std::byte, kHeaderBytes> out{};
  encode_header(h, out);
  return out;
}

TEST(Wire, RoundTripsEveryField) {
  const MessageHeader h = sample_chunk();
  MessageHeader decoded;
  ASSERT_EQ(decode_header(encoded(h), decoded), HeaderError::none);
  EXPECT_EQ(decoded, h);
}

TEST(Wire, LayoutIsBigEndianAsDocumented) {
  const auto bytes = encoded(sample_chunk());
  // "HDST", version 1, type 1 (chunk), stream 4.
  EXPECT_EQ(bytes[0], std::byte{'H'});
  EXPECT_EQ(bytes[3], std::byte{'T'});
  EXPECT_EQ(bytes[4], std::byte{1});
  EXPECT_EQ(bytes[5], std::byte{1});
  EXPECT_EQ(bytes[6], std::byte{0});
  EXPECT_EQ(bytes[7], std::byte{4});
  // frame_seq at offset 8, most significant byte first.
  EXPECT_EQ(bytes[8], std::byte{0x01});
  EXPECT_EQ(bytes[15], std::byte{0x08});
  // payload_xxh3 in the last 8 bytes.
  EXPECT_EQ(bytes[40], std::byte{0xde});
  EXPECT_EQ(bytes[47], std::byte{0x0d});
}

TEST(Wire, RejectsTruncatedHeaders) {
  const auto bytes = encoded(sample_chunk());
  MessageHeader h;
  for (std::size_t n = 0; n < kHeaderBytes; ++n) {
    EXPECT_EQ(decode_header(std::span(bytes).first(n), h), HeaderError::truncated) << n;
  }
}

TEST(Wire, RejectsBadMagicAndUnknownVersions) {
  auto bytes = encoded(sample_chunk());
  MessageHeader h;
  bytes[0] = std::byte{'G'};
  EXPECT_EQ(decode_header(bytes, h), HeaderError::bad_magic);
  bytes = encoded(sample_chunk());
  bytes[4] = std::byte{2};
  EXPECT_EQ(decode_header(bytes, h), HeaderError::unsupported_version);
  bytes[4] = std::byte{0};
  EXPECT_EQ(decode_header(bytes, h), HeaderError::unsupported_version);
}

TEST(Wire, RejectsUnknownTypes) {
  auto bytes = encoded(sample_chunk());
  MessageHeader h;
  for (int type : {0, 9, 200, 255}) {
    bytes[5] = static_cast<std::byte>(type);
    EXPECT_EQ(decode_header(bytes, h), HeaderError::unknown_type) << type;
  }
}

TEST(Wire, RejectsInconsistentChunkGeometry) {
  MessageHeader h = sample_chunk();
  MessageHeader out;
  h.chunk_index = h.chunk_count;
  EXPECT_EQ(decode_header(encoded(h), out), HeaderError::bad_chunk_index);
  h = sample_chunk();
  h.chunk_count = 0;
  h.chunk_index = 0;
  EXPECT_EQ(decode_header(encoded(h), out), HeaderError::bad_chunk_index);
  h = sample_chunk();
  h.payload_bytes = kMaxChunkBytes + 1;
  EXPECT_EQ(decode_header(encoded(h), out), HeaderError::payload_too_large);
  h = sample_chunk();
  h.frame_bytes = kMaxFrameBytes + 1;
  EXPECT_EQ(decode_header(encoded(h), out), HeaderError::frame_too_large);
  h = sample_chunk();
  h.payload_offset = h.frame_bytes - 10;
  EXPECT_EQ(decode_header(encoded(h), out), HeaderError::payload_out_of_frame);
  h = sample_chunk();
  h.payload_offset = 0xffffffffu;  // would wrap in 32-bit arithmetic
  EXPECT_EQ(decode_header(encoded(h), out), HeaderError::payload_out_of_frame);
}

TEST(Wire, BoundsControlMessageBodies) {
  MessageHeader h;
  h.type = MessageType::hello;
  h.payload_bytes = kMaxControlBytes;
  MessageHeader out;
  EXPECT_EQ(decode_header(encoded(h), out), HeaderError::none);
  h.payload_bytes = kMaxControlBytes + 1;
  EXPECT_EQ(decode_header(encoded(h), out), HeaderError::payload_too_large);
}

TEST(Wire, RandomBytesNeverCrashAndAreMostlyRejected) {
  std::mt19937_64 random(42);
  std::array<std::byte, kHeaderBytes> bytes{};
  int accepted = 0;
  for (int i = 0; i < 100'000; ++i) {
    for (auto& b : bytes) b = static_cast<std::byte>(random());
    if (i % 2) {  // half of them with a valid magic and version, to reach the deeper checks
      bytes[0] = std::byte{'H'}, bytes[1] = std::byte{'D'}, bytes[2] = std::byte{'S'};
      bytes[3] = std::byte{'T'}, bytes[4] = std::byte{1};
    }
    MessageHeader h;
    if (decode_header(bytes, h) == HeaderError::none) {
      ++accepted;
      if (h.type == MessageType::chunk) {
        EXPECT_LT(h.chunk_index, h.chunk_count);
        EXPECT_LE(std::uint64_t{h.payload_offset} + h.payload_bytes, h.frame_bytes);
        EXPECT_LE(h.frame_bytes, kMaxFrameBytes);
      } else {
        EXPECT_LE(h.payload_bytes, kMaxControlBytes);
      }
    }
  }
  EXPECT_LT(accepted, 1000);
}

TEST(Wire, EveryErrorHasAMessage) {
  for (int e = 0; e <= static_cast<int>(HeaderError::payload_out_of_frame); ++e) {
    EXPECT_NE(to_string(static_cast<HeaderError>(e)), "unknown header error");
  }
}

}  // namespace
}  // namespace hdstream
