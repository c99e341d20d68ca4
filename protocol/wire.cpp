#include "protocol/wire.hpp"

#include "protocol/byte_order.hpp"

namespace hdstream {

std::string_view to_string(HeaderError error) {
  switch (error) {
    case HeaderError::none: return "ok";
    case HeaderError::truncated: return "truncated header";
    case HeaderError::bad_magic: return "bad magic (not an hdstream peer)";
    case HeaderError::unsupported_version: return "unsupported protocol version";
    case HeaderError::unknown_type: return "unknown message type";
    case HeaderError::bad_chunk_index: return "chunk index out of range";
    case HeaderError::payload_too_large: return "payload length too large";
    case HeaderError::frame_too_large: return "frame length too large";
    case HeaderError::payload_out_of_frame: return "payload extends past the end of its frame";
    case HeaderError::out_of_order: return "not the frame's next chunk, which a tcp session owes";
  }
  return "unknown header error";
}

void encode_header(const MessageHeader& h, std::span<std::byte, kHeaderBytes> out) {
  ByteWriter w(out);
  w.put<std::uint32_t>(kMagic);
  w.put<std::uint8_t>(h.version);
  w.put<std::uint8_t>(static_cast<std::uint8_t>(h.type));
  w.put<std::uint16_t>(h.stream_id);
  w.put<std::uint64_t>(h.frame_seq);
  w.put<std::uint32_t>(h.frame_bytes);
  w.put<std::uint16_t>(h.chunk_index);
  w.put<std::uint16_t>(h.chunk_count);
  w.put<std::uint32_t>(h.payload_offset);
  w.put<std::uint32_t>(h.payload_bytes);
  w.put<std::uint64_t>(static_cast<std::uint64_t>(h.timestamp_ns));
  w.put<std::uint64_t>(h.payload_xxh3);
}

HeaderError decode_header(std::span<const std::byte> in, MessageHeader& h) {
  if (in.size() < kHeaderBytes) return HeaderError::truncated;
  ByteReader r(in.first(kHeaderBytes));
  std::uint32_t magic = 0;
  std::uint8_t type = 0;
  std::uint64_t timestamp = 0;
  r.get(magic);
  if (magic != kMagic) return HeaderError::bad_magic;
  r.get(h.version);
  if (h.version != kProtocolVersion) return HeaderError::unsupported_version;
  r.get(type);
  r.get(h.stream_id);
  r.get(h.frame_seq);
  r.get(h.frame_bytes);
  r.get(h.chunk_index);
  r.get(h.chunk_count);
  r.get(h.payload_offset);
  r.get(h.payload_bytes);
  r.get(timestamp);
  r.get(h.payload_xxh3);
  h.timestamp_ns = static_cast<std::int64_t>(timestamp);

  if (type == 0 || type > kLastMessageType) {
    return HeaderError::unknown_type;
  }
  h.type = static_cast<MessageType>(type);
  if (h.type != MessageType::chunk) {
    return h.payload_bytes > kMaxControlBytes ? HeaderError::payload_too_large : HeaderError::none;
  }
  if (h.chunk_count == 0 || h.chunk_index >= h.chunk_count) return HeaderError::bad_chunk_index;
  if (h.payload_bytes > kMaxChunkBytes) return HeaderError::payload_too_large;
  if (h.frame_bytes > kMaxFrameBytes) return HeaderError::frame_too_large;
  if (std::uint64_t{h.payload_offset} + h.payload_bytes > h.frame_bytes) {
    return HeaderError::payload_out_of_frame;
  }
  return HeaderError::none;
}

}  // namespace hdstream
