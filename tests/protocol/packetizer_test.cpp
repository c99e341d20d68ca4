#include "protocol/packetizer.hpp"

#include <gtest/gtest.h>

#include "protocol/checksum.hpp"
#include "tests/protocol/test_frames.hpp"

namespace hdstream {
namespace {

TEST(Packetizer, ChunksTileTheFrameExactly) {
  FramePool pool;
  auto frame = test::random_frame(pool, 2, 9, 1'126'125);  // one 270 Mbps frame at 29.97 fps
  auto chunks = test::chunks_of(*frame, 65536);
  ASSERT_EQ(chunks.size(), 18u);  // 17 full chunks and a tail
  std::size_t next_offset = 0;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const auto& h = chunks[i].header;
    EXPECT_EQ(h.type, MessageType::chunk);
    EXPECT_EQ(h.stream_id, 2);
    EXPECT_EQ(h.frame_seq, 9u);
    EXPECT_EQ(h.frame_bytes, 1'126'125u);
    EXPECT_EQ(h.chunk_index, i);
    EXPECT_EQ(h.chunk_count, 18);
    EXPECT_EQ(h.payload_offset, next_offset);
    EXPECT_EQ(h.timestamp_ns, frame->ready_ns);
    EXPECT_EQ(h.payload_xxh3, payload_checksum(chunks[i].payload));
    EXPECT_TRUE(std::equal(chunks[i].payload.begin(), chunks[i].payload.end(),
                           frame->data.begin() + static_cast<std::ptrdiff_t>(next_offset)));
    next_offset += h.payload_bytes;
  }
  EXPECT_EQ(next_offset, frame->data.size());
  EXPECT_EQ(chunks.back().header.payload_bytes, 1'126'125u - 17 * 65536);
}

TEST(Packetizer, PayloadsPointIntoTheFrameWithoutCopying) {
  FramePool pool;
  auto frame = test::random_frame(pool, 0, 0, 200'000);
  std::vector<EncodedChunk> chunks;
  packetize(*frame, 65536, chunks);
  EXPECT_EQ(chunks[1].payload.data(), frame->data.data() + 65536);
}

TEST(Packetizer, SmallAndEmptyFramesAreOneChunk) {
  FramePool pool;
  auto small = test::random_frame(pool, 0, 1, 100);
  EXPECT_EQ(test::chunks_of(*small, 65536).size(), 1u);
  auto empty = test::random_frame(pool, 0, 2, 0);
  auto chunks = test::chunks_of(*empty, 65536);
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].header.payload_bytes, 0u);
  EXPECT_EQ(chunks[0].header.chunk_count, 1);
}

TEST(Packetizer, ExactMultipleHasNoEmptyTail) {
  FramePool pool;
  auto frame = test::random_frame(pool, 0, 1, 4 * 1024);
  auto chunks = test::chunks_of(*frame, 1024);
  ASSERT_EQ(chunks.size(), 4u);
  EXPECT_EQ(chunks.back().header.payload_bytes, 1024u);
}

TEST(Packetizer, RefusesImpossiblePlans) {
  FramePool pool;
  std::vector<EncodedChunk> out;
  auto frame = test::random_frame(pool, 0, 1, 1000);
  EXPECT_THROW(packetize(*frame, 0, out), std::invalid_argument);
  EXPECT_THROW(packetize(*frame, kMaxChunkBytes + 1, out), std::invalid_argument);
  auto big = pool.acquire(70'000);
  EXPECT_THROW(packetize(*big, 1, out), std::invalid_argument);  // 70000 chunks > 65535
  EXPECT_NO_THROW(packetize(*big, min_chunk_bytes(70'000), out));
  auto huge = pool.acquire(kMaxFrameBytes + 1);
  EXPECT_THROW(packetize(*huge, kMaxChunkBytes, out), std::invalid_argument);
}

}  // namespace
}  // namespace hdstream
