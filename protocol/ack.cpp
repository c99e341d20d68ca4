#include "protocol/ack.hpp"

#include "protocol/byte_order.hpp"
#include "protocol/checksum.hpp"
#include "protocol/handshake.hpp"

namespace hdstream {

void encode_ack(std::uint16_t stream_id, const Ack& ack,
                std::span<std::byte, kAckMessageBytes> out) {
  auto body = out.subspan<kHeaderBytes>();
  ByteWriter w(body);
  w.put<std::uint64_t>(ack.next_frame_seq);
  w.put<std::uint64_t>(ack.chunks_received);
  w.put<std::uint8_t>(ack.subconnection);
  w.put<std::uint8_t>(0);   // reserved
  w.put<std::uint16_t>(0);  // reserved
  w.put<std::uint32_t>(0);  // reserved
  MessageHeader header;
  header.type = MessageType::ack;
  header.stream_id = stream_id;
  header.payload_bytes = static_cast<std::uint32_t>(kAckBodyBytes);
  header.payload_xxh3 = payload_checksum(body);
  encode_header(header, out.subspan<0, kHeaderBytes>());
}

std::optional<Ack> decode_ack(std::span<const std::byte> body) {
  ByteReader r(body);
  Ack ack;
  std::uint8_t reserved8 = 0;
  std::uint16_t reserved16 = 0;
  std::uint32_t reserved32 = 0;
  if (!(r.get(ack.next_frame_seq) && r.get(ack.chunks_received) && r.get(ack.subconnection) &&
        r.get(reserved8) && r.get(reserved16) && r.get(reserved32))) {
    return std::nullopt;
  }
  if (ack.subconnection >= kMaxSubconnections) return std::nullopt;
  return ack;
}

}  // namespace hdstream
