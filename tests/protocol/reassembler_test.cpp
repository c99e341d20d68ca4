#include "protocol/reassembler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <random>

#include "protocol/checksum.hpp"
#include "tests/protocol/test_frames.hpp"

namespace hdstream {
namespace {

constexpr std::uint32_t kChunk = 1000;
constexpr std::size_t kFrameBytes = 4500;  // 5 chunks: 4 full, one of 500

class ReassemblerTest : public ::testing::Test {
 protected:
  std::vector<test::WireChunk> frame_chunks(std::uint64_t seq, std::size_t bytes = kFrameBytes) {
    auto frame = test::random_frame(source_pool_, 1, seq, bytes);
    originals_[seq] = frame;
    return test::chunks_of(*frame, kChunk);
  }

  ChunkResult push(Reassembler& r, const test::WireChunk& chunk, std::int64_t now = 0) {
    return r.push(chunk.header, chunk.payload, now);
  }

  // Pops everything deliverable and checks each frame against what was sent.
  std::vector<std::uint64_t> drain(Reassembler& r, std::int64_t now = 0) {
    std::vector<std::uint64_t> seqs;
    while (FramePtr frame = r.pop(now)) {
      seqs.push_back(frame->seq);
      EXPECT_EQ(frame->data, originals_.at(frame->seq)->data) << "frame " << frame->seq;
      EXPECT_EQ(frame->ready_ns, originals_.at(frame->seq)->ready_ns);
    }
    return seqs;
  }

  FramePool source_pool_;
  FramePool pool_;
  std::map<std::uint64_t, FramePtr> originals_;
};

TEST_F(ReassemblerTest, InOrderChunksMakeWholeFrames) {
  Reassembler r(1, {}, pool_);
  for (std::uint64_t seq = 0; seq < 3; ++seq) {
    for (const auto& chunk : frame_chunks(seq)) EXPECT_EQ(push(r, chunk), ChunkResult::accepted);
  }
  EXPECT_EQ(drain(r), (std::vector<std::uint64_t>{0, 1, 2}));
  EXPECT_EQ(r.counters().frames_completed, 3u);
  EXPECT_EQ(r.counters().frames_dropped, 0u);
  EXPECT_EQ(r.frames_in_flight(), 0u);
}

TEST_F(ReassemblerTest, ReorderedChunksAcrossFramesStillDeliverInOrder) {
  Reassembler r(1, {.latency_budget_ns = 1'000'000}, pool_);
  std::vector<test::WireChunk> all;
  for (std::uint64_t seq = 0; seq < 4; ++seq) {
    for (auto& chunk : frame_chunks(seq)) all.push_back(std::move(chunk));
  }
  std::mt19937 random(7);
  std::shuffle(all.begin(), all.end(), random);
  std::vector<std::uint64_t> delivered;
  for (const auto& chunk : all) {
    EXPECT_EQ(push(r, chunk), ChunkResult::accepted);
    auto now = drain(r);
    delivered.insert(delivered.end(), now.begin(), now.end());
  }
  EXPECT_EQ(delivered, (std::vector<std::uint64_t>{0, 1, 2, 3}));
  EXPECT_EQ(r.counters().frames_dropped, 0u);
}

TEST_F(ReassemblerTest, DuplicatesAreCountedAndIgnored) {
  Reassembler r(1, {}, pool_);
  auto chunks = frame_chunks(0);
  EXPECT_EQ(push(r, chunks[0]), ChunkResult::accepted);
  EXPECT_EQ(push(r, chunks[0]), ChunkResult::duplicate);
  for (std::size_t i = 1; i < chunks.size(); ++i) push(r, chunks[i]);
  EXPECT_EQ(drain(r), std::vector<std::uint64_t>{0});
  // Its frame was delivered: the chunk had been received, so it is a duplicate, not late.
  EXPECT_EQ(push(r, chunks[2]), ChunkResult::duplicate);
  EXPECT_EQ(r.counters().duplicate_chunks, 2u);
  EXPECT_EQ(r.counters().late_chunks, 0u);
}

// Frame::content_fingerprint stands for a picture hash in PictureWatch: equal bytes must give
// equal fingerprints whatever order the chunks came in, and any other bytes another one.
TEST_F(ReassemblerTest, AWholeFrameCarriesAFingerprintOfItsBytesInAnyChunkOrder) {
  Reassembler r(1, {.latency_budget_ns = 1'000'000}, pool_);
  auto first = frame_chunks(0);
  // Frame 1 has frame 0's bytes, sent in reverse; frame 2 the same bytes with one flipped;
  // frame 3 frame 0's chunks 1 and 2 swapped in place (the same multiset of checksums).
  auto same = first, flipped = first, swapped = first;
  for (auto* copy : {&same, &flipped, &swapped}) {
    for (auto& chunk : *copy) chunk.header.frame_seq = copy == &same ? 1 : copy == &flipped ? 2 : 3;
  }
  flipped[3].payload[17] ^= std::byte{0x40};
  flipped[3].header.payload_xxh3 = payload_checksum(flipped[3].payload);
  std::swap(swapped[1].payload, swapped[2].payload);
  std::swap(swapped[1].header.payload_xxh3, swapped[2].header.payload_xxh3);
  std::reverse(same.begin(), same.end());
  std::map<std::uint64_t, std::optional<std::uint64_t>> fingerprints;
  for (auto* frame : {&first, &same, &flipped, &swapped}) {
    for (const auto& chunk : *frame) ASSERT_EQ(push(r, chunk), ChunkResult::accepted);
  }
  while (FramePtr frame = r.pop(0)) fingerprints[frame->seq] = frame->content_fingerprint;
  ASSERT_EQ(fingerprints.size(), 4u);
  ASSERT_TRUE(fingerprints[0].has_value());
  EXPECT_EQ(fingerprints[1], fingerprints[0]);
  EXPECT_NE(fingerprints[2], fingerprints[0]);
  EXPECT_NE(fingerprints[3], fingerprints[0]);
}

TEST_F(ReassemblerTest, ACorruptChunkAddsNothingToItsFramesFingerprint) {
  Reassembler r(1, {}, pool_);
  auto chunks = frame_chunks(0);
  auto bad = chunks[2];
  bad.payload[0] ^= std::byte{1};
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    if (i == 2) {
      EXPECT_EQ(push(r, bad), ChunkResult::checksum_mismatch);
    }
    if (i != 4) push(r, chunks[i]);
  }
  EXPECT_EQ(r.pop(0), nullptr);  // chunk 4 still missing
  EXPECT_EQ(push(r, chunks[4]), ChunkResult::accepted);
  FramePtr frame = r.pop(0);
  ASSERT_NE(frame, nullptr);
  // The same bytes without the rejected chunk in between: the same fingerprint.
  Reassembler clean(1, {}, pool_);
  for (const auto& chunk : chunks) push(clean, chunk);
  FramePtr reference = clean.pop(0);
  ASSERT_NE(reference, nullptr);
  ASSERT_TRUE(frame->content_fingerprint.has_value());
  EXPECT_EQ(frame->content_fingerprint, reference->content_fingerprint);
}

TEST_F(ReassemblerTest, CorruptedPayloadIsCountedAndTheChunkCanBeResent) {
  Reassembler r(1, {}, pool_);
  auto chunks = frame_chunks(0);
  auto corrupted = chunks[1];
  corrupted.payload[17] ^= std::byte{0x01};
  EXPECT_EQ(push(r, corrupted), ChunkResult::checksum_mismatch);
  EXPECT_EQ(r.counters().checksum_errors, 1u);
  for (const auto& chunk : chunks) EXPECT_EQ(push(r, chunk), ChunkResult::accepted);
  EXPECT_EQ(drain(r), std::vector<std::uint64_t>{0});
}

TEST_F(ReassemblerTest, OnAnInOrderTransportAGapIsDroppedAsSoonAsALaterFrameCompletes) {
  Reassembler r(1, {.latency_budget_ns = 0}, pool_);
  auto first = frame_chunks(0);
  auto second = frame_chunks(1);
  for (std::size_t i = 0; i + 1 < first.size(); ++i) push(r, first[i]);  // last chunk lost
  for (const auto& chunk : second) push(r, chunk);
  EXPECT_EQ(drain(r), std::vector<std::uint64_t>{1});
  EXPECT_EQ(r.counters().frames_dropped, 1u);
}

TEST_F(ReassemblerTest, LatencyBudgetHoldsLaterFramesWhileTheGapMayStillFill) {
  Reassembler r(1, {.latency_budget_ns = 50'000'000}, pool_);
  auto first = frame_chunks(0);
  auto second = frame_chunks(1);
  for (const auto& chunk : second) push(r, chunk, 1'000'000);
  EXPECT_TRUE(drain(r, 40'000'000).empty());  // frame 0 may still arrive
  for (const auto& chunk : first) push(r, chunk, 45'000'000);
  EXPECT_EQ(drain(r, 45'000'000), (std::vector<std::uint64_t>{0, 1}));
  EXPECT_EQ(r.counters().frames_dropped, 0u);

  auto fourth = frame_chunks(3);
  for (const auto& chunk : fourth) push(r, chunk, 100'000'000);
  EXPECT_TRUE(drain(r, 149'000'000).empty());
  EXPECT_EQ(drain(r, 150'000'000), std::vector<std::uint64_t>{3});  // frame 2 given up
  EXPECT_EQ(r.counters().frames_dropped, 1u);
  auto third = frame_chunks(2);
  EXPECT_EQ(push(r, third[0], 151'000'000), ChunkResult::late);
}

TEST_F(ReassemblerTest, FramesInFlightAreBounded) {
  Reassembler r(1, {.max_frames_in_flight = 3, .latency_budget_ns = 1'000'000'000}, pool_);
  for (std::uint64_t seq = 0; seq < 10; ++seq) push(r, frame_chunks(seq)[0]);  // never complete
  EXPECT_LE(r.frames_in_flight(), 3u);
  EXPECT_EQ(r.counters().frames_dropped, 7u);
}

TEST_F(ReassemblerTest, EndCountsFramesThatNeverArrived) {
  Reassembler r(1, {}, pool_);
  for (const auto& chunk : frame_chunks(0)) push(r, chunk);
  auto partial = frame_chunks(1);
  push(r, partial[0]);
  r.finish(5);  // frames 1 (incomplete), 2, 3, 4 (never seen) are lost
  EXPECT_EQ(drain(r), std::vector<std::uint64_t>{0});
  EXPECT_EQ(r.counters().frames_dropped, 4u);
  EXPECT_EQ(r.next_seq(), 5u);
}

TEST_F(ReassemblerTest, AbandonDropsIncompleteFrames) {
  Reassembler r(1, {}, pool_);
  push(r, frame_chunks(0)[0]);
  push(r, frame_chunks(1)[0]);
  r.abandon();
  EXPECT_TRUE(drain(r).empty());
  EXPECT_EQ(r.counters().frames_dropped, 2u);
}

TEST_F(ReassemblerTest, StartsAtTheSendersFirstSequence) {
  Reassembler r(1, {.first_seq = 1000}, pool_);
  EXPECT_EQ(push(r, frame_chunks(999)[0]), ChunkResult::late);
  for (const auto& chunk : frame_chunks(1000)) push(r, chunk);
  EXPECT_EQ(drain(r), std::vector<std::uint64_t>{1000});
  EXPECT_EQ(r.counters().frames_dropped, 0u);
}

TEST_F(ReassemblerTest, HostileSequenceJumpIsRefused) {
  Reassembler r(1, {.max_seq_ahead = 1024}, pool_);
  EXPECT_EQ(push(r, frame_chunks(std::uint64_t{1} << 40)[0]), ChunkResult::inconsistent);
  EXPECT_EQ(r.frames_in_flight(), 0u);
  EXPECT_EQ(r.counters().frames_dropped, 0u);
}

TEST_F(ReassemblerTest, OversizedFramesAreRefusedBeforeAllocating) {
  Reassembler r(1, {.max_frame_bytes = 4000}, pool_);
  EXPECT_EQ(push(r, frame_chunks(0, 4001)[0]), ChunkResult::too_large);
  EXPECT_EQ(r.frames_in_flight(), 0u);
}

TEST_F(ReassemblerTest, ChunksThatDisagreeWithTheirFrameAreRefused) {
  Reassembler r(1, {}, pool_);
  auto chunks = frame_chunks(0);
  ASSERT_EQ(push(r, chunks[0]), ChunkResult::accepted);

  auto other_size = chunks[1];
  other_size.header.frame_bytes += 1;
  EXPECT_EQ(push(r, other_size), ChunkResult::inconsistent);

  auto other_count = chunks[1];
  other_count.header.chunk_count = 9;
  EXPECT_EQ(push(r, other_count), ChunkResult::inconsistent);

  auto overlapping = chunks[1];  // claims offset 500: would leave a hole and an overlap
  overlapping.header.payload_offset = 500;
  EXPECT_EQ(push(r, overlapping), ChunkResult::inconsistent);

  auto wrong_stride = chunks[2];
  wrong_stride.header.payload_bytes = 900;
  wrong_stride.header.payload_offset = 1800;
  wrong_stride.payload.resize(900);
  EXPECT_EQ(push(r, wrong_stride), ChunkResult::inconsistent);

  auto short_tail = chunks[4];  // last chunk must end at frame_bytes
  short_tail.header.payload_bytes = 400;
  short_tail.payload.resize(400);
  EXPECT_EQ(push(r, short_tail), ChunkResult::inconsistent);

  auto wrong_stream = chunks[1];
  wrong_stream.header.stream_id = 2;
  EXPECT_EQ(push(r, wrong_stream), ChunkResult::inconsistent);

  auto truncated = chunks[1];  // header says 1000 bytes, only 999 arrived
  truncated.payload.pop_back();
  EXPECT_EQ(push(r, truncated), ChunkResult::inconsistent);

  for (std::size_t i = 1; i < chunks.size(); ++i)
    EXPECT_EQ(push(r, chunks[i]), ChunkResult::accepted);
  EXPECT_EQ(drain(r), std::vector<std::uint64_t>{0});
}

TEST_F(ReassemblerTest, LastChunkFirstStillChecksTheTiling) {
  Reassembler r(1, {}, pool_);
  auto chunks = frame_chunks(0);
  ASSERT_EQ(push(r, chunks[4]), ChunkResult::accepted);  // offset 4000 seen before the stride
  auto bad_stride = chunks[0];  // a 900-byte stride would put the tail at 3600, not 4000
  bad_stride.header.payload_bytes = 900;
  bad_stride.payload.resize(900);
  EXPECT_EQ(push(r, bad_stride), ChunkResult::inconsistent);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(push(r, chunks[i]), ChunkResult::accepted);
  EXPECT_EQ(drain(r), std::vector<std::uint64_t>{0});
}

TEST_F(ReassemblerTest, TwoPhaseIntakeKeepsTheBufferAliveWhenTheFrameIsGivenUp) {
  Reassembler r(1, {.max_frames_in_flight = 1}, pool_);
  auto first = frame_chunks(0);
  auto slot = r.begin_chunk(first[0].header, 0);
  ASSERT_EQ(slot.result, ChunkResult::accepted);
  // A chunk of a newer frame arrives on another path while this payload is being read.
  EXPECT_EQ(push(r, frame_chunks(1)[0]), ChunkResult::accepted);
  std::copy(first[0].payload.begin(), first[0].payload.end(), slot.destination.begin());
  EXPECT_EQ(r.commit_chunk(first[0].header, 0), ChunkResult::late);
  EXPECT_EQ(r.counters().frames_dropped, 1u);
}

TEST_F(ReassemblerTest, AnAbortedChunkCanBeResentOnAnotherConnection) {
  Reassembler r(1, {.latency_budget_ns = 1'000'000}, pool_);
  auto chunks = frame_chunks(0);
  // Connection A begins chunk 2, then breaks before its payload arrives.
  ASSERT_EQ(r.begin_chunk(chunks[2].header, 0).result, ChunkResult::accepted);
  EXPECT_EQ(push(r, chunks[2]), ChunkResult::duplicate);  // still being received on A
  r.abort_chunk(chunks[2].header);
  // The sender re-sends it (and the rest) on connection B.
  for (const auto& chunk : chunks) push(r, chunk);
  EXPECT_EQ(drain(r), std::vector<std::uint64_t>{0});
  EXPECT_EQ(r.counters().frames_dropped, 0u);
  r.abort_chunk(chunks[2].header);           // after delivery: harmless
  r.abort_chunk(frame_chunks(7)[0].header);  // never seen: harmless
  EXPECT_EQ(r.counters().frames_completed, 1u);
}

TEST_F(ReassemblerTest, ZeroByteFramesPassThroughTheCopyPath) {
  // Found by the libFuzzer target: an empty frame's destination is null.
  Reassembler r(1, {}, pool_);
  for (const auto& chunk : frame_chunks(0, 0)) EXPECT_EQ(push(r, chunk), ChunkResult::accepted);
  EXPECT_EQ(drain(r), std::vector<std::uint64_t>{0});
}

TEST_F(ReassemblerTest, WithTheHellosChunkSizeAChunkIsCheckedBeforeItsFrameIsAllocated) {
  const ReassemblerConfig config{.chunk_bytes = kChunk};
  auto one_byte_start = frame_chunks(0)[0];  // chunk 0 of 5 claiming 1 byte: a frame for free
  one_byte_start.header.payload_bytes = 1;
  one_byte_start.payload.resize(1);
  auto many_chunks = frame_chunks(1)[0];  // 65535 chunks for a 4,500-byte frame
  many_chunks.header.chunk_count = 65535;
  auto shifted = frame_chunks(2)[1];  // chunk 1 not at 1 x 1000
  shifted.header.payload_offset = 1500;

  // Without the chunk size each of these allocates a frame (even the ones then refused)...
  Reassembler loose(1, {}, pool_);
  for (const auto* chunk : {&one_byte_start, &many_chunks, &shifted}) push(loose, *chunk);
  EXPECT_EQ(loose.frames_in_flight(), 3u);
  // ... with it, none does.
  Reassembler r(1, config, pool_);
  for (const auto* chunk : {&one_byte_start, &many_chunks, &shifted}) {
    EXPECT_EQ(r.begin_chunk(chunk->header, 0).result, ChunkResult::inconsistent);
  }
  EXPECT_EQ(r.frames_in_flight(), 0u);
  EXPECT_EQ(r.counters().rejected_chunks, 3u);
  // Real frames, last chunk first included, still pass.
  for (std::uint64_t seq = 0; seq < 3; ++seq) {
    auto chunks = frame_chunks(seq);
    std::reverse(chunks.begin(), chunks.end());
    for (const auto& chunk : chunks) EXPECT_EQ(push(r, chunk), ChunkResult::accepted);
  }
  for (const auto& chunk : frame_chunks(3, 0)) EXPECT_EQ(push(r, chunk), ChunkResult::accepted);
  EXPECT_EQ(drain(r), (std::vector<std::uint64_t>{0, 1, 2, 3}));
}

// What a tcp reader may read ahead into: exactly the places the following chunks' own headers
// will be given, only while they are missing, never past the frame, and with the frame held.
TEST_F(ReassemblerTest, ChunksAheadAreThePlacesTheirHeadersWillBeGiven) {
  Reassembler r(1, {.chunk_bytes = kChunk}, pool_);
  auto chunks = frame_chunks(0);                         // 5 chunks, the last of 500 bytes
  EXPECT_EQ(push(r, chunks[3]), ChunkResult::accepted);  // already here: not to be read ahead
  auto first = r.begin_chunk(chunks[0].header, 0);
  ASSERT_EQ(first.result, ChunkResult::accepted);
  Reassembler::Lookahead ahead;
  r.chunks_ahead(chunks[0].header, 16, ahead);
  EXPECT_EQ(ahead.frame, first.hold);
  ASSERT_EQ(ahead.chunks.size(), 2u);  // 1 and 2, up to the received 3
  for (const auto& predicted : ahead.chunks) {
    EXPECT_EQ(predicted.frame_seq, 0u);
    auto slot = r.begin_chunk(chunks[predicted.chunk_index].header, 0);
    ASSERT_EQ(slot.result, ChunkResult::accepted);
    EXPECT_EQ(slot.destination.data(), predicted.destination.data());
    EXPECT_EQ(slot.destination.size(), predicted.destination.size());
  }
  // A chunk being received (on another connection) is not a place to read into either.
  Reassembler other_reader(1, {.chunk_bytes = kChunk}, pool_);
  ASSERT_EQ(other_reader.begin_chunk(chunks[0].header, 0).result, ChunkResult::accepted);
  ASSERT_EQ(other_reader.begin_chunk(chunks[2].header, 0).result, ChunkResult::accepted);
  other_reader.chunks_ahead(chunks[0].header, 16, ahead);
  ASSERT_EQ(ahead.chunks.size(), 1u);
  EXPECT_EQ(ahead.chunks[0].chunk_index, 1);

  r.chunks_ahead(chunks[3].header, 16, ahead);  // the short last chunk
  ASSERT_EQ(ahead.chunks.size(), 1u);
  EXPECT_EQ(ahead.chunks[0].chunk_index, 4);
  EXPECT_EQ(ahead.chunks[0].destination.size(), 500u);
  r.chunks_ahead(chunks[3].header, 0, ahead);  // capped
  EXPECT_TRUE(ahead.chunks.empty());
  r.chunks_ahead(chunks[4].header, 16, ahead);  // nothing past the frame
  EXPECT_TRUE(ahead.chunks.empty());
  r.chunks_ahead(frame_chunks(9)[0].header, 16, ahead);  // a frame not begun
  EXPECT_TRUE(ahead.chunks.empty());
  EXPECT_FALSE(ahead.frame);
  // Without the HELLO's chunk size no place is known before its header.
  Reassembler loose(1, {}, pool_);
  auto other = frame_chunks(1);
  ASSERT_EQ(loose.begin_chunk(other[0].header, 0).result, ChunkResult::accepted);
  loose.chunks_ahead(other[0].header, 16, ahead);
  EXPECT_TRUE(ahead.chunks.empty());
}

TEST_F(ReassemblerTest, TheHelloFixesTheBoundsAndWhatASessionReserves) {
  Hello hello;
  hello.feed = FeedDescriptor{Codec::synthetic, 1920, 1080, 30000, 1001, 270'000'000};
  hello.chunk_bytes = 65536;
  hello.first_frame_seq = 77;
  ReassemblerConfig config = reassembler_config(hello);
  EXPECT_EQ(config.first_seq, 77u);
  EXPECT_EQ(config.max_frame_bytes, 1'126'125u);
  EXPECT_EQ(config.chunk_bytes, 65536u);
  config.max_frames_in_flight = 8;
  // 8 frames in flight and one read in progress, each 1,126,125 bytes in 18 chunks, and the
  // chunk states of the 64 frames it remembers once settled.
  EXPECT_EQ(memory_bytes(config, 1), 9u * (1'126'125u + 18u + 512u) + 64u * 18u);
  EXPECT_EQ(
      memory_bytes({.max_frames_in_flight = 0, .max_frame_bytes = 1000, .chunk_bytes = 100}, 0),
      memory_bytes({.max_frames_in_flight = 1, .max_frame_bytes = 1000, .chunk_bytes = 100}, 0));
  // Unknown chunk size: the bookkeeping of 65535 chunks. Absurd frame counts saturate.
  EXPECT_EQ(memory_bytes({.max_frames_in_flight = 1, .max_frame_bytes = 0}, 0),
            65535u + 512u + 64u * 65535u);
  EXPECT_EQ(memory_bytes({.max_frames_in_flight = SIZE_MAX, .max_frame_bytes = kMaxFrameBytes}, 16),
            UINT64_MAX);
  // The largest mtcp window (10 s at 1000 fps) of 64 MiB frames with 16 readers: exact.
  EXPECT_EQ(memory_bytes({.max_frames_in_flight = 10'004,
                          .max_frame_bytes = kMaxFrameBytes,
                          .chunk_bytes = 4u << 20},
                         16),
            10'020ull * (kMaxFrameBytes + 16u + 512u) + 64u * 16u);
}

TEST_F(ReassemblerTest, AFrameNeverHoldsMoreThanItsBoundEvenFromARecycledBuffer) {
  { auto hostile = pool_.acquire(8u << 20); }  // an 8 MiB buffer left idle in the shared pool
  Reassembler r(1, {.max_frame_bytes = 4500, .chunk_bytes = kChunk}, pool_);
  auto slot = r.begin_chunk(frame_chunks(0)[0].header, 0);
  ASSERT_EQ(slot.result, ChunkResult::accepted);
  EXPECT_LE(slot.hold->data.capacity(), 4500u + kFrameSlackBytes);
}

TEST_F(ReassemblerTest, RandomHeadersNeverCrashOrOverrun) {
  Reassembler r(1, {.max_frames_in_flight = 4}, pool_);
  std::mt19937_64 random(3);
  std::vector<std::byte> payload(8192);
  for (int i = 0; i < 20'000; ++i) {
    MessageHeader h;
    h.type = MessageType::chunk;
    h.stream_id = 1;
    h.frame_seq = random() % 16;
    h.frame_bytes = static_cast<std::uint32_t>(random() % 8192);
    h.chunk_count = static_cast<std::uint16_t>(1 + random() % 8);
    h.chunk_index = static_cast<std::uint16_t>(random() % h.chunk_count);
    h.payload_offset = static_cast<std::uint32_t>(random() % 8192);
    h.payload_bytes = static_cast<std::uint32_t>(random() % 2048);
    h.payload_xxh3 = random();
    r.push(h, std::span(payload).first(h.payload_bytes), i);
    while (r.pop(i)) {
    }
  }
  EXPECT_LE(r.frames_in_flight(), 4u);
  const auto& c = r.counters();
  EXPECT_GT(c.rejected_chunks + c.checksum_errors + c.late_chunks + c.duplicate_chunks, 19'000u);
}

}  // namespace
}  // namespace hdstream
