// SRT messages for tests over real libsrt: one message as text, and a HELLO answered by its
// HELLO_ACK. Each waits up to ~5 s (receive() blocks up to 100 ms a call).
//   ASSERT_EQ(test::receive_message(accepted), "hello");
//   std::optional<HelloAck> ack = test::exchange_hello(caller, stream, hello);
//   ASSERT_TRUE(test::send_chunk(caller, chunks[0]));
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "protocol/handshake.hpp"
#include "protocol/packetizer.hpp"
#include "protocol/wire.hpp"
#include "transport/srt/srt_socket.hpp"

namespace hdstream::test {

inline std::optional<std::string> receive_message(SrtSocket& socket) {
  std::array<std::byte, 1500> buffer{};
  std::size_t received = 0;
  SrtIo io = SrtIo::timeout;
  for (int attempt = 0; attempt < 50 && io == SrtIo::timeout; ++attempt) {
    io = socket.receive(buffer, received);
  }
  if (io != SrtIo::ok) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(buffer.data()), received);
}

// Sends `hello` as stream `stream`'s HELLO, then the HELLO_ACK within 5 s; nullopt when the
// receiver closed the connection unheard or said nothing.
inline std::optional<HelloAck> exchange_hello(SrtSocket& socket, std::uint16_t stream,
                                              const Hello& hello) {
  if (socket.send(encode_hello(stream, hello)) != SrtIo::ok) return std::nullopt;
  std::array<std::byte, 2048> buffer{};
  std::size_t received = 0;
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
       std::chrono::steady_clock::now() < deadline;) {
    const SrtIo io = socket.receive(buffer, received);
    if (io == SrtIo::closed) return std::nullopt;
    const auto message = std::span<const std::byte>(buffer).first(received);
    MessageHeader header;
    if (io != SrtIo::ok || decode_header(message, header) != HeaderError::none) continue;
    if (header.type != MessageType::hello_ack) continue;
    return decode_hello_ack(message.subspan(kHeaderBytes));
  }
  return std::nullopt;
}

// One chunk (header and payload) as one SRT message, as the srt transport sends it.
inline bool send_chunk(SrtSocket& socket, const EncodedChunk& chunk) {
  std::vector<std::byte> packet(chunk.header.begin(), chunk.header.end());
  packet.insert(packet.end(), chunk.payload.begin(), chunk.payload.end());
  return socket.send(packet) == SrtIo::ok;
}

}  // namespace hdstream::test
