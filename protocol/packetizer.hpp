// Splits a frame into chunks: encoded 48-byte headers plus views of the frame's own bytes, so a
// transport can hand both to one scatter/gather write without copying the payload.
//   std::vector<EncodedChunk> chunks;  packetize(*frame, 64 * 1024, chunks);
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "protocol/frame.hpp"
#include "protocol/wire.hpp"

namespace hdstream {

struct EncodedChunk {
  std::array<std::byte, kHeaderBytes> header;
  std::span<const std::byte> payload;  // points into the frame; valid while the frame lives
};

// Smallest chunk payload that keeps `frame_bytes` within 65535 chunks.
std::uint32_t min_chunk_bytes(std::size_t frame_bytes);

// Replaces `out` with the chunks of `frame`. Every chunk but the last carries `chunk_bytes`
// bytes; an empty frame is one empty chunk. Throws std::invalid_argument when the frame is
// larger than kMaxFrameBytes, chunk_bytes is 0 or above kMaxChunkBytes, or the frame would need
// more than 65535 chunks.
void packetize(const Frame& frame, std::uint32_t chunk_bytes, std::vector<EncodedChunk>& out);

}  // namespace hdstream
