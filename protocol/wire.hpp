// The fixed 48-byte header that starts every hdstream message on the wire (docs/PROTOCOL.md).
//   std::array<std::byte, kHeaderBytes> out;  encode_header(h, out);
//   MessageHeader h;  if (decode_header(out, h) == HeaderError::none) ...
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace hdstream {

inline constexpr std::uint32_t kMagic = 0x48445354;  // "HDST"
inline constexpr std::uint8_t kProtocolVersion = 1;
inline constexpr std::size_t kHeaderBytes = 48;

// Upper bounds a receiver enforces before it allocates anything.
inline constexpr std::uint32_t kMaxFrameBytes = 64u << 20;    // 4K v210 is ~22 MB
inline constexpr std::uint32_t kMaxChunkBytes = 4u << 20;
inline constexpr std::uint32_t kMaxControlBytes = 4096;
inline constexpr std::uint32_t kMaxChunksPerFrame = 65535;  // chunk_count is 16 bits

enum class MessageType : std::uint8_t {
  invalid = 0,
  chunk = 1,      // one piece of a frame
  hello = 2,      // sender -> receiver: opens a feed session
  hello_ack = 3,  // receiver -> sender: accepted or refused, with a reason
  end = 4,        // sender -> receiver: feed finished, with the count of frames sent
  feedback = 5,   // receiver -> sender: far-end health (docs/PROTOCOL.md#feedback)
  ack = 6,        // receiver -> sender (mtcp): what arrived, per sub-connection (protocol/ack.hpp)
  challenge = 7,  // receiver -> sender: nonce to answer with the pre-shared key (protocol/auth.hpp)
  auth = 8,       // sender -> receiver: HMAC over the challenge and the HELLO
};
inline constexpr std::uint8_t kLastMessageType = static_cast<std::uint8_t>(MessageType::auth);

struct MessageHeader {
  MessageType type = MessageType::invalid;
  std::uint8_t version = kProtocolVersion;
  std::uint16_t stream_id = 0;
  std::uint64_t frame_seq = 0;
  std::uint32_t frame_bytes = 0;
  std::uint16_t chunk_index = 0;
  std::uint16_t chunk_count = 0;
  std::uint32_t payload_offset = 0;
  std::uint32_t payload_bytes = 0;
  std::int64_t timestamp_ns = 0;  // sender's wall clock when the frame was ready
  std::uint64_t payload_xxh3 = 0;

  bool operator==(const MessageHeader&) const = default;
};

enum class HeaderError : std::uint8_t {
  none = 0,
  truncated,
  bad_magic,
  unsupported_version,
  unknown_type,
  bad_chunk_index,      // chunk_count == 0 or chunk_index >= chunk_count
  payload_too_large,    // beyond kMaxChunkBytes / kMaxControlBytes
  frame_too_large,      // beyond kMaxFrameBytes
  payload_out_of_frame, // payload_offset + payload_bytes > frame_bytes
  out_of_order,         // not the frame's next chunk where a tcp session owes it (MessageReader)
};

std::string_view to_string(HeaderError error);

void encode_header(const MessageHeader& header, std::span<std::byte, kHeaderBytes> out);

// Parses and validates; on error `out` is unspecified. Never reads past `in`.
HeaderError decode_header(std::span<const std::byte> in, MessageHeader& out);

}  // namespace hdstream
