// ACK: the mtcp receiver's account of what arrived, sent back on each sub-connection so the
// sender can release its resend buffer (docs/PROTOCOL.md#ack).
//   std::array<std::byte, kAckMessageBytes> out;  encode_ack(stream_id, ack, out);
//   if (auto ack = decode_ack(body)) sender.acknowledge(*ack);
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "protocol/handshake.hpp"
#include "protocol/wire.hpp"

namespace hdstream {

struct Ack {
  // Cumulative over the feed: every frame below this was delivered or given up, so nothing
  // below it needs to be kept for resending.
  std::uint64_t next_frame_seq = 0;
  // Per sub-connection: CHUNK messages read whole on this sub-connection since its HELLO_ACK.
  // TCP delivers in order, so this count names exactly which of the chunks the sender wrote on
  // it have arrived (the first `chunks_received` ones).
  std::uint64_t chunks_received = 0;
  std::uint8_t subconnection = 0;

  bool operator==(const Ack&) const = default;
};

inline constexpr std::size_t kAckBodyBytes = 8 + 8 + 1 + 1 + 2 + 4;
inline constexpr std::size_t kAckMessageBytes = kHeaderBytes + kAckBodyBytes;

// Writes a complete ACK message (header + body) into a fixed buffer: no allocation, so a
// receiver can acknowledge at chunk rate.
void encode_ack(std::uint16_t stream_id, const Ack& ack,
                std::span<std::byte, kAckMessageBytes> out);

// Takes the body (after the header). Shorter bodies yield nullopt; longer ones (a newer
// revision) are accepted and the extra bytes ignored.
std::optional<Ack> decode_ack(std::span<const std::byte> body);

}  // namespace hdstream
