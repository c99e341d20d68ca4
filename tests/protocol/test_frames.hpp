// Frames and chunk lists for protocol tests.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "protocol/frame.hpp"
#include "protocol/packetizer.hpp"
#include "protocol/wire.hpp"

namespace hdstream::test {

inline FramePtr random_frame(FramePool& pool, std::uint16_t stream, std::uint64_t seq,
                             std::size_t bytes) {
  FramePtr frame = pool.acquire(bytes);
  frame->stream_id = stream;
  frame->seq = seq;
  // Unsigned arithmetic wraps where a huge (hostile) seq would overflow int64 (UBSan finding).
  frame->ready_ns = static_cast<std::int64_t>(1'000'000'000u + seq * 33'366'667u);
  std::mt19937_64 random(seq * 7919 + stream);
  for (auto& b : frame->data) b = static_cast<std::byte>(random());
  return frame;
}

// A chunk as a receiver sees it: decoded header plus its own copy of the payload.
struct WireChunk {
  MessageHeader header;
  std::vector<std::byte> payload;
};

inline std::vector<WireChunk> chunks_of(const Frame& frame, std::uint32_t chunk_bytes) {
  std::vector<EncodedChunk> encoded;
  packetize(frame, chunk_bytes, encoded);
  std::vector<WireChunk> out;
  for (const auto& chunk : encoded) {
    WireChunk wire;
    decode_header(chunk.header, wire.header);
    wire.payload.assign(chunk.payload.begin(), chunk.payload.end());
    out.push_back(std::move(wire));
  }
  return out;
}

}  // namespace hdstream::test
