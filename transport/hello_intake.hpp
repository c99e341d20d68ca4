// What every receiver (tcp, mtcp, srt and srt's stripes) makes of a message that should be a
// HELLO, however its wire delivered it: one TCP message (header, then body) or one SRT datagram.
//   auto intake = examine_hello(datagram, TransportKind::srt);
//   if (intake.hello) ... else if (intake.reply) refuse(intake.status, intake.reason);
//   else close(intake.reason);
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "protocol/handshake.hpp"
#include "protocol/wire.hpp"

namespace hdstream {

struct HelloIntake {
  std::uint16_t stream_id = 0;  // the header's
  std::optional<Hello> hello;   // a valid HELLO for the transport
  // When there is no hello: whether to answer with a refusal (the peer spoke our protocol, with
  // `status`); otherwise the connection is simply closed. `reason` says why either way.
  bool reply = false;
  AckStatus status = AckStatus::invalid;
  std::string reason;
};

// A HELLO message's header and body (the payload after the header); `checksum_ok`: the body
// matched the header's checksum. Checks, in order: a HELLO intact, then a body that decodes,
// fields within their bounds (validate_hello), and the transport this listener serves.
HelloIntake examine_hello(const MessageHeader& header, std::span<const std::byte> body,
                          bool checksum_ok, TransportKind transport);

// The same for a message that came as one datagram, header and body (SRT).
HelloIntake examine_hello(std::span<const std::byte> datagram, TransportKind transport);

}  // namespace hdstream
