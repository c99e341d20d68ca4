// libFuzzer target: the session control decoders (HELLO, HELLO_ACK, END, CHALLENGE, AUTH) on
// arbitrary bodies, whole control messages through decode_header, and the SRT stream id a
// listener reads from any caller. Whatever decodes must re-encode to something that decodes to
// the same value.
#include <cstddef>
#include <cstdint>
#include <span>

#include "protocol/auth.hpp"
#include "protocol/checksum.hpp"
#include "protocol/handshake.hpp"
#include "protocol/wire.hpp"
#include "transport/srt/srt_stream_id.hpp"

namespace {

template <typename T, typename Decode, typename Encode>
void round_trip(std::span<const std::byte> body, Decode decode, Encode encode) {
  using namespace hdstream;
  auto value = decode(body);
  if (!value) return;
  const auto message = encode(*value);
  MessageHeader header;
  if (decode_header(message, header) != HeaderError::none) __builtin_trap();
  auto again = decode(std::span(message).subspan(kHeaderBytes));
  if (!again || !(*again == *value)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hdstream;
  if (size < 1) return 0;
  auto body = std::as_bytes(std::span(data + 1, size - 1));
  switch (data[0] % 7) {
    case 0:
      round_trip<Hello>(body, decode_hello, [](const Hello& h) { return encode_hello(1, h); });
      if (auto hello = decode_hello(body)) (void)validate_hello(*hello);
      break;
    case 1:
      round_trip<HelloAck>(body, decode_hello_ack,
                           [](const HelloAck& a) { return encode_hello_ack(1, a); });
      break;
    case 2:
      round_trip<End>(body, decode_end, [](const End& e) { return encode_end(1, e); });
      break;
    case 3:
      round_trip<Challenge>(body, decode_challenge,
                            [](const Challenge& c) { return encode_challenge(1, c); });
      break;
    case 4:
      round_trip<AuthResponse>(body, decode_auth,
                               [](const AuthResponse& a) { return encode_auth(1, a); });
      break;
    case 6: {
      // SRTO_STREAMID as libsrt hands it to the listen callback.
      const std::string_view id(reinterpret_cast<const char*>(data + 1), size - 1);
      if (auto plan = decode_srt_stream_id(id)) {
        auto again = decode_srt_stream_id(encode_srt_stream_id(*plan));
        if (!again || !(*again == *plan)) __builtin_trap();
      }
      break;
    }
    default: {
      // A whole control message as a receiver reads it: header, then a checked body.
      MessageHeader header;
      if (body.size() < kHeaderBytes ||
          decode_header(body.first(kHeaderBytes), header) != HeaderError::none)
        break;
      if (header.type == MessageType::chunk) break;
      auto rest = body.subspan(kHeaderBytes);
      if (rest.size() < header.payload_bytes) break;
      auto payload = rest.first(header.payload_bytes);
      if (payload_checksum(payload) != header.payload_xxh3) break;
      (void)decode_hello(payload);
      (void)decode_hello_ack(payload);
      (void)decode_challenge(payload);
      (void)decode_auth(payload);
      break;
    }
  }
  return 0;
}
