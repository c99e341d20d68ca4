#include "transport/hello_intake.hpp"

#include <fmt/format.h>

#include "protocol/checksum.hpp"

namespace hdstream {

HelloIntake examine_hello(const MessageHeader& header, std::span<const std::byte> body,
                          bool checksum_ok, TransportKind transport) {
  HelloIntake intake;
  if (header.type != MessageType::hello || !checksum_ok) {
    intake.reason = fmt::format("expected a HELLO, got {}",
                                checksum_ok ? "another message" : "a corrupted message");
    return intake;
  }
  intake.stream_id = header.stream_id;
  intake.reply = true;
  intake.status = AckStatus::bad_request;
  const auto hello = decode_hello(body);
  if (!hello) {
    intake.reason = "malformed HELLO";
  } else if (intake.reason = validate_hello(*hello); !intake.reason.empty()) {
  } else if (hello->transport != transport) {
    intake.reason = fmt::format("this listener serves {}, not {}", to_string(transport),
                                to_string(hello->transport));
  } else {
    intake.status = AckStatus::accepted;
    intake.hello = hello;
  }
  return intake;
}

HelloIntake examine_hello(std::span<const std::byte> datagram, TransportKind transport) {
  MessageHeader header;
  if (const HeaderError error = decode_header(datagram, header); error != HeaderError::none) {
    return {.reason = fmt::format("expected a HELLO ({})", to_string(error))};
  }
  if (header.payload_bytes != datagram.size() - kHeaderBytes) {
    return {.reason = "expected a HELLO, got a message whose length is not its header's"};
  }
  const auto body = datagram.subspan(kHeaderBytes);
  return examine_hello(header, body, payload_checksum(body) == header.payload_xxh3, transport);
}

}  // namespace hdstream
