#include "protocol/packetizer.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "protocol/checksum.hpp"

namespace hdstream {

std::uint32_t min_chunk_bytes(std::size_t frame_bytes) {
  return static_cast<std::uint32_t>((frame_bytes + kMaxChunksPerFrame - 1) / kMaxChunksPerFrame);
}

void packetize(const Frame& frame, std::uint32_t chunk_bytes, std::vector<EncodedChunk>& out) {
  const std::size_t frame_bytes = frame.data.size();
  if (frame_bytes > kMaxFrameBytes) {
    throw std::invalid_argument(
        fmt::format("frame of {} bytes exceeds the {} byte limit", frame_bytes, kMaxFrameBytes));
  }
  if (chunk_bytes == 0 || chunk_bytes > kMaxChunkBytes) {
    throw std::invalid_argument(
        fmt::format("chunk size {} outside 1..{}", chunk_bytes, kMaxChunkBytes));
  }
  const std::size_t count = frame_bytes == 0 ? 1 : (frame_bytes + chunk_bytes - 1) / chunk_bytes;
  if (count > kMaxChunksPerFrame) {
    throw std::invalid_argument(fmt::format(
        "frame of {} bytes needs {} chunks of {} bytes; the limit is {} (use chunks of at least {})",
        frame_bytes, count, chunk_bytes, kMaxChunksPerFrame, min_chunk_bytes(frame_bytes)));
  }

  out.resize(count);
  MessageHeader header;
  header.type = MessageType::chunk;
  header.stream_id = frame.stream_id;
  header.frame_seq = frame.seq;
  header.frame_bytes = static_cast<std::uint32_t>(frame_bytes);
  header.chunk_count = static_cast<std::uint16_t>(count);
  header.timestamp_ns = frame.ready_ns;
  const std::span<const std::byte> bytes(frame.data);
  for (std::size_t index = 0; index < count; ++index) {
    const std::size_t offset = index * chunk_bytes;
    const std::size_t length = std::min<std::size_t>(chunk_bytes, frame_bytes - offset);
    auto payload = bytes.subspan(offset, length);
    header.chunk_index = static_cast<std::uint16_t>(index);
    header.payload_offset = static_cast<std::uint32_t>(offset);
    header.payload_bytes = static_cast<std::uint32_t>(length);
    header.payload_xxh3 = payload_checksum(payload);
    encode_header(header, out[index].header);
    out[index].payload = payload;
  }
}

}  // namespace hdstream
