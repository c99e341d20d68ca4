// Pins the data path's wire bytes: XXH3-64 (seed 0) of fixed payloads on every XXH3 code path,
// and the exact CHUNK headers the packetizer writes, written out by hand from docs/PROTOCOL.md.
// The expected hashes come from python-xxhash and `xxhsum -H3` (tests/protocol/known_answers.py).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "protocol/checksum.hpp"
#include "protocol/frame.hpp"
#include "protocol/packetizer.hpp"
#include "protocol/reassembler.hpp"
#include "protocol/wire.hpp"
#include "tests/protocol/known_answer.hpp"

namespace hdstream {
namespace {

// Byte i of the test payload is (7 i + 3) mod 256 (python: bytes((i*7+3) & 255 for i in ...)).
FrameBytes pattern(std::size_t bytes) {
  FrameBytes out(bytes);
  for (std::size_t i = 0; i < bytes; ++i) out[i] = static_cast<std::byte>((i * 7 + 3) & 0xff);
  return out;
}

struct HashAnswer {
  std::size_t bytes;
  std::uint64_t xxh3;
};

// One length in each of XXH3-64's input-size branches (0, 1-3, 4-8, 9-16, 17-128, 129-240,
// > 240 in stripes and in several 1 KiB blocks): above 240 bytes the x86 dispatch picks an AVX2 or
// AVX-512 kernel, which must give the scalar algorithm's value. XXH3-64("") is also the value
// xxHash's own sanity check publishes.
constexpr std::array<HashAnswer, 15> kPatternXxh3{{
    {0, 0x2d06800538d394c2},
    {1, 0x13e608bc156defed},
    {3, 0xa9088dda485b481c},
    {4, 0x6d9253b16c8b1ed3},
    {8, 0x60539db630471163},
    {9, 0xfeff668361d723a8},
    {16, 0xb8c859b0f030b585},
    {17, 0x714a04408e79b80f},
    {128, 0x67425a03650261bf},
    {129, 0xc664bf3311c6abc4},
    {240, 0x64556dc6b462a6cf},
    {241, 0x8beadd3a8874fe17},
    {1024, 0x9b81661c641c72b1},
    {4096, 0xd7428746842be37e},
    {5000, 0x799aaddd7339581d},
}};

TEST(WireKnownAnswer, PayloadChecksumIsXxh3SixtyFourWithSeedZero) {
  const auto payload = pattern(5000);
  for (const auto& [bytes, xxh3] : kPatternXxh3) {
    EXPECT_EQ(payload_checksum(std::span(payload).first(bytes)), xxh3) << bytes << " bytes";
  }
}

// A 5000-byte frame (stream 2, seq 0x0102030405060708, ready at 1.7e18 + 123456789 ns) cut into
// 4096-byte chunks: chunk 0 carries bytes 0..4095, chunk 1 the last 904.
constexpr std::uint8_t kChunk0Header[] = {
    0x48, 0x44, 0x53, 0x54,                          // magic "HDST"
    0x01,                                            // version 1
    0x01,                                            // type CHUNK
    0x00, 0x02,                                      // stream_id 2
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,  // frame_seq
    0x00, 0x00, 0x13, 0x88,                          // frame_bytes 5000
    0x00, 0x00,                                      // chunk_index 0
    0x00, 0x02,                                      // chunk_count 2
    0x00, 0x00, 0x00, 0x00,                          // payload_offset 0
    0x00, 0x00, 0x10, 0x00,                          // payload_bytes 4096
    0x17, 0x97, 0x9c, 0xfe, 0x3d, 0x85, 0xcd, 0x15,  // timestamp_ns 1700000000123456789
    0xd7, 0x42, 0x87, 0x46, 0x84, 0x2b, 0xe3, 0x7e,  // payload_xxh3 of bytes 0..4095
};
constexpr std::uint8_t kChunk1Header[] = {
    0x48, 0x44, 0x53, 0x54,                          // magic "HDST"
    0x01,                                            // version 1
    0x01,                                            // type CHUNK
    0x00, 0x02,                                      // stream_id 2
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,  // frame_seq
    0x00, 0x00, 0x13, 0x88,                          // frame_bytes 5000
    0x00, 0x01,                                      // chunk_index 1
    0x00, 0x02,                                      // chunk_count 2
    0x00, 0x00, 0x10, 0x00,                          // payload_offset 4096
    0x00, 0x00, 0x03, 0x88,                          // payload_bytes 904
    0x17, 0x97, 0x9c, 0xfe, 0x3d, 0x85, 0xcd, 0x15,  // timestamp_ns
    0xfb, 0x66, 0x0f, 0x30, 0xc5, 0x91, 0x95, 0x5a,  // payload_xxh3 of bytes 4096..4999
};

Frame pinned_frame() {
  Frame frame;
  frame.stream_id = 2;
  frame.seq = 0x0102030405060708;
  frame.ready_ns = 1'700'000'000'123'456'789;
  frame.data = pattern(5000);
  return frame;
}

TEST(WireKnownAnswer, PacketizerWritesTheDocumentedChunkHeaders) {
  const Frame frame = pinned_frame();
  std::vector<EncodedChunk> chunks;
  packetize(frame, 4096, chunks);
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(test::hex(chunks[0].header), test::hex(kChunk0Header));
  EXPECT_EQ(test::hex(chunks[1].header), test::hex(kChunk1Header));
  EXPECT_EQ(chunks[0].payload.size(), 4096u);
  EXPECT_EQ(chunks[1].payload.size(), 904u);
}

TEST(WireKnownAnswer, DocumentedChunkHeadersDecodeToTheirFields) {
  MessageHeader header;
  ASSERT_EQ(decode_header(test::bytes_of(kChunk1Header), header), HeaderError::none);
  EXPECT_EQ(header.type, MessageType::chunk);
  EXPECT_EQ(header.version, 1);
  EXPECT_EQ(header.stream_id, 2);
  EXPECT_EQ(header.frame_seq, 0x0102030405060708u);
  EXPECT_EQ(header.frame_bytes, 5000u);
  EXPECT_EQ(header.chunk_index, 1);
  EXPECT_EQ(header.chunk_count, 2);
  EXPECT_EQ(header.payload_offset, 4096u);
  EXPECT_EQ(header.payload_bytes, 904u);
  EXPECT_EQ(header.timestamp_ns, 1'700'000'000'123'456'789);
  EXPECT_EQ(header.payload_xxh3, 0xfb660f30c591955au);
}

// What an older sender wrote, the receiver must still rebuild: the literal headers, in reverse
// order, give back the frame; the same header over a payload with one bit flipped does not.
TEST(WireKnownAnswer, ReassemblerRebuildsTheFrameFromTheDocumentedChunks) {
  const auto payload = pattern(5000);
  MessageHeader first, last;
  ASSERT_EQ(decode_header(test::bytes_of(kChunk0Header), first), HeaderError::none);
  ASSERT_EQ(decode_header(test::bytes_of(kChunk1Header), last), HeaderError::none);

  FramePool pool;
  Reassembler reassembler(2, {.first_seq = 0x0102030405060708}, pool);
  auto corrupt = std::vector<std::byte>(payload.begin() + 4096, payload.end());
  corrupt[100] ^= std::byte{0x01};
  EXPECT_EQ(reassembler.push(last, corrupt, 1), ChunkResult::checksum_mismatch);
  EXPECT_EQ(reassembler.push(last, std::span(payload).subspan(4096), 2), ChunkResult::accepted);
  EXPECT_EQ(reassembler.push(first, std::span(payload).first(4096), 3), ChunkResult::accepted);
  FramePtr frame = reassembler.pop(4);
  ASSERT_TRUE(frame);
  EXPECT_EQ(frame->seq, 0x0102030405060708u);
  EXPECT_EQ(frame->data, payload);
  EXPECT_EQ(reassembler.counters().checksum_errors, 1u);
}

TEST(WireKnownAnswer, AnotherVersionOrMagicInTheDocumentedHeaderIsRefused) {
  auto bytes = test::bytes_of(kChunk0Header);
  MessageHeader header;
  bytes[4] = std::byte{2};  // version
  EXPECT_EQ(decode_header(bytes, header), HeaderError::unsupported_version);
  bytes = test::bytes_of(kChunk0Header);
  bytes[0] = std::byte{'h'};  // magic
  EXPECT_EQ(decode_header(bytes, header), HeaderError::bad_magic);
}

}  // namespace
}  // namespace hdstream
