// Every crash a fuzzer found, as a plain unit test (the input also sits in fuzz/corpus/, where
// the fuzz_replay_* tests run it under the sanitizers).
#include <gtest/gtest.h>

#include "protocol/checksum.hpp"
#include "protocol/reassembler.hpp"

namespace hdstream {
namespace {

// fuzz/corpus/wire_reassembler/crash-zero-byte-frame: a one-chunk frame of zero bytes made
// Reassembler::push call memcpy with a null destination (UBSan: nonnull argument).
TEST(FuzzRegressions, ZeroByteFrameThroughPush) {
  FramePool pool;
  Reassembler reassembler(7, ReassemblerConfig{}, pool);
  MessageHeader header;
  header.type = MessageType::chunk;
  header.stream_id = 7;
  header.frame_seq = 0;
  header.frame_bytes = 0;
  header.chunk_index = 0;
  header.chunk_count = 1;
  header.payload_bytes = 0;
  header.payload_xxh3 = payload_checksum({});
  EXPECT_EQ(reassembler.push(header, {}, 1), ChunkResult::accepted);
  FramePtr frame = reassembler.pop(2);
  ASSERT_TRUE(frame);
  EXPECT_TRUE(frame->data.empty());
}

}  // namespace
}  // namespace hdstream
